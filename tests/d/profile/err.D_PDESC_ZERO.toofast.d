/* an interval below 200 microseconds makes no probe: nothing matches */
profile:::tick-100us
{
	exit(0);
}
