/*
 * dt_proc.c: target processes (-c, -p, and those a probe description's
 * provider names, pid1234 or a USDT provider's myprov1234, or whose
 * USDT providers a provider glob matches (myprov*: dt_pscan.c), grabbed
 * as illumos does when the description is compiled or listed: they are
 * not $target, and their exit is not reported and does not end
 * tracing).  The daemon traces them; the
 * library only names them (by pidfd, so that the daemon traces exactly
 * the process meant, even if the pid is reused) and hears when they are
 * held or gone (DT_MSG_PROC, dt_proc_event), and why the daemon let one
 * go.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"

static dt_proc_t *
dt_proc_lookup(dtrace_hdl_t *dtp, pid_t pid)
{
	int i;

	for (i = 0; i < dtp->dt_nprocs; i++) {
		if (dtp->dt_procs[i].dpr_pid == pid)
			return &dtp->dt_procs[i];
	}
	return NULL;
}

/* DT_MSG_PROC, from whichever read met it. */
void
dt_proc_event(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	pid_t pid = (pid_t)dt_msg_get_u32(m);
	uint32_t ev = dt_msg_get_u32(m);
	int status = (int)dt_msg_get_u32(m);
	dt_proc_t *pr;

	if (!dt_msg_done(m) || (pr = dt_proc_lookup(dtp, pid)) == NULL)
		return;
	if (ev == DT_PROC_HELD) {
		pr->dpr_held = 1;
	} else if (ev == DT_PROC_BACKEND) {
		pr->dpr_backend = status + 1;
	} else if (ev == DT_PROC_EXITED && !pr->dpr_exited) {
		pr->dpr_exited = 1;
		pr->dpr_status = status;
		/* our child: reap it now that its tracer let it go */
		if (pr->dpr_created)
			(void)waitpid(pid, NULL, WNOHANG);
		if (dtp->dt_prochdlr != NULL && !pr->dpr_named)
			dtp->dt_prochdlr(pid, status, dtp->dt_procarg);
	} else if (ev == DT_PROC_LOST && !pr->dpr_exited) {
		/* it runs on, untraced: gone for us */
		pr->dpr_exited = 1;
		pr->dpr_lost = status != 0 ? status : DT_LOST_SETID;
		if (dtp->dt_prochdlr != NULL && !pr->dpr_named)
			dtp->dt_prochdlr(pid, 0, dtp->dt_procarg);
	}
}

/* Why the daemon let target pid go (see dtrace.h), or NULL. */
const char *
dtrace_proc_lost(dtrace_hdl_t *dtp, pid_t pid)
{
	dt_proc_t *pr = dt_proc_lookup(dtp, pid);

	if (pr == NULL || pr->dpr_lost == 0)
		return NULL;
	return "exec of set-id program";
}

/*
 * How the daemon traces target pid: "ptrace", "uprobe" or "inline", once a
 * program was loaded; NULL before, or for a pid that is no target.
 */
const char *
dtrace_proc_backend(dtrace_hdl_t *dtp, pid_t pid)
{
	dt_proc_t *pr = dt_proc_lookup(dtp, pid);

	if (pr == NULL || pr->dpr_backend == 0)
		return NULL;
	switch (pr->dpr_backend - 1) {
	case DT_BACKEND_UPROBE:
		return "uprobe";
	case DT_BACKEND_INLINE:
		return "inline";
	default:
		return "ptrace";
	}
}

void
dt_proc_fini(dtrace_hdl_t *dtp)
{
	int i;

	/* a child the daemon killed on our hang-up: reap it if it is done */
	for (i = 0; i < dtp->dt_nprocs; i++) {
		if (dtp->dt_procs[i].dpr_created)
			(void)waitpid(dtp->dt_procs[i].dpr_pid, NULL, WNOHANG);
	}
	free(dtp->dt_procs);
	dtp->dt_procs = NULL;
	dtp->dt_nprocs = 0;
	for (i = 0; i < dtp->dt_npscanned; i++)
		free(dtp->dt_pscanned[i]);
	free(dtp->dt_pscanned);
	dtp->dt_pscanned = NULL;
	dtp->dt_npscanned = 0;
}

int
dtrace_handle_proc(dtrace_hdl_t *dtp, dtrace_handle_proc_f *fn, void *arg)
{
	dtp->dt_prochdlr = fn;
	dtp->dt_procarg = arg;
	return 0;
}

static int
dt_proc_pidfd(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The pid $target names: the first -c or -p target, or 0. */
pid_t
dt_proc_target(const dtrace_hdl_t *dtp)
{
	int i;

	for (i = 0; i < dtp->dt_nprocs; i++) {
		if (!dtp->dt_procs[i].dpr_named)
			return dtp->dt_procs[i].dpr_pid;
	}
	return 0;
}

/* Send GRAB with the pidfd; the new target is recorded on success. */
static int
dt_proc_grab(dtrace_hdl_t *dtp, pid_t pid, int pidfd, int create)
{
	dt_msg_t req, rep;
	dt_proc_t *np;

	if (dtp->dt_active) {
		close(pidfd);
		return dt_set_errno(dtp, EDT_ACTIVE);
	}
	if (dt_proc_lookup(dtp, pid) != NULL) {
		close(pidfd);
		return dt_conn_error(dtp, EDT_REMOTE,
		    "pid %d is already a target", (int)pid);
	}
	if ((np = realloc(dtp->dt_procs, (dtp->dt_nprocs + 1) *
	    sizeof(*np))) == NULL) {
		close(pidfd);
		return dt_set_errno(dtp, EDT_NOMEM);
	}
	dtp->dt_procs = np;
	dt_msg_init(&req, DT_MSG_GRAB);
	dt_msg_put_u32(&req, (uint32_t)pid);
	dt_msg_put_u32(&req, create ? DT_GRAB_CREATE | dtp->dt_evaltime : 0);
	req.dm_fd = pidfd;	/* dt_msg_free (in the request) closes it */
	if (dt_conn_request(dtp, &req, DT_MSG_GRAB_OK, &rep) != 0)
		return -1;
	dt_msg_free(&rep);
	memset(&np[dtp->dt_nprocs], 0, sizeof(np[0]));
	np[dtp->dt_nprocs].dpr_pid = pid;
	np[dtp->dt_nprocs].dpr_created = create;
	dtp->dt_nprocs++;
	return 0;
}

/* dt_pscan: grab a process a provider glob names, if it may be */
static int
dt_proc_globgrab(void *arg, pid_t pid)
{
	dtrace_hdl_t *dtp = arg;
	int fd;

	if (dt_proc_lookup(dtp, pid) != NULL ||
	    (fd = dt_proc_pidfd(pid)) == -1)
		return 0;
	/* one the user may not trace, or gone since, is none of its */
	if (dt_proc_grab(dtp, pid, fd, 0) == 0)
		dtp->dt_procs[dtp->dt_nprocs - 1].dpr_named = 1;
	return 0;
}

/*
 * A provider glob with a name before its first wildcard (python*,
 * postgresql*, not *, :::, or pid's): grab the running processes whose
 * USDT providers it matches (dt_pscan.c), once a handle and glob.
 */
static void
dt_proc_globbed(dtrace_hdl_t *dtp, const char *prov)
{
	size_t lit = strcspn(prov, "*?[\\");
	char **np;
	int i;

	if (lit == 0 || strncmp(prov, "pid", lit < 3 ? lit : 3) == 0 ||
	    dtp->dt_active)
		return;
	for (i = 0; i < dtp->dt_npscanned; i++)
		if (strcmp(dtp->dt_pscanned[i], prov) == 0)
			return;
	if (dt_conn_open(dtp) != 0 || (np = realloc(dtp->dt_pscanned,
	    (dtp->dt_npscanned + 1) * sizeof(*np))) == NULL)
		return;
	dtp->dt_pscanned = np;
	if ((np[dtp->dt_npscanned] = strdup(prov)) == NULL)
		return;
	dtp->dt_npscanned++;
	(void)dt_pscan(prov, dtp->dt_dpid, dt_proc_globgrab, dtp);
}

/*
 * A description's provider ends in a pid (pid1234, myprov1234): grab
 * that process, if it is no target yet, so that its probes can be made
 * and matched, as illumos does; one that is a glob, the processes whose
 * USDT providers it matches.  0 if it names no process (no digits, or
 * tracing started already) or is grabbed; -1 with illumos's
 * D_PROC_GRAB error if it cannot be.
 */
int
dt_proc_named(dtrace_hdl_t *dtp, const char *prov)
{
	const char *p = prov + strlen(prov);
	unsigned long pid;
	char *end;
	int fd;

	if (strpbrk(prov, "*?[\\") != NULL) {
		dt_proc_globbed(dtp, prov);
		return 0;
	}
	while (p > prov && isdigit((unsigned char)p[-1]))
		p--;
	if (*p == '\0' || p == prov || dtp->dt_active)
		return 0;
	errno = 0;
	pid = strtoul(p, &end, 10);
	if (errno != 0 || pid == 0 || pid > INT32_MAX ||
	    dt_proc_lookup(dtp, (pid_t)pid) != NULL)
		return 0;	/* D_PROC_BADPID is the compiler's */
	/* not dtrace itself: the daemon would stop its own client */
	fd = (pid_t)pid == getpid() ? -1 : dt_proc_pidfd((pid_t)pid);
	if (fd != -1 && dt_conn_open(dtp) != 0) {
		close(fd);
		fd = -1;
	}
	if (fd == -1 || dt_proc_grab(dtp, (pid_t)pid, fd, 0) != 0) {
		dt_set_errmsg(dtp, dt_errtag(D_PROC_GRAB),
		    "failed to grab process %lu", pid);
		return -1;
	}
	dtp->dt_procs[dtp->dt_nprocs - 1].dpr_named = 1;
	return 0;
}

pid_t
dtrace_proc_grab(dtrace_hdl_t *dtp, pid_t pid)
{
	int fd;

	if (dt_conn_open(dtp) != 0)
		return -1;
	if (pid <= 0 || (fd = dt_proc_pidfd(pid)) == -1)
		return dt_conn_error(dtp, EDT_REMOTE, "%s",
		    strerror(pid <= 0 ? ESRCH : errno));
	if (dt_proc_grab(dtp, pid, fd, 0) != 0)
		return -1;
	return pid;
}

/*
 * Start file with argv, held at its entry point by the daemon.  The
 * child waits on a pipe until the daemon has seized it, then execs; a
 * close-on-exec pipe brings back exec's errno.  Whatever fails, the
 * child is killed and reaped: nothing is left waiting.
 */
pid_t
dtrace_proc_create(dtrace_hdl_t *dtp, const char *file, char *const *argv)
{
	int go[2], ep[2], fd, cerr = 0, saved;
	dt_proc_t *pr;
	ssize_t n;
	pid_t pid;
	char c = 'g';

	if (dt_conn_open(dtp) != 0)
		return -1;
	if (pipe2(go, O_CLOEXEC) == -1)
		return dt_conn_error(dtp, EDT_REMOTE, "failed to execute %s: "
		    "%s", file, strerror(errno));
	if (pipe2(ep, O_CLOEXEC) == -1) {
		saved = errno;
		close(go[0]);
		close(go[1]);
		return dt_conn_error(dtp, EDT_REMOTE, "failed to execute %s: "
		    "%s", file, strerror(saved));
	}
	if ((pid = fork()) == -1) {
		saved = errno;
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return dt_conn_error(dtp, EDT_REMOTE, "failed to execute %s: "
		    "%s", file, strerror(saved));
	}
	if (pid == 0) {
		sigset_t none;

		close(go[1]);
		close(ep[0]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		do {
			n = read(go[0], &c, 1);
		} while (n == -1 && errno == EINTR);
		if (n != 1)
			_exit(127);	/* dtrace gave up on us */
		execvp(file, argv);
		cerr = errno;
		if (write(ep[1], &cerr, sizeof(cerr)) < 0)
			_exit(126);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	if ((fd = dt_proc_pidfd(pid)) == -1) {
		(void)dt_conn_error(dtp, EDT_REMOTE, "failed to execute %s: "
		    "%s", file, strerror(errno));
		goto fail;
	}
	if (dt_proc_grab(dtp, pid, fd, 1) != 0)
		goto fail;
	/* seized: let it exec, and wait until it is held or gone */
	if (write(go[1], &c, 1) != 1) {
		(void)dt_conn_error(dtp, EDT_REMOTE, "failed to execute %s: "
		    "%s", file, strerror(errno));
		goto fail;
	}
	close(go[1]);
	go[1] = -1;
	pr = dt_proc_lookup(dtp, pid);
	while (!pr->dpr_held && !pr->dpr_exited) {
		if (dt_conn_wait(dtp, -1) < 0)
			goto fail;
		pr = dt_proc_lookup(dtp, pid);
	}
	do {
		n = read(ep[0], &cerr, sizeof(cerr));
	} while (n == -1 && errno == EINTR);
	close(ep[0]);
	ep[0] = -1;
	/* let go at its exec (set-id): it runs on, untraced */
	if (pr->dpr_exited && !pr->dpr_lost) {
		(void)dt_conn_error(dtp, EDT_REMOTE, "failed to execute %s: %s",
		    file, n == sizeof(cerr) ? strerror(cerr) :
		    "the program exited before its first instruction");
		goto fail;
	}
	return pid;
fail:
	saved = dtp->dt_errno;
	if (go[1] != -1)
		close(go[1]);
	if (ep[0] != -1)
		close(ep[0]);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	if ((pr = dt_proc_lookup(dtp, pid)) != NULL)
		pr->dpr_exited = 1;
	dtp->dt_errno = saved;
	return -1;
}
