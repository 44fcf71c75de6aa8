/*
 * dtd_retain.c: retained programs, a flight recorder in the daemon.
 *
 * A client that sends DT_MSG_RETAIN NAME (dtrace -x retain=NAME), after
 * its programs and before GO, leaves its consumer here when it goes: the
 * table holds a reference (dc_refs), so the consumer outlives the
 * connection and keeps tracing into the buffers its own options sized
 * (nothing reads them, so a switch buffer fills and counts its drops, a
 * ring keeps the newest records).  Its targets stay traced; one that
 * exits is released as for a live consumer, and the program stays, with
 * its data, until it is claimed or the daemon stops.  exit() or a full
 * fill buffer stops it here (END fires) for lack of a client to do it.
 *
 * DT_MSG_CLAIM hands a retained consumer to a client of the same uid, or
 * to root: the claim takes it out of the table (the client stops it,
 * reads everything and prints it as the original consumer would have);
 * a snapshot leaves it in the table and the client's reads consume
 * nothing (DTD_SNAP_PEEK).  Both get back what printing needs: the
 * programs (formats, record layouts), the EPIDs, the sizes in use and
 * the client options RETAIN carried.  Only the owner and root see a
 * retained program in DT_MSG_RETAINED or can claim it.
 *
 * At start the daemon retains the programs of its configuration
 * directory, NAME.d each, as anonymous enablings start at boot: for each
 * it runs "dtrace -x socket=SOCKET -x retain=NAME -s FILE" against its
 * own socket, so the D compiler stays out of the daemon and a program is
 * checked exactly as any client's.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "dtd.h"

struct dtd_retained {
	TAILQ_ENTRY(dtd_retained) dr_link;
	char		dr_name[DT_RETAIN_NAMELEN];
	uid_t		dr_uid;		/* the creator: owner */
	dtd_consumer_t	*dr_consumer;	/* one reference is ours */
	dtp_opt_t	*dr_opt;	/* the client's own options */
	uint32_t	dr_nopt;
	int		dr_export;	/* -x export: served as metrics */
};

static TAILQ_HEAD(, dtd_retained) dtd_retained =
    TAILQ_HEAD_INITIALIZER(dtd_retained);
static int	dtd_retain_n;

typedef struct dtd_retain_job {
	TAILQ_ENTRY(dtd_retain_job) rj_link;
	pid_t		rj_pid;
	int		rj_fd;		/* pidfd: readable when it exits */
	struct event	*rj_ev;
	int		rj_out;		/* its stdout and stderr, or -1 */
	struct event	*rj_outev;
	char		rj_text[2048];	/* what it said, for the log */
	size_t		rj_len;
	char		rj_name[DT_RETAIN_NAMELEN];
} dtd_retain_job_t;

/* The dtrace(1)s retaining the configured programs, until they exit. */
static TAILQ_HEAD(, dtd_retain_job) dtd_retain_jobs =
    TAILQ_HEAD_INITIALIZER(dtd_retain_jobs);

static void
dtd_retain_job_free(dtd_retain_job_t *j)
{
	TAILQ_REMOVE(&dtd_retain_jobs, j, rj_link);
	event_free(j->rj_ev);
	close(j->rj_fd);
	if (j->rj_outev != NULL)
		event_free(j->rj_outev);
	if (j->rj_out != -1)
		close(j->rj_out);
	free(j);
}

static void	dtd_retain_err(char *, size_t, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

static void
dtd_retain_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static dtd_retained_t *
dtd_retain_find(const char *name)
{
	dtd_retained_t *r;

	TAILQ_FOREACH(r, &dtd_retained, dr_link) {
		if (strcmp(r->dr_name, name) == 0)
			return r;
	}
	return NULL;
}

/* May uid see r?  Its owner and root; and never before it has started. */
static int
dtd_retain_visible(const dtd_retained_t *r, uid_t uid)
{
	if (dtd_consumer_activity(r->dr_consumer) == DT_ACT_INACTIVE)
		return 0;
	return uid == 0 || uid == r->dr_uid;
}

static void
dtd_retain_free(dtd_retained_t *r)
{
	uint32_t i;

	TAILQ_REMOVE(&dtd_retained, r, dr_link);
	dtd_retain_n--;
	r->dr_consumer->dc_retained = NULL;
	dtd_consumer_release(r->dr_consumer);
	for (i = 0; i < r->dr_nopt; i++)
		free(r->dr_opt[i].do_name);
	free(r->dr_opt);
	free(r);
}

/*
 * DT_MSG_RETAIN from c's client: the name, then the client's options,
 * read from m.  0: retained; -1: refused, err says why; -2: malformed.
 */
int
dtd_retain_add(dtd_consumer_t *c, const char *name, dt_msg_t *m,
    int oneshot, char *err, size_t errlen)
{
	dtd_retained_t *r, *o;
	uint32_t nopt, i;
	int mine = 0;

	nopt = dt_msg_get_u32(m);
	if (m->dm_err || nopt > DTD_RETAIN_MAXOPT)
		return -2;
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (nopt > 0 && (r->dr_opt = calloc(nopt, sizeof(*r->dr_opt))) ==
	    NULL)) {
		free(r);
		dtd_retain_err(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < nopt; i++) {
		r->dr_opt[i].do_name = dt_msg_get_strdup(m,
		    DTD_RETAIN_OPTLEN - 1);
		r->dr_opt[i].do_value = dt_msg_get_u64(m);
		if (r->dr_opt[i].do_name == NULL)
			break;
		r->dr_nopt++;
	}
	if (i < nopt || !dt_msg_done(m)) {
		int nomem = m->dm_err == ENOMEM;

		for (i = 0; i < r->dr_nopt; i++)
			free(r->dr_opt[i].do_name);
		free(r->dr_opt);
		free(r);
		if (!nomem)
			return -2;
		dtd_retain_err(err, errlen, "out of memory");
		return -1;
	}

	TAILQ_FOREACH(o, &dtd_retained, dr_link) {
		if (o->dr_uid == c->dc_uid)
			mine++;
	}
	if (oneshot)
		dtd_retain_err(err, errlen, "retained programs need a shared "
		    "dtraced: this one serves a single dtrace and exits with "
		    "it");
	else if (!dt_proto_retain_name_ok(name))
		dtd_retain_err(err, errlen, "invalid retained program name "
		    "\"%s\": use 1 to %d letters, digits, '_', '.' or '-', "
		    "not starting with '.' or '-'", name,
		    DT_RETAIN_NAMELEN - 1);
	else if (c->dc_retained != NULL)
		dtd_retain_err(err, errlen, "the program is already retained "
		    "as %s", c->dc_retained->dr_name);
	else if (c->dc_nprog == 0)
		dtd_retain_err(err, errlen, "there is no program to retain");
	else if (dtd_retain_find(name) != NULL)
		dtd_retain_err(err, errlen, "a retained program named %s "
		    "already exists", name);
	else if (dtd_retain_n >= DTD_RETAIN_MAX)
		dtd_retain_err(err, errlen, "too many retained programs "
		    "(at most %d)", DTD_RETAIN_MAX);
	else if (c->dc_uid != 0 && mine >= DTD_RETAIN_MAX_UID)
		dtd_retain_err(err, errlen, "too many retained programs for "
		    "uid %d (at most %d)", (int)c->dc_uid, DTD_RETAIN_MAX_UID);
	else
		err[0] = '\0';
	if (err[0] != '\0') {
		for (i = 0; i < r->dr_nopt; i++)
			free(r->dr_opt[i].do_name);
		free(r->dr_opt);
		free(r);
		return -1;
	}
	snprintf(r->dr_name, sizeof(r->dr_name), "%s", name);
	for (i = 0; i < r->dr_nopt; i++) {
		if (strcmp(r->dr_opt[i].do_name, "export") == 0)
			r->dr_export = 1;
	}
	r->dr_uid = c->dc_uid;
	r->dr_consumer = c;
	dtd_consumer_hold(c);
	c->dc_retained = r;
	/* its -c targets outlive the dtrace that started them */
	dtd_target_keep(c);
	TAILQ_INSERT_TAIL(&dtd_retained, r, dr_link);
	dtd_retain_n++;
	log_info("%s: pid %d uid %d: program retained as %s%s", __func__,
	    (int)c->dc_pid, (int)c->dc_uid, name,
	    r->dr_export ? ", its aggregations exported" : "");
	return 0;
}

/*
 * c's client goes.  A program retained but never started (GO failed,
 * or the client died first) has nothing to keep: it goes too.
 */
void
dtd_retain_cancel(dtd_consumer_t *c)
{
	dtd_retained_t *r = c->dc_retained;

	if (r == NULL || dtd_consumer_activity(c) != DT_ACT_INACTIVE)
		return;
	log_info("%s: %s never started, dropped", __func__, r->dr_name);
	dtd_retain_free(r);
}

static void
dtd_retain_opts(dt_msg_t *m, const dtd_retained_t *r)
{
	uint32_t i;

	dt_msg_put_u32(m, r->dr_nopt);
	for (i = 0; i < r->dr_nopt; i++) {
		dt_msg_put_str(m, r->dr_opt[i].do_name);
		dt_msg_put_u64(m, r->dr_opt[i].do_value);
	}
}

/* The program's index in c->dc_progs. */
static uint32_t
dtd_retain_progidx(const dtd_consumer_t *c, const dtp_prog_t *p)
{
	uint32_t i;

	for (i = 0; i < c->dc_nprog; i++) {
		if (c->dc_progs[i] == p)
			return i;
	}
	return 0;
}

/*
 * DT_MSG_CLAIM from a client of uid: find the program (name "" is the
 * caller's only one) and describe it in reply (a CLAIM_OK being built).
 * Returns the consumer with a reference for the caller, or NULL with
 * err.  A claim takes it out of the table; a snapshot leaves it there.
 */
dtd_consumer_t *
dtd_retain_claim(const char *name, uid_t uid, int flags, dt_msg_t *reply,
    char *err, size_t errlen)
{
	dtd_retained_t *r, *found = NULL;
	dtd_consumer_t *c;
	uint32_t i;
	int n = 0;

	if (name[0] == '\0') {
		TAILQ_FOREACH(r, &dtd_retained, dr_link) {
			if (dtd_retain_visible(r, uid)) {
				found = r;
				n++;
			}
		}
		if (n == 0) {
			dtd_retain_err(err, errlen, "no retained programs");
			return NULL;
		}
		if (n > 1) {
			dtd_retain_err(err, errlen, "%d retained programs: "
			    "name the one to claim (dtrace -a -l lists them)",
			    n);
			return NULL;
		}
	} else if ((found = dtd_retain_find(name)) == NULL ||
	    !dtd_retain_visible(found, uid)) {
		/* another user's program is not there, as far as uid knows */
		dtd_retain_err(err, errlen, "no retained program named %s",
		    name);
		return NULL;
	}
	r = found;
	c = r->dr_consumer;

	dt_msg_put_str(reply, r->dr_name);
	dt_msg_put_u32(reply, (uint32_t)dtd_consumer_activity(c));
	dt_msg_put_u64(reply, c->dc_bufused);
	dt_msg_put_u64(reply, c->dc_aggused);
	dt_msg_put_u64(reply, c->dc_specused);
	dt_msg_put_u64(reply, c->dc_opts.do_dynvarsize);
	dtd_retain_opts(reply, r);
	dt_msg_put_u32(reply, c->dc_nprog);
	for (i = 0; i < c->dc_nprog; i++) {
		size_t at = reply->dm_len, len;
		uint8_t *lp;

		/* each program after its length: it decodes on its own */
		dt_msg_put_u32(reply, 0);
		dt_proto_prog_encode(reply, c->dc_progs[i]);
		if (reply->dm_err)
			break;
		len = reply->dm_len - at - 4;
		lp = reply->dm_data + at;
		lp[0] = len & 0xff;
		lp[1] = (len >> 8) & 0xff;
		lp[2] = (len >> 16) & 0xff;
		lp[3] = (len >> 24) & 0xff;
	}
	dt_msg_put_u32(reply, c->dc_necb);
	for (i = 0; i < c->dc_necb; i++) {
		const dtd_ecb_t *e = c->dc_ecbs[i];

		dt_msg_put_u32(reply, e->de_epid);
		dt_msg_put_u32(reply, dtd_retain_progidx(c, e->de_prog));
		dt_msg_put_u32(reply, e->de_stmtidx);
		dtd_probe_encode(reply, e->de_probe);
	}
	if (reply->dm_err) {
		dtd_retain_err(err, errlen, "out of memory");
		return NULL;
	}
	dtd_consumer_hold(c);
	log_info("%s: uid %d: %s %s", __func__, (int)uid,
	    (flags & DT_CLAIM_SNAPSHOT) ? "snapshot of" : "claimed",
	    r->dr_name);
	if (!(flags & DT_CLAIM_SNAPSHOT))
		dtd_retain_free(r);
	return c;
}

/* DT_MSG_RETAINED: append the count and the programs uid may see. */
void
dtd_retain_list(uid_t uid, dt_msg_t *reply)
{
	dtd_retained_t *r;
	pid_t pids[64];
	int exited[64];
	uint32_t n = 0, k, i;
	size_t off = reply->dm_len;
	uint8_t *np;

	dt_msg_put_u32(reply, 0);
	TAILQ_FOREACH(r, &dtd_retained, dr_link) {
		dtd_consumer_t *c = r->dr_consumer;
		uint64_t drops = 0;

		if (!dtd_retain_visible(r, uid))
			continue;
		if (c->dc_hasbuf)
			drops += dtd_buf_drops(&c->dc_buf);
		if (c->dc_hasagg)
			drops += dtd_agg_drops(&c->dc_agg);
		dt_msg_put_str(reply, r->dr_name);
		dt_msg_put_u32(reply, (uint32_t)r->dr_uid);
		dt_msg_put_u32(reply, (uint32_t)dtd_consumer_activity(c));
		dt_msg_put_u32(reply, (uint32_t)c->dc_opts.do_bufpolicy);
		dt_msg_put_u64(reply, c->dc_bufused);
		dt_msg_put_u64(reply, c->dc_aggused);
		dt_msg_put_u64(reply, drops);
		dt_msg_put_u64(reply, __atomic_load_n(&c->dc_errors,
		    __ATOMIC_RELAXED));
		k = dtd_target_list(c, pids, exited, 64);
		dt_msg_put_u32(reply, k);
		for (i = 0; i < k; i++) {
			dt_msg_put_u32(reply, (uint32_t)pids[i]);
			dt_msg_put_u32(reply, (uint32_t)exited[i]);
		}
		n++;
	}
	if (reply->dm_err == 0) {
		np = reply->dm_data + off;
		np[0] = n & 0xff;
		np[1] = (n >> 8) & 0xff;
		np[2] = (n >> 16) & 0xff;
		np[3] = (n >> 24) & 0xff;
	}
}

/*
 * The metrics exporter (dtd_metrics.c), on the main thread: fn for each
 * retained program that asked to be exported (-x export) and has
 * started, in the order they were retained.  Its owner chose to show its
 * aggregations to whoever may reach the endpoint; the others stay its
 * owner's and root's.
 */
void
dtd_retain_exported(void (*fn)(const char *, dtd_consumer_t *, void *),
    void *arg)
{
	dtd_retained_t *r;

	TAILQ_FOREACH(r, &dtd_retained, dr_link) {
		if (r->dr_export && dtd_consumer_activity(r->dr_consumer) !=
		    DT_ACT_INACTIVE)
			fn(r->dr_name, r->dr_consumer, arg);
	}
}

static int
dtd_retain_discard(void *arg, dt_msg_t *m)
{
	(void)arg;
	(void)m;
	return 0;
}

/*
 * Main thread, after the firing path or a target woke it, and when a
 * client goes: do for the retained programs no client holds what a
 * client would.  Targets that are gone are released; a program that
 * exit() or a full fill buffer drained is stopped (END fires) and stays
 * to be claimed.
 */
void
dtd_retain_tend(void)
{
	dtd_retained_t *r;
	char err[256];

	TAILQ_FOREACH(r, &dtd_retained, dr_link) {
		dtd_consumer_t *c = r->dr_consumer;

		/* a client holds it too: that client does all this */
		if (c->dc_refs > 1)
			continue;
		(void)dtd_target_report(c, dtd_retain_discard, NULL);
		if (dtd_consumer_activity(c) != DT_ACT_DRAINING)
			continue;
		__atomic_store_n(&c->dc_notify, 0, __ATOMIC_RELEASE);
		if (dtd_consumer_stop(c, err, sizeof(err)) == -1)
			log_warnx("%s: %s: %s", __func__, r->dr_name, err);
		else
			log_info("%s: %s stopped itself (%s)", __func__,
			    r->dr_name, c->dc_reason == DT_REASON_FILL ?
			    "its fill buffer is full" : "exit()");
	}
}

/* The daemon stops: every retained program's probes come out. */
void
dtd_retain_shutdown(void)
{
	dtd_retained_t *r;

	dtd_retain_job_t *j;

	while ((r = TAILQ_FIRST(&dtd_retained)) != NULL) {
		log_info("%s: %s discarded", __func__, r->dr_name);
		dtd_retain_free(r);
	}
	/* a dtrace(1) still retaining finds the daemon gone */
	while ((j = TAILQ_FIRST(&dtd_retain_jobs)) != NULL)
		dtd_retain_job_free(j);
}

/*
 * The configuration directory.  Where is dtrace(1)?  $DTRACE, next to
 * us in a build tree (client/dtrace beside daemon/), or BINDIR.
 */
static void
dtd_retain_dtrace_path(char *buf, size_t size)
{
	const char *env = getenv("DTRACE");
	char self[PATH_MAX];
	ssize_t n;

	if (env != NULL && *env != '\0') {
		snprintf(buf, size, "%s", env);
		return;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		snprintf(buf, size, "%s/../client/dtrace", dirname(self));
		if (access(buf, X_OK) == 0)
			return;
	}
	snprintf(buf, size, "%s/dtrace", BINDIR);
}

/* Keep what the dtrace says (the first 2k), to log when it exits. */
static void
dtd_retain_output(evutil_socket_t fd, short ev, void *arg)
{
	dtd_retain_job_t *j = arg;
	char buf[512];
	ssize_t n;
	size_t k;

	while ((n = read(j->rj_out, buf, sizeof(buf))) > 0) {
		k = (size_t)n;
		if (k > sizeof(j->rj_text) - 1 - j->rj_len)
			k = sizeof(j->rj_text) - 1 - j->rj_len;
		memcpy(j->rj_text + j->rj_len, buf, k);
		j->rj_len += k;
	}
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		event_del(j->rj_outev);
		close(j->rj_out);
		j->rj_out = -1;
	}
}

static void
dtd_retain_reap(evutil_socket_t fd, short ev, void *arg)
{
	dtd_retain_job_t *j = arg;
	char *line, *save;
	int st;

	while (waitpid(j->rj_pid, &st, 0) == -1) {
		if (errno != EINTR) {
			log_warn("%s: waitpid %d", __func__, (int)j->rj_pid);
			st = -1;
			break;
		}
	}
	/* what it said: every word of a failure, a success's notices */
	if (j->rj_out != -1)
		dtd_retain_output(j->rj_out, EV_READ, j);
	j->rj_text[j->rj_len] = '\0';
	for (line = strtok_r(j->rj_text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (st == 0)
			log_info("%s: %s: %s", __func__, j->rj_name, line);
		else
			log_warnx("%s: %s: %s", __func__, j->rj_name, line);
	}
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		log_info("%s: %s retained", __func__, j->rj_name);
	else if (st != -1 && WIFEXITED(st))
		log_warnx("%s: %s: dtrace exited with status %d", __func__,
		    j->rj_name, WEXITSTATUS(st));
	else if (st != -1)
		log_warnx("%s: %s: dtrace killed by signal %d", __func__,
		    j->rj_name, WTERMSIG(st));
	dtd_retain_job_free(j);
}

static int
dtd_retain_isd(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 2 && strcmp(d->d_name + n - 2, ".d") == 0;
}

/* Run dtrace(1) on file, to retain it as name on our socket. */
static void
dtd_retain_spawn(const char *dtrace, const char *sock, const char *file,
    const char *name)
{
	char sockopt[PATH_MAX + 16], retainopt[DT_RETAIN_NAMELEN + 16];
	dtd_retain_job_t *j;
	pid_t pid;
	int fd, out[2];

	snprintf(sockopt, sizeof(sockopt), "socket=%s", sock);
	snprintf(retainopt, sizeof(retainopt), "retain=%s", name);
	if ((j = calloc(1, sizeof(*j))) == NULL) {
		log_warn("%s: calloc", __func__);
		return;
	}
	if (pipe2(out, O_CLOEXEC | O_NONBLOCK) == -1) {
		log_warn("%s: pipe", __func__);
		free(j);
		return;
	}
	if ((pid = fork()) == -1) {
		log_warn("%s: fork", __func__);
		close(out[0]);
		close(out[1]);
		free(j);
		return;
	}
	if (pid == 0) {
		char *argv[] = { "dtrace", "-x", sockopt, "-x", retainopt,
		    "-s", (char *)file, NULL };

		if ((fd = open("/dev/null", O_RDONLY)) != -1) {
			dup2(fd, STDIN_FILENO);
			if (fd != STDIN_FILENO)
				close(fd);
		}
		/* its words go to our log; the pipe blocks again for it */
		fcntl(out[1], F_SETFL, 0);
		dup2(out[1], STDOUT_FILENO);
		dup2(out[1], STDERR_FILENO);
		execv(dtrace, argv);
		/* async-signal-safe only: other threads may hold locks */
		(void)!write(STDERR_FILENO, "dtraced: cannot run ", 20);
		(void)!write(STDERR_FILENO, dtrace, strlen(dtrace));
		(void)!write(STDERR_FILENO, "\n", 1);
		_exit(127);
	}
	close(out[1]);
	j->rj_pid = pid;
	j->rj_out = out[0];
	snprintf(j->rj_name, sizeof(j->rj_name), "%s", name);
	if ((j->rj_outev = event_new(dtd_base, j->rj_out, EV_READ | EV_PERSIST,
	    dtd_retain_output, j)) == NULL ||
	    event_add(j->rj_outev, NULL) == -1) {
		/* unheard: it may block on a full pipe, so it gets none */
		if (j->rj_outev != NULL)
			event_free(j->rj_outev);
		j->rj_outev = NULL;
		close(j->rj_out);
		j->rj_out = -1;
	}
	if ((j->rj_fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1 ||
	    (j->rj_ev = event_new(dtd_base, j->rj_fd, EV_READ,
	    dtd_retain_reap, j)) == NULL ||
	    event_add(j->rj_ev, NULL) == -1) {
		log_warn("%s: cannot watch dtrace %d for %s", __func__,
		    (int)pid, name);
		/* it runs on; reaped, if it exits first, by nobody */
		if (j->rj_fd != -1)
			close(j->rj_fd);
		if (j->rj_outev != NULL)
			event_free(j->rj_outev);
		if (j->rj_out != -1)
			close(j->rj_out);
		free(j);
		return;
	}
	TAILQ_INSERT_TAIL(&dtd_retain_jobs, j, rj_link);
	log_info("%s: dtrace %d retains %s from %s", __func__, (int)pid,
	    name, file);
}

/*
 * Daemon start: retain every NAME.d of dir (alphabetical order) through
 * dtrace(1) on the socket at sock.  A file must belong to us and not be
 * writable by others: it runs with our rights.
 */
void
dtd_retain_load(const char *dir, const char *sock)
{
	char dtrace[PATH_MAX], file[PATH_MAX], name[DT_RETAIN_NAMELEN];
	struct dirent **ents;
	struct stat st;
	int n, i;
	size_t len;

	if ((n = scandir(dir, &ents, dtd_retain_isd, alphasort)) == -1) {
		if (errno == ENOENT)
			log_debug("%s: no %s", __func__, dir);
		else
			log_warn("%s: %s", __func__, dir);
		return;
	}
	dtd_retain_dtrace_path(dtrace, sizeof(dtrace));
	for (i = 0; i < n; i++) {
		len = strlen(ents[i]->d_name) - 2;
		snprintf(file, sizeof(file), "%s/%s", dir, ents[i]->d_name);
		if (len >= sizeof(name)) {
			log_warnx("%s: %s: name too long, skipped", __func__,
			    file);
			continue;
		}
		memcpy(name, ents[i]->d_name, len);
		name[len] = '\0';
		if (!dt_proto_retain_name_ok(name)) {
			log_warnx("%s: %s: \"%s\" is not a valid program "
			    "name, skipped", __func__, file, name);
			continue;
		}
		if (stat(file, &st) == -1) {
			log_warn("%s: %s", __func__, file);
			continue;
		}
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 022)) {
			log_warnx("%s: %s: not a regular file of uid %d "
			    "writable only by it, skipped", __func__, file,
			    (int)geteuid());
			continue;
		}
		dtd_retain_spawn(dtrace, sock, file, name);
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}
