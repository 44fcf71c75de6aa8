/* an inline may not take the name of a subroutine */
inline int strlen = 3;
BEGIN { exit(0); }
