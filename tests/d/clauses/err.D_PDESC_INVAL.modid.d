/* @@args: -m 31 */
BEGIN
{
	exit(0);
}
