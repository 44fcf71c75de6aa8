#pragma D option quiet
#pragma D option strsize=16

BEGIN
{
	printf("%s\n", "quiet");
	exit(0);
}
