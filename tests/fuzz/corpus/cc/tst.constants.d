#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d\n", 0x10, 010, 'a', '\n', 1234567890);
	printf("%d %d %d %d\n", sizeof (int), sizeof (long), sizeof (char),
	    sizeof (uint16_t));
	printf("%d %u\n", 4294967296, 0xffffffffffffffff);
	exit(0);
}
