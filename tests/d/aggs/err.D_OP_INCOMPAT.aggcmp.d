/* nor to compare with */
BEGIN
{
	@calls = count();
}

BEGIN
/@calls > 2/
{
	exit(0);
}
