/* profile-N has the same 200 microsecond minimum as tick-N */
profile-10000hz
{
	exit(0);
}
