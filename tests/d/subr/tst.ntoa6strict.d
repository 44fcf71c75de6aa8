#pragma D option quiet

/*
 * inet_ntoa6(addr) writes an IPv4-mapped or -compatible address as its
 * dotted quad, as illumos does; dtrace-utils' inet_ntoa6(addr, strict)
 * with a non-zero strict writes the RFC 1884 form, as inet_ntop() (of
 * AF_INET6, 10 on Linux) does.
 */
uint8_t *a;

BEGIN
{
	a = alloca(16);
	a[10] = 0xff; a[11] = 0xff;
	a[12] = 192; a[13] = 0; a[14] = 2; a[15] = 33;
	printf("%s %s %s %s\n", inet_ntoa6(a),
	    inet_ntoa6(a, 0), inet_ntoa6(a, -5),
	    inet_ntop(10, a));
	a[10] = 0; a[11] = 0;
	printf("%s %s\n", inet_ntoa6(a),
	    inet_ntoa6(a, 1));
	a[12] = 0; a[13] = 0; a[14] = 0; a[15] = 1;
	printf("%s %s\n", inet_ntoa6(a),
	    inet_ntoa6(a, 1));
	a[0] = 0x20; a[1] = 0x01; a[11] = 0xff;
	printf("%s %s\n", inet_ntoa6(a),
	    inet_ntoa6(a, 1));
	exit(0);
}
