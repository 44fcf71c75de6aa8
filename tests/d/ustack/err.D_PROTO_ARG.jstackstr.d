BEGIN
{
	jstack(5, "x");
}
