/*
 * Under D 1.0 the string subroutines of 1.1 do not exist: their names
 * are free for the program's own variables.
 */
#pragma D option version=1.0
#pragma D option quiet

int index;
int substr;

BEGIN
{
	index = 7;
	substr = index * 3;
	printf("%d %d\n", index, substr);
	exit(0);
}
