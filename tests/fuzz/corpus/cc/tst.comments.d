#pragma D option quiet

/*
 * A comment spanning
 * lines.
 */
BEGIN /* here */
{
	/* and here */
	printf("%d\n", 1 /* inline */ + 1);
	exit(0);
}
