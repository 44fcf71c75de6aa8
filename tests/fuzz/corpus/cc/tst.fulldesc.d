#pragma D option quiet

dtrace:::BEGIN
{
	printf("ok\n");
}

:::BEGIN
{
	exit(0);
}
