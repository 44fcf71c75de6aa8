BEGIN
{
	@a = count();
	trunc(@a, "x");
}
