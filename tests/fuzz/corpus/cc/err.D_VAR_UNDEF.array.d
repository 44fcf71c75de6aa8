/* An associative array read before any assignment. */
BEGIN
/a[1] == 0/
{
	exit(0);
}
