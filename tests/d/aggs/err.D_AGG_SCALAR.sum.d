BEGIN
{
	@a = sum("x");
}
