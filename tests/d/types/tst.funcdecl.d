/* C-style function declarations, as headers have them, are legal */
#pragma D option quiet
extern int getv(void);
extern char *name(int, ...);
extern int vlog(...);
int (*fp)(int);
BEGIN { printf("%d\n", fp == 0); exit(0); }
