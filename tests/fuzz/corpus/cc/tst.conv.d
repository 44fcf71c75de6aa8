#pragma D option quiet

BEGIN
{
	printf("%d %i %u %x %X %o %c %s %%\n", -1, 2, 3, 255, 255, 8, 65,
	    "str");
	exit(0);
}
