/* @@args: -x version=1.7 */
/* toupper() came with D 1.8: under 1.7 it is an undefined function */
BEGIN
{
	trace(toupper("abc"));
	exit(0);
}
