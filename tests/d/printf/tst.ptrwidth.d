/* @@args: -q */
/* the '?' flag pads to the width of a pointer: 16 in LP64 */
BEGIN
{
	printf("[%?x]\n", 0x1234);
	printf("[%-?d]\n", -5);
	printf("[%?s]\n", "ab");
	exit(0);
}
