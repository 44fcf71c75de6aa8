/* freopen( ) is destructive: refused without -w */
BEGIN
{
	freopen("/dev/null");
	exit(0);
}
