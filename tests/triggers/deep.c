/*
 * deep: a known deep call chain with big frames, for ustack() under
 * every backend.  Built three ways (tests/local.mk): with frame
 * pointers and CFI (deep), with frame pointers and no CFI of its own
 * (deepfp: the unwinder walks %rbp), without frame pointers (deepnofp:
 * CFI alone).
 *
 *	deep N			main -> down(N) -> ... -> down(0) -> leaf(),
 *				once, then waits for a signal (its stack is
 *				then main's: a later moment's)
 *	deep spin N		the same chain, leaf() spinning forever
 *	deep calls N M		the same chain, leaf() called M times at
 *				its bottom, then exits 0 (a benchmark's)
 *
 * Each down() frame holds DEEP_PAD bytes, so that N of them make a
 * stack of a known size: deeper than a stack copy for a large N.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	DEEP_PAD	256

long	tick(long);
long	leaf(long);
long	down(long);

static volatile int spin;
static long ncalls = 1;

/* Through a volatile pointer: no tail call, no loop, a frame per level. */
static long (*volatile down_p)(long) = down;

__attribute__((noipa)) long
tick(long n)
{
	return n + 1;
}

/* Not a leaf: it has a frame of its own where frame pointers are kept. */
__attribute__((noipa)) long
leaf(long n)
{
	n = tick(n);
	while (spin)
		n = tick(n);
	return n + 99;
}

__attribute__((noipa)) long
down(long n)
{
	volatile char pad[DEEP_PAD];
	long r;

	pad[n % DEEP_PAD] = (char)n;
	if (n == 0) {
		long i;

		for (r = 0, i = 0; i < ncalls; i++)
			r = leaf(n);
	} else
		r = down_p(n - 1);
	return r + pad[n % DEEP_PAD];
}

int
main(int argc, char **argv)
{
	long n;

	if (argc == 3 && strcmp(argv[1], "spin") == 0) {
		spin = 1;
		n = atol(argv[2]);
	} else if (argc == 4 && strcmp(argv[1], "calls") == 0) {
		n = atol(argv[2]);
		ncalls = atol(argv[3]);
		printf("%ld\n", down(n));
		return 0;
	} else
		n = argc > 1 ? atol(argv[1]) : 3;
	printf("%ld\n", down(n));
	fflush(stdout);
	/* a later moment: main's stack, nothing of down()'s */
	pause();
	return 0;
}
