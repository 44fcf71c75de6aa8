BEGIN
{
	trace(stackdepth);
}
