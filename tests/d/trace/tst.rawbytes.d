#pragma D option quiet
#pragma D option rawbytes
#pragma D option strsize=20

/* -x rawbytes: a string is shown as its bytes. */
BEGIN
{
	trace("rawbytes\tdump");
	exit(0);
}
