/*
 * A translator may define a member twice, as illumos accepts it; the
 * first definition is the one used.
 */
#pragma D option quiet
struct in { int a; int b; };
struct out { int x; };
translator struct out < struct in *P > { x = P->a; x = P->b; };
BEGIN
{
	this->p = (struct in *)alloca(sizeof (struct in));
	this->p->a = 1;
	this->p->b = 2;
	printf("%d\n", xlate <struct out> (this->p).x);
	exit(0);
}
