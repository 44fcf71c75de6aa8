/* void is a parameter list alone */
typedef int g_t(int, void);
BEGIN { exit(0); }
