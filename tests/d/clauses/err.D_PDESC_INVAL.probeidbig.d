/*
 * A probe id past 32 bits exceeds the maximum probe id.
 */
4294967296
{
	exit(0);
}
