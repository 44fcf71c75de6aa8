/*
 * tick-1ms fires from its own timer thread: count a hundred firings,
 * however long they take, and stop on exactly the hundredth.
 */
#pragma D option quiet

profile:::tick-1ms
/++n == 100/
{
	printf("%d\n", n);
	exit(0);
}
