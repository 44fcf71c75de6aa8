#pragma D option quiet
/* assigned in an earlier clause, op= may read it */
BEGIN
{
	v = 7;
}

BEGIN
{
	v <<= 2;
	v -= 3;
	printf("%d\n", v);
	exit(0);
}
