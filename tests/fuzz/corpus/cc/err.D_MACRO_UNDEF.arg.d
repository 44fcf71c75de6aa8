BEGIN
{
	trace($1);
}
