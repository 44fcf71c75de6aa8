/* an aggregation no clause assigns is unknown */
BEGIN
{
	@nowhere;
}
