#pragma D option quiet
#pragma D option dynvarsize=256

/*
 * A dynamic variable space too small for ten elements: three fit, the
 * other seven stores are dropped, counted and reported once.
 */
BEGIN
{
	a[0] = 1; a[1] = 1; a[2] = 1; a[3] = 1; a[4] = 1;
	a[5] = 1; a[6] = 1; a[7] = 1; a[8] = 1; a[9] = 1;
	printf("%d %d %d %d\n", a[0], a[2], a[3], a[9]);
	exit(0);
}
