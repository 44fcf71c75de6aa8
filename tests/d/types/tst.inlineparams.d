/*
 * An inline with parameters is used like an associative array: each
 * argument, converted to its parameter's type, takes the parameter's
 * place in the expression, and the result has the inline's type.
 */
#pragma D option quiet
inline int span[int lo, int hi] = hi - lo + 1;
inline unsigned char low8[uint64_t v] = v;
inline string pick[int c, string a, string b] = c ? a : b;
BEGIN
{
	x = 41;
	printf("%d %d\n", span[3, 10], span[x, x + 9]);
	printf("%d %d\n", low8[0x1234], low8[-1]);
	printf("%s %s\n", pick[1, "yes", "no"], pick[x == 0, "yes", "no"]);
	exit(0);
}
