/* The key count is fixed by the first use. */
BEGIN
{
	a[1, 2] = 3;
	a[1] = 4;
}
