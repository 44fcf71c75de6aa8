#pragma D option quiet
/*
 * printa() of a histogram: %@ prints the whole distribution in place,
 * alone or joined with another aggregation (a missing entry is 0); the
 * entries sort by the histogram's weighted sum.
 */
BEGIN
{
	@q["a"] = quantize(3);
	@q["b"] = quantize(1);
	@c["a"] = count();
	printa("key %s:%@d|\n", @q);
	printa("%s %@d %@d\n", @c, @q);
	printa(@q);
	exit(0);
}
