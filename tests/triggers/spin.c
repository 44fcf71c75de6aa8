/*
 * spin: burn CPU in a known call chain, main -> outer -> inner, until
 * SIGTERM (or for N seconds of CPU time when given N), for the profile
 * provider: a sample of it has inner on top of its user stack, then
 * outer, then main.
 *
 *	spin		spin in inner, in user mode
 *	spin N		the same for N seconds of CPU time, then exit 0
 *	spin sys	inner calls getppid() over and over: samples taken
 *			in the kernel have its user stack at the system call
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void	inner(double);
void	outer(double);

static volatile sig_atomic_t stop;
static volatile unsigned long sink;
static int sys;

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

	while (!stop && (limit <= 0 || cputime() < limit)) {
		if (sys)
			for (i = 0; i < 1000; i++)
				sink += (unsigned long)getppid();
		else
			for (i = 0; i < 1000000; i++)
				sink += i;
	}
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
	sys = argc > 1 && strcmp(argv[1], "sys") == 0;
	outer(argc > 1 && !sys ? atof(argv[1]) : 0);
	return 0;
}
