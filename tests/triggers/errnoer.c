/*
 * errnoer: system calls and functions that fail with known errno
 * values, N times, in the main thread and in a second thread, for
 * D's errno with the pid provider.
 *
 *	errnoer N
 *
 * Each round the main thread opens a missing file (ENOENT), then calls
 * fail(EACCES); the second thread calls fail(EBADF) and then ok(),
 * which returns with errno 0.  Prints the sum of what was seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int	fail(int);
int	ok(void);

__attribute__((noipa)) int
fail(int e)
{
	errno = e;
	return -1;
}

__attribute__((noipa)) int
ok(void)
{
	errno = 0;
	return 0;
}

static int rounds;

static void *
worker(void *arg)
{
	long sum = 0;
	int i;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		sum += fail(EBADF) == -1 ? errno : 0;
		sum += ok();
	}
	return (void *)sum;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	void *ret;
	long sum = 0;
	int i, fd;

	rounds = argc > 1 ? atoi(argv[1]) : 1;
	for (i = 0; i < rounds; i++) {
		if ((fd = open("/nonexistent/dtrace-errno", O_RDONLY)) == -1)
			sum += errno;
		else
			close(fd);
		sum += fail(EACCES) == -1 ? errno : 0;
	}
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(t, &ret);
	printf("sum=%ld\n", sum + (long)ret);
	return 0;
}
