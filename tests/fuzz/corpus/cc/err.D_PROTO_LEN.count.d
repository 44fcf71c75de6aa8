BEGIN
{
	@a = count(1);
}
