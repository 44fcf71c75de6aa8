/*
 * dt_conn.c: reaching dtraced.
 *
 * The socket is -x socket=PATH, else $DTRACED_SOCKET, else the system
 * daemon's socket.  When the system daemon cannot be reached and the
 * user named no socket, start a private daemon with the user's own
 * rights, as tmux starts its server: one end of a socketpair becomes the
 * daemon's fd 3 (dtraced -f 3), which serves that one connection and
 * exits when we hang up.
 *
 * Requests are answered in order, each within a bound (dt_conn_patience)
 * so that a daemon that stopped answering is reported, not waited for
 * without end.  Between any two replies the daemon may send what no
 * request asked for; dt_conn_unsolicited lists those messages and who
 * takes each in.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"

#ifndef RUNSTATEDIR
#define RUNSTATEDIR	"/run"
#endif
#ifndef SBINDIR
#define SBINDIR		"/usr/sbin"
#endif

#define DT_CONN_SYSSOCK	RUNSTATEDIR "/dtraced/dtraced.sock"

/*
 * How long, in seconds, a request may wait for the daemon to take it
 * and for a byte of its reply.  Most are answered at once, and a daemon
 * that answers none in DT_CONN_REPLYWAIT, even on a loaded machine, has
 * stopped; the ones that make it work on targets (seizing them, reading
 * their symbols, patching every probe site, listing their probes) get
 * DT_CONN_WORKWAIT.
 * Tracing itself is never timed: nothing is awaited between requests,
 * and the consumer loop asks for STATUS at statusrate, so a trace that
 * prints nothing for hours still hears from its daemon every second.
 */
#define DT_CONN_REPLYWAIT	30
#define DT_CONN_WORKWAIT	300

static int
dt_conn_patience(uint16_t type)
{
	switch (type) {
	case DT_MSG_PROGRAM:
	case DT_MSG_LIST:
	case DT_MSG_GRAB:
	case DT_MSG_GO:
	case DT_MSG_STOP:
		return DT_CONN_WORKWAIT;
	default:
		return DT_CONN_REPLYWAIT;
	}
}

/* Set errno err with a message of our own in dt_errmsg. */
int
dt_conn_error(dtrace_hdl_t *dtp, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dtp->dt_errmsg, sizeof(dtp->dt_errmsg), fmt, ap);
	va_end(ap);
	dtp->dt_errtag = NULL;
	return dt_set_errno(dtp, err);
}

static int
dt_conn_connect(const char *path, int *errp)
{
	struct timeval tv = { DT_CONN_REPLYWAIT, 0 };
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		*errp = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		*errp = errno;
		return -1;
	}
	/*
	 * A daemon that stopped accepting leaves connect() waiting in its
	 * full backlog: SO_SNDTIMEO bounds that wait (EAGAIN).
	 */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		if (errno == EINTR)
			continue;
		*errp = errno;
		close(fd);
		return -1;
	}
	return fd;
}

/* Where is dtraced?  $DTRACED, next to us in a build tree, or SBINDIR. */
static void
dt_conn_daemon_path(char *buf, size_t size)
{
	const char *env = getenv("DTRACED");
	char self[PATH_MAX];
	ssize_t n;

	if (env != NULL && *env != '\0') {
		snprintf(buf, size, "%s", env);
		return;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		snprintf(buf, size, "%s/../daemon/dtraced", dirname(self));
		if (access(buf, X_OK) == 0)
			return;
	}
	snprintf(buf, size, "%s/dtraced", SBINDIR);
}

/*
 * Start a private daemon on one end of a socketpair.  A close-on-exec
 * pipe tells us whether the exec worked, so a missing dtraced is
 * reported by name rather than as a hang-up.
 */
static int
dt_conn_spawn(dtrace_hdl_t *dtp)
{
	char path[PATH_MAX];
	int sv[2], ep[2], cerr;
	ssize_t n;
	pid_t pid;

	dt_conn_daemon_path(path, sizeof(path));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return dt_conn_error(dtp, EDT_DAEMON,
		    "failed to create socket pair: %s", strerror(errno));
	if (pipe2(ep, O_CLOEXEC) == -1) {
		cerr = errno;
		close(sv[0]);
		close(sv[1]);
		return dt_conn_error(dtp, EDT_DAEMON,
		    "failed to create pipe: %s", strerror(cerr));
	}
	if ((pid = fork()) == -1) {
		cerr = errno;
		close(sv[0]);
		close(sv[1]);
		close(ep[0]);
		close(ep[1]);
		return dt_conn_error(dtp, EDT_DAEMON,
		    "failed to start %s: %s", path, strerror(cerr));
	}
	if (pid == 0) {
		char *argv[] = { path, "-f", "3", NULL };
		sigset_t none;

		/* keep the terminal's ^C for dtrace(1): it stops tracing */
		setsid();
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (sv[1] == 3) {
			if (fcntl(3, F_SETFD, 0) == -1)
				goto fail;
		} else if (dup2(sv[1], 3) == -1) {
			goto fail;
		}
		execv(path, argv);
fail:
		cerr = errno;
		if (write(ep[1], &cerr, sizeof(cerr)) < 0)
			_exit(126);
		_exit(127);
	}
	close(sv[1]);
	close(ep[1]);
	do {
		n = read(ep[0], &cerr, sizeof(cerr));
	} while (n == -1 && errno == EINTR);
	close(ep[0]);
	if (n == sizeof(cerr)) {
		close(sv[0]);
		waitpid(pid, NULL, 0);
		return dt_conn_error(dtp, EDT_DAEMON,
		    "failed to start %s: %s", path, strerror(cerr));
	}
	dtp->dt_daemon = pid;
	dtp->dt_private = 1;
	return sv[0];
}

static void
dt_conn_notify(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	uint32_t act = dt_msg_get_u32(m);
	uint32_t reason = dt_msg_get_u32(m);

	if (!dt_msg_done(m))
		return;
	dtp->dt_notified = 1;
	if (act >= DT_ACT_DRAINING)
		dtp->dt_draining = 1;
	if (reason != DT_REASON_NONE && dtp->dt_reason == DT_REASON_NONE)
		dtp->dt_reason = (int)reason;
	if ((int)act > dtp->dt_activity)
		dtp->dt_activity = (int)act;
}

/*
 * The messages the daemon sends unasked, whichever read meets them: the
 * new tracing state (NOTIFY), a target held or gone (PROC), a target's
 * modules (MODMAP), ECBs made while tracing (ECBS).  Those that wake a
 * consumer waiting in dt_conn_wait say so.
 */
static const struct dt_conn_unsol {
	uint16_t	cu_type;
	void		(*cu_take)(dtrace_hdl_t *, dt_msg_t *);
	int		cu_wakes;
} dt_conn_unsols[] = {
	{ DT_MSG_NOTIFY,	dt_conn_notify,		1 },
	{ DT_MSG_PROC,		dt_proc_event,		1 },
	{ DT_MSG_MODMAP,	dt_usym_modmap,		0 },
	{ DT_MSG_ECBS,		dt_program_ecbs,	0 },
};

/*
 * Take m in (and free it) if the daemon sends it unasked: its entry,
 * else NULL and m is the caller's.
 */
static const struct dt_conn_unsol *
dt_conn_unsolicited(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	size_t i;

	for (i = 0; i < sizeof(dt_conn_unsols) / sizeof(dt_conn_unsols[0]);
	    i++) {
		if (dt_conn_unsols[i].cu_type == m->dm_type) {
			dt_conn_unsols[i].cu_take(dtp, m);
			dt_msg_free(m);
			return &dt_conn_unsols[i];
		}
	}
	return NULL;
}

/*
 * A daemon of another protocol version (an upgrade installed while the
 * old dtraced runs): its reply's header names its version.
 */
static int
dt_conn_mismatch(dtrace_hdl_t *dtp)
{
	unsigned int theirs = dtp->dt_peer.dp_version;

	return dt_conn_error(dtp, EDT_PROTO, "dtraced speaks protocol %u, "
	    "this dtrace %u: restart dtraced from the same release",
	    theirs, (unsigned int)DT_PROTO_VERSION);
}

/*
 * Read one message the caller asked for, taking in the unasked ones.
 * DT_MSG_ERROR becomes EDT_REMOTE.
 */
int
dt_conn_recv(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	int rv;

	for (;;) {
		rv = dt_peer_recv(&dtp->dt_peer, m);
		if (rv == 0)
			return dt_conn_error(dtp, EDT_DAEMON,
			    "dtraced closed the connection");
		if (rv < 0 && errno == ETIMEDOUT)
			return dt_conn_error(dtp, EDT_DAEMON,
			    "dtraced did not answer in %d seconds",
			    dtp->dt_peer.dp_timeout / 1000);
		if (rv < 0 && dtp->dt_peer.dp_version != 0)
			return dt_conn_mismatch(dtp);
		if (rv < 0)
			return dt_conn_error(dtp, errno == EPROTO ? EDT_PROTO :
			    EDT_DAEMON, "failed to read from dtraced: %s",
			    strerror(errno));
		if (dt_conn_unsolicited(dtp, m) != NULL)
			continue;
		if (m->dm_type == DT_MSG_ERROR) {
			uint32_t code = dt_msg_get_u32(m);
			char text[1024];

			if (dt_msg_get_strbuf(m, text, sizeof(text)) != 0)
				snprintf(text, sizeof(text),
				    "malformed error from dtraced");
			dt_msg_free(m);
			(void)dt_conn_error(dtp, EDT_REMOTE, "%s", text);
			dtp->dt_errcode = code;
			return -1;
		}
		return 0;
	}
}

/*
 * The daemon hung up while we were sending: a daemon that refuses a
 * connection (too many from one uid) says why in an ERROR before it
 * closes.  0 with its words as EDT_REMOTE when it did.
 */
static int
dt_conn_farewell(dtrace_hdl_t *dtp)
{
	dt_msg_t m;

	dtp->dt_peer.dp_timeout = 1000;
	if (dt_conn_recv(dtp, &m) == 0) {
		dt_msg_free(&m);
		return -1;
	}
	return dtp->dt_errno == EDT_REMOTE ? 0 : -1;
}

/*
 * Send m whole.  Its reply is then awaited (dt_conn_recv) for as long
 * as a request of its type may take.
 */
int
dt_conn_send(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	dt_peer_t *p = &dtp->dt_peer;
	int rv, err;

	if (dt_conn_open(dtp) != 0)
		return -1;
	if (dt_peer_send(p, m) != 0)
		return dt_conn_error(dtp, m->dm_err == ENOMEM ? EDT_NOMEM :
		    EDT_DAEMON, "failed to send %s to dtraced: %s",
		    dt_msg_type_name(m->dm_type), strerror(errno));
	p->dp_timeout = dt_conn_patience(m->dm_type) * 1000;
	while ((rv = dt_peer_flush(p)) == 0) {
		struct pollfd pfd = { p->dp_fd, POLLOUT, 0 };
		int n;

		if ((n = poll(&pfd, 1, p->dp_timeout)) == -1 &&
		    errno != EINTR)
			break;
		if (n == 0) {
			errno = ETIMEDOUT;
			rv = -1;
			break;
		}
	}
	if (rv == 1)
		return 0;
	err = errno;
	if (err == ETIMEDOUT)
		return dt_conn_error(dtp, EDT_DAEMON, "failed to send %s to "
		    "dtraced: it took nothing for %d seconds",
		    dt_msg_type_name(m->dm_type), p->dp_timeout / 1000);
	if ((err == EPIPE || err == ECONNRESET) && dt_conn_farewell(dtp) == 0)
		return -1;
	return dt_conn_error(dtp, EDT_DAEMON, "failed to send %s to dtraced: "
	    "%s", dt_msg_type_name(m->dm_type), strerror(err));
}

/*
 * Send req and read its reply, which must be of type ok (the caller
 * reads and frees it); req is freed.
 */
int
dt_conn_request(dtrace_hdl_t *dtp, dt_msg_t *req, uint16_t ok,
    dt_msg_t *reply)
{
	uint16_t type = req->dm_type;
	int rv;

	rv = dt_conn_send(dtp, req);
	dt_msg_free(req);
	if (rv != 0)
		return -1;
	if (dt_conn_recv(dtp, reply) != 0)
		return -1;
	if (reply->dm_type != ok) {
		uint16_t got = reply->dm_type;

		dt_msg_free(reply);
		return dt_conn_error(dtp, EDT_PROTO,
		    "dtraced answered %s with %s", dt_msg_type_name(type),
		    dt_msg_type_name(got));
	}
	return 0;
}

/*
 * Wait up to timeout ms for the daemon to say something; what it sends
 * unasked is taken in (dt_conn_unsolicited).  Returns 1 if a message
 * that wakes a consumer came (NOTIFY, PROC), 0 on timeout or a signal,
 * -1 on error.  A timeout of -1 waits for something the daemon owes us
 * (a target held or gone): for DT_CONN_WORKWAIT at most, then it is an
 * error.
 */
int
dt_conn_wait(dtrace_hdl_t *dtp, int timeout)
{
	dt_peer_t *p = &dtp->dt_peer;
	struct pollfd pfd;
	dt_msg_t m;
	ssize_t n;
	int rv, got = 0;

	if (!dtp->dt_connected)
		return 0;
	pfd.fd = p->dp_fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	if (p->dp_inlen == 0) {
		if ((rv = poll(&pfd, 1, timeout == -1 ?
		    DT_CONN_WORKWAIT * 1000 : timeout)) == 0 && timeout == -1)
			return dt_conn_error(dtp, EDT_DAEMON,
			    "dtraced did not answer in %d seconds",
			    DT_CONN_WORKWAIT);
		if (rv <= 0)
			return 0;
		if ((n = dt_peer_read(p)) == 0)
			return dt_conn_error(dtp, EDT_DAEMON,
			    "dtraced closed the connection");
		if (n < 0)
			return errno == EAGAIN ? 0 : dt_conn_error(dtp,
			    EDT_DAEMON, "failed to read from dtraced: %s",
			    strerror(errno));
	}
	while ((rv = dt_peer_get(p, &m)) == 1) {
		const struct dt_conn_unsol *cu;
		uint16_t type = m.dm_type;

		if ((cu = dt_conn_unsolicited(dtp, &m)) == NULL) {
			dt_msg_free(&m);
			return dt_conn_error(dtp, EDT_PROTO,
			    "unexpected %s from dtraced",
			    dt_msg_type_name(type));
		}
		got |= cu->cu_wakes;
	}
	if (rv < 0)
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed message from dtraced: %s", strerror(errno));
	return got;
}

static int
dt_conn_hello(dtrace_hdl_t *dtp)
{
	dt_msg_t req, rep;
	uint32_t ncpu, dpid;

	dt_msg_init(&req, DT_MSG_HELLO);
	dt_msg_put_u32(&req, (uint32_t)getpid());
	if (dt_conn_request(dtp, &req, DT_MSG_HELLO_OK, &rep) != 0)
		return -1;
	ncpu = dt_msg_get_u32(&rep);
	dpid = dt_msg_get_u32(&rep);
	if (!dt_msg_done(&rep) || ncpu == 0 || ncpu > 65536) {
		dt_msg_free(&rep);
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed HELLO_OK from dtraced");
	}
	dt_msg_free(&rep);
	dtp->dt_ncpu = ncpu;
	dtp->dt_dpid = (pid_t)dpid;
	dtp->dt_drops = calloc(ncpu, sizeof(uint64_t));
	dtp->dt_aggdrops = calloc(ncpu, sizeof(uint64_t));
	if (dtp->dt_drops == NULL || dtp->dt_aggdrops == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	return 0;
}

/*
 * Connect (once) and shake hands.  Any failure here is EDT_NODAEMON:
 * dtrace(1) says it could not initialize, as illumos does when it cannot
 * open its device, rather than blame what it was compiling.
 */
int
dt_conn_open(dtrace_hdl_t *dtp)
{
	const char *path, *env = getenv("DTRACED_SOCKET");
	int fd, fl, err = 0, named;

	if (dtp->dt_connected)
		return 0;
	if (dtp->dt_oflags & DTRACE_O_NODEV)
		return dt_conn_error(dtp, EDT_NOENT,
		    "handle was opened without the daemon");
	named = 1;
	if (dtp->dt_socket != NULL) {
		path = dtp->dt_socket;
	} else if (env != NULL && *env != '\0') {
		path = env;
	} else {
		path = DT_CONN_SYSSOCK;
		named = 0;
	}

	if ((fd = dt_conn_connect(path, &err)) == -1) {
		/* a daemon is there but does not accept: no private one */
		if (err == EAGAIN)
			return dt_conn_error(dtp, EDT_NODAEMON,
			    "failed to connect to dtraced at %s: it accepted "
			    "nothing in %d seconds", path, DT_CONN_REPLYWAIT);
		if (named)
			return dt_conn_error(dtp, EDT_NODAEMON,
			    "failed to connect to dtraced at %s: %s", path,
			    strerror(err));
		if ((fd = dt_conn_spawn(dtp)) == -1) {
			dtp->dt_errno = EDT_NODAEMON;
			return -1;
		}
	}
	/* every wait on the daemon is a poll with a bound (dp_timeout) */
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		err = errno;
		close(fd);
		return dt_conn_error(dtp, EDT_NODAEMON,
		    "failed to set up the connection to dtraced: %s",
		    strerror(err));
	}
	if (dt_peer_init(&dtp->dt_peer, fd, DT_MSG_MAXDAEMON) != 0) {
		err = errno;
		dt_peer_close(&dtp->dt_peer);
		return dt_conn_error(dtp, EDT_NODAEMON,
		    "failed to set up the connection to dtraced: %s",
		    strerror(err));
	}
	dtp->dt_connected = 1;
	if (dt_conn_hello(dtp) != 0) {
		dt_conn_close(dtp);
		dtp->dt_errno = EDT_NODAEMON;
		return -1;
	}
	return 0;
}

/*
 * A shared daemon lets our targets go (sites out, semaphores back, a -c
 * child killed) when it hears our hang-up, and closes its end only
 * after: wait for that, as a private daemon's exit is waited for, so
 * that no target is still ours once dtrace has exited.  What it still
 * sends is dropped; a daemon silent for DT_CONN_REPLYWAIT has stopped.
 */
static void
dt_conn_drain(dtrace_hdl_t *dtp)
{
	struct pollfd pfd;
	char buf[4096];
	ssize_t n;
	int rv;

	if (shutdown(dtp->dt_peer.dp_fd, SHUT_WR) == -1)
		return;
	pfd.fd = dtp->dt_peer.dp_fd;
	pfd.events = POLLIN;
	for (;;) {
		pfd.revents = 0;
		rv = poll(&pfd, 1, DT_CONN_REPLYWAIT * 1000);
		if (rv == -1 && errno == EINTR)
			continue;
		if (rv <= 0)
			return;
		n = read(pfd.fd, buf, sizeof(buf));
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return;
	}
}

void
dt_conn_close(dtrace_hdl_t *dtp)
{
	if (dtp->dt_connected && dtp->dt_daemon <= 0 && dtp->dt_nprocs > 0)
		dt_conn_drain(dtp);
	if (dtp->dt_connected || dtp->dt_peer.dp_fd != -1)
		dt_peer_close(&dtp->dt_peer);
	dtp->dt_peer.dp_fd = -1;
	dtp->dt_connected = 0;
	if (dtp->dt_daemon > 0) {
		while (waitpid(dtp->dt_daemon, NULL, 0) == -1 &&
		    errno == EINTR)
			;
		dtp->dt_daemon = 0;
	}
}
