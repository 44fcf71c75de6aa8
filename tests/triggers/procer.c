/*
 * procer: what the proc provider sees.  Start 3 threads and join them;
 * fork N children that exec /bin/true; one whose exec of a path that
 * does not exist fails (it exits 7); one that takes SIGUSR1 in its
 * handler (and exits 0 there); one that ignores SIGUSR2, is sent it,
 * and is killed; one that is killed with SIGKILL; one that reads
 * address 0 (a fault: it dies of SIGSEGV, with no core dump).  Wait for
 * each.  Send itself SIGHUP, blocked, and take it with sigtimedwait();
 * exit 0.
 *
 *	procer N
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int	procer_pipe[2];
static volatile uintptr_t argc_zero;	/* 0, unknown to the compiler */

static void *
procer_thread(void *arg)
{
	return arg;
}

static void
procer_usr1(int sig)
{
	(void)sig;
	_exit(0);
}

/* Fork a child that runs fn; its pid, once it has said it is ready. */
static pid_t
procer_child(void (*fn)(void))
{
	pid_t pid, parent = getpid();
	char c;

	if ((pid = fork()) == -1) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		/* no child outlives procer (killed, it waits for none) */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1 ||
		    getppid() != parent)
			_exit(1);
		fn();
		_exit(1);
	}
	if (read(procer_pipe[0], &c, 1) != 1) {
		perror("read");
		exit(1);
	}
	return pid;
}

static void
procer_ready(void)
{
	if (write(procer_pipe[1], "r", 1) != 1)
		_exit(1);
}

static void
procer_true(void)
{
	procer_ready();
	execl("/bin/true", "true", (char *)NULL);
}

static void
procer_noexec(void)
{
	procer_ready();
	execl("/nonexistent/procer", "procer", (char *)NULL);
	_exit(7);
}

static void
procer_handler(void)
{
	signal(SIGUSR1, procer_usr1);
	procer_ready();
	for (;;)
		pause();
}

static void
procer_ignorer(void)
{
	signal(SIGUSR2, SIG_IGN);
	procer_ready();
	for (;;)
		pause();
}

static void
procer_waiter(void)
{
	procer_ready();
	for (;;)
		pause();
}

static void
procer_faulter(void)
{
	/* no core dump, whatever the system's core_pattern */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	procer_ready();
	*(volatile int *)(uintptr_t)argc_zero = 1;
}

static void
procer_reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, i;
	struct timespec ts = { 10, 0 };
	pthread_t t[3];
	sigset_t set;
	pid_t pid;

	if (pipe(procer_pipe) == -1) {
		perror("pipe");
		return 1;
	}
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, procer_thread, NULL) != 0)
			return 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++)
		procer_reap(procer_child(procer_true));
	procer_reap(procer_child(procer_noexec));
	pid = procer_child(procer_handler);
	kill(pid, SIGUSR1);
	procer_reap(pid);
	pid = procer_child(procer_ignorer);
	kill(pid, SIGUSR2);
	kill(pid, SIGKILL);
	procer_reap(pid);
	pid = procer_child(procer_waiter);
	kill(pid, SIGKILL);
	procer_reap(pid);
	procer_reap(procer_child(procer_faulter));
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGHUP);
	if (sigtimedwait(&set, NULL, &ts) != SIGHUP) {
		perror("sigtimedwait");
		return 1;
	}
	printf("procer done\n");
	return 0;
}
