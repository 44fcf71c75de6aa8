#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d %d\n", 1 < 2, 2 <= 1, 3 > 2, 3 >= 4, 5 == 5,
	    5 != 5);
	x = -1;
	printf("%d %d\n", x < 1, (unsigned int)x < 1);
	exit(0);
}
