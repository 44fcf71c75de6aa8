#pragma D option quiet

BEGIN
{
	x = 5;
	printf("%d %d %d %d\n", -x, +x, !x, !!x);
	exit(0);
}
