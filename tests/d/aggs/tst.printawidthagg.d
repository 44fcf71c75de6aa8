/* @@args: -q */
/* printa( )'s '@' may follow the width: "%6@d" is "%@6d" */
BEGIN
{
	@n["a"] = sum(12);
	@n["bb"] = sum(345);
	printa("%-4s|%6@d|%-6@u|\n", @n);
	exit(0);
}
