BEGIN
{
	jstack(-3);
}
