BEGIN
{
	printa(@a);
}
