/*
 * syscaller: known system calls, a known number of times, for the
 * syscall provider.
 *
 *	syscaller N [start-fd [linger-ms]]
 *
 * Waits until start-fd (if given and not -1) can be read (the tracer is
 * ready), then each round: getppid(); an openat() of a missing file
 * (fails with ENOENT); a write() of "syscaller" (9 bytes) to /dev/null.
 * A second thread, named syscaller-w, makes N getppid() calls of its
 * own.  Prints the rounds done, then lingers linger-ms before it exits
 * (the syscall provider fires after the call: a clause that walks the
 * stack needs the process).
 * The paths are read before the calls name them: a page the program
 * never touched may not be in memory when the call is captured.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int rounds;

/* Read s, as the compiler cannot know it is read: its page is in. */
static size_t
touch(const char *s)
{
	const volatile char *p = s;
	size_t n = 0;

	while (p[n] != '\0')
		n++;
	return n;
}

static void *
worker(void *arg)
{
	int i;

	(void)arg;
	/* a name of its own: execname is still the process's */
	(void)pthread_setname_np(pthread_self(), "syscaller-w");
	for (i = 0; i < rounds; i++)
		(void)syscall(SYS_getppid);
	return NULL;
}

int
main(int argc, char **argv)
{
	static const char msg[] = "syscaller";
	static const char devnull[] = "/dev/null";
	static const char missing[] = "/nonexistent/syscaller";
	struct timespec ts;
	pthread_t t;
	char c;
	int i, fd, null, ms;

	rounds = argc > 1 ? atoi(argv[1]) : 1;
	if (argc > 2 && atoi(argv[2]) >= 0 && read(atoi(argv[2]), &c, 1) < 0)
		return 1;
	if (touch(devnull) + touch(missing) + touch(msg) == 0)
		return 1;
	if ((null = open(devnull, O_WRONLY)) == -1)
		return 1;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	for (i = 0; i < rounds; i++) {
		(void)syscall(SYS_getppid);
		fd = openat(AT_FDCWD, missing, O_RDONLY);
		if (fd != -1 || errno != ENOENT)
			return 1;
		if (write(null, msg, strlen(msg)) != (ssize_t)strlen(msg))
			return 1;
	}
	pthread_join(t, NULL);
	printf("%d\n", i);
	fflush(stdout);
	if (argc > 3 && (ms = atoi(argv[3])) > 0) {
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (long)(ms % 1000) * 1000000L;
		nanosleep(&ts, NULL);
	}
	return 0;
}
