/*
 * storm: process and thread churn around calls of f, for fault injection.
 * Every mode calls f a known number of times in the traced process (and
 * its threads and exec'd images), checks every result, prints "storm MODE
 * ok" and exits 0 if all went right, "storm MODE bad" and 1 if not.
 *
 *	storm fork R K		R rounds: fork a child that calls f K times
 *				and exits 5, wait for it (status must be 5),
 *				call f once; f runs R times in the process
 *	storm threads R K	R rounds: start 8 threads that each call f K
 *				times, join them; f runs R * 8 * K times
 *	storm exec R K		call f K times, then exec storm exec R-1 K;
 *				at R = 0 exit; f runs (R + 1) * K times
 *	storm dl R K		R rounds: dlopen libm, call cbrt K times,
 *				dlclose; cbrt runs R * K times
 */
#include <sys/wait.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	NTHREADS	8

long	f(long);

static long k;
static volatile long bad;

__attribute__((noipa)) long
f(long i)
{
	return 3 * i + 1;
}

static void
storm_calls(long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (f(i) != 3 * i + 1)
			__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
}

static void *
storm_thread(void *arg)
{
	(void)arg;
	storm_calls(k);
	return NULL;
}

static int
storm_fork(long r)
{
	long i;
	pid_t pid;
	int st;

	for (i = 0; i < r; i++) {
		if ((pid = fork()) == -1)
			return 1;
		if (pid == 0) {
			storm_calls(k);
			_exit(bad ? 6 : 5);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 5)
			bad++;
		storm_calls(1);
	}
	return bad != 0;
}

static int
storm_threads(long r)
{
	pthread_t th[NTHREADS];
	long i, t;

	for (i = 0; i < r; i++) {
		for (t = 0; t < NTHREADS; t++)
			if (pthread_create(&th[t], NULL, storm_thread, NULL) != 0)
				return 1;
		for (t = 0; t < NTHREADS; t++)
			pthread_join(th[t], NULL);
	}
	return bad != 0;
}

static int
storm_exec(const char *self, long r)
{
	char rb[32], kb[32];

	storm_calls(k);
	if (bad)
		return 1;
	if (r == 0)
		return 0;
	snprintf(rb, sizeof(rb), "%ld", r - 1);
	snprintf(kb, sizeof(kb), "%ld", k);
	execl("/proc/self/exe", self, "exec", rb, kb, (char *)NULL);
	perror("storm: exec");
	return 1;
}

static int
storm_dl(long r)
{
	double (*fn)(double), sum;
	long i, j;
	void *h;

	for (i = 0; i < r; i++) {
		if ((h = dlopen("libm.so.6", RTLD_NOW)) == NULL ||
		    (fn = (double (*)(double))dlsym(h, "cbrt")) == NULL) {
			fprintf(stderr, "storm: %s\n", dlerror());
			return 1;
		}
		for (j = 0, sum = 0; j < k; j++)
			sum += fn(8.0);
		if (sum != 2.0 * (double)k)
			bad++;
		dlclose(h);
	}
	return bad != 0;
}

int
main(int argc, char **argv)
{
	long r;
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: storm fork|threads|exec|dl R K\n");
		return 2;
	}
	r = atol(argv[2]);
	k = atol(argv[3]);
	if (strcmp(argv[1], "fork") == 0)
		rc = storm_fork(r);
	else if (strcmp(argv[1], "threads") == 0)
		rc = storm_threads(r);
	else if (strcmp(argv[1], "exec") == 0)
		rc = storm_exec(argv[0], r);
	else if (strcmp(argv[1], "dl") == 0)
		rc = storm_dl(r);
	else {
		fprintf(stderr, "storm: unknown mode %s\n", argv[1]);
		return 2;
	}
	printf("storm %s %s\n", argv[1], rc ? "bad" : "ok");
	return rc;
}
