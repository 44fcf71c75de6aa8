/* @@args: -x version=1.11 */
/*
 * D 1.11 has every identifier the err.*.vers* programs are refused:
 * each one's output, and curpsinfo's translator, which uses substr()
 * and alloca() whatever the program's version.
 */
#pragma D option quiet

BEGIN
{
	printf("%s %s %d\n", toupper("abc"), tolower("DeF"), strtoll("42"));
	printf("%s\n", json("{\"a\":{\"b\":5}}", "a.b"));
	@s = stddev(3);
	@l = llquantize(5, 10, 0, 2, 10);
	printf("%d %s\n", ucaller == 0, curpsinfo->pr_fname);
	exit(0);
}

END
{
	printa("%@d\n", @s);
}
