#pragma D option quiet
#pragma D option dynvarsize=256

/*
 * Assigning 0 deletes and gives the space back: three elements fit, and
 * after deleting them three others do, with no drop.
 */
BEGIN
{
	a[0] = 1; a[1] = 1; a[2] = 1;
	a[0] = 0; a[1] = 0; a[2] = 0;
	self->x = 0;
	b[0] = 2; b[1] = 2; b[2] = 2;
	printf("%d %d %d\n", a[0], b[0], b[2]);
	exit(0);
}
