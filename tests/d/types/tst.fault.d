/* A load from an address that is not DIF memory is a fault, not a read. */
#pragma D option quiet

BEGIN
{
	trace(*(int *)8);
}

BEGIN
{
	printf("still tracing\n");
	exit(0);
}
