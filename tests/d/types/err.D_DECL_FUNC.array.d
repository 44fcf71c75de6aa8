/* an array of functions */
typedef int fa_t[2](int);
BEGIN { exit(0); }
