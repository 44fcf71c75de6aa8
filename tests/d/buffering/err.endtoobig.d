/*
 * Under the fill policy END's records (3 x 16 bytes: a 12-byte header
 * and an int) must fit in the buffer (40 bytes): dtrace refuses to
 * start.
 */
#pragma D option bufpolicy=fill
#pragma D option bufsize=40

END
{
	printf("%d\n", 1);
}

END
{
	printf("%d\n", 2);
}

END
{
	printf("%d\n", 3);
}
