/* @@args: -q -x bufsize=24 */
/*
 * A record of exactly the buffer's size fits: 12 bytes of header and
 * three 4-byte values (printf( )'s two and exit( )'s) in 24 bytes.
 */
BEGIN
{
	printf("%d %d\n", 5, 6);
	exit(0);
}
