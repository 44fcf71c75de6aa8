/*
 * A fill buffer of 256 bytes: END's 16 are kept, 240 / 16 = 15 of
 * BEGIN's records (a 12-byte header and an int) fit; the 16th fills the
 * buffer and stops tracing, and END still prints.  No drops are
 * reported: the records after the fill are not drops.
 */
#pragma D option quiet
#pragma D option bufpolicy=fill
#pragma D option bufsize=256

BEGIN
{
	printf("%d\n", 1);
}

BEGIN
{
	printf("%d\n", 2);
}

BEGIN
{
	printf("%d\n", 3);
}

BEGIN
{
	printf("%d\n", 4);
}

BEGIN
{
	printf("%d\n", 5);
}

BEGIN
{
	printf("%d\n", 6);
}

BEGIN
{
	printf("%d\n", 7);
}

BEGIN
{
	printf("%d\n", 8);
}

BEGIN
{
	printf("%d\n", 9);
}

BEGIN
{
	printf("%d\n", 10);
}

BEGIN
{
	printf("%d\n", 11);
}

BEGIN
{
	printf("%d\n", 12);
}

BEGIN
{
	printf("%d\n", 13);
}

BEGIN
{
	printf("%d\n", 14);
}

BEGIN
{
	printf("%d\n", 15);
}

BEGIN
{
	printf("%d\n", 16);
}

BEGIN
{
	printf("%d\n", 17);
}

BEGIN
{
	printf("%d\n", 18);
}

BEGIN
{
	printf("%d\n", 19);
}

BEGIN
{
	printf("%d\n", 20);
}

END
{
	printf("end\n");
}
