/*
 * A probe id that no probe has is an invalid description.
 */
4000000
{
	exit(0);
}
