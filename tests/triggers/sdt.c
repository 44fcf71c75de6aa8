/*
 * sdt: statically defined probes built with systemtap's <sys/sdt.h>,
 * for the USDT provider (provider "trig"):
 *
 *	trig:::round		once a round, arg0 the round (0, 1, ...)
 *	trig:::mixed		arguments of several kinds: a negative int,
 *				an unsigned char, a 64-bit constant, a string,
 *				a negative short read from memory
 *	trig:::loop__done	at the end, arg0 the number of rounds
 *	trig:::guarded		only while its semaphore is set
 *
 *	sdt N		run N rounds, then print how many times the guarded
 *			probe's code ran, and the semaphore
 *	sdt N watch	the same, then rounds every 10ms until SIGUSR1; then
 *			print the semaphore and whether the probe functions'
 *			text is what it was at the start
 *	sdt N exec	the same, then exec itself as "sdt N"
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * The is-enabled counters, which tracers increment while a probe is
 * enabled (<sys/sdt.h> with semaphores wants one per probe); only
 * trig:::guarded's is tested.
 */
#define SDT_SEM(n) \
	unsigned short trig_##n##_semaphore __attribute__((section(".probes")))
SDT_SEM(round);
SDT_SEM(mixed);
SDT_SEM(loop__done);
SDT_SEM(guarded);

static volatile sig_atomic_t sdt_stop;
static unsigned long sdt_guarded_ran;

/* the probe functions, in a section of their own to compare their text */
#define SDT_FN	__attribute__((noinline, section("sdtfn")))

extern const unsigned char __start_sdtfn[], __stop_sdtfn[];

SDT_FN static void
sdt_round(unsigned long n)
{
	int neg = -(int)n - 1;
	unsigned char uc = (unsigned char)(200 + n % 50);
	volatile short sh = (short)(-1000 - (short)n);
	const char *s = n % 2 == 0 ? "even" : "odd";

	STAP_PROBE1(trig, round, n);
	STAP_PROBE5(trig, mixed, neg, uc, 0x123456789aLL, s, sh);
	if (trig_guarded_semaphore) {
		sdt_guarded_ran++;
		STAP_PROBE1(trig, guarded, n * 10);
	}
}

SDT_FN static void
sdt_done(unsigned long n)
{
	STAP_PROBE1(trig, loop__done, n);
}

static uint64_t
sdt_sum(void)
{
	const unsigned char *p;
	uint64_t h = 1469598103934665603ULL;

	for (p = __start_sdtfn; p < __stop_sdtfn; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

static void
sdt_usr1(int sig)
{
	(void)sig;
	sdt_stop = 1;
}

int
main(int argc, char **argv)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	unsigned long n, i;
	uint64_t sum0 = sdt_sum();

	if (argc < 2) {
		fprintf(stderr, "usage: sdt N [watch]\n");
		return 2;
	}
	signal(SIGUSR1, sdt_usr1);
	n = strtoul(argv[1], NULL, 10);
	for (i = 0; i < n; i++)
		sdt_round(i);
	sdt_done(n);
	printf("guarded ran %lu, semaphore %u\n", sdt_guarded_ran,
	    (unsigned)trig_guarded_semaphore);
	if (argc >= 3 && strcmp(argv[2], "exec") == 0) {
		char *nargv[] = { argv[0], argv[1], NULL };

		fflush(stdout);
		execv("/proc/self/exe", nargv);
		perror("execv");
		return 1;
	}
	if (argc < 3 || strcmp(argv[2], "watch") != 0)
		return 0;
	printf("watching\n");
	fflush(stdout);
	while (!sdt_stop) {
		sdt_round(i++);
		nanosleep(&ts, NULL);
	}
	printf("semaphore %u, text %s\n", (unsigned)trig_guarded_semaphore,
	    sdt_sum() == sum0 ? "intact" : "changed");
	return 0;
}
