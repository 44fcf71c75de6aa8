/*
 * An inline may be of struct type when its expression is a value of
 * that type, as a translation is; its members are read as the
 * translation's, and an inline with parameters may translate too.
 */
#pragma D option quiet
struct pair {
	int lo;
	int hi;
};
translator struct pair < int N > {
	lo = N - 1;
	hi = N + 1;
};
inline int BASE = 10;
inline struct pair around = xlate < struct pair > (BASE);
inline int width[int n] = xlate < struct pair > (n).hi -
    xlate < struct pair > (n).lo;
BEGIN
{
	printf("%d %d %d\n", around.lo, around.hi, width[5]);
	exit(0);
}
