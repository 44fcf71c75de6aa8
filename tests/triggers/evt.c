/*
 * evt: calls the library function evt_tick() (libevtlib.so) from three
 * places, to tell apart where dtrace -x evaltime holds a program: the
 * library's initialiser (3 calls, before the entry point), the
 * program's own initialiser (5 calls, between the entry point and
 * main), and main (N calls).  Prints the total, then, given the path of
 * textcmp, whether its own text still equals its file's bytes (a fork
 * child runs textcmp on it).  Exits 3.
 *
 *	evt N [textcmp]
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int	evt_tick(int);
int	evt_count(void);

__attribute__((constructor)) static void
evt_init(void)
{
	int i;

	for (i = 0; i < 5; i++)
		evt_tick(i);
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 7, i, st;
	char pid[32];
	pid_t child;

	for (i = 0; i < n; i++)
		evt_tick(i);
	printf("ticks=%d\n", evt_count());
	if (argc > 2) {
		fflush(stdout);
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		if ((child = fork()) == 0) {
			execl(argv[2], argv[2], pid, (char *)NULL);
			_exit(2);
		}
		if (child == -1 || waitpid(child, &st, 0) == -1)
			return 2;
		printf("text=%s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ?
		    "same" : "differs");
	}
	return 3;
}
