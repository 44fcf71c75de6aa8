BEGIN
{
	clear(@nosuch);
}
