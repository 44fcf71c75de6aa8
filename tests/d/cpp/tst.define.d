/* @@args: -C -DVAL=42 -DTWICE(x)=((x)*2) -DGONE -UGONE */
/*
 * -C runs cpp with the -D and -U options in order; __SUNW_D is defined
 * as in illumos, and words such as linux or unix are left alone.
 */
#pragma D option quiet

#ifdef GONE
#error GONE was undefined by -U
#endif

BEGIN
{
	unix = 3;
	printf("%d %d %d %d\n", VAL, TWICE(VAL), __SUNW_D, unix);
#if defined(__linux) && defined(__x86_64) && defined(_LP64)
	printf("linux x86_64 LP64\n");
#endif
	exit(0);
}
