/* The key types are fixed by the first use. */
BEGIN
{
	a[1, "x"] = 3;
	trace(a["x", 1]);
}
