#pragma D option quiet
#pragma D option bufsize=40
#pragma D option switchrate=10ms

int done;

/*
 * Records are rounded to 4 bytes, not 8: a clause of one int printf()
 * (16-byte header and 4 bytes) and another of exit() (the same) fill
 * 40 bytes exactly, with no drop (8-byte rounding made it 48).
 */
tick-10ms
/!done/
{
	printf("%d\n", 7);
}

tick-10ms
/!done/
{
	done = 1;
	exit(0);
}
