#pragma D option quiet

/* '*' and '.*' take the width and precision from arguments; a negative
 * width is the '-' flag, a negative precision none. */
BEGIN
{
	printf("[%*d] [%-*d] [%*d]\n", 6, 42, 6, 42, -6, 42);
	printf("[%.*d] [%*.*d]\n", 4, 7, 8, 3, 7);
	printf("[%.*s] [%*.*s] [%.*s]\n", 3, "abcdef", 6, 2, "xyz", -1,
	    "whole");
	exit(0);
}
