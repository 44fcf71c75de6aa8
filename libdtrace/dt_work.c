/*
 * dt_work.c: starting and stopping tracing (dtrace_go, dtrace_stop) and
 * the consumer's work loop (dtrace_sleep, dtrace_status, dtrace_work):
 * the buffers, aggregation snapshots and drops the daemon sends.
 * Programs are sent by dt_program.c, targets named by dt_proc.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define DT_WORK_NANOSEC	1000000000LL

_Static_assert(EDT_NOPROBE == DTRACE_ENOPROBE, "dtrace.h and dt_impl.h disagree");
_Static_assert(EDT_DAEMON == DTRACE_EDAEMON, "dtrace.h and dt_impl.h disagree");
_Static_assert(EDT_NODAEMON == DTRACE_ENODAEMON,
    "dtrace.h and dt_impl.h disagree");

/* A size as illumos prints it: 2m, 512k, or 1000 (bytes). */
void
dtrace_sizestr(uint64_t size, char *buf, size_t len)
{
	static const char units[] = "tgmk";
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t u = 1ull << (10 * (4 - i));

		if (size >= u && size % u == 0) {
			snprintf(buf, len, "%llu%c",
			    (unsigned long long)(size / u), units[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)size);
}

/*
 * GO_OK says which sizes the daemon used: bufresize=auto may have
 * lowered them.  Say so (unless quietresize) and keep the real ones.
 */
static int
dt_work_sizes(dtrace_hdl_t *dtp, dt_msg_t *rep)
{
	static const struct {
		int		option;
		const char	*what;
	} sizes[] = {
		{ DTRACEOPT_BUFSIZE, "buffer" },
		{ DTRACEOPT_AGGSIZE, "aggregation" },
		{ DTRACEOPT_SPECSIZE, "speculation" },
		{ DTRACEOPT_DYNVARSIZE, "dynamic variable" },
	};
	uint64_t used[4], asked;
	char buf[64];
	size_t i;

	for (i = 0; i < 4; i++)
		used[i] = dt_msg_get_u64(rep);
	if (!dt_msg_done(rep))
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed GO_OK from dtraced");
	for (i = 0; i < 4; i++) {
		dtrace_optval_t *v = &dtp->dt_options[sizes[i].option];

		/* 0: the daemon allocated none (no aggregations) */
		if (used[i] == 0 || *v == DTRACEOPT_UNSET ||
		    used[i] >= (uint64_t)*v)
			continue;
		asked = (uint64_t)*v;
		*v = (dtrace_optval_t)used[i];
		/* as illumos: rounding down to 8 bytes is not worth a word */
		if (dtp->dt_options[DTRACEOPT_QUIETRESIZE] != DTRACEOPT_UNSET ||
		    used[i] + sizeof(uint64_t) > asked)
			continue;
		dtrace_sizestr(used[i], buf, sizeof(buf));
		fprintf(stderr, "dtrace: %s size lowered to %s%s\n",
		    sizes[i].what, buf, isdigit((unsigned char)
		    buf[strlen(buf) - 1]) ? " bytes" : "");
	}
	return 0;
}

/*
 * The rates the daemon keeps in range, as illumos's kernel does:
 * cleanrate from 200us to 60s (dtraced clamps it too), statusrate at
 * most 10s.  Say what changed in dtrace(1)'s words.
 */
static void
dt_work_rates(dtrace_hdl_t *dtp)
{
	static const struct {
		int		option;
		const char	*what;
		dtrace_optval_t	min, max;
	} rates[] = {
		{ DTRACEOPT_CLEANRATE, "cleaning rate", 200000,
		    60 * DT_WORK_NANOSEC },
		{ DTRACEOPT_STATUSRATE, "status rate", 0,
		    10 * DT_WORK_NANOSEC },
	};
	dtrace_optval_t v, nv;
	const char *dir;
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		v = dtp->dt_options[rates[i].option];
		if (v == DTRACEOPT_UNSET || v <= 0)
			continue;
		nv = v < rates[i].min ? rates[i].min :
		    v > rates[i].max ? rates[i].max : v;
		if (nv == v)
			continue;
		dtp->dt_options[rates[i].option] = nv;
		dir = nv > v ? "reduced" : "increased";
		if (nv <= DT_WORK_NANOSEC && DT_WORK_NANOSEC % nv == 0)
			fprintf(stderr, "dtrace: %s %s to %lld hz\n",
			    rates[i].what, dir,
			    (long long)(DT_WORK_NANOSEC / nv));
		else if (nv % DT_WORK_NANOSEC == 0)
			fprintf(stderr, "dtrace: %s %s to once every %lld "
			    "seconds\n", rates[i].what, dir,
			    (long long)(nv / DT_WORK_NANOSEC));
		else
			fprintf(stderr, "dtrace: %s %s to once every %lld "
			    "nanoseconds\n", rates[i].what, dir, (long long)nv);
	}
}

int
dtrace_go(dtrace_hdl_t *dtp)
{
	dt_msg_t req, rep;
	int rv;

	if (dtp->dt_active)
		return dt_set_errno(dtp, EDT_ACTIVE);
	if (dt_conn_open(dtp) != 0)
		return -1;
	if (dtp->dt_errprog == NULL && dt_program_errhandler(dtp) != 0)
		return -1;
	/* -x retain=NAME: the daemon keeps the program when we go */
	if (dtp->dt_retain != NULL && dt_retain_send(dtp) != 0)
		return -1;
	dt_msg_init(&req, DT_MSG_GO);
	if (dt_conn_request(dtp, &req, DT_MSG_GO_OK, &rep) != 0)
		return -1;
	rv = dt_work_sizes(dtp, &rep);
	dt_msg_free(&rep);
	if (rv != 0)
		return -1;
	dt_work_rates(dtp);
	dtp->dt_active = 1;
	if (dtp->dt_activity < DT_ACT_ACTIVE)
		dtp->dt_activity = DT_ACT_ACTIVE;
	dtp->dt_lastswitch = 0;
	dtp->dt_lastagg = 0;
	dtp->dt_laststatus = 0;
	return 0;
}

int
dtrace_stop(dtrace_hdl_t *dtp)
{
	dt_msg_t req, rep;

	if (dtp->dt_stopped)
		return 0;
	if (!dtp->dt_active)
		return dt_set_errno(dtp, EDT_NOENT);
	/* a snapshot leaves the retained program running */
	if (dtp->dt_snapshot) {
		dtp->dt_stopped = 1;
		return 0;
	}
	dt_msg_init(&req, DT_MSG_STOP);
	if (dt_conn_request(dtp, &req, DT_MSG_STOP_OK, &rep) != 0)
		return -1;
	dt_msg_free(&rep);
	dtp->dt_stopped = 1;
	return 0;
}

static int64_t
dt_work_deadline(int64_t last, dtrace_optval_t interval)
{
	if (last == 0)
		return 0;
	return last + (interval > 0 ? interval : 1000000000LL);
}

void
dtrace_sleep(dtrace_hdl_t *dtp)
{
	int64_t now, when, t;

	if (!dtp->dt_active || dtp->dt_stopped || dtp->dt_notified ||
	    dtp->dt_draining)
		return;
	when = dt_work_deadline(dtp->dt_lastswitch,
	    dtp->dt_options[DTRACEOPT_SWITCHRATE]);
	t = dt_work_deadline(dtp->dt_lastagg,
	    dtp->dt_options[DTRACEOPT_AGGRATE]);
	if (t < when)
		when = t;
	t = dt_work_deadline(dtp->dt_laststatus,
	    dtp->dt_options[DTRACEOPT_STATUSRATE]);
	if (t < when)
		when = t;
	now = dt_open_now();
	if (when <= now)
		return;
	/* round up: waking a little late beats spinning */
	(void)dt_conn_wait(dtp, (int)((when - now + 999999) / 1000000));
}

/*
 * Ask the daemon how tracing is going: a NOTIFY says it at once when
 * exit() runs or a fill buffer fills, and this poll at statusrate is
 * the safety net that does not depend on the NOTIFY being read.
 */
static int
dt_work_poll(dtrace_hdl_t *dtp)
{
	dt_msg_t req, rep;
	uint32_t act, reason;

	dt_msg_init(&req, DT_MSG_STATUS);
	if (dt_conn_request(dtp, &req, DT_MSG_STATUS_OK, &rep) != 0)
		return -1;
	act = dt_msg_get_u32(&rep);
	reason = dt_msg_get_u32(&rep);
	if (!dt_msg_done(&rep)) {
		dt_msg_free(&rep);
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed STATUS_OK from dtraced");
	}
	dt_msg_free(&rep);
	if (act >= DT_ACT_DRAINING)
		dtp->dt_draining = 1;
	if ((int)act > dtp->dt_activity)
		dtp->dt_activity = (int)act;
	if (reason != DT_REASON_NONE && dtp->dt_reason == DT_REASON_NONE)
		dtp->dt_reason = (int)reason;
	return 0;
}

int
dtrace_status(dtrace_hdl_t *dtp)
{
	int64_t now;

	if (!dtp->dt_active)
		return DTRACE_STATUS_NONE;
	/* a snapshot of a retained program: one read of everything, done */
	if (dtp->dt_stopped || dtp->dt_snapshot)
		return DTRACE_STATUS_STOPPED;
	now = dt_open_now();
	if (!dtp->dt_draining && now < dt_work_deadline(dtp->dt_laststatus,
	    dtp->dt_options[DTRACEOPT_STATUSRATE]))
		return DTRACE_STATUS_NONE;
	if (!dtp->dt_draining && dt_work_poll(dtp) != 0)
		return -1;
	dtp->dt_laststatus = now;
	if (dtp->dt_draining) {
		if (dtrace_stop(dtp) != 0)
			return -1;
		return dtp->dt_reason == DT_REASON_FILL ?
		    DTRACE_STATUS_FILLED : DTRACE_STATUS_EXITED;
	}
	return DTRACE_STATUS_OKAY;
}

/*
 * Speculation counts (cumulative in SNAP_END): report what grew since
 * the last look, in illumos's words.
 */
static void
dt_work_specdrops(dtrace_hdl_t *dtp, const uint64_t *now)
{
	static const struct {
		const char	*tag;
		const char	*what;
		const char	*suffix;
	} msgs[3] = {
		{ "DTRACEDROP_SPEC", "speculative drop", "" },
		{ "DTRACEDROP_SPECBUSY", "failed speculation",
		    " (available buffer(s) still busy)" },
		{ "DTRACEDROP_SPECUNAVAIL", "failed speculation",
		    " (no speculative buffer available)" },
	};
	uint64_t n;
	int i;

	for (i = 0; i < 3; i++) {
		if (now[i] <= dtp->dt_specdrops[i])
			continue;
		n = now[i] - dtp->dt_specdrops[i];
		dtp->dt_specdrops[i] = now[i];
		if (DT_JSON(dtp)) {
			char msg[128];

			snprintf(msg, sizeof(msg), "%llu %s%s%s",
			    (unsigned long long)n, msgs[i].what,
			    n > 1 ? "s" : "", msgs[i].suffix);
			dt_consume_json_drop(dtp, i == 0 ? "speculative" :
			    "speculation", msgs[i].tag, NULL, 0, n, msg);
			continue;
		}
		fprintf(stderr, "dtrace: %s%s%s%llu %s%s%s\n",
		    (dtp->dt_copts & DT_COPT_DROPTAGS) ? "[" : "",
		    (dtp->dt_copts & DT_COPT_DROPTAGS) ? msgs[i].tag : "",
		    (dtp->dt_copts & DT_COPT_DROPTAGS) ? "] " : "",
		    (unsigned long long)n, msgs[i].what, n > 1 ? "s" : "",
		    msgs[i].suffix);
	}
}

static void
dt_work_snapend(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	uint32_t act = dt_msg_get_u32(m);
	uint32_t status = dt_msg_get_u32(m);
	uint64_t errors = dt_msg_get_u64(m);
	uint64_t dyndrops = dt_msg_get_u64(m);
	uint32_t reason = dt_msg_get_u32(m);
	uint64_t spec[3];
	int i;

	for (i = 0; i < 3; i++)
		spec[i] = dt_msg_get_u64(m);
	if (!dt_msg_done(m))
		return;
	dt_work_specdrops(dtp, spec);
	if ((int)act > dtp->dt_activity)
		dtp->dt_activity = (int)act;
	if (act >= DT_ACT_DRAINING)
		dtp->dt_draining = 1;
	if (reason != DT_REASON_NONE && dtp->dt_reason == DT_REASON_NONE)
		dtp->dt_reason = (int)reason;
	dtp->dt_exitstatus = (int)status;
	(void)errors;	/* the consumer counts the ones it reports */
	if (dyndrops > dtp->dt_dyndrops) {
		uint64_t n = dyndrops - dtp->dt_dyndrops;
		char msg[128];

		snprintf(msg, sizeof(msg), "%llu dynamic variable drop%s",
		    (unsigned long long)n, n > 1 ? "s" : "");
		if (DT_JSON(dtp))
			dt_consume_json_drop(dtp, "dynamic",
			    "DTRACEDROP_DYNAMIC", NULL, 0, n, msg);
		else
			fprintf(stderr, "dtrace: %s%s\n",
			    (dtp->dt_copts & DT_COPT_DROPTAGS) ?
			    "[DTRACEDROP_DYNAMIC] " : "", msg);
		dtp->dt_dyndrops = dyndrops;
	}
}

/* Consume one DT_MSG_BUF: its drops, then its records. */
static int
dt_work_bufmsg(dtrace_hdl_t *dtp, FILE *fp, dt_msg_t *mp,
    dtrace_consume_probe_f *pfunc, dtrace_consume_rec_f *rfunc, void *arg)
{
	uint32_t cpu = dt_msg_get_u32(mp);
	uint64_t drops = dt_msg_get_u64(mp);
	uint32_t flags = dt_msg_get_u32(mp);
	uint32_t tid = 0;

	/* bufscope=thread: the unit is a thread */
	if (flags & DT_BUFF_THREAD)
		tid = dt_msg_get_u32(mp);
	if (mp->dm_err || cpu >= dtp->dt_ncpu)
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed BUF from dtraced");
	if (flags & DT_BUFF_THREAD)
		dt_consume_thrdrops(dtp, (int)tid, drops);
	else
		dt_consume_drops(dtp, (int)cpu, drops, 0);
	return dt_consume_buf(dtp, fp, (int)cpu,
	    (const char *)mp->dm_data + mp->dm_off, mp->dm_len - mp->dm_off,
	    pfunc, rfunc, arg);
}

dtrace_workstatus_t
dtrace_work(dtrace_hdl_t *dtp, FILE *fp, dtrace_consume_probe_f *pfunc,
    dtrace_consume_rec_f *rfunc, void *arg)
{
	dtrace_workstatus_t rval = DTRACE_WORKSTATUS_OKAY;
	int64_t now;
	uint32_t what = 0;
	int failed = 0, saved = 0;
	dt_msg_t req, m, *held = NULL;
	size_t nheld = 0, heldcap = 0, k;

	if (!dtp->dt_active)
		return dt_set_errno(dtp, EDT_NOENT);
	dtp->dt_ofp = fp;	/* oformat=json: drops go with the records */
	switch (dtrace_status(dtp)) {
	case DTRACE_STATUS_EXITED:
	case DTRACE_STATUS_FILLED:
	case DTRACE_STATUS_STOPPED:
		/* tracing is over: drain everything, whatever the rates */
		dtp->dt_lastswitch = 0;
		dtp->dt_lastagg = 0;
		rval = DTRACE_WORKSTATUS_DONE;
		break;
	case -1:
		return DTRACE_WORKSTATUS_ERROR;
	default:
		break;
	}

	now = dt_open_now();
	if (dtp->dt_notified || now >= dt_work_deadline(dtp->dt_lastswitch,
	    dtp->dt_options[DTRACEOPT_SWITCHRATE])) {
		/*
		 * Fill and ring buffers are read once, when tracing is
		 * over; until then a switch tick has nothing to read.
		 */
		if (rval == DTRACE_WORKSTATUS_DONE ||
		    dtp->dt_options[DTRACEOPT_BUFPOLICY] ==
		    DTRACEOPT_BUFPOLICY_SWITCH)
			what |= DT_SNAP_BUF;
		else
			dtp->dt_lastswitch = now;
	}
	if (rval == DTRACE_WORKSTATUS_DONE || now >= dt_work_deadline(
	    dtp->dt_lastagg, dtp->dt_options[DTRACEOPT_AGGRATE]))
		what |= DT_SNAP_AGG;
	dtp->dt_notified = 0;
	if (what == 0)
		return rval;

	dt_msg_init(&req, DT_MSG_SNAP);
	dt_msg_put_u32(&req, what);
	if (dt_conn_send(dtp, &req) != 0) {
		dt_msg_free(&req);
		return DTRACE_WORKSTATUS_ERROR;
	}
	dt_msg_free(&req);

	/* read every reply up to SNAP_END, even after a failure, to stay in step */
	for (;;) {
		if (dt_conn_recv(dtp, &m) != 0) {
			for (k = 0; k < nheld; k++)
				dt_msg_free(&held[k]);
			free(held);
			return DTRACE_WORKSTATUS_ERROR;
		}
		if (m.dm_type == DT_MSG_SNAP_END) {
			dt_work_snapend(dtp, &m);
			dt_msg_free(&m);
			break;
		}
		if (failed) {
			dt_msg_free(&m);
			continue;
		}
		if (m.dm_type == DT_MSG_BUF) {
			/*
			 * Held until SNAP_END: the snapshot's aggregations
			 * merge first, so a printa(), trunc() ... among its
			 * records sees the data of the probes before it.
			 */
			if (nheld == heldcap) {
				size_t nc = heldcap ? heldcap * 2 : 8;
				dt_msg_t *nh = realloc(held,
				    nc * sizeof(*nh));

				if (nh == NULL) {
					failed = 1;
					saved = EDT_NOMEM;
					dt_msg_free(&m);
					continue;
				}
				held = nh;
				heldcap = nc;
			}
			held[nheld++] = m;
			continue;
		} else if (m.dm_type == DT_MSG_AGG) {
			if (dt_aggregate_merge(dtp, &m) != 0) {
				failed = 1;
				saved = dtp->dt_errno;
			}
		} else {
			failed = 1;
			(void)dt_conn_error(dtp, EDT_PROTO,
			    "unexpected %s from dtraced",
			    dt_msg_type_name(m.dm_type));
			saved = dtp->dt_errno;
		}
		dt_msg_free(&m);
	}
	for (k = 0; k < nheld; k++) {
		if (!failed && dt_work_bufmsg(dtp, fp, &held[k], pfunc, rfunc,
		    arg) != 0) {
			failed = 1;
			saved = dtp->dt_errno;
		}
		dt_msg_free(&held[k]);
	}
	free(held);
	if (failed) {
		dtp->dt_errno = saved;
		return DTRACE_WORKSTATUS_ERROR;
	}
	now = dt_open_now();
	if (what & DT_SNAP_BUF)
		dtp->dt_lastswitch = now;
	if (what & DT_SNAP_AGG)
		dtp->dt_lastagg = now;
	return rval;
}

int
dtrace_exit_status(dtrace_hdl_t *dtp)
{
	return dtp->dt_exitstatus;
}
