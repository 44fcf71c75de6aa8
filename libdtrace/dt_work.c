/*
 * dt_work.c: sending programs, starting and stopping tracing, and the
 * consumer's work loop (dtrace_sleep, dtrace_status, dtrace_work).
 *
 * The daemon names each (statement, probe) pair it enabled with an EPID;
 * the epid table built here from DT_MSG_PROGRAM_OK tells the consumer
 * how to read and print a record with that EPID.
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

#define DT_WORK_NANOSEC	1000000000LL

_Static_assert(EDT_NOPROBE == DTRACE_ENOPROBE, "dtrace.h and dt_impl.h disagree");
_Static_assert(EDT_DAEMON == DTRACE_EDAEMON, "dtrace.h and dt_impl.h disagree");
_Static_assert(EDT_NODAEMON == DTRACE_ENODAEMON,
    "dtrace.h and dt_impl.h disagree");

#define DT_WORK_MAXEPID		(1u << 20)
#define DT_WORK_MAXAGGID	(1u << 20)

/* The library's ERROR reporter: dt_consume.c prints the standard message. */
static const char dt_work_errprog[] =
    "dtrace:::ERROR { trace(arg1); trace(arg2); trace(arg3); trace(arg4); "
    "trace(arg5); }";

dt_epid_t *
dt_work_epid(dtrace_hdl_t *dtp, uint32_t epid)
{
	if (epid >= dtp->dt_nepid)
		return NULL;
	return dtp->dt_epids[epid];
}

void
dt_work_epid_free(dt_epid_t *ep)
{
	if (ep == NULL)
		return;
	free(ep->de_edesc.dtepd_rec);
	free(ep->de_nargs);
	free(ep);
}

void
dt_work_fini(dtrace_hdl_t *dtp)
{
	uint32_t i;

	for (i = 0; i < dtp->dt_nepid; i++)
		dt_work_epid_free(dtp->dt_epids[i]);
	free(dtp->dt_epids);
	dtp->dt_epids = NULL;
	dtp->dt_nepid = 0;
	free(dtp->dt_aggdesc);
	dtp->dt_aggdesc = NULL;
	dtp->dt_naggdesc = 0;
}

/*
 * DT_MSG_ECBS: ECBs the daemon made while tracing, on probes that
 * appeared (a library the target loaded, its new image after exec).
 * Their records are read like any other; an entry that names no program
 * or statement of ours, or an epid in use, is ignored.
 */
void
dt_work_ecbs(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	uint32_t n = dt_msg_get_u32(m), i;

	for (i = 0; i < n && !m->dm_err; i++) {
		struct dtrace_prog *pgp;
		dtrace_probedesc_t pd;
		uint32_t epid, prog, stmt;
		dt_epid_t *ep;

		epid = dt_msg_get_u32(m);
		prog = dt_msg_get_u32(m);
		stmt = dt_msg_get_u32(m);
		dt_work_probe_decode(m, &pd);
		if (m->dm_err || epid == DTRACE_EPIDNONE ||
		    epid >= DT_WORK_MAXEPID || dt_work_epid(dtp, epid) != NULL)
			continue;
		for (pgp = dtp->dt_progs; pgp != NULL; pgp = pgp->dp_next)
			if (pgp->dp_exec && pgp->dp_seq == prog)
				break;
		if (pgp == NULL || stmt >= pgp->dp_prog.dp_nstmt ||
		    (ep = dt_work_epid_create(pgp, stmt)) == NULL)
			continue;
		ep->de_edesc.dtepd_epid = epid;
		ep->de_edesc.dtepd_probeid = pd.dtpd_id;
		ep->de_pdesc = pd;
		if (dt_work_epid_insert(dtp, epid, ep) != 0)
			dt_work_epid_free(ep);
	}
}

/* A probe's id and names, as PROGRAM_OK and LIST_OK carry them. */
void
dt_work_probe_decode(dt_msg_t *m, dtrace_probedesc_t *pd)
{
	memset(pd, 0, sizeof(*pd));
	pd->dtpd_id = dt_msg_get_u32(m);
	dt_msg_get_strbuf(m, pd->dtpd_provider, sizeof(pd->dtpd_provider));
	dt_msg_get_strbuf(m, pd->dtpd_mod, sizeof(pd->dtpd_mod));
	dt_msg_get_strbuf(m, pd->dtpd_func, sizeof(pd->dtpd_func));
	dt_msg_get_strbuf(m, pd->dtpd_name, sizeof(pd->dtpd_name));
}

static uint32_t
dt_work_rectype(const dtp_action_t *ap)
{
	const dif_type_t *t;

	if (ap->da_kind == DTRACEACT_EXIT)
		return DTRACE_REC_INT;
	if (ap->da_ndifo == 0 || ap->da_difo == NULL || ap->da_difo[0] == NULL)
		return DTRACE_REC_BYTES;
	t = &ap->da_difo[0]->dd_rtype;
	if (t->dt_kind == DIF_TYPE_STRING)
		return DTRACE_REC_STRING;
	if (t->dt_flags & DIF_TF_BYREF)
		return DTRACE_REC_BYTES;
	if (t->dt_kind == DIF_TYPE_CTF && t->dt_ckind == DIF_CKIND_FLOAT)
		return DTRACE_REC_FLOAT;
	return (t->dt_flags & DIF_TF_SIGNED) ? DTRACE_REC_INT : DTRACE_REC_UINT;
}

/* The record descriptions of one statement: every non-aggregating action. */
dt_epid_t *
dt_work_epid_create(struct dtrace_prog *pgp, uint32_t stmt)
{
	const dtp_stmt_t *sp = &pgp->dp_prog.dp_stmt[stmt];
	dt_epid_t *ep;
	uint32_t i, n;

	if ((ep = calloc(1, sizeof(*ep))) == NULL)
		return NULL;
	ep->de_prog = pgp;
	ep->de_stmt = stmt;
	ep->de_edesc.dtepd_size = sp->ds_size;
	ep->de_edesc.dtepd_rec = calloc(sp->ds_nact + 1,
	    sizeof(dtrace_recdesc_t));
	ep->de_nargs = calloc(sp->ds_nact + 1, sizeof(uint32_t));
	if (ep->de_edesc.dtepd_rec == NULL || ep->de_nargs == NULL) {
		dt_work_epid_free(ep);
		return NULL;
	}
	for (i = 0, n = 0; i < sp->ds_nact; i++) {
		const dtp_action_t *ap = &sp->ds_act[i];
		dtrace_recdesc_t *rp = &ep->de_edesc.dtepd_rec[n];

		if (DTRACEACT_ISAGG(ap->da_kind))
			continue;
		rp->dtrd_action = ap->da_kind;
		rp->dtrd_size = ap->da_size;
		rp->dtrd_offset = ap->da_offset;
		rp->dtrd_alignment = ap->da_align;
		rp->dtrd_arg = ap->da_arg;
		rp->dtrd_type = dt_work_rectype(ap);
		if (ap->da_kind == DTRACEACT_PRINTF ||
		    ap->da_kind == DTRACEACT_SYSTEM ||
		    ap->da_kind == DTRACEACT_FREOPEN) {
			rp->dtrd_format = (uint32_t)ap->da_arg + 1;
			ep->de_nargs[n] = ap->da_nargs;
		}
		/* printa(): format index + 1 in da_arg's high word */
		if (ap->da_kind == DTRACEACT_PRINTA) {
			rp->dtrd_format = (uint32_t)(ap->da_arg >> 32);
			ep->de_nargs[n] = ap->da_nargs;
		}
		n++;
	}
	ep->de_edesc.dtepd_nrecs = n;
	return ep;
}

int
dt_work_epid_insert(dtrace_hdl_t *dtp, uint32_t epid, dt_epid_t *ep)
{
	if (epid >= dtp->dt_nepid) {
		uint32_t n = dtp->dt_nepid ? dtp->dt_nepid : 16;
		dt_epid_t **ne;

		while (n <= epid)
			n *= 2;
		if ((ne = realloc(dtp->dt_epids, n * sizeof(*ne))) == NULL)
			return -1;
		memset(ne + dtp->dt_nepid, 0,
		    (n - dtp->dt_nepid) * sizeof(*ne));
		dtp->dt_epids = ne;
		dtp->dt_nepid = n;
	}
	dtp->dt_epids[epid] = ep;
	return 0;
}

int
dt_work_aggs(dtrace_hdl_t *dtp, struct dtrace_prog *pgp)
{
	uint32_t i;

	for (i = 0; i < pgp->dp_prog.dp_nagg; i++) {
		dtp_agg_t *ag = &pgp->dp_prog.dp_agg[i];

		if (ag->dg_id >= DT_WORK_MAXAGGID)
			return dt_set_errno(dtp, EDT_BADAGGVAR);
		if (ag->dg_id >= dtp->dt_naggdesc) {
			uint32_t n = dtp->dt_naggdesc ? dtp->dt_naggdesc : 8;
			dtp_agg_t **na;

			while (n <= ag->dg_id)
				n *= 2;
			if ((na = realloc(dtp->dt_aggdesc,
			    n * sizeof(*na))) == NULL)
				return dt_set_errno(dtp, EDT_NOMEM);
			memset(na + dtp->dt_naggdesc, 0,
			    (n - dtp->dt_naggdesc) * sizeof(*na));
			dtp->dt_aggdesc = na;
			dtp->dt_naggdesc = n;
		}
		dtp->dt_aggdesc[ag->dg_id] = ag;
	}
	return 0;
}

/*
 * The options the daemon needs, as numbers.  Those the daemon has its
 * own equal defaults for go only when the user changed them, so that a
 * daemon without speculations or dynamic variables yet refuses a program
 * only when the user asks for them.
 */
static int
dt_work_options(dtrace_hdl_t *dtp, dtp_prog_t *pp)
{
	static const struct {
		const char	*name;
		int		option;
		dtrace_optval_t	dflt;	/* DTRACEOPT_UNSET: always send */
	} opts[] = {
		{ "bufsize", DTRACEOPT_BUFSIZE, DTRACEOPT_UNSET },
		{ "aggsize", DTRACEOPT_AGGSIZE, DTRACEOPT_UNSET },
		{ "strsize", DTRACEOPT_STRSIZE, DTRACEOPT_UNSET },
		{ "bufpolicy", DTRACEOPT_BUFPOLICY, DTRACEOPT_UNSET },
		{ "bufresize", DTRACEOPT_BUFRESIZE, DTRACEOPT_UNSET },
		{ "bufscope", DTRACEOPT_BUFSCOPE, DTRACEOPT_BUFSCOPE_CPU },
		{ "cpu", DTRACEOPT_CPU, -1 },
		{ "nspec", DTRACEOPT_NSPEC, DTRACEOPT_UNSET },
		{ "specsize", DTRACEOPT_SPECSIZE, DTRACEOPT_UNSET },
		{ "dynvarsize", DTRACEOPT_DYNVARSIZE, DTRACEOPT_UNSET },
		{ "cleanrate", DTRACEOPT_CLEANRATE, 1000000000LL / 101 },
		{ "backend", DTRACEOPT_BACKEND, DTRACEOPT_BACKEND_AUTO },
		{ "uprobebufsize", DTRACEOPT_UPROBEBUFSIZE, DTRACEOPT_UNSET },
	};
	size_t i, n = sizeof(opts) / sizeof(opts[0]);
	dtp_opt_t *op;
	uint32_t j;

	for (j = 0; j < pp->dp_nopt; j++)
		free(pp->dp_opt[j].do_name);
	free(pp->dp_opt);
	pp->dp_opt = NULL;
	pp->dp_nopt = 0;
	if ((op = calloc(n + 2, sizeof(*op))) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	pp->dp_opt = op;
	for (i = 0; i < n; i++) {
		dtrace_optval_t v = dtp->dt_options[opts[i].option];

		if (v == DTRACEOPT_UNSET || v < 0 || v == opts[i].dflt)
			continue;
		if ((op->do_name = strdup(opts[i].name)) == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		op->do_value = (uint64_t)v;
		op++;
		pp->dp_nopt++;
	}
	/* -w: the daemon refuses destructive actions without it */
	if (dtp->dt_options[DTRACEOPT_DESTRUCTIVE] != DTRACEOPT_UNSET) {
		if ((op->do_name = strdup("destructive")) == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		op->do_value = 1;
		op++;
		pp->dp_nopt++;
	}
	/*
	 * Always sent: with -Z the pid provider gives a description naming a
	 * library not loaded yet a probe that gets its sites on dlopen.
	 */
	if ((op->do_name = strdup("zdefs")) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	op->do_value = (dtp->dt_copts & DT_COPT_ZDEFS) != 0;
	pp->dp_nopt++;
	return 0;
}

int
dtrace_program_exec(dtrace_hdl_t *dtp, dtrace_prog_t *pgp,
    dtrace_proginfo_t *pip)
{
	dt_epid_t **made = NULL;
	uint32_t *matches = NULL;
	uint32_t nepid, i, nmade = 0;
	dt_msg_t req, rep;
	int err;

	if (pgp->dp_exec || dtp->dt_active)
		return dt_set_errno(dtp, EDT_ACTIVE);
	if (dt_conn_open(dtp) != 0)
		return -1;
	if (dt_work_options(dtp, &pgp->dp_prog) != 0)
		return -1;

	dt_msg_init(&req, DT_MSG_PROGRAM);
	dt_proto_prog_encode(&req, &pgp->dp_prog);
	if (req.dm_err) {
		dt_msg_free(&req);
		return dt_set_errno(dtp, EDT_NOMEM);
	}
	if (dt_conn_request(dtp, &req, DT_MSG_PROGRAM_OK, &rep) != 0)
		return -1;
	dtp->dt_execd = 1;
	pgp->dp_exec = 1;
	pgp->dp_seq = dtp->dt_nexec++;

	nepid = dt_msg_get_u32(&rep);
	if (nepid > DT_WORK_MAXEPID ||
	    (made = calloc(nepid + 1, sizeof(*made))) == NULL ||
	    (matches = calloc(pgp->dp_prog.dp_nstmt + 1,
	    sizeof(*matches))) == NULL) {
		err = nepid > DT_WORK_MAXEPID ? EDT_PROTO : EDT_NOMEM;
		goto fail;
	}
	for (i = 0; i < nepid; i++) {
		dtrace_probedesc_t pd;
		uint32_t epid, stmt;
		dt_epid_t *ep;

		epid = dt_msg_get_u32(&rep);
		stmt = dt_msg_get_u32(&rep);
		dt_work_probe_decode(&rep, &pd);
		if (rep.dm_err || epid == DTRACE_EPIDNONE ||
		    epid >= DT_WORK_MAXEPID ||
		    stmt >= pgp->dp_prog.dp_nstmt ||
		    dt_work_epid(dtp, epid) != NULL) {
			err = EDT_PROTO;
			goto fail;
		}
		if ((ep = dt_work_epid_create(pgp, stmt)) == NULL) {
			err = EDT_NOMEM;
			goto fail;
		}
		ep->de_edesc.dtepd_epid = epid;
		ep->de_edesc.dtepd_probeid = pd.dtpd_id;
		ep->de_pdesc = pd;
		if (dt_work_epid_insert(dtp, epid, ep) != 0) {
			dt_work_epid_free(ep);
			err = EDT_NOMEM;
			goto fail;
		}
		made[nmade++] = ep;
		matches[stmt]++;
	}
	if (!dt_msg_done(&rep)) {
		err = EDT_PROTO;
		goto fail;
	}
	dt_msg_free(&rep);
	if (dt_work_aggs(dtp, pgp) != 0) {
		free(made);
		free(matches);
		return -1;
	}

	if (!(dtp->dt_copts & DT_COPT_ZDEFS)) {
		for (i = 0; i < pgp->dp_prog.dp_nstmt; i++) {
			const dtp_probedesc_t *d =
			    &pgp->dp_prog.dp_stmt[i].ds_desc;

			if (matches[i] != 0)
				continue;
			free(made);
			free(matches);
			return dt_conn_error(dtp, EDT_NOPROBE,
			    "failed to match %s:%s:%s:%s: %s",
			    d->dpd_provider, d->dpd_mod, d->dpd_func,
			    d->dpd_name, "No probe matches description");
		}
	}
	free(made);
	free(matches);
	if (pip != NULL) {
		memset(pip, 0, sizeof(*pip));
		dtrace_program_info(dtp, pgp, pip);
		pip->dpi_matches = nmade;
	}
	return 0;

fail:
	if (rep.dm_err && err == EDT_NOMEM)
		err = EDT_PROTO;
	for (i = 0; i < nmade; i++) {
		dtp->dt_epids[made[i]->de_edesc.dtepd_epid] = NULL;
		dt_work_epid_free(made[i]);
	}
	free(made);
	free(matches);
	dt_msg_free(&rep);
	if (err == EDT_PROTO)
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed PROGRAM_OK from dtraced");
	return dt_set_errno(dtp, err);
}

int
dtrace_probe_iter(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp,
    int (*func)(dtrace_hdl_t *, const dtrace_probedesc_t *, void *),
    void *arg)
{
	uint32_t n, i, matched = 0;
	dt_msg_t req, rep;
	int rv = 0;

	dt_msg_init(&req, DT_MSG_LIST);
	dt_msg_put_str(&req, pdp != NULL ? pdp->dtpd_provider : "");
	dt_msg_put_str(&req, pdp != NULL ? pdp->dtpd_mod : "");
	dt_msg_put_str(&req, pdp != NULL ? pdp->dtpd_func : "");
	dt_msg_put_str(&req, pdp != NULL ? pdp->dtpd_name : "");
	if (dt_conn_request(dtp, &req, DT_MSG_LIST_OK, &rep) != 0)
		return -1;
	n = dt_msg_get_u32(&rep);
	for (i = 0; i < n && rep.dm_err == 0; i++) {
		dtrace_probedesc_t pd;

		dt_work_probe_decode(&rep, &pd);
		if (rep.dm_err)
			break;
		if (pdp != NULL && pdp->dtpd_id != 0 &&
		    pdp->dtpd_id != pd.dtpd_id)
			continue;
		matched++;
		if (rv == 0 && (rv = func(dtp, &pd, arg)) != 0)
			break;
	}
	if (rep.dm_err) {
		dt_msg_free(&rep);
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed LIST_OK from dtraced");
	}
	dt_msg_free(&rep);
	if (matched == 0)
		return dt_conn_error(dtp, EDT_NOPROBE, "%s",
		    "No probe matches description");
	return 0;
}

/* Compile and send the library's ERROR reporter. */
static int
dt_work_errhandler(dtrace_hdl_t *dtp)
{
	dtrace_prog_t *pgp;
	uint32_t i, zdefs = dtp->dt_copts & DT_COPT_ZDEFS;
	int rv;

	pgp = dtrace_program_strcompile(dtp, dt_work_errprog,
	    DTRACE_PROBESPEC_NAME, 0, 0, NULL);
	if (pgp == NULL)
		return -1;
	for (i = 0; i < pgp->dp_prog.dp_nstmt; i++)
		pgp->dp_prog.dp_stmt[i].ds_flags |= DTP_STMT_ERRHANDLER;
	/* a daemon without an ERROR probe still traces; faults go unreported */
	dtp->dt_copts |= DT_COPT_ZDEFS;
	rv = dtrace_program_exec(dtp, pgp, NULL);
	dtp->dt_copts = (dtp->dt_copts & ~DT_COPT_ZDEFS) | zdefs;
	if (rv == 0)
		dtp->dt_errprog = pgp;
	return rv;
}

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
	if (dtp->dt_errprog == NULL && dt_work_errhandler(dtp) != 0)
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

/*
 * Target processes.  The daemon traces them; the library only names them
 * (by pidfd, so that the daemon traces exactly the process meant, even if
 * the pid is reused) and hears when they are held or gone.
 */
static dt_proc_t *
dt_work_proc(dtrace_hdl_t *dtp, pid_t pid)
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
dt_work_proc_event(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	pid_t pid = (pid_t)dt_msg_get_u32(m);
	uint32_t ev = dt_msg_get_u32(m);
	int status = (int)dt_msg_get_u32(m);
	dt_proc_t *pr;

	if (!dt_msg_done(m) || (pr = dt_work_proc(dtp, pid)) == NULL)
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
		if (dtp->dt_prochdlr != NULL)
			dtp->dt_prochdlr(pid, status, dtp->dt_procarg);
	} else if (ev == DT_PROC_LOST && !pr->dpr_exited) {
		/* it runs on, untraced: gone for us */
		pr->dpr_exited = 1;
		pr->dpr_lost = status != 0 ? status : DT_LOST_SETID;
		if (dtp->dt_prochdlr != NULL)
			dtp->dt_prochdlr(pid, 0, dtp->dt_procarg);
	}
}

/* Why the daemon let target pid go (see dtrace.h), or NULL. */
const char *
dtrace_proc_lost(dtrace_hdl_t *dtp, pid_t pid)
{
	dt_proc_t *pr = dt_work_proc(dtp, pid);

	if (pr == NULL || pr->dpr_lost == 0)
		return NULL;
	return "exec of set-id program";
}

/*
 * How the daemon traces target pid: "ptrace" or "uprobe", once a
 * program was loaded; NULL before, or for a pid that is no target.
 */
const char *
dtrace_proc_backend(dtrace_hdl_t *dtp, pid_t pid)
{
	dt_proc_t *pr = dt_work_proc(dtp, pid);

	if (pr == NULL || pr->dpr_backend == 0)
		return NULL;
	return pr->dpr_backend - 1 == DT_BACKEND_UPROBE ? "uprobe" : "ptrace";
}

void
dt_work_proc_fini(dtrace_hdl_t *dtp)
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
}

int
dtrace_handle_proc(dtrace_hdl_t *dtp, dtrace_handle_proc_f *fn, void *arg)
{
	dtp->dt_prochdlr = fn;
	dtp->dt_procarg = arg;
	return 0;
}

static int
dt_work_pidfd(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Send GRAB with the pidfd; the new target is recorded on success. */
static int
dt_work_grab(dtrace_hdl_t *dtp, pid_t pid, int pidfd, int create)
{
	dt_msg_t req, rep;
	dt_proc_t *np;

	if (dtp->dt_active) {
		close(pidfd);
		return dt_set_errno(dtp, EDT_ACTIVE);
	}
	if (dt_work_proc(dtp, pid) != NULL) {
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

pid_t
dtrace_proc_grab(dtrace_hdl_t *dtp, pid_t pid)
{
	int fd;

	if (dt_conn_open(dtp) != 0)
		return -1;
	if (pid <= 0 || (fd = dt_work_pidfd(pid)) == -1)
		return dt_conn_error(dtp, EDT_REMOTE, "%s",
		    strerror(pid <= 0 ? ESRCH : errno));
	if (dt_work_grab(dtp, pid, fd, 0) != 0)
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
	if ((fd = dt_work_pidfd(pid)) == -1) {
		(void)dt_conn_error(dtp, EDT_REMOTE, "failed to execute %s: "
		    "%s", file, strerror(errno));
		goto fail;
	}
	if (dt_work_grab(dtp, pid, fd, 1) != 0)
		goto fail;
	/* seized: let it exec, and wait until it is held or gone */
	if (write(go[1], &c, 1) != 1) {
		(void)dt_conn_error(dtp, EDT_REMOTE, "failed to execute %s: "
		    "%s", file, strerror(errno));
		goto fail;
	}
	close(go[1]);
	go[1] = -1;
	pr = dt_work_proc(dtp, pid);
	while (!pr->dpr_held && !pr->dpr_exited) {
		if (dt_conn_wait(dtp, -1) < 0)
			goto fail;
		pr = dt_work_proc(dtp, pid);
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
	if ((pr = dt_work_proc(dtp, pid)) != NULL)
		pr->dpr_exited = 1;
	dtp->dt_errno = saved;
	return -1;
}
