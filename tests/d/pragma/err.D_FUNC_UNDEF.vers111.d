/* @@args: -x version=1.10 */
/* strtoll() came with D 1.11 */
BEGIN
{
	trace(strtoll("42"));
	exit(0);
}
