/*
 * oncpu: call f(i) on chosen CPUs, i counting up across them.  A trigger
 * for per-CPU buffers and the cpu option.
 *
 *	oncpu CPU N [CPU N ...]	move to CPU, call f N times; and so on
 *
 * It prints the number of calls and exits 0, or 2 if a CPU cannot be had.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

long	f(long);

__attribute__((noipa)) long
f(long i)
{
	return i;
}

int
main(int argc, char **argv)
{
	cpu_set_t set;
	long i = 0, n, k;
	int a = 1, cpu;

	if (argc < 3 || (argc - 1) % 2 != 0) {
		fprintf(stderr, "usage: oncpu CPU N [CPU N ...]\n");
		return 2;
	}
	for (; a < argc; a += 2) {
		cpu = atoi(argv[a]);
		n = atol(argv[a + 1]);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) == -1) {
			perror("oncpu: sched_setaffinity");
			return 2;
		}
		for (k = 0; k < n; k++)
			f(i++);
	}
	printf("%ld calls\n", i);
	return 0;
}
