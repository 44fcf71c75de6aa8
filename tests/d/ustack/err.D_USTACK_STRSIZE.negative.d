BEGIN
{
	ustack(5, -1);
}
