/* an aggregation on its own is a statement with no effect */
BEGIN
{
	@total = sum(3);
	@total;
}
