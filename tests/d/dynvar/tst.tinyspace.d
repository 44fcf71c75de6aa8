/*
 * However small dynvarsize is, its space holds one variable, as illumos
 * rounds dynvarsize up to one chunk: the first thread-local is stored,
 * storing 0 to others allocates nothing, the next one is a drop, and a
 * freed variable makes room for another.
 */
#pragma D option quiet
#pragma D option dynvarsize=3
BEGIN
{
	self->a = 7;
	self->b = 0;
	self->c = 0;
	printf("%d %d %d\n", self->a, self->b, self->c);
	self->d = 9;
	printf("%d\n", self->d);
	self->a = 0;
	self->d = 11;
	printf("%d %d\n", self->a, self->d);
	exit(0);
}
