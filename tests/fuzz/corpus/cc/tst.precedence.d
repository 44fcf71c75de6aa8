#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", 1 + 2 * 3, (1 + 2) * 3, 10 - 4 - 3, 2 * 3 % 4);
	x = 2;
	printf("%d %d %d\n", x + 3 * x, (x + 3) * x, x << 1 + 1);
	exit(0);
}
