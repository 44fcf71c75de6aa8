BEGIN
{
	printf(1);
}
