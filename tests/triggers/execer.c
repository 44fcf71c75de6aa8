/*
 * execer: call f N times, then exec the rest of the command line.
 *
 *	execer N PROGRAM [ARG...]
 */
#include <stdio.h>
#include <stdlib.h>
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

	if (argc < 3) {
		fprintf(stderr, "usage: execer N PROGRAM [ARG...]\n");
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
