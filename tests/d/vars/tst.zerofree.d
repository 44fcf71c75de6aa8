/*
 * Assigning 0 frees a thread-local or an associative array element of
 * any type: a string, a struct.  It is then absent, NULL as in illumos:
 * a string compares as "", and a member read through it is the fault
 * "invalid address (0x0)".
 */
#pragma D option quiet
struct p { int a; int b; };
self struct p sp;
struct p ap[int];
int faults;
BEGIN
{
	self->s = "held";
	this->v.a = 3;
	this->v.b = 4;
	self->sp = this->v;
	ap[1] = this->v;
	printf("[%s] %d %d\n", self->s, self->sp.b, ap[1].a);
	self->s = 0;
	self->sp = 0;
	ap[1] = 0;
	printf("%d %d\n", self->s == NULL, self->s == "");
}
this struct p v;

BEGIN
{
	trace(self->sp.b);
}

BEGIN
{
	trace(ap[1].a);
}

ERROR
{
	printf("fault %d at %d\n", arg4, arg5);
}

BEGIN
{
	exit(0);
}
