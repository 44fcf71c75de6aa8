/* @@args: -q -x bufsize=32 */
/*
 * A buffer holds the program's largest record (16 bytes of header, 8
 * for the value and 8 for exit's here): dtrace(1)'s own ERROR
 * reporter, whose record is larger, does not make it too small.
 */
BEGIN
{
	printf("%d\n", 7);
	exit(0);
}
