BEGIN
{
	printf("%d\n", "a");
}
