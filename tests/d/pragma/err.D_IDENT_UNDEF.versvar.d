/* @@args: -x version=1.1 */
/* ucaller came with D 1.2: under 1.1 it is no variable */
BEGIN
{
	trace(ucaller);
	exit(0);
}
