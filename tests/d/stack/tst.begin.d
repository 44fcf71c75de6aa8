/*
 * stack() where there is no kernel stack (BEGIN runs in the daemon for
 * the consumer): an empty stack, a newline alone, as a record and as an
 * aggregation key; empty keys of one depth are one key, printed by %k.
 */
#pragma D option quiet

BEGIN
{
	printf("[");
	stack();
	printf("]\n");
	@a[stack(4), 1] = count();
	@a[stack(4), 1] = count();
	@a[stack(4), 2] = count();
	exit(0);
}

END
{
	printa("<%k> %d %@d\n", @a);
}
