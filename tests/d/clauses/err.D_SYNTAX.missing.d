BEGIN
{
	trace(1 +);
}
