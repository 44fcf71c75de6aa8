BEGIN
{
	trace((int)"a");
}
