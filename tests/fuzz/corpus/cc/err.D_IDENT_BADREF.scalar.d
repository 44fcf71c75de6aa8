/* A scalar cannot be indexed. */
BEGIN
{
	x = 1;
	x[1] = 2;
}
