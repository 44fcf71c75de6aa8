/* trace() of every integer size, signed and unsigned: illumos prints 8
 * and 4 bytes signed, 2 and 1 bytes unsigned, in fixed columns. */
BEGIN
{
	trace((char)-1);
	trace((unsigned char)200);
	trace((short)-1);
	trace((unsigned short)65535);
	trace((int)-1);
	trace((unsigned int)4294967295);
	trace((long long)-1);
	trace((unsigned long long)18446744073709551615ULL);
	trace(0);
	exit(0);
}
