/*
 * A clause of only commit(), discard() and statements that record
 * nothing puts no record in the buffer: without -q its firing prints no
 * probe line, and only the committed data shows.
 */
BEGIN
{
	self->s = speculation();
}
BEGIN
{
	speculate(self->s);
	printf("kept %d", 7);
}
BEGIN
{
	n = 1;
	commit(self->s);
}
BEGIN
{
	self->t = speculation();
}
BEGIN
{
	x = 2;
	discard(self->t);
}
END
{
}
BEGIN
{
	exit(0);
}
