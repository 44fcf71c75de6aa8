#pragma D option quiet

/*
 * self-> variables: shared by the clauses of one probe, kept across
 * firings of the same thread (BEGIN and END run in dtrace(1)'s thread,
 * tick in the daemon's timer thread, whose self-> is its own: the tick
 * sees 5 each time, and none of BEGIN's string).  Everything is printed
 * from END: records of different firings may sit on different CPUs.
 */
BEGIN
{
	self->x = 1;
	self->s = "hello";
	i = 0;
	t = 0;
	n = 0;
}

BEGIN
{
	x1 = self->x;
	s1 = self->s;
	self->x++;
	self->x += 10;
}

tick-1ms
/i < 3/
{
	self->t = 5;
	t += self->t;
	n += self->s == "" ? 0 : 1;
	i++;
}

tick-1ms
/i == 3/
{
	exit(0);
}

END
{
	printf("%d %s\n", x1, s1);
	printf("%d %s %d %d %d\n", self->x, self->s, i, t, n);
}
