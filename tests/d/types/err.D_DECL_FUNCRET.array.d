/* a function may not return an array */
typedef int f_t(int)[3];
BEGIN { exit(0); }
