/*
 * spin: burn CPU in a known call chain, main -> outer -> inner, until
 * SIGTERM (or for N seconds of CPU time when given N), for the profile
 * provider: a sample of it has inner on top of its user stack, then
 * outer, then main.
 *
 *	spin [N]
 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>

void	inner(double);
void	outer(double);

static volatile sig_atomic_t stop;
static volatile unsigned long sink;

static void
onterm(int sig)
{
	(void)sig;
	stop = 1;
}

static double
cputime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* No inlining, no cloning: the frames must be there. */
__attribute__((noinline, noipa)) void
inner(double limit)
{
	unsigned long i;

	while (!stop && (limit <= 0 || cputime() < limit))
		for (i = 0; i < 1000000; i++)
			sink += i;
}

__attribute__((noinline, noipa)) void
outer(double limit)
{
	inner(limit);
	sink++;		/* not a tail call */
}

int
main(int argc, char **argv)
{
	signal(SIGTERM, onterm);
	outer(argc > 1 ? atof(argv[1]) : 0);
	return 0;
}
