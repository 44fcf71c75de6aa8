/*
 * dt_retain.c: retained programs, the consumer's side.
 *
 * -x retain=NAME: dtrace_go() sends DT_MSG_RETAIN before GO, with the
 * handle's options (quiet, aggsortkey, oformat ... are the consumer's,
 * not the daemon's), and the daemon keeps the program running under
 * NAME when this consumer goes.
 *
 * dtrace_claim() takes over such a program instead of compiling one: it
 * gets back the programs (formats and record layouts), the EPIDs, the
 * sizes in use and those options, and from then on the handle consumes
 * the program's buffers as if it had sent it itself (dt_work.c,
 * dt_consume.c).  A claim is stopped with dtrace_stop(); a snapshot is
 * read once by dtrace_work(), consuming nothing, and left running.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define DT_RETAIN_MAXPROG	4096
#define DT_RETAIN_MAXLIST	65536

static int
dt_retain_count(dtrace_hdl_t *dtp, const char *name, uint64_t v, void *arg)
{
	(void)dtp;
	(void)name;
	(void)v;
	(*(uint32_t *)arg)++;
	return 0;
}

static int
dt_retain_putopt(dtrace_hdl_t *dtp, const char *name, uint64_t v, void *arg)
{
	dt_msg_t *m = arg;

	(void)dtp;
	dt_msg_put_str(m, name);
	dt_msg_put_u64(m, v);
	return 0;
}

/* dtrace_go(), before GO: retain the programs sent as dt_retain. */
int
dt_retain_send(dtrace_hdl_t *dtp)
{
	dt_msg_t req, rep;
	uint32_t nopt = 0;

	(void)dt_options_export(dtp, dt_retain_count, &nopt);
	dt_msg_init(&req, DT_MSG_RETAIN);
	dt_msg_put_str(&req, dtp->dt_retain);
	dt_msg_put_u32(&req, nopt);
	(void)dt_options_export(dtp, dt_retain_putopt, &req);
	if (req.dm_err) {
		dt_msg_free(&req);
		return dt_set_errno(dtp, EDT_NOMEM);
	}
	if (dt_conn_request(dtp, &req, DT_MSG_RETAIN_OK, &rep) != 0)
		return -1;
	dt_msg_free(&rep);
	return 0;
}

static int
dt_retain_bad(dtrace_hdl_t *dtp)
{
	return dt_conn_error(dtp, EDT_PROTO, "malformed CLAIM_OK from dtraced");
}

/* One program of CLAIM_OK, on the handle's list (dtrace_close frees it). */
static struct dtrace_prog *
dt_retain_prog(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	struct dtrace_prog *pgp;
	dtp_prog_t *p;
	char err[256];
	const void *bytes;
	uint32_t len;
	dt_msg_t view;

	/* the program is len bytes, decoded as a PROGRAM payload */
	len = dt_msg_get_u32(m);
	if ((bytes = dt_msg_get_bytes(m, len)) == NULL) {
		(void)dt_retain_bad(dtp);
		return NULL;
	}
	memset(&view, 0, sizeof(view));
	view.dm_type = DT_MSG_PROGRAM;
	view.dm_data = (uint8_t *)(uintptr_t)bytes;
	view.dm_len = len;
	view.dm_fd = -1;
	if ((p = dt_proto_prog_decode(&view, err, sizeof(err))) == NULL) {
		if (view.dm_err == ENOMEM)
			(void)dt_set_errno(dtp, EDT_NOMEM);
		else
			(void)dt_conn_error(dtp, EDT_PROTO,
			    "malformed CLAIM_OK from dtraced: %s", err);
		return NULL;
	}
	if ((pgp = calloc(1, sizeof(*pgp))) == NULL) {
		dt_proto_prog_free(p);
		(void)dt_set_errno(dtp, EDT_NOMEM);
		return NULL;
	}
	pgp->dp_prog = *p;
	free(p);
	pgp->dp_exec = 1;
	pgp->dp_next = dtp->dt_progs;
	dtp->dt_progs = pgp;
	return pgp;
}

/*
 * Take over the retained program name ("" or NULL: the caller's only
 * one): to stop it and read everything (claim), or with snapshot only
 * to read it as it is and leave it running.
 */
int
dtrace_claim(dtrace_hdl_t *dtp, const char *name, int snapshot)
{
	struct dtrace_prog **progs = NULL;
	dtrace_optval_t *v;
	dt_msg_t req, rep;
	uint32_t act, nopt, nprog, nepid, i;
	uint64_t sizes[4];
	static const int sizeopt[4] = { DTRACEOPT_BUFSIZE,
	    DTRACEOPT_AGGSIZE, DTRACEOPT_SPECSIZE, DTRACEOPT_DYNVARSIZE };
	int rv = -1;

	if (name == NULL)
		name = "";
	if (dtp->dt_active || dtp->dt_execd || dtp->dt_nprocs > 0 ||
	    dtp->dt_retain != NULL)
		return dt_set_errno(dtp, EDT_ISANON);
	if (name[0] != '\0' && !dt_proto_retain_name_ok(name))
		return dt_conn_error(dtp, EDT_REMOTE, "invalid retained "
		    "program name \"%s\"", name);
	if (dt_conn_open(dtp) != 0)
		return -1;
	dt_msg_init(&req, DT_MSG_CLAIM);
	dt_msg_put_str(&req, name);
	dt_msg_put_u32(&req, snapshot ? DT_CLAIM_SNAPSHOT : 0);
	/* the daemon says why not: none, several, no such name */
	if (dt_conn_request(dtp, &req, DT_MSG_CLAIM_OK, &rep) != 0)
		return -1;

	if (dt_msg_get_strbuf(&rep, dtp->dt_claimed,
	    sizeof(dtp->dt_claimed)) != 0)
		goto bad;
	act = dt_msg_get_u32(&rep);
	for (i = 0; i < 4; i++)
		sizes[i] = dt_msg_get_u64(&rep);
	nopt = dt_msg_get_u32(&rep);
	for (i = 0; i < nopt && rep.dm_err == 0; i++) {
		char oname[64];
		uint64_t ov;

		dt_msg_get_strbuf(&rep, oname, sizeof(oname));
		ov = dt_msg_get_u64(&rep);
		if (rep.dm_err == 0)
			dt_options_import(dtp, oname, ov);
	}
	nprog = dt_msg_get_u32(&rep);
	if (rep.dm_err || nprog > DT_RETAIN_MAXPROG)
		goto bad;
	if ((progs = calloc(nprog + 1, sizeof(*progs))) == NULL) {
		(void)dt_set_errno(dtp, EDT_NOMEM);
		goto out;
	}
	for (i = 0; i < nprog; i++) {
		if ((progs[i] = dt_retain_prog(dtp, &rep)) == NULL)
			goto out;
		progs[i]->dp_seq = dtp->dt_nexec++;
		if (dt_program_aggs(dtp, progs[i]) != 0)
			goto out;
	}
	nepid = dt_msg_get_u32(&rep);
	for (i = 0; i < nepid && rep.dm_err == 0; i++) {
		dtrace_probedesc_t pd;
		uint32_t epid, prog, stmt;

		epid = dt_msg_get_u32(&rep);
		prog = dt_msg_get_u32(&rep);
		stmt = dt_msg_get_u32(&rep);
		dt_probe_decode(&rep, &pd);
		if (rep.dm_err || epid == DTRACE_EPIDNONE ||
		    epid >= (1u << 20) || prog >= nprog ||
		    stmt >= progs[prog]->dp_prog.dp_nstmt ||
		    dt_program_epid(dtp, epid) != NULL)
			goto bad;
		if (dt_program_epid_add(dtp, progs[prog], stmt, epid,
		    &pd) == NULL) {
			(void)dt_set_errno(dtp, EDT_NOMEM);
			goto out;
		}
	}
	if (!dt_msg_done(&rep))
		goto bad;

	/* the sizes the daemon used are the options now */
	for (i = 0; i < 4; i++) {
		v = &dtp->dt_options[sizeopt[i]];
		if (sizes[i] != 0)
			*v = (dtrace_optval_t)sizes[i];
	}
	dtp->dt_execd = 1;
	dtp->dt_active = 1;
	dtp->dt_snapshot = snapshot != 0;
	if ((int)act > dtp->dt_activity)
		dtp->dt_activity = (int)act;
	if (act >= DT_ACT_DRAINING)
		dtp->dt_draining = 1;
	/* stopped already (exit(), a full fill buffer): END has fired */
	if (act == DT_ACT_STOPPED)
		dtp->dt_stopped = 1;
	dtp->dt_lastswitch = 0;
	dtp->dt_lastagg = 0;
	dtp->dt_laststatus = 0;
	rv = 0;
	goto out;
bad:
	(void)dt_retain_bad(dtp);
out:
	free(progs);
	dt_msg_free(&rep);
	return rv;
}

/* The name of the program dtrace_claim() took, or NULL. */
const char *
dtrace_claimed(dtrace_hdl_t *dtp)
{
	return dtp->dt_claimed[0] != '\0' ? dtp->dt_claimed : NULL;
}

/* The retained programs the caller may see: func for each, in order. */
int
dtrace_retained_iter(dtrace_hdl_t *dtp,
    int (*func)(dtrace_hdl_t *, const dtrace_retained_t *, void *),
    void *arg)
{
	static const char *policies[] = { "ring", "fill", "switch" };
	dtrace_retained_t r;
	dt_msg_t req, rep;
	uint32_t n, i, k, policy;
	int rv = 0;

	if (dt_conn_open(dtp) != 0)
		return -1;
	dt_msg_init(&req, DT_MSG_RETAINED);
	if (dt_conn_request(dtp, &req, DT_MSG_RETAINED_OK, &rep) != 0)
		return -1;
	n = dt_msg_get_u32(&rep);
	if (n > DT_RETAIN_MAXLIST)
		rep.dm_err = EPROTO;
	for (i = 0; i < n && rep.dm_err == 0; i++) {
		memset(&r, 0, sizeof(r));
		dt_msg_get_strbuf(&rep, r.dtr_name, sizeof(r.dtr_name));
		r.dtr_uid = dt_msg_get_u32(&rep);
		r.dtr_state = (int)dt_msg_get_u32(&rep);
		policy = dt_msg_get_u32(&rep);
		r.dtr_policy = policy < 3 ? policies[policy] : "?";
		r.dtr_bufsize = dt_msg_get_u64(&rep);
		r.dtr_aggsize = dt_msg_get_u64(&rep);
		r.dtr_drops = dt_msg_get_u64(&rep);
		r.dtr_errors = dt_msg_get_u64(&rep);
		r.dtr_ntargets = dt_msg_get_u32(&rep);
		if (rep.dm_err || r.dtr_ntargets > DTRACE_RETAINED_MAXTGT) {
			rep.dm_err = EPROTO;
			break;
		}
		for (k = 0; k < r.dtr_ntargets; k++) {
			r.dtr_targets[k] = (pid_t)dt_msg_get_u32(&rep);
			r.dtr_exited[k] = (int)dt_msg_get_u32(&rep);
		}
		if (rep.dm_err)
			break;
		if (rv == 0)
			rv = func(dtp, &r, arg);
	}
	if (!dt_msg_done(&rep)) {
		dt_msg_free(&rep);
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed RETAINED_OK from dtraced");
	}
	dt_msg_free(&rep);
	return rv;
}

/*
 * dtrace -a -l under oformat=json: a retained program as one line,
 * {"type":"retained","name":..,"uid":..,"state":..,"policy":..,
 * "bufsize":..,"aggsize":..,"drops":..,"errors":..,"targets":[{"pid":..,
 * "exited":0|1}...]}, the table's columns with sizes in bytes.
 */
int
dtrace_retained_json(dtrace_hdl_t *dtp, FILE *fp, const dtrace_retained_t *r)
{
	static const char *states[] = { "inactive", "active", "draining",
	    "stopped" };
	dt_json_t j;
	uint32_t i;

	dt_json_beginline(&j, fp, "retained");
	dt_json_kstring(&j, "name", r->dtr_name);
	dt_json_kuint(&j, "uid", r->dtr_uid);
	dt_json_kstring(&j, "state", r->dtr_state >= 0 &&
	    r->dtr_state <= 3 ? states[r->dtr_state] : "?");
	dt_json_kstring(&j, "policy", r->dtr_policy);
	dt_json_kuint(&j, "bufsize", r->dtr_bufsize);
	dt_json_kuint(&j, "aggsize", r->dtr_aggsize);
	dt_json_kuint(&j, "drops", r->dtr_drops);
	dt_json_kuint(&j, "errors", r->dtr_errors);
	dt_json_key(&j, "targets");
	dt_json_array_begin(&j);
	for (i = 0; i < r->dtr_ntargets && i < DTRACE_RETAINED_MAXTGT; i++) {
		dt_json_object_begin(&j);
		dt_json_kint(&j, "pid", r->dtr_targets[i]);
		dt_json_kuint(&j, "exited", r->dtr_exited[i] != 0);
		dt_json_object_end(&j);
	}
	dt_json_array_end(&j);
	if (dt_json_endline(&j) != 0)
		return dt_set_errno(dtp, errno);
	return 0;
}
