BEGIN
{
	x = 1;
	x = "s";
}
