#pragma D option quiet

/* trace() under -q: the same values with no columns. */
BEGIN
{
	trace((char)-1);
	printf("\n");
	trace((unsigned char)200);
	printf("\n");
	trace((short)-2);
	printf("\n");
	trace((unsigned short)65535);
	printf("\n");
	trace((int)-3);
	printf("\n");
	trace((unsigned int)4294967295);
	printf("\n");
	trace((long long)-4);
	printf("\n");
	trace((unsigned long long)18446744073709551615ULL);
	printf("\n");
	exit(0);
}
