/* @@args: -x bufscope=thread */
/*
 * A ring of 1k in bufscope=thread: tick fires on one daemon thread, so
 * one buffer takes every record whatever CPU it ran on.  Records are 16
 * bytes: 1024 / 16 = 64 survive, the newest: exit()'s and 137 .. 199.
 */
#pragma D option quiet
#pragma D option bufpolicy=ring
#pragma D option bufsize=1k

tick-1ms
{
	printf("%d\n", i++);
}

tick-1ms
/i == 200/
{
	exit(0);
}
