/*
 * Under the fill policy END's records (3 x 24 bytes) must fit in the
 * buffer (64 bytes): dtrace refuses to start.
 */
#pragma D option bufpolicy=fill
#pragma D option bufsize=64

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
