/*
 * syscaller: known system calls, a known number of times, for the
 * syscall provider.
 *
 *	syscaller N [start-fd]
 *
 * Waits until start-fd (if given) can be read (the tracer is ready),
 * then each round: getppid(); an openat() of a missing file (fails with
 * ENOENT); a write() of "syscaller" (9 bytes) to /dev/null.  A second
 * thread makes N getppid() calls of its own.  Prints the rounds done.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int rounds;

static void *
worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < rounds; i++)
		(void)syscall(SYS_getppid);
	return NULL;
}

int
main(int argc, char **argv)
{
	static const char msg[] = "syscaller";
	pthread_t t;
	char c;
	int i, fd, null;

	rounds = argc > 1 ? atoi(argv[1]) : 1;
	if (argc > 2 && read(atoi(argv[2]), &c, 1) < 0)
		return 1;
	if ((null = open("/dev/null", O_WRONLY)) == -1)
		return 1;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	for (i = 0; i < rounds; i++) {
		(void)syscall(SYS_getppid);
		fd = openat(AT_FDCWD, "/nonexistent/syscaller", O_RDONLY);
		if (fd != -1 || errno != ENOENT)
			return 1;
		if (write(null, msg, strlen(msg)) != (ssize_t)strlen(msg))
			return 1;
	}
	pthread_join(t, NULL);
	printf("%d\n", i);
	return 0;
}
