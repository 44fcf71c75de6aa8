BEGIN
{
	trace(!"a");
}
