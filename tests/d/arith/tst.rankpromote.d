/*
 * Arithmetic on narrow integers takes the type of the operand of greater
 * rank (its width in bits, plus one when unsigned) and wraps in it, as
 * illumos types such expressions: no promotion to int.  An unsigned
 * char and a signed char sum to an unsigned char, two shorts to a short,
 * an unsigned short and an int to an int; a constant is an int.
 */
#pragma D option quiet
unsigned char uc;
signed char sc;
short s;
unsigned short us;
int i;
BEGIN
{
	uc = 250;
	sc = 10;
	s = 30000;
	us = 65535;
	i = 7;
	printf("%d %d\n", uc + sc, sc - uc);
	printf("%d %d\n", s + s, us + s);
	printf("%d %d %d\n", us + i, uc + 10, sc * sc);
	printf("%d\n", (uc + sc) == 4);
	exit(0);
}
