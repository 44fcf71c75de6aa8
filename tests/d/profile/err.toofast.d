/* intervals below 200 microseconds are refused, not silently ignored */
profile:::tick-100us
{
	exit(0);
}
