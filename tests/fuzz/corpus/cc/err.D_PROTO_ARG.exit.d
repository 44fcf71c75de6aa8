BEGIN
{
	exit("a");
}
