/*
 * ++ and -- declare a new global as "=" does: an int that starts at 0.
 * (The compound assignments do not: err.D_VAR_UNDEF.compound.d.)
 */
#pragma D option quiet

BEGIN
{
	n++;
	++n;
	m = 3;
	d--;
	printf("%d %d %d\n", n, m, d);
	exit(0);
}
