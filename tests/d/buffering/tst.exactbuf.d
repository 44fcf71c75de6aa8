/* @@args: -q -x bufsize=24 */
/*
 * A record of exactly the buffer's size fits: 16 bytes of header and
 * two 4-byte values (printf( )'s and exit( )'s) in 24 bytes.
 */
BEGIN
{
	printf("%d\n", 5);
	exit(0);
}
