/*
 * A clause-local struct is written in place, member by member, and keeps
 * its value in the later clauses of the same firing; it is zeroed for
 * the next firing.
 */
#pragma D option quiet
struct pt { int x; char c; short y; };
this struct pt p;
BEGIN { this->p.x = 7; this->p.c = 'k'; this->p.y = -3; }
BEGIN { this->p.y *= 2; printf("%d %c %d\n", this->p.x, this->p.c, this->p.y); }
tick-1ms { printf("%d %d\n", this->p.x, this->p.y); exit(0); }
