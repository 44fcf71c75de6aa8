#pragma D option quiet
#pragma D option strsize=24

/* As in illumos, an empty string is not printable: a hex dump. */
BEGIN
{
	trace("");
	exit(0);
}
