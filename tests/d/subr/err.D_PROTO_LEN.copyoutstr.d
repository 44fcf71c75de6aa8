/* copyoutstr( ) with wrong number of arguments */
BEGIN { copyoutstr("a", 0); }
