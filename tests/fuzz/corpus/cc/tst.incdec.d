#pragma D option quiet

BEGIN
{
	i = 5;
	printf("%d ", i++);
	printf("%d ", i);
	printf("%d ", ++i);
	printf("%d ", i--);
	printf("%d ", --i);
	printf("%d\n", i);
	exit(0);
}
