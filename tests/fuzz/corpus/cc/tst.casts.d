#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", (unsigned char)-1, (char)257, (short)70000,
	    (int)4294967297);
	x = 300;
	printf("%d %d %u\n", (char)x, (unsigned char)x, (unsigned int)-x);
	exit(0);
}
