/*
 * Assigning 0 frees a thread-local or an associative array element of
 * any type: a string, a struct; it then reads as empty.
 */
#pragma D option quiet
struct p { int a; int b; };
self struct p sp;
struct p ap[int];
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
	printf("[%s] %d %d\n", self->s, self->sp.b, ap[1].a);
	exit(0);
}
this struct p v;
