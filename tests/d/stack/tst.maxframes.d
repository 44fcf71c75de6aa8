/* @@args: -x maxframes=3 -x stackframes=7 */
/*
 * maxframes caps stack(), with or without a count: both keys are three
 * frames deep, so that one aggregation takes both.
 */
#pragma D option quiet

BEGIN
{
	@[stack()] = count();
	@[stack(9)] = count();
	exit(0);
}

END
{
	printa("%k|%@d\n", @);
}
