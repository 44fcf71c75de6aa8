/* @@args: -x droptags */
/* a discarded speculation stays busy until cleaned (cleanrate=1hz) */
#pragma D option quiet
#pragma D option cleanrate=1hz

BEGIN
{
	a = speculation();
	discard(a);
}

BEGIN
{
	b = speculation();
	printf("%d %d\n", a, b);
	exit(0);
}
