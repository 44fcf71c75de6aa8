/* an integer other than 0 is not a pointer */
BEGIN { copyinto(arg0, 4, arg1); }
