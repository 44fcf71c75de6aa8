BEGIN
{
	trace('abcdefghi');
}
