/*
 * errno is the C errno of the thread that fired a pid probe; BEGIN and
 * END fire in no traced thread: 0 (tests/daemon/errno.sh traces one).
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d\n", errno, errno == 0);
	exit(0);
}

END
{
	printf("%d\n", errno);
}
