/* @@args: -w -q */
/*
 * freopen( ) sends the output to a file (here /dev/null) and
 * freopen("") brings it back; a file that cannot be opened (a
 * directory) is reported and the output stays where it was.
 */
BEGIN
{
	printf("shown 1\n");
	freopen("/dev/%s", "null");
	printf("hidden\n");
	freopen("/");
	printf("hidden too\n");
	freopen("");
	printf("shown 2\n");
	exit(0);
}
