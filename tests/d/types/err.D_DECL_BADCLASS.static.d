/* C's storage classes that D has no use for */
static int total;

BEGIN
{
	total = 1;
	exit(0);
}
