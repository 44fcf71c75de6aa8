BEGIN
{
	nosuchfunc(1);
}
