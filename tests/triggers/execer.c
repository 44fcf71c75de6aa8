/*
 * execer: call f N times, then exec the rest of the command line.
 *
 *	execer [-w FILE] N PROGRAM [ARG...]
 *
 * With -w, first print "execer waits for FILE" and wait until FILE
 * exists: a test attaches its consumers meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long	f(long);

__attribute__((noipa)) long
f(long i)
{
	return i * 5;
}

int
main(int argc, char **argv)
{
	long n, i, s = 0;

	if (argc >= 3 && strcmp(argv[1], "-w") == 0) {
		printf("execer waits for %s\n", argv[2]);
		fflush(stdout);
		while (access(argv[2], F_OK) != 0)
			usleep(10000);
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: execer [-w FILE] N PROGRAM [ARG...]\n");
		return 2;
	}
	n = atol(argv[1]);
	for (i = 0; i < n; i++)
		s += f(i);
	printf("execer sum=%ld\n", s);
	fflush(stdout);
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
