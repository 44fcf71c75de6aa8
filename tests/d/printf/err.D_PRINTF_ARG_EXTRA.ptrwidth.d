/* %? is the width of a pointer, not a conversion: one value too many */
BEGIN
{
	printf("%?x\n", 10, 11);
}
