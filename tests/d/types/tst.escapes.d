/*
 * The escapes D knows, as illumos: \\ and \" and the C letters, octal
 * and hex; any other (\' and \? too) keeps its backslash.
 */
#pragma D option quiet
BEGIN
{
	printf("[%s] [%s]\n", "q\"b\\s\'a\?z\c", "\x41\102\t|");
	printf("%d %d %d %d\n", '\\', '\"', '\'', '\?');
	exit(0);
}
