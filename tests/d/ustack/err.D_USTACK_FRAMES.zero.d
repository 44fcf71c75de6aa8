BEGIN
{
	ustack(0);
}
