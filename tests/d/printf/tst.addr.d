#pragma D option quiet

/* With no symbol to name them, %a and %A print the address in hex as
 * illumos does; %p is the pointer in hex with no prefix. */
BEGIN
{
	printf("[%a] [%A] [%p]\n", 0x401000, 0x7f0000001000, 0x1000);
	printf("[%20a] [%-12A] [%#p]\n", 0x401000, 0x10, 0xff);
	exit(0);
}
