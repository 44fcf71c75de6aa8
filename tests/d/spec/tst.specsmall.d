/* @@args: -q -x specsize=32 -x droptags */
/*
 * A speculation buffer as small as 32 bytes is allowed: a record that
 * does not fit in it (12 bytes of header and six 4-byte values) is a
 * speculative drop.
 */
BEGIN
{
	s = speculation();
}

BEGIN
{
	speculate(s);
	printf("%d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6);
}

BEGIN
{
	commit(s);
}

BEGIN
{
	exit(0);
}
