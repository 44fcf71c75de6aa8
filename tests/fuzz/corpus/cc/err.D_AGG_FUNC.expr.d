BEGIN
{
	x = count();
}
