#pragma D option quiet
#pragma D option rawbytes
#pragma D option strsize=20

/* -x rawbytes: a string is shown as its bytes, strsize and the NUL. */
BEGIN
{
	trace("rawbytes\tdump");
	exit(0);
}
