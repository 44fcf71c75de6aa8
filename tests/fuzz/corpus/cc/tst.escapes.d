#pragma D option quiet

BEGIN
{
	printf("a\tb\\c\"d\101\x42\n");
	exit(0);
}
