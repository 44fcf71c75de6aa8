/*
 * A constant ends where its digits and suffix end: "7days" is the
 * constant 7 and the identifier days, a syntax error here, not a
 * constant with a bad digit.
 */
BEGIN
{
	x = 7days;
	exit(0);
}
