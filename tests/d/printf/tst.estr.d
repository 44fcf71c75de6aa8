#pragma D option quiet

/* %S: the string with C escapes for what is not printable. */
BEGIN
{
	printf("[%S]\n", "tab\there \"q\" back\\slash nl\n bell\a");
	printf("[%S]\n", "\001\033 x\177");
	printf("[%10S] [%-10S] [%.3S]\n", "a\tb", "a\tb", "a\tb");
	printf("[%s]\n", "plain");
	exit(0);
}
