/*
 * Under the fill policy END's records (3 x 20 bytes) must fit in the
 * buffer (56 bytes): dtrace refuses to start.
 */
#pragma D option bufpolicy=fill
#pragma D option bufsize=56

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
