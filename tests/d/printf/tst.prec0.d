/* @@args: -q */
/* a precision of 0, written or from ".*", is no precision */
BEGIN
{
	n = 0;
	printf("[%.0s] [%.1s]\n", "word", "word");
	printf("[%6.*s] [%.*s]\n", n, "word", n + 2, "word");
	printf("[%.0d] [%.0x]\n", 0, 255);
	exit(0);
}
