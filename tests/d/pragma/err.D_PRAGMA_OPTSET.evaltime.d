/* evaltime is exec, preinit, postinit or main */
#pragma D option evaltime=soon

BEGIN
{
	exit(0);
}
