BEGIN
{
	trace("a" && 1);
}
