BEGIN
{
	trace($$2);
}
