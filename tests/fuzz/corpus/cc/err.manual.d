/* @@args: -x bufscope=thread -x bufsize=1g -x bufresize=manual */
/* A size the daemon cannot give, and no resizing allowed: refused. */
BEGIN
{
	exit(0);
}
