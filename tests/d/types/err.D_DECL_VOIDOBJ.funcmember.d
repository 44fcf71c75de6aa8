/*
 * a member may not have a function type: it has no size, and illumos
 * calls it a void member
 */
struct s { int f(int, char *); };
BEGIN { exit(0); }
