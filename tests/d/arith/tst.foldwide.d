/*
 * A constant expression is folded in 64 bits and keeps them, as illumos
 * folds: an int times an int that overflows int is still the whole
 * product where 64 bits of it are used (an aggregation, a cast to a
 * wider type, a comparison), and a 4-byte record of it keeps the low
 * bytes.
 */
#pragma D option quiet
BEGIN
{
	@total = sum(2000000000 * 3);
	printf("%d %d %d\n", (long)(2000000000 * 3), 2000000000 * 3,
	    2000000000 * 3 > 5000000000);
	printa("%@d\n", @total);
	exit(0);
}
