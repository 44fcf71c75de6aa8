/*
 * ft_halt.c: every thread of a process stopped, and let go again.  What
 * writes more than one byte of a running process's text (the inline
 * backend patching and restoring, its fork children's copies put back,
 * the guardian undoing them when the daemon is gone) must do it with no
 * thread executing there: a private PTRACE_SEIZE of each thread, listed
 * again until no new one shows up, then PTRACE_INTERRUPT and a wait for
 * its stop.  A signal that arrives meanwhile is kept and handed back
 * when the thread is let go (PTRACE_DETACH with it), so the process sees
 * nothing.  The caller must not be the process's tracer already.
 */
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"

/*
 * Stop every thread of pid: seize each (again until the list holds
 * still), interrupt it, wait for its stop.  Returns the count, or -1
 * (errno) with every thread let go.
 */
int
ft_halt_stop(pid_t pid, ft_halt_t **tp)
{
	ft_halt_t *t = NULL, *nt;
	int n = 0, cap = 0, grew, i, st;
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	do {
		grew = 0;
		if ((d = opendir(path)) == NULL)
			goto fail;
		while ((de = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atoi(de->d_name);

			if (tid <= 0)
				continue;
			for (i = 0; i < n; i++)
				if (t[i].hl_tid == tid)
					break;
			if (i < n)
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) == -1) {
				if (errno == ESRCH)
					continue;	/* gone */
				closedir(d);
				goto fail;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				if ((nt = realloc(t, (size_t)cap *
				    sizeof(*t))) == NULL) {
					ptrace(PTRACE_DETACH, tid, NULL, NULL);
					closedir(d);
					errno = ENOMEM;
					goto fail;
				}
				t = nt;
			}
			memset(&t[n], 0, sizeof(t[n]));
			t[n].hl_tid = tid;
			(void)ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
			for (;;) {
				if (waitpid(tid, &st, __WALL) == -1) {
					if (errno == EINTR)
						continue;
					st = 0;
					t[n].hl_tid = -1;
					break;
				}
				if (!WIFSTOPPED(st)) {
					t[n].hl_tid = -1;	/* exited */
					break;
				}
				/*
				 * A signal on its way (not our interrupt,
				 * which is an event stop): kept for later.
				 */
				if ((st >> 16) == 0)
					t[n].hl_sig = WSTOPSIG(st);
				break;
			}
			if (t[n].hl_tid > 0 && ptrace(PTRACE_GETREGS, tid, NULL,
			    &t[n].hl_regs) == -1)
				t[n].hl_tid = -1;
			n++;
			grew = 1;
		}
		closedir(d);
	} while (grew);
	*tp = t;
	return n;
fail:
	i = errno;
	for (st = 0; st < n; st++)
		if (t[st].hl_tid > 0)
			ptrace(PTRACE_DETACH, t[st].hl_tid, NULL,
			    (void *)(long)t[st].hl_sig);
	free(t);
	errno = i;
	return -1;
}

/* Let them go, each with the signal that arrived while it was ours. */
void
ft_halt_go(ft_halt_t *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].hl_tid > 0)
			ptrace(PTRACE_DETACH, t[i].hl_tid, NULL,
			    (void *)(long)t[i].hl_sig);
	free(t);
}
