/* @@args: -q -x bufsize=24 */
/*
 * A buffer holds the program's largest record (12 bytes of header, 4
 * for the value and 4 for exit's here: 20 in 24): dtrace(1)'s own
 * ERROR reporter, whose record is larger (52), does not make it too
 * small.
 */
BEGIN
{
	printf("%d\n", 7);
	exit(0);
}
