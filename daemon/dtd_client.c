/*
 * dtd_client.c: one connected dtrace(1), and the one dispatch switch for
 * everything a client can send.
 *
 * States: NEW (HELLO must come first) -> READY (GRAB, PROGRAM, LIST, GO) ->
 * TRACING (SNAP, STATUS, STOP, LIST) -> STOPPED (SNAP, STATUS, LIST).  Anything before
 * HELLO, any malformed message, and a hang-up in the middle of a message
 * (logged, with what was left unread) drop that client only; after HELLO a
 * request in the wrong state is answered with DT_MSG_ERROR and the client
 * stays.  Each client has its own
 * consumer and can reach nothing else, except a retained program
 * (dtd_retain.c): RETAIN (READY) keeps the consumer in the daemon when
 * the client goes; CLAIM (READY, nothing sent yet) swaps the client's
 * fresh consumer for a retained one of its uid, to stop and read it
 * (claim) or only to read it (snapshot: every SNAP consumes nothing,
 * STOP is refused).  RETAINED lists them.
 *
 * What a client may cost (dtd_limit.c has the numbers): a uid other
 * than root may hold user-connections at once, and no uid other than
 * root may take the daemon's last descriptors; a client that does not
 * read its replies stops being served (no request of its is taken while
 * more than DTD_CLIENT_SOFTQ is queued for it, so it is never sent a
 * second snapshot while it has not read the first); the notices it is
 * sent unasked (targets, NOTIFY) may pile up beyond its replies to
 * output bytes at most; and one that takes no byte of its output for
 * output-timeout seconds is dropped.  Dropping a client stops its
 * tracing as its hang-up would: its targets let go, their text restored.
 */
#include <sys/eventfd.h>
#include <sys/resource.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "dtd.h"

enum {
	DTD_CL_NEW,
	DTD_CL_READY,
	DTD_CL_TRACING,
	DTD_CL_STOPPED,
};

typedef struct dtd_client {
	TAILQ_ENTRY(dtd_client)	cl_link;
	dt_peer_t		cl_peer;
	struct event		*cl_rev;
	struct event		*cl_wev;
	int			cl_state;
	int			cl_oneshot;	/* -f: exit when it goes */
	int			cl_borrowed;	/* a snapshot of a retained
						   program: read only */
	dtd_consumer_t		*cl_consumer;	/* one reference is ours */
	uint32_t		cl_announced;	/* its ECBs the client knows */
	struct event		*cl_stallev;	/* output-timeout */
	int			cl_paused;	/* its requests wait: it has
						   too much unread */
	int			cl_backlog;	/* requests read before a
						   pause, to take first */
	size_t			cl_replied;	/* of the queue's head, the
						   bytes that are replies */
} dtd_client_t;

/* Take no request of a client while more than this is queued for it. */
#define DTD_CLIENT_SOFTQ	(256u << 10)

static TAILQ_HEAD(, dtd_client) dtd_clients =
    TAILQ_HEAD_INITIALIZER(dtd_clients);
static int		dtd_client_nclients;
static int		dtd_client_efd = -1;
static struct event	*dtd_client_eev;
static int		dtd_client_fdcap = -1;	/* root's beyond this */

static void	dtd_client_read(evutil_socket_t, short, void *);
static void	dtd_client_write(evutil_socket_t, short, void *);
static void	dtd_client_free(dtd_client_t *);
static int	dtd_client_flush(dtd_client_t *);
static int	dtd_client_sendcb(void *, dt_msg_t *);
static int	dtd_client_send(dtd_client_t *, dt_msg_t *);
static int	dtd_client_noticed(dtd_client_t *);
static void	dtd_client_stalled(evutil_socket_t, short, void *);
static void	dtd_client_wakeup(void);

static size_t
dtd_client_queued(const dtd_client_t *cl)
{
	return dt_peer_queued(&cl->cl_peer);
}

/*
 * The notices: what a client is sent without asking, at the moments its
 * row names (DTD_NOTE_*), in the table's order: a module map before the
 * records that need it and before the exit of its process, the new ECBs
 * before a snapshot's records, a process's exit before the NOTIFY that
 * may follow it.  Each returns -1 if sending failed.
 */
#define DTD_NOTE_WAKE		0x1	/* the main loop was woken */
#define DTD_NOTE_PROGRAM	0x2	/* a program taken: before PROGRAM_OK */
#define DTD_NOTE_GRAB		0x4	/* a process grabbed: after GRAB_OK */
#define DTD_NOTE_SNAP		0x8	/* before a snapshot */

/* DT_MSG_PROC (held, exited, lost, backend), and their maps first */
static int
dtd_client_note_targets(dtd_client_t *cl)
{
	return dtd_target_report(cl->cl_consumer, dtd_client_sendcb, cl);
}

/* DT_MSG_MODMAP of the targets whose modules changed */
static int
dtd_client_note_maps(dtd_client_t *cl)
{
	return dtd_target_modmaps(cl->cl_consumer, dtd_client_sendcb, cl);
}

/* DT_MSG_MODMAP of the processes its samples may show */
static int
dtd_client_note_observed(dtd_client_t *cl)
{
	return dtd_target_obsmaps(cl->cl_consumer, dtd_client_sendcb, cl);
}

/* DT_MSG_ECBS: the ECBs made since the client last heard */
static int
dtd_client_note_ecbs(dtd_client_t *cl)
{
	if (dtd_consumer_announce(cl->cl_consumer, cl->cl_announced,
	    dtd_client_sendcb, cl) == -1)
		return -1;
	cl->cl_announced = cl->cl_consumer->dc_necb;
	return 0;
}

/* DT_MSG_NOTIFY: the firing path drained it (exit(), a full buffer) */
static int
dtd_client_note_drain(dtd_client_t *cl)
{
	dt_msg_t m;

	if (!__atomic_exchange_n(&cl->cl_consumer->dc_notify, 0,
	    __ATOMIC_ACQ_REL))
		return 0;
	dt_msg_init(&m, DT_MSG_NOTIFY);
	dt_msg_put_u32(&m, (uint32_t)dtd_consumer_activity(cl->cl_consumer));
	dt_msg_put_u32(&m, (uint32_t)__atomic_load_n(
	    &cl->cl_consumer->dc_reason, __ATOMIC_ACQUIRE));
	return dtd_client_send(cl, &m);
}

static const struct dtd_client_note {
	uint32_t	cn_when;	/* DTD_NOTE_* */
	int		(*cn_send)(dtd_client_t *);
} dtd_client_notes[] = {
	{ DTD_NOTE_WAKE | DTD_NOTE_PROGRAM, dtd_client_note_targets },
	{ DTD_NOTE_GRAB | DTD_NOTE_SNAP, dtd_client_note_maps },
	{ DTD_NOTE_SNAP, dtd_client_note_observed },
	{ DTD_NOTE_SNAP, dtd_client_note_ecbs },
	{ DTD_NOTE_WAKE, dtd_client_note_drain },
};

/* Send cl the notices of moment when; -1 if one could not be sent. */
static int
dtd_client_notices(dtd_client_t *cl, uint32_t when)
{
	size_t i;

	for (i = 0; i < sizeof(dtd_client_notes) /
	    sizeof(dtd_client_notes[0]); i++) {
		if ((dtd_client_notes[i].cn_when & when) != 0 &&
		    dtd_client_notes[i].cn_send(cl) == -1)
			return -1;
	}
	return 0;
}

/* Woken (dtd_ecb_wakeup): send every client its notices. */
static void
dtd_client_notify(evutil_socket_t fd, short ev, void *arg)
{
	dtd_client_t *cl, *next;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) == -1 && errno != EAGAIN)
		log_warn("%s: read", __func__);
	for (cl = TAILQ_FIRST(&dtd_clients); cl != NULL; cl = next) {
		next = TAILQ_NEXT(cl, cl_link);
		if (cl->cl_consumer == NULL)
			continue;
		if (dtd_client_notices(cl, DTD_NOTE_WAKE) == -1) {
			log_warn("%s: pid %d", __func__, (int)cl->cl_peer.dp_pid);
			dtd_client_free(cl);
			continue;
		}
		if (dtd_client_noticed(cl) == -1)
			continue;
		if (dtd_client_flush(cl) == -1)
			dtd_client_free(cl);
	}
	/* retained programs no client holds: their targets, exit() */
	dtd_retain_tend();
}

int
dtd_client_init(void)
{
	struct rlimit rl;

	/*
	 * Descriptors are handed out lowest first: a new connection's
	 * number tells how many are open.  The last eighth is root's.
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= INT32_MAX)
		dtd_client_fdcap = (int)(rl.rlim_cur - rl.rlim_cur / 8);
	if ((dtd_client_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1)
		return -1;
	if ((dtd_client_eev = event_new(dtd_base, dtd_client_efd,
	    EV_READ | EV_PERSIST, dtd_client_notify, NULL)) == NULL ||
	    event_add(dtd_client_eev, NULL) == -1)
		return -1;
	dtd_ecb_onwake(dtd_client_wakeup);
	return 0;
}

/*
 * Any thread (the wake-up hook of the firing path, dtd_ecb_onwake):
 * wake the main loop to send pending notices.
 */
static void
dtd_client_wakeup(void)
{
	uint64_t one = 1;

	if (dtd_client_efd != -1 &&
	    write(dtd_client_efd, &one, sizeof(one)) == -1 && errno != EAGAIN)
		log_warn("%s: write", __func__);
}

int
dtd_client_count(void)
{
	return dtd_client_nclients;
}

/*
 * May this connection be served?  0, or -1 with the reason in err: too
 * many of its uid's, or too few descriptors left for root's.
 */
static int
dtd_client_admit(const dt_peer_t *p, char *err, size_t errlen)
{
	const dtd_client_t *cl;
	uint64_t n = 0;

	TAILQ_FOREACH(cl, &dtd_clients, cl_link) {
		if (cl->cl_peer.dp_uid == p->dp_uid)
			n++;
	}
	if (dtd_limit_connect(p->dp_uid, n, err, errlen) == -1)
		return -1;
	if (p->dp_uid != 0 && dtd_limit_enforcing() &&
	    dtd_client_fdcap != -1 && p->dp_fd >= dtd_client_fdcap) {
		snprintf(err, errlen, "too many connections: dtraced keeps "
		    "its last file descriptors for root");
		return -1;
	}
	return 0;
}

/* Tell a connection we will not serve it why, and hang up. */
static void
dtd_client_refuse(dt_peer_t *p, const char *why)
{
	dt_msg_t m;

	log_warnx("%s: pid %d uid %d: %s, refused", __func__, (int)p->dp_pid,
	    (int)p->dp_uid, why);
	/* a new socket's buffer takes it whole, or the client never hears */
	dt_msg_init(&m, DT_MSG_ERROR);
	dt_msg_put_u32(&m, EUSERS);
	dt_msg_put_str(&m, why);
	if (dt_peer_send(p, &m) == 0)
		(void)dt_peer_flush(p);
	dt_msg_free(&m);
	dt_peer_close(p);
}

/*
 * A client of another protocol version: an error in ours, which it
 * cannot read but whose header tells it our version (dt_conn.c), so that
 * it names both rather than "closed the connection".  Sent as far as
 * the socket takes it now (a HELLO's answer is the first and only thing
 * queued), never waited for.
 */
static void
dtd_client_mismatch(dtd_client_t *cl)
{
	dt_msg_t m;
	char text[128];

	snprintf(text, sizeof(text), "dtraced speaks protocol %u, not %u",
	    (unsigned)DT_PROTO_VERSION, (unsigned)cl->cl_peer.dp_version);
	dt_msg_init(&m, DT_MSG_ERROR);
	dt_msg_put_u32(&m, EPROTO);
	dt_msg_put_str(&m, text);
	if (dt_peer_send(&cl->cl_peer, &m) == 0)
		(void)dt_peer_flush(&cl->cl_peer);
	dt_msg_free(&m);
}

void
dtd_client_create(int fd, int oneshot)
{
	dtd_client_t *cl;
	char err[256];

	if ((cl = calloc(1, sizeof(*cl))) == NULL) {
		log_warn("%s: calloc", __func__);
		close(fd);
		return;
	}
	if (dt_peer_init(&cl->cl_peer, fd, DT_MSG_MAXCLIENT) == -1) {
		log_warn("%s: SO_PEERCRED", __func__);
		close(fd);
		free(cl);
		return;
	}
	if (dtd_client_admit(&cl->cl_peer, err, sizeof(err)) == -1) {
		dtd_client_refuse(&cl->cl_peer, err);
		free(cl);
		return;
	}
	cl->cl_oneshot = oneshot;
	cl->cl_state = DTD_CL_NEW;
	if ((cl->cl_rev = event_new(dtd_base, fd, EV_READ | EV_PERSIST,
	    dtd_client_read, cl)) == NULL ||
	    (cl->cl_wev = event_new(dtd_base, fd, EV_WRITE | EV_PERSIST,
	    dtd_client_write, cl)) == NULL ||
	    (cl->cl_stallev = evtimer_new(dtd_base, dtd_client_stalled,
	    cl)) == NULL ||
	    event_add(cl->cl_rev, NULL) == -1) {
		log_warnx("%s: cannot watch fd %d", __func__, fd);
		if (cl->cl_rev != NULL)
			event_free(cl->cl_rev);
		if (cl->cl_wev != NULL)
			event_free(cl->cl_wev);
		if (cl->cl_stallev != NULL)
			event_free(cl->cl_stallev);
		dt_peer_close(&cl->cl_peer);
		free(cl);
		return;
	}
	TAILQ_INSERT_TAIL(&dtd_clients, cl, cl_link);
	dtd_client_nclients++;
	log_info("%s: pid %d uid %d connected", __func__,
	    (int)cl->cl_peer.dp_pid, (int)cl->cl_peer.dp_uid);
}

static void
dtd_client_free(dtd_client_t *cl)
{
	int oneshot = cl->cl_oneshot;
	pid_t pid = cl->cl_peer.dp_pid;

	TAILQ_REMOVE(&dtd_clients, cl, cl_link);
	dtd_client_nclients--;
	/*
	 * the consumer's ECBs come off their probes before anything is
	 * freed, unless it is retained: then it traces on without us
	 */
	if (cl->cl_consumer != NULL)
		dtd_retain_cancel(cl->cl_consumer);
	dtd_consumer_release(cl->cl_consumer);
	event_free(cl->cl_rev);
	event_free(cl->cl_wev);
	event_free(cl->cl_stallev);
	dt_peer_close(&cl->cl_peer);
	free(cl);
	/* once its connection is closed */
	log_info("%s: pid %d gone", __func__, (int)pid);
	/* a retained program may have drained while its client was here */
	dtd_retain_tend();
	if (oneshot && dtd_base != NULL)
		event_base_loopexit(dtd_base, NULL);
}

void
dtd_client_shutdown(void)
{
	dtd_client_t *cl;

	while ((cl = TAILQ_FIRST(&dtd_clients)) != NULL) {
		cl->cl_oneshot = 0;
		dtd_client_free(cl);
	}
	if (dtd_client_eev != NULL)
		event_free(dtd_client_eev);
	dtd_client_eev = NULL;
	if (dtd_client_efd != -1)
		close(dtd_client_efd);
	dtd_client_efd = -1;
}

static int
dtd_client_send(dtd_client_t *cl, dt_msg_t *m)
{
	int rv = dt_peer_send(&cl->cl_peer, m);

	dt_msg_free(m);
	return rv;
}

static int
dtd_client_sendcb(void *arg, dt_msg_t *m)
{
	dtd_client_t *cl = arg;

	return dt_peer_send(&cl->cl_peer, m);
}

static int
dtd_client_error(dtd_client_t *cl, uint32_t code, const char *text)
{
	dt_msg_t m;

	log_info("%s: pid %d: %s", __func__, (int)cl->cl_peer.dp_pid, text);
	dt_msg_init(&m, DT_MSG_ERROR);
	dt_msg_put_u32(&m, code);
	dt_msg_put_str(&m, text);
	return dtd_client_send(cl, &m);
}

static int
dtd_client_empty(dtd_client_t *cl, uint16_t type)
{
	dt_msg_t m;

	dt_msg_init(&m, type);
	return dtd_client_send(cl, &m);
}

typedef struct dtd_client_list {
	dt_msg_t	*cll_msg;
	uint32_t	cll_n;
} dtd_client_list_t;

static int
dtd_client_listone(dtd_probe_t *p, void *arg)
{
	dtd_client_list_t *l = arg;

	dtd_probe_encode(l->cll_msg, p);
	l->cll_n++;
	return 0;
}

/* 0: go on; -1: malformed, drop the client. */
static int
dtd_client_dispatch(dtd_client_t *cl, dt_msg_t *m)
{
	char err[1024];
	dtp_probedesc_t desc;
	dtd_client_list_t l;
	dtd_consumer_t *nc;
	dtp_prog_t *prog;
	char name[1024];
	dt_msg_t r;
	uint32_t what, flags;
	uint8_t *np;
	pid_t pid;
	size_t off;

	err[0] = '\0';
	/* A peer that does not open with HELLO is not speaking our protocol. */
	if (m->dm_type != DT_MSG_HELLO && cl->cl_state == DTD_CL_NEW)
		return -1;

	switch (m->dm_type) {
	case DT_MSG_HELLO:
		(void)dt_msg_get_u32(m);
		if (!dt_msg_done(m))
			return -1;
		if (cl->cl_state != DTD_CL_NEW)
			return dtd_client_error(cl, EALREADY,
			    "HELLO was already received");
		/* the kernel's word on who is calling, not the payload's */
		cl->cl_consumer = dtd_consumer_create(cl->cl_peer.dp_pid,
		    cl->cl_peer.dp_uid, cl->cl_peer.dp_gid);
		if (cl->cl_consumer == NULL)
			return dtd_client_error(cl, ENOMEM, "out of memory");
		cl->cl_state = DTD_CL_READY;
		dt_msg_init(&r, DT_MSG_HELLO_OK);
		dt_msg_put_u32(&r, (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
		dt_msg_put_u32(&r, (uint32_t)getpid());
		return dtd_client_send(cl, &r);

	case DT_MSG_PROGRAM:
		if (cl->cl_state != DTD_CL_READY)
			return dtd_client_error(cl, EBUSY,
			    "programs must be sent before GO");
		if ((prog = dt_proto_prog_decode(m, err, sizeof(err))) == NULL) {
			if (m->dm_err == ENOMEM)
				return dtd_client_error(cl, ENOMEM,
				    "out of memory");
			log_warnx("%s: pid %d: bad program: %s", __func__,
			    (int)cl->cl_peer.dp_pid, err);
			return -1;
		}
		dt_msg_init(&r, DT_MSG_PROGRAM_OK);
		if (dtd_consumer_program(cl->cl_consumer, prog, &r, err,
		    sizeof(err)) == -1) {
			dt_msg_free(&r);
			dt_proto_prog_free(prog);
			return dtd_client_error(cl, EINVAL, err);
		}
		/* the targets' backends, chosen now: before the reply */
		if (dtd_client_notices(cl, DTD_NOTE_PROGRAM) == -1) {
			dt_msg_free(&r);
			return -1;
		}
		cl->cl_announced = cl->cl_consumer->dc_necb;
		return dtd_client_send(cl, &r);

	case DT_MSG_LIST:
		memset(&desc, 0, sizeof(desc));
		dt_msg_get_strbuf(m, desc.dpd_provider, sizeof(desc.dpd_provider));
		dt_msg_get_strbuf(m, desc.dpd_mod, sizeof(desc.dpd_mod));
		dt_msg_get_strbuf(m, desc.dpd_func, sizeof(desc.dpd_func));
		dt_msg_get_strbuf(m, desc.dpd_name, sizeof(desc.dpd_name));
		if (!dt_msg_done(m))
			return -1;
		dt_msg_init(&r, DT_MSG_LIST_OK);
		off = r.dm_len;
		dt_msg_put_u32(&r, 0);
		l.cll_msg = &r;
		l.cll_n = 0;
		if (dtd_probe_iter(&desc, cl->cl_consumer, dtd_client_listone,
		    &l, err, sizeof(err)) == -1 && err[0] != '\0') {
			dt_msg_free(&r);
			return dtd_client_error(cl, dtd_probe_geterrcode(),
			    err);
		}
		if (r.dm_err == 0) {
			np = r.dm_data + off;
			np[0] = l.cll_n & 0xff;
			np[1] = (l.cll_n >> 8) & 0xff;
			np[2] = (l.cll_n >> 16) & 0xff;
			np[3] = (l.cll_n >> 24) & 0xff;
		}
		return dtd_client_send(cl, &r);

	case DT_MSG_GRAB:
		pid = (pid_t)dt_msg_get_u32(m);
		flags = dt_msg_get_u32(m);
		if (!dt_msg_done(m) || m->dm_fd == -1 ||
		    (flags & ~(uint32_t)(DT_GRAB_CREATE | DT_GRAB_EVALMASK)) ||
		    ((flags & DT_GRAB_EVALMASK) && !(flags & DT_GRAB_CREATE)))
			return -1;
		if (cl->cl_state != DTD_CL_READY)
			return dtd_client_error(cl, EBUSY,
			    "processes must be grabbed before GO");
		if (dtd_target_grab(cl->cl_consumer, pid, m->dm_fd,
		    (flags & DT_GRAB_CREATE) != 0, (int)((flags &
		    DT_GRAB_EVALMASK) >> DT_GRAB_EVALSHIFT), err,
		    sizeof(err)) == -1)
			return dtd_client_error(cl, ESRCH, err);
		dt_msg_init(&r, DT_MSG_GRAB_OK);
		dt_msg_put_u32(&r, (uint32_t)pid);
		if (dtd_client_send(cl, &r) == -1)
			return -1;
		/* a grabbed target's modules, for -lv and symbols */
		return dtd_client_notices(cl, DTD_NOTE_GRAB);

	case DT_MSG_GO:
		if (!dt_msg_done(m))
			return -1;
		if (cl->cl_state != DTD_CL_READY)
			return dtd_client_error(cl, EALREADY,
			    "tracing has already started");
		if (dtd_consumer_go(cl->cl_consumer, err, sizeof(err)) == -1)
			return dtd_client_error(cl, EINVAL, err);
		cl->cl_state = DTD_CL_TRACING;
		/* the sizes in use, so the client can say what was lowered */
		dt_msg_init(&r, DT_MSG_GO_OK);
		dt_msg_put_u64(&r, cl->cl_consumer->dc_bufused);
		dt_msg_put_u64(&r, cl->cl_consumer->dc_aggused);
		dt_msg_put_u64(&r, cl->cl_consumer->dc_specused);
		dt_msg_put_u64(&r, cl->cl_consumer->dc_opts.do_dynvarsize);
		return dtd_client_send(cl, &r);

	case DT_MSG_STATUS:
		if (!dt_msg_done(m))
			return -1;
		if (cl->cl_state != DTD_CL_TRACING &&
		    cl->cl_state != DTD_CL_STOPPED)
			return dtd_client_error(cl, EINVAL,
			    "tracing has not started");
		dt_msg_init(&r, DT_MSG_STATUS_OK);
		dt_msg_put_u32(&r,
		    (uint32_t)dtd_consumer_activity(cl->cl_consumer));
		dt_msg_put_u32(&r, (uint32_t)__atomic_load_n(
		    &cl->cl_consumer->dc_reason, __ATOMIC_ACQUIRE));
		return dtd_client_send(cl, &r);

	case DT_MSG_SNAP:
		what = dt_msg_get_u32(m);
		if (!dt_msg_done(m))
			return -1;
		if (cl->cl_state != DTD_CL_TRACING &&
		    cl->cl_state != DTD_CL_STOPPED)
			return dtd_client_error(cl, EINVAL,
			    "tracing has not started");
		if (what & ~(uint32_t)(DT_SNAP_BUF | DT_SNAP_AGG))
			return dtd_client_error(cl, EINVAL,
			    "unknown snapshot request");
		/* what the records need: maps, then the ECBs made since */
		if (dtd_client_notices(cl, DTD_NOTE_SNAP) == -1)
			return -1;
		/* a snapshot of a retained program leaves it all there */
		if (cl->cl_borrowed)
			what |= DTD_SNAP_PEEK;
		return dtd_consumer_snap(cl->cl_consumer, what,
		    dtd_client_sendcb, cl);

	case DT_MSG_STOP:
		if (!dt_msg_done(m))
			return -1;
		if (cl->cl_state != DTD_CL_TRACING)
			return dtd_client_error(cl, EINVAL,
			    cl->cl_state == DTD_CL_STOPPED ?
			    "tracing has already stopped" :
			    "tracing has not started");
		if (cl->cl_borrowed)
			return dtd_client_error(cl, EPERM, "a snapshot leaves "
			    "the retained program running: claim it to stop "
			    "it");
		if (dtd_consumer_stop(cl->cl_consumer, err, sizeof(err)) == -1)
			return dtd_client_error(cl, EINVAL, err);
		cl->cl_state = DTD_CL_STOPPED;
		return dtd_client_empty(cl, DT_MSG_STOP_OK);

	case DT_MSG_RETAIN:
		if (dt_msg_get_strbuf(m, name, sizeof(name)) == -1)
			return -1;
		if (cl->cl_state != DTD_CL_READY)
			return dtd_client_error(cl, EBUSY,
			    "a program is retained before GO");
		switch (dtd_retain_add(cl->cl_consumer, name, m,
		    cl->cl_oneshot, err, sizeof(err))) {
		case -2:
			return -1;
		case -1:
			return dtd_client_error(cl, EINVAL, err);
		}
		return dtd_client_empty(cl, DT_MSG_RETAIN_OK);

	case DT_MSG_CLAIM:
		dt_msg_get_strbuf(m, name, sizeof(name));
		flags = dt_msg_get_u32(m);
		if (!dt_msg_done(m) || (flags & ~(uint32_t)DT_CLAIM_SNAPSHOT))
			return -1;
		if (cl->cl_state != DTD_CL_READY ||
		    cl->cl_consumer->dc_nprog != 0 ||
		    cl->cl_consumer->dc_targets != NULL)
			return dtd_client_error(cl, EBUSY, "a retained program "
			    "is claimed instead of sending programs");
		dt_msg_init(&r, DT_MSG_CLAIM_OK);
		if ((nc = dtd_retain_claim(name, cl->cl_peer.dp_uid,
		    (int)flags, &r, err, sizeof(err))) == NULL) {
			dt_msg_free(&r);
			return dtd_client_error(cl, ENOENT, err);
		}
		dtd_consumer_release(cl->cl_consumer);
		cl->cl_consumer = nc;
		cl->cl_announced = nc->dc_necb;	/* CLAIM_OK lists them all */
		cl->cl_borrowed = (flags & DT_CLAIM_SNAPSHOT) != 0;
		cl->cl_state = dtd_consumer_activity(nc) == DT_ACT_STOPPED ?
		    DTD_CL_STOPPED : DTD_CL_TRACING;
		return dtd_client_send(cl, &r);

	case DT_MSG_RETAINED:
		if (!dt_msg_done(m))
			return -1;
		dt_msg_init(&r, DT_MSG_RETAINED_OK);
		dtd_retain_list(cl->cl_peer.dp_uid, &r);
		return dtd_client_send(cl, &r);

	default:
		log_warnx("%s: pid %d: unexpected %s message", __func__,
		    (int)cl->cl_peer.dp_pid, dt_msg_type_name(m->dm_type));
		return -1;
	}
}

/*
 * Write what is queued; watch for writability only while some is left,
 * and for the client taking none of it for output-timeout seconds.  A
 * client whose requests waited may send more once it has read enough.
 */
static int
dtd_client_flush(dtd_client_t *cl)
{
	struct timeval tv = { 0, 0 };
	size_t before = dtd_client_queued(cl), took;
	uint64_t max;
	int rv, secs;

	rv = dt_peer_flush(&cl->cl_peer);
	if (rv == -1) {
		if (errno != EPIPE && errno != ECONNRESET)
			log_warn("%s: pid %d", __func__,
			    (int)cl->cl_peer.dp_pid);
		return -1;
	}
	took = before - dtd_client_queued(cl);
	cl->cl_replied -= took < cl->cl_replied ? took : cl->cl_replied;
	if (rv == 1) {
		event_del(cl->cl_wev);
		evtimer_del(cl->cl_stallev);
	} else {
		event_add(cl->cl_wev, NULL);
		if (dtd_limit_output(&max, &secs) && (took > 0 ||
		    !evtimer_pending(cl->cl_stallev, NULL))) {
			tv.tv_sec = secs;
			evtimer_add(cl->cl_stallev, &tv);
		}
	}
	if (cl->cl_paused && dtd_client_queued(cl) <= DTD_CLIENT_SOFTQ) {
		cl->cl_paused = 0;
		event_add(cl->cl_rev, NULL);
		/* requests read before the pause: take them now */
		if (cl->cl_peer.dp_inlen > 0) {
			cl->cl_backlog = 1;
			event_active(cl->cl_rev, EV_READ, 0);
		}
	}
	return 0;
}

/* Output-timeout: the client has taken no byte of its output. */
static void
dtd_client_stalled(evutil_socket_t fd, short ev, void *arg)
{
	dtd_client_t *cl = arg;
	uint64_t max;
	int secs;

	(void)dtd_limit_output(&max, &secs);
	log_warnx("%s: pid %d uid %d: read nothing of its %zu queued bytes "
	    "in %d seconds, dropping client", __func__,
	    (int)cl->cl_peer.dp_pid, (int)cl->cl_peer.dp_uid,
	    dtd_client_queued(cl), secs);
	dtd_client_free(cl);
}

/*
 * Notices were queued for cl: unasked, they are the output a client
 * that does not read can pile up, up to the output limit beyond its
 * replies.  -1 when cl went over and was dropped.
 */
static int
dtd_client_noticed(dtd_client_t *cl)
{
	uint64_t max;
	size_t q = dtd_client_queued(cl);
	int secs;

	if (!dtd_limit_output(&max, &secs) || q - cl->cl_replied <= max)
		return 0;
	log_warnx("%s: pid %d uid %d: %zu bytes of notices unread, over "
	    "the output limit of %" PRIu64 ", dropping client", __func__,
	    (int)cl->cl_peer.dp_pid, (int)cl->cl_peer.dp_uid,
	    q - cl->cl_replied, max);
	dtd_client_free(cl);
	return -1;
}

static void
dtd_client_read(evutil_socket_t fd, short ev, void *arg)
{
	dtd_client_t *cl = arg;
	dt_msg_t m;
	uint16_t type;
	ssize_t n;
	int rv;

	/* the requests that waited first; the socket's news come after */
	if (cl->cl_backlog) {
		cl->cl_backlog = 0;
		n = -1;
		errno = EAGAIN;
	} else
		n = dt_peer_read(&cl->cl_peer);
	if (n == 0) {
		/* what it left unread is closed and freed with it */
		if (cl->cl_peer.dp_inlen > 0 || cl->cl_peer.dp_ninfd > 0)
			log_warnx("%s: pid %d: hung up in the middle of a "
			    "message (%zu bytes, %d fds unread), dropping "
			    "client", __func__, (int)cl->cl_peer.dp_pid,
			    cl->cl_peer.dp_inlen, cl->cl_peer.dp_ninfd);
		dtd_client_free(cl);
		return;
	}
	if (n == -1 && errno != EAGAIN && errno != EINTR) {
		if (errno != ECONNRESET)
			log_warn("%s: pid %d", __func__,
			    (int)cl->cl_peer.dp_pid);
		else
			log_info("%s: pid %d: connection reset", __func__,
			    (int)cl->cl_peer.dp_pid);
		dtd_client_free(cl);
		return;
	}
	for (;;) {
		/* a client that does not read is not fed any more */
		if (dtd_client_queued(cl) > DTD_CLIENT_SOFTQ) {
			if (!cl->cl_paused)
				log_debug("%s: pid %d: %zu bytes unread, its "
				    "requests wait", __func__,
				    (int)cl->cl_peer.dp_pid,
				    dtd_client_queued(cl));
			cl->cl_paused = 1;
			event_del(cl->cl_rev);
			break;
		}
		memset(&m, 0, sizeof(m));
		rv = dt_peer_get(&cl->cl_peer, &m);
		if (rv == 0)
			break;
		if (rv == -1 && cl->cl_peer.dp_version != 0) {
			log_warnx("%s: pid %d: speaks protocol %u, not %u, "
			    "dropping client", __func__,
			    (int)cl->cl_peer.dp_pid,
			    (unsigned)cl->cl_peer.dp_version,
			    (unsigned)DT_PROTO_VERSION);
			dtd_client_mismatch(cl);
			dtd_client_free(cl);
			return;
		}
		if (rv == -1) {
			log_warnx("%s: pid %d: malformed message (%s), dropping "
			    "client", __func__, (int)cl->cl_peer.dp_pid,
			    strerror(errno));
			dtd_client_free(cl);
			return;
		}
		log_debug("%s: pid %d: %s, %zu bytes", __func__,
		    (int)cl->cl_peer.dp_pid, dt_msg_type_name(m.dm_type),
		    m.dm_len);
		/* GRAB dups the pidfd it keeps: dt_msg_free closes this one */
		type = m.dm_type;
		rv = dtd_client_dispatch(cl, &m);
		dt_msg_free(&m);
		/* all that is queued now is answers: no notice counts it */
		cl->cl_replied = dtd_client_queued(cl);
		if (rv == -1) {
			log_warnx("%s: pid %d: bad %s message, dropping client",
			    __func__, (int)cl->cl_peer.dp_pid,
			    dt_msg_type_name(type));
			dtd_client_free(cl);
			return;
		}
	}
	if (dtd_client_flush(cl) == -1)
		dtd_client_free(cl);
}

static void
dtd_client_write(evutil_socket_t fd, short ev, void *arg)
{
	dtd_client_t *cl = arg;

	if (dtd_client_flush(cl) == -1)
		dtd_client_free(cl);
}
