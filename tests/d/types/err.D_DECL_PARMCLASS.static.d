/* a parameter may have no storage class but register */
long lookup(const char *, static long);

BEGIN
{
	exit(0);
}
