/*
 * A record larger than the principal buffer (execname's 256 bytes and
 * more in 128): "Enabling exceeds size of buffer".
 */
#pragma D option bufsize=128
BEGIN
{
	trace(execname);
	exit(0);
}
