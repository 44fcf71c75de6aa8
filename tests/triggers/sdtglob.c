/*
 * sdtglob: a USDT probe of a provider no other trigger has (tglob), for
 * a provider glob (tglob*:::tick) that must find this process running
 * though nobody named it.  Fires tglob:::tick every 10 ms, arg0 its
 * count, until SIGUSR1; then prints how many ticks it fired; exits 0.
 *
 *	sdtglob
 */
#include <sys/sdt.h>

#include <signal.h>
#include <stdio.h>
#include <time.h>

static volatile sig_atomic_t sdtglob_done;

static void
sdtglob_usr1(int sig)
{
	(void)sig;
	sdtglob_done = 1;
}

int
main(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	long n = 0;

	signal(SIGUSR1, sdtglob_usr1);
	printf("ticking\n");
	fflush(stdout);
	while (!sdtglob_done) {
		n++;
		DTRACE_PROBE1(tglob, tick, n);
		nanosleep(&ts, NULL);
	}
	printf("%ld ticks\n", n);
	return 0;
}
