/* profile probes have no typed arguments either (arg0 is the PC) */
profile:::tick-10hz
{
	x = args[1] + 1;
	exit(0);
}
