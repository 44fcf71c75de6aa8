/* @@args: -x droptags */
#pragma D option quiet
#pragma D option dynvarsize=720

/* Room for nine elements of ten: one drop, in the singular. */
BEGIN
{
	a[0] = 1; a[1] = 1; a[2] = 1; a[3] = 1; a[4] = 1;
	a[5] = 1; a[6] = 1; a[7] = 1; a[8] = 1; a[9] = 1;
	printf("%d %d\n", a[8], a[9]);
	exit(0);
}
