BEGIN
{
	normalize(@nosuch, 2);
}
