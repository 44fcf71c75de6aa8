/*
 * A variable narrower than 64 bits keeps what its type holds: an int's
 * product that overflows is stored wrapped, by "=" and by "*=", in a
 * global, a thread-local and a clause-local alike.
 */
#pragma D option quiet
int g;
self int t;
this short s;
BEGIN
{
	g = 100000;
	g = g * g;
	self->t = 65536;
	self->t *= 65537;
	this->s = 40000;
	this->s += 0;
	printf("%d %d %d\n", g, self->t, this->s);
	exit(0);
}
