/*
 * %Y: nanoseconds since the epoch as a date in local time (the runner
 * sets TZ=UTC), with a width and left-justified.
 */
#pragma D option quiet

BEGIN
{
	printf("%Y\n", (uint64_t)0);
	printf("%Y\n", 1000000000000000000);
	printf("[%30Y]\n", 1234567890123456789);
	printf("[%-22Y]\n", 1234567890123456789);
	exit(0);
}
