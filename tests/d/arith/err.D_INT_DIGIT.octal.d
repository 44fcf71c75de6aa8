BEGIN
{
	trace(09);
}
