#pragma D option quiet

BEGIN
{
	i = 0;
}

tick-1ms
/i++ == 3/
{
	printf("%d\n", i);
	exit(0);
}
