/* @@args: -x version=1.8.1 */
/* print() came with D 1.9 */
BEGIN
{
	print(7);
	exit(0);
}
