/* @@args: -C -Xs */
/*
 * -X s: cpp in K&R mode, where __STDC__ is not defined (with the
 * default, -X a, it is).
 */
#pragma D option quiet

BEGIN
{
#ifdef __STDC__
	printf("ISO\n");
#else
	printf("K&R\n");
#endif
	exit(0);
}
