#pragma D option quiet
/*
 * NULL is the integer constant 0 (sizeof 4, as in illumos), which is
 * also the null pointer and the string that is not there.
 */
BEGIN
{
	v = NULL;
	cp = (char *)alloca(8);
	printf("%d %d %d\n", sizeof (NULL), sizeof (v), NULL + 7);
	printf("%d", cp == NULL);
	cp = NULL;
	printf(" %d", cp == NULL);
	printf(" %d\n", strstr("dtrace", "x") != NULL);
	exit(0);
}
