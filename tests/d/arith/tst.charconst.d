#pragma D option quiet

/*
 * Character constants as illumos lexes them: each byte unsigned, and up
 * to eight bytes in one constant, the first the most significant; the
 * type is that of a decimal constant of that value.
 */
BEGIN
{
	printf("%d %d %d\n", '\377', '\xff', '\0');
	printf("%x %x %x\n", 'ab', 'abcd', 'abcdefgh');
	printf("%d %d %d\n", sizeof ('a'), sizeof ('abcd'), sizeof ('abcde'));
	printf("%d %d %d\n", '\\', '\'', '"');
	exit(0);
}
