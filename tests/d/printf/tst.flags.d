#pragma D option quiet

/* Flags, widths and precisions of the integer conversions. */
BEGIN
{
	printf("[%+d] [% d] [%-6d] [%06d] [%+.4d] [%8.3d]\n", 5, 5, -5, -5,
	    5, -5);
	printf("[%#x] [%#X] [%#o] [%-8x] [%08X] [%.6x]\n", 255, 255, 8, 255,
	    255, 255);
	printf("[%u] [%lu] [%llu] [%hu] [%hhu]\n", -1, -1, -1, -1, -1);
	printf("[%d] [%ld] [%lld] [%hd] [%hhd]\n", -1, -1, -1, 65535, 255);
	printf("[%i] [%5i] [%-5i]\n", 42, 42, 42);
	printf("[%c] [%3c] [%-3c]\n", 68, 84, 88);
	printf("[%%] [%5%]\n");
	exit(0);
}
