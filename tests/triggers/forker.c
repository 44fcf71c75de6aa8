/*
 * forker: call f N times, fork a child that calls f M times and exits 3,
 * wait for it, call f N times more; print the child's status; exit 0.
 *
 *	forker N M [stay]
 *
 * With "stay" the child, its calls made, writes its pid to stdout and
 * waits for SIGTERM, then calls g M times (g starts with push %rbp,
 * mov %rsp,%rbp: an entry the inline backend patches, where f's is too
 * short) and exits 3 if every result was right (a child that lives on,
 * for a test to look at its text).
 */
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long	f(long);
long	g(long);

/* 2i + 1, in a classic frame */
__asm__(
	".text\n"
	".globl g\n"
	".type g, @function\n"
	"g:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 1(%rdi,%rdi), %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size g, .-g\n");

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
		if (argc > 3 && strcmp(argv[3], "stay") == 0) {
			sigset_t set;
			int sig;

			sigemptyset(&set);
			sigaddset(&set, SIGTERM);
			sigprocmask(SIG_BLOCK, &set, NULL);
			printf("child pid %d\n", (int)getpid());
			fflush(stdout);
			sigwait(&set, &sig);
			for (i = 0; i < m; i++)	/* its text works still */
				if (g(i) != 2 * i + 1)
					s = -1;
		}
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
