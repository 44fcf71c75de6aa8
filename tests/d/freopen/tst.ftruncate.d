/* @@args: -q */
/*
 * ftruncate( ) empties the output file (the runner's stdout is one):
 * only what is printed after it stays.
 */
BEGIN
{
	printf("gone\n");
}

BEGIN
{
	ftruncate();
	printf("kept\n");
	exit(0);
}
