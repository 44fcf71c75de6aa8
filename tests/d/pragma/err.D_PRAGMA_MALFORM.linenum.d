/*
 * A line directive whose number the line count could not go on from is
 * refused (fuzz_cc: the next line's number overflowed an int).
 */
#line 2147483648

BEGIN
{
	exit(0);
}
