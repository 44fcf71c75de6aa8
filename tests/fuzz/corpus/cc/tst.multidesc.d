#pragma D option quiet

BEGIN, END
{
	printf("%s\n", probename);
}

BEGIN
{
	exit(0);
}
