#pragma D option quiet

BEGIN
{
	printf("%d %d\n", $pid > 0, $pid != $ppid);
	exit(0);
}
