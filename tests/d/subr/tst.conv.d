/* lltostr(), strtoll() and the byte order conversions. */
#pragma D option quiet

BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", lltostr(0), lltostr(-123),
	    lltostr(9223372036854775807), lltostr(-9223372036854775807 - 1));
	printf("[%s] [%s] [%s] [%s] [%s]\n", lltostr(255, 16), lltostr(8, 8),
	    lltostr(5, 2), lltostr(0, 16), lltostr(35, 36));
	printf("%d %d %d %d %d\n", strtoll("123"), strtoll("-42"),
	    strtoll("  17xyz"), strtoll("ff", 16), strtoll("0x1F", 16));
	printf("%d %d %d\n", strtoll("777", 8), strtoll("z", 36),
	    strtoll("nope"));
	printf("%x %x %x\n", htons(0x1234), htonl(0x12345678),
	    htonll(0x0102030405060708));
	printf("%x %x %x\n", ntohs(0x1234), ntohl(0x12345678),
	    ntohll(0x0102030405060708));
	printf("%x %x\n", htons(0xabcdef), ntohl(0x1122334455));
	exit(0);
}
