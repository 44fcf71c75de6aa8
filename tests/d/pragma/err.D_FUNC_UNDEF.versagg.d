/* @@args: -x version=1.5 */
/* stddev() came with D 1.6: an aggregation of it names no function */
BEGIN
{
	@s = stddev(3);
	exit(0);
}
