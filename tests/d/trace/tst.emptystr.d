#pragma D option quiet
#pragma D option strsize=24

/*
 * As in illumos, an empty string is not printable: a hex dump of its
 * record, strsize characters and the NUL.
 */
BEGIN
{
	trace("");
	exit(0);
}
