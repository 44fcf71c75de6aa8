BEGIN
{
	@a = avg();
}
