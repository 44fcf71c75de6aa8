#pragma D option quiet

/*
 * Constants fold on 64 bits as in illumos: -2 / 2u divides
 * 0xfffffffffffffffe, and the unsigned int record keeps the low half.
 */
BEGIN
{
	printf("%d %d %d %u\n", -7 / 2, -7 % 3, 7 / -2, -2 / 2u);
	x = -7;
	y = 2u;
	printf("%d %d %u\n", x / 2, x % 3, (unsigned int)x / y);
	exit(0);
}
