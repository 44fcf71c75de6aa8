/* A description that names no probe is an error without -Z. */
BEGIN
{
	exit(0);
}

nosuchprovider:::nosuchprobe
{
	exit(1);
}
