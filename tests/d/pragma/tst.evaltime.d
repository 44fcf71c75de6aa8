/* every evaltime value is accepted by #pragma D option */
#pragma D option evaltime=exec
#pragma D option evaltime=preinit
#pragma D option evaltime=main
#pragma D option evaltime=postinit
#pragma D option quiet

BEGIN
{
	printf("ok\n");
	exit(0);
}
