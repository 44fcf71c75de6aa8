/*
 * %d and %i of an unsigned argument print it unsigned, whatever its
 * width, as illumos turns the conversion into %u for an unsigned type;
 * a signed one prints signed.  uint, ushort and ulong are the short
 * names of the unsigned types.
 */
#pragma D option quiet
uint64_t big;
ulong l;
uint u;
ushort h;
int64_t neg;
BEGIN
{
	big = -2;
	l = 0xfffffffffffffff0;
	u = -3;
	h = -4;
	neg = -2;
	printf("%d %i %5d|\n", big, l, u);
	printf("%d %d %d\n", h, neg, sizeof (uint));
	exit(0);
}
