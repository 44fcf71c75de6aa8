#pragma D option quiet

BEGIN
{
	printf("%d %d %d\n", 1 << 4, -16 >> 2, 256 >> 4);
	x = -16;
	printf("%d %u\n", x >> 2, (unsigned int)x >> 28);
	l = 1L;
	printf("%d\n", l << 40);
	exit(0);
}
