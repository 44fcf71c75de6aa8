#pragma D option quiet
/* argN of BEGIN are 0; only args[] is refused there */
BEGIN
{
	printf("%d %d\n", arg0, arg9);
	exit(0);
}
