/* @@args: -x bufscope=thread -x bufsize=1g */
/*
 * bufscope=thread gives each thread's buffer at most half of the 1g a
 * consumer may have: two switch halves of 1g are lowered to 256m.
 */
#pragma D option quiet

BEGIN
{
	printf("ok\n");
	exit(0);
}
