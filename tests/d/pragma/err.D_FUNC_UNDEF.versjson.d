/* @@args: -x version=1.10 */
/* json() came with D 1.11 */
BEGIN
{
	trace(json("{\"a\":1}", "a"));
	exit(0);
}
