/*
 * profile-N: arg0 is the kernel PC and arg1 the user PC of the sampled
 * thread, so never both are set (a daemon that may not sample with perf
 * fires from timers with both 0; tests/daemon/profile.sh checks the PCs).
 * The runner pins dtraced to one CPU, so one thread fires and the count
 * is exact.
 */
#pragma D option quiet

profile-1ms
/arg0 != 0 && arg1 != 0/
{
	both++;
}

profile-1ms
/++n == 50/
{
	printf("%d %d\n", n, both);
	exit(0);
}
