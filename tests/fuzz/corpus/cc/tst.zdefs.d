/* With zdefs, a description may name no probe; the others still fire. */
#pragma D option zdefs
#pragma D option quiet

nosuchprovider:::nosuchprobe,
BEGIN
{
	printf("fired\n");
	exit(0);
}
