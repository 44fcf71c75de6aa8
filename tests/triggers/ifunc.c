/*
 * ifunc: functions chosen when the program is loaded (GNU IFUNC), as
 * glibc chooses strlen and memcpy by the CPU.  A trigger for the pid
 * provider on IFUNC symbols: pick is one of its own, whose resolver
 * always chooses pick_fast; work calls glibc's strlen and memcpy once
 * each.
 *
 *	ifunc N		N calls of pick(i), then N of work(i); prints
 *			the sums of their results
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long	pick(long);
long	pick_slow(long);
long	pick_fast(long);
long	work(long);

__attribute__((noipa)) long
pick_slow(long i)
{
	return i + 1;
}

__attribute__((noipa)) long
pick_fast(long i)
{
	return 3 * i + 1;
}

/* The dynamic linker calls this once, at load, and calls pick_fast after. */
static long (*pick_resolve(void))(long)
{
	return pick_fast;
}

long pick(long) __attribute__((ifunc("pick_resolve")));

static char src[64] = "the quick brown fox";
static volatile char dst[64];

__attribute__((noipa)) long
work(long i)
{
	size_t n = strlen(src + (i & 7));

	memcpy((char *)dst, src, n);
	return (long)n;
}

int
main(int argc, char **argv)
{
	long i, n, psum = 0, wsum = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ifunc N\n");
		return 2;
	}
	n = atol(argv[1]);
	for (i = 0; i < n; i++)
		psum += pick(i);
	for (i = 0; i < n; i++)
		wsum += work(i);
	printf("pick=%ld work=%ld\n", psum, wsum);
	return 0;
}
