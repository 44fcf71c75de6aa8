/*
 * dt_program.c: sending a compiled program to the daemon
 * (dtrace_program_exec) and what the library keeps of it: the options
 * the daemon needs, and the EPID table.
 *
 * The daemon names each (statement, probe) pair it enabled with an EPID;
 * the epid table built here from DT_MSG_PROGRAM_OK (and DT_MSG_ECBS, for
 * probes that appear while tracing) tells the consumer how to read and
 * print a record with that EPID.  Compiling is dt_cc.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define DT_PROGRAM_MAXEPID		(1u << 20)
#define DT_PROGRAM_MAXAGGID	(1u << 20)

/* The library's ERROR reporter: dt_consume.c prints the standard message. */
static const char dt_program_errprog[] =
    "dtrace:::ERROR { trace(arg1); trace(arg2); trace(arg3); trace(arg4); "
    "trace(arg5); }";

dt_epid_t *
dt_program_epid(dtrace_hdl_t *dtp, uint32_t epid)
{
	if (epid >= dtp->dt_nepid)
		return NULL;
	return dtp->dt_epids[epid];
}

void
dt_program_epid_free(dt_epid_t *ep)
{
	if (ep == NULL)
		return;
	free(ep->de_edesc.dtepd_rec);
	free(ep->de_nargs);
	free(ep);
}

void
dt_program_fini(dtrace_hdl_t *dtp)
{
	uint32_t i;

	for (i = 0; i < dtp->dt_nepid; i++)
		dt_program_epid_free(dtp->dt_epids[i]);
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
dt_program_ecbs(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	uint32_t n = dt_msg_get_u32(m), i;

	for (i = 0; i < n && !m->dm_err; i++) {
		struct dtrace_prog *pgp;
		dtrace_probedesc_t pd;
		uint32_t epid, prog, stmt;

		epid = dt_msg_get_u32(m);
		prog = dt_msg_get_u32(m);
		stmt = dt_msg_get_u32(m);
		dt_probe_decode(m, &pd);
		if (m->dm_err || epid == DTRACE_EPIDNONE ||
		    epid >= DT_PROGRAM_MAXEPID ||
		    dt_program_epid(dtp, epid) != NULL)
			continue;
		for (pgp = dtp->dt_progs; pgp != NULL; pgp = pgp->dp_next)
			if (pgp->dp_exec && pgp->dp_seq == prog)
				break;
		if (pgp != NULL && stmt < pgp->dp_prog.dp_nstmt)
			(void)dt_program_epid_add(dtp, pgp, stmt, epid, &pd);
	}
}

static uint32_t
dt_program_rectype(const dtp_action_t *ap)
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
dt_program_epid_create(struct dtrace_prog *pgp, uint32_t stmt)
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
		dt_program_epid_free(ep);
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
		rp->dtrd_type = dt_program_rectype(ap);
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
dt_program_epid_insert(dtrace_hdl_t *dtp, uint32_t epid, dt_epid_t *ep)
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

/*
 * EPID epid, the daemon's enabling of statement stmt of pgp on probe pd:
 * its record descriptions, made and entered in the handle's table.
 * NULL if memory ran out.
 */
dt_epid_t *
dt_program_epid_add(dtrace_hdl_t *dtp, struct dtrace_prog *pgp,
    uint32_t stmt, uint32_t epid, const dtrace_probedesc_t *pd)
{
	dt_epid_t *ep;

	if ((ep = dt_program_epid_create(pgp, stmt)) == NULL)
		return NULL;
	ep->de_edesc.dtepd_epid = epid;
	ep->de_edesc.dtepd_probeid = pd->dtpd_id;
	ep->de_pdesc = *pd;
	if (dt_program_epid_insert(dtp, epid, ep) != 0) {
		dt_program_epid_free(ep);
		return NULL;
	}
	return ep;
}

int
dt_program_aggs(dtrace_hdl_t *dtp, struct dtrace_prog *pgp)
{
	uint32_t i;

	for (i = 0; i < pgp->dp_prog.dp_nagg; i++) {
		dtp_agg_t *ag = &pgp->dp_prog.dp_agg[i];

		if (ag->dg_id >= DT_PROGRAM_MAXAGGID)
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
dt_program_options(dtrace_hdl_t *dtp, dtp_prog_t *pp)
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
		{ "maxframes", DTRACEOPT_MAXFRAMES, DTRACEOPT_UNSET },
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
	if (dt_program_options(dtp, &pgp->dp_prog) != 0)
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
	if (nepid > DT_PROGRAM_MAXEPID ||
	    (made = calloc(nepid + 1, sizeof(*made))) == NULL ||
	    (matches = calloc(pgp->dp_prog.dp_nstmt + 1,
	    sizeof(*matches))) == NULL) {
		err = nepid > DT_PROGRAM_MAXEPID ? EDT_PROTO : EDT_NOMEM;
		goto fail;
	}
	for (i = 0; i < nepid; i++) {
		dtrace_probedesc_t pd;
		uint32_t epid, stmt;
		dt_epid_t *ep;

		epid = dt_msg_get_u32(&rep);
		stmt = dt_msg_get_u32(&rep);
		dt_probe_decode(&rep, &pd);
		if (rep.dm_err || epid == DTRACE_EPIDNONE ||
		    epid >= DT_PROGRAM_MAXEPID ||
		    stmt >= pgp->dp_prog.dp_nstmt ||
		    dt_program_epid(dtp, epid) != NULL) {
			err = EDT_PROTO;
			goto fail;
		}
		if ((ep = dt_program_epid_add(dtp, pgp, stmt, epid,
		    &pd)) == NULL) {
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
	if (dt_program_aggs(dtp, pgp) != 0) {
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
		dt_program_epid_free(made[i]);
	}
	free(made);
	free(matches);
	dt_msg_free(&rep);
	if (err == EDT_PROTO)
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed PROGRAM_OK from dtraced");
	return dt_set_errno(dtp, err);
}

/* Compile and send the library's ERROR reporter. */
int
dt_program_errhandler(dtrace_hdl_t *dtp)
{
	dtrace_prog_t *pgp;
	uint32_t i, zdefs = dtp->dt_copts & DT_COPT_ZDEFS;
	int rv;

	pgp = dtrace_program_strcompile(dtp, dt_program_errprog,
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
