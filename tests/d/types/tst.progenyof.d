/* BEGIN fires for dtrace itself: a descendant of init and of itself. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", progenyof(1), progenyof($pid),
	    progenyof($ppid), progenyof(-1));
	exit(0);
}
