#pragma D option quiet

/*
 * Count distinct keys: the first use of a key is "new", later ones
 * "old".  Twenty ticks over four keys.
 */
BEGIN
{
	i = 0;
}

tick-1ms
/i < 20/
{
	seen[i % 4]++;
	@n[seen[i % 4] == 1 ? "new" : "old"] = count();
	i++;
}

tick-1ms
/i == 20/
{
	exit(0);
}

END
{
	printa("%s %@d\n", @n);
}
