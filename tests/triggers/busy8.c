/*
 * busy8: 8 threads call f(t, i) in a loop until SIGTERM, each checking
 * every result; then print "spun well" and exit 0, or "spun badly" and
 * exit 1.  A target for fault injection: whatever happens to its tracer
 * (killed, crashed, restarted), f must keep returning the right value in
 * every thread, and the process must live on.
 *
 *	busy8
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define	NTHREADS	8

long	f(long, long);

static volatile sig_atomic_t stop;
static long bad[NTHREADS];

__attribute__((noipa)) long
f(long t, long i)
{
	return 2 * i + t;
}

static void *
busy8_run(void *arg)
{
	long t = (long)arg, i;

	for (i = 0; !stop; i++)
		if (f(t, i) != 2 * i + t)
			bad[t]++;
	return NULL;
}

static void
busy8_onterm(int sig)
{
	(void)sig;
	stop = 1;
}

int
main(void)
{
	struct sigaction sa;
	pthread_t th[NTHREADS];
	long t, nbad = 0;

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
