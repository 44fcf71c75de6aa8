BEGIN
{
	@a = trace(1);
}
