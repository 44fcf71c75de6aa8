/*
 * strtok(0, ...) in a later statement resumes in a string literal that
 * lives in an earlier statement's string table.
 */
#pragma D option quiet

BEGIN
{
	a = strtok("one,two,,three", ",");
	b = strtok(0, ",");
	c = strtok(0, ",");
	printf("%s|%s|%s\n", a, b, c);
	exit(0);
}
