#pragma D option quiet

BEGIN
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
	printf("%d %d\n", timestamp > 0, walltimestamp > 0);
	exit(0);
}
