/* @@args: -f 2:main */
/* a probe's id names a whole probe: not a function given with -f */
BEGIN
{
	exit(0);
}
