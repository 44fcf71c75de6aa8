/* An associative array cannot be used without its keys. */
BEGIN
{
	a[1] = 1;
	trace(a);
}
