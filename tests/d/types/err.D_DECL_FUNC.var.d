/* a variable may not have a function type: a pointer may */
int f(int);
BEGIN { exit(0); }
