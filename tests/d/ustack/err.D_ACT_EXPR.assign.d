BEGIN
{
	x = ustack();
}
