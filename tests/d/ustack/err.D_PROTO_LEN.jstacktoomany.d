BEGIN
{
	jstack(5, 2, 1);
}
