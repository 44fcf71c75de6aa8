/* a member may not have a function type */
struct s { int f(int, char *); };
BEGIN { exit(0); }
