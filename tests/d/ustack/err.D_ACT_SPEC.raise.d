BEGIN
{
	speculate(1);
	raise(9);
}
