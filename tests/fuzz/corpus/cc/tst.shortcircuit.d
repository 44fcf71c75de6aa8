#pragma D option quiet

BEGIN
{
	n = 0;
	x = 0 && n++;
	y = 1 || n++;
	z = 1 && n++ == 0;
	printf("%d %d %d %d\n", x, y, z, n);
	exit(0);
}
