BEGIN
{
	x = trace(1);
}
