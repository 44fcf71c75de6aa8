/*
 * jstack() as an aggregation key where there is no user thread: an
 * empty stack, printed by %k as ustack()'s.
 */
#pragma D option quiet

BEGIN
{
	@[jstack(), 7] = count();
	printa("<%k> %d %@d\n", @);
	exit(0);
}
