#pragma D option quiet
#pragma D option bufsize=56
#pragma D option switchrate=10ms

int done;

/*
 * Records are rounded to 4 bytes, not 8: two clauses of a two-int
 * printf() (a 12-byte header and two 4-byte values: 20 bytes) and one
 * of exit() (16) fill 56 bytes exactly, with no drop (8-byte rounding
 * made it 64).
 */
tick-10ms
/!done/
{
	printf("%d %d\n", 7, 8);
}

tick-10ms
/!done/
{
	printf("%d %d\n", 9, 10);
}

tick-10ms
/!done/
{
	done = 1;
	exit(0);
}
