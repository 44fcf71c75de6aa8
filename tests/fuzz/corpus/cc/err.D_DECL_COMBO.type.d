BEGIN
{
	trace((short long)1);
}
