BEGIN
{
	trunc(1, 2);
}
