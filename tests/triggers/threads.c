/*
 * threads: 8 threads each call f(t) N times (t = 1..8); print the total
 * of f's results; exit 0.  A trigger for the pid provider.
 *
 *	threads N
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define	NTHREADS	8

long	f(long);

static long n;
static long total[NTHREADS];

__attribute__((noipa)) long
f(long t)
{
	return t;
}

static void *
run(void *arg)
{
	long t = (long)arg, i, s = 0;

	for (i = 0; i < n; i++)
		s += f(t + 1);
	total[t] = s;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	long t, sum = 0;

	n = argc > 1 ? atol(argv[1]) : 1000;
	for (t = 0; t < NTHREADS; t++)
		if (pthread_create(&th[t], NULL, run, (void *)t) != 0)
			return 1;
	for (t = 0; t < NTHREADS; t++) {
		pthread_join(th[t], NULL);
		sum += total[t];
	}
	printf("total=%ld\n", sum);
	return 0;
}
