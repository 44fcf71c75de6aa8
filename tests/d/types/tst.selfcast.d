/* a cast to the operand's own type, a struct too, is the value itself */
#pragma D option quiet
struct rec { int n; char tag; };
struct rec r;
BEGIN { r.n = 12; r.tag = 'q'; printf("%d %c %d\n", ((struct rec)r).n, ((struct rec)r).tag, (int)r.n); exit(0); }
