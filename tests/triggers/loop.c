/*
 * loop: call f(i) for i = 0 .. N-1, print the sum of its results, exit
 * with a known status.  A trigger for the pid provider.
 *
 *	loop N [STATUS]		N calls, then exit STATUS (default 7)
 *	loop spin		call f until SIGTERM; exit 0 if every
 *				result was right, 1 if not
 *	loop undumpable		the same, not dumpable (prctl): a process
 *				that only root may trace
 *	loop bench N		N calls of g (its first instruction is
 *				push %rbp: what a raw tracer can emulate)
 *	loop rounds N R		R rounds of N calls of g, 100 ms apart
 *				(a tracer's consumer catches up between
 *				them); print the fastest round's ns a call
 */
#include <sys/prctl.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

long	f(long);
long	g(long);

__attribute__((noipa)) long
f(long i)
{
	return 2 * i + 1;
}

/* A classic frame: push %rbp first, as a raw ptrace tracer expects. */
__asm__(
	".text\n"
	".globl g\n"
	".type g, @function\n"
	"g:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 1(%rdi,%rdi), %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size g, .-g\n");

static volatile sig_atomic_t stop;

static void
onterm(int sig)
{
	(void)sig;
	stop = 1;
}

int
main(int argc, char **argv)
{
	long i, n, sum = 0, bad = 0;

	if (argc < 2) {
		fprintf(stderr,
		    "usage: loop N [STATUS] | spin | undumpable | bench N | "
		    "rounds N R\n");
		return 2;
	}
	if (strcmp(argv[1], "undumpable") == 0 &&
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1) {
		perror("loop: prctl");
		return 2;
	}
	if (strcmp(argv[1], "spin") == 0 ||
	    strcmp(argv[1], "undumpable") == 0) {
		signal(SIGTERM, onterm);
		for (i = 0; !stop; i++)
			if (f(i) != 2 * i + 1)
				bad++;
		printf("spun %s\n", bad ? "badly" : "well");
		return bad != 0;
	}
	if (strcmp(argv[1], "rounds") == 0 && argc > 3) {
		struct timespec t0, t1;
		long r, rr = atol(argv[3]);
		double ns, best = -1;

		n = atol(argv[2]);
		for (r = 0; r < rr; r++) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			for (i = 0; i < n; i++)
				sum += g(i);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			ns = ((t1.tv_sec - t0.tv_sec) * 1e9 +
			    (t1.tv_nsec - t0.tv_nsec)) / (double)n;
			if (best < 0 || ns < best)
				best = ns;
			usleep(100000);
		}
		printf("best=%.2f\n", best);
		return sum == rr * n * n ? 0 : 1;
	}
	if (strcmp(argv[1], "bench") == 0) {
		n = argc > 2 ? atol(argv[2]) : 100000;
		for (i = 0; i < n; i++)
			sum += g(i);
		printf("sum=%ld\n", sum);
		return sum == n * n ? 0 : 1;
	}
	n = atol(argv[1]);
	for (i = 0; i < n; i++)
		sum += f(i);
	printf("sum=%ld\n", sum);
	return argc > 2 ? atoi(argv[2]) : 7;
}
