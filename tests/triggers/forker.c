/*
 * forker: call f N times, fork a child that calls f M times and exits 3,
 * wait for it, call f N times more; print the child's status; exit 0.
 *
 *	forker N M
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long	f(long);

__attribute__((noipa)) long
f(long i)
{
	return i + 1;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, m = argc > 2 ? atol(argv[2]) : 10;
	long i, s = 0;
	pid_t pid;
	int st;

	for (i = 0; i < n; i++)
		s += f(i);
	fflush(stdout);
	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		for (i = 0; i < m; i++)
			s += f(i);
		_exit(s == n * (n + 1) / 2 + m * (m + 1) / 2 ? 3 : 4);
	}
	for (i = 0; i < n; i++)
		s += f(i);
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	printf("child %s %d\n", WIFEXITED(st) ? "exited" : "killed",
	    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return s == n * (n + 1) ? 0 : 1;
}
