BEGIN
{
	trace(curthread);
}
