/*
 * profile-N has no interrupted thread to report: arg0 (kernel PC) and
 * arg1 (user PC) are 0.  The runner pins dtraced to one CPU, so one
 * thread fires and the count is exact.
 */
#pragma D option quiet

profile-1ms
/arg0 == 0 && arg1 == 0/
{
	zero++;
}

profile-1ms
/++n == 50/
{
	printf("%d %d\n", n, zero);
	exit(0);
}
