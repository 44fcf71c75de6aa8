/*
 * busy8: 8 threads call f(t, i) in a loop until SIGTERM, each checking
 * every result; then print "spun well" and exit 0, or "spun badly" and
 * exit 1.  A target for fault injection: whatever happens to its tracer
 * (killed, crashed, restarted), f must keep returning the right value in
 * every thread, and the process must live on.
 *
 *	busy8 [USEC]	with USEC, each thread sleeps that long between
 *			calls (a paced target: how often a probe fires)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define	NTHREADS	8

long	f(long, long);

static volatile sig_atomic_t stop;
static long bad[NTHREADS];
static struct timespec pace;

__attribute__((noipa)) long
f(long t, long i)
{
	return 2 * i + t;
}

static void *
busy8_run(void *arg)
{
	long t = (long)arg, i;

	for (i = 0; !stop; i++) {
		if (f(t, i) != 2 * i + t)
			bad[t]++;
		if (pace.tv_nsec != 0 || pace.tv_sec != 0)
			nanosleep(&pace, NULL);
	}
	return NULL;
}

static void
busy8_onterm(int sig)
{
	(void)sig;
	stop = 1;
}

int
main(int argc, char *argv[])
{
	struct sigaction sa;
	pthread_t th[NTHREADS];
	long t, nbad = 0, usec;

	if (argc > 1) {
		usec = atol(argv[1]);
		pace.tv_sec = usec / 1000000;
		pace.tv_nsec = usec % 1000000 * 1000;
	}

	/*
	 * Install the handler before any thread exists, so SIGTERM always
	 * means "stop and report", never the default death.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = busy8_onterm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	for (t = 0; t < NTHREADS; t++)
		if (pthread_create(&th[t], NULL, busy8_run, (void *)t) != 0)
			return 2;
	for (t = 0; t < NTHREADS; t++) {
		pthread_join(th[t], NULL);
		nbad += bad[t];
	}
	printf("spun %s\n", nbad ? "badly" : "well");
	return nbad != 0;
}
