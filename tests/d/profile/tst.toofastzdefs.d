/* @@args: -Z -q */
/*
 * Under -Z a description of too short an interval is allowed: it
 * matches no probe, so its clause never fires.
 */
profile:::tick-50us
{
	printf("never\n");
}

BEGIN
{
	printf("begin\n");
	exit(0);
}
