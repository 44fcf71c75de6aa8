BEGIN
{
	trunc(@nosuch);
}
