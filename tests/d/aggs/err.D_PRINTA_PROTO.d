BEGIN
{
	printa("%@d\n");
}
