#pragma D option quiet

BEGIN
{
	x = 3;
	printf("%d %d %s\n", x > 2 ? 10 : 20, x < 2 ? 10 : 20,
	    x == 3 ? "three" : "other");
	exit(0);
}
