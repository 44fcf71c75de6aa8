/* an aggregation is no value to add to */
BEGIN
{
	@calls = count();
	x = 1 + @calls;
}
