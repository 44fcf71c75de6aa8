/* a struct, a union and an enum may share a tag: three types */
#pragma D option quiet
struct t { char c; long l; };
union t { char c; int i; };
enum t { T0, T1 };
BEGIN { printf("%d %d %d %d\n", sizeof(struct t), sizeof(union t), sizeof(enum t), T1); exit(0); }
