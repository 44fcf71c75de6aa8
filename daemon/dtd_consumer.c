/*
 * dtd_consumer.c: what one client has asked for: its programs, options,
 * ECBs, global variables, buffers and aggregations, and the state of its
 * tracing.  Everything a client sends is checked before it can run
 * (dtd_validate.c).
 *
 * A consumer is reference-counted (dtd_consumer_hold, _release): its
 * client holds it, and so do the retained table and the clients that
 * claim a retained program or read a snapshot of it (dtd_retain.c), so
 * that a retained program outlives the connection that made it.
 *
 * Probes that appear while a consumer traces (a library its target
 * loads, the new image of an exec) get ECBs of the statements that match
 * them (dtd_consumer_rematch), as illumos matches its retained enablings
 * again; the client hears of them (DT_MSG_ECBS, dtd_consumer_announce)
 * before the records they make.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtd.h"

#define DTD_MAX_VARSIZE		(1u << 20)

static void	dtd_consumer_err(char *, size_t, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

static void
dtd_consumer_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int
dtd_consumer_ncpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n < 1 ? 1 : (int)n;
}

static void
dtd_consumer_procinfo(dtd_consumer_t *c)
{
	char path[64], line[256];
	unsigned long v;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)c->dc_pid);
	if ((fp = fopen(path, "re")) != NULL) {
		n = fread(c->dc_execname, 1, sizeof(c->dc_execname) - 1, fp);
		c->dc_execname[n] = '\0';
		c->dc_execname[strcspn(c->dc_execname, "\n")] = '\0';
		fclose(fp);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)c->dc_pid);
	if ((fp = fopen(path, "re")) != NULL) {
		while (fgets(line, sizeof(line), fp) != NULL) {
			if (sscanf(line, "PPid: %lu", &v) == 1) {
				c->dc_ppid = (pid_t)v;
				break;
			}
		}
		fclose(fp);
	}
}

/* Every consumer, for dtd_consumer_next() (main thread). */
static TAILQ_HEAD(, dtd_consumer) dtd_consumers =
    TAILQ_HEAD_INITIALIZER(dtd_consumers);

/* Has c an ECB on a probe of provider prov? */
int
dtd_consumer_uses(const dtd_consumer_t *c, const dtd_provider_t *prov)
{
	uint32_t i;

	for (i = 0; i < c->dc_necb; i++) {
		const dtd_ecb_t *e = c->dc_ecbs[i];

		if (e != NULL && e->de_probe->dpr_prov == prov)
			return 1;
	}
	return 0;
}

/* The consumer after c (NULL: the first), or NULL at the end. */
dtd_consumer_t *
dtd_consumer_next(dtd_consumer_t *c)
{
	return c == NULL ? TAILQ_FIRST(&dtd_consumers) :
	    TAILQ_NEXT(c, dc_link);
}

dtd_consumer_t *
dtd_consumer_create(pid_t pid, uid_t uid, gid_t gid)
{
	dtd_consumer_t *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	TAILQ_INSERT_TAIL(&dtd_consumers, c, dc_link);
	c->dc_pid = pid;
	c->dc_uid = uid;
	c->dc_gid = gid;
	c->dc_ppid = 0;
	c->dc_opts.do_bufsize = DTD_DEFAULT_BUFSIZE;
	c->dc_opts.do_aggsize = DTD_DEFAULT_AGGSIZE;
	c->dc_opts.do_strsize = DTD_DEFAULT_STRSIZE;
	c->dc_opts.do_maxframes = DTRACE_USTACK_MAXFRAMES;
	c->dc_opts.do_bufpolicy = DTD_BUFPOLICY_SWITCH;
	c->dc_opts.do_bufresize = DTD_BUFRESIZE_AUTO;
	c->dc_opts.do_bufscope = DTD_BUFSCOPE_CPU;
	c->dc_opts.do_cpu = -1;
	c->dc_opts.do_dynvarsize = DTD_DEFAULT_DYNVARSIZE;
	c->dc_opts.do_specsize = DTD_DEFAULT_SPECSIZE;
	c->dc_opts.do_nspec = 1;
	c->dc_opts.do_cleanrate = DTD_DEFAULT_CLEANRATE;
	c->dc_activity = DT_ACT_INACTIVE;
	c->dc_refs = 1;
	dtd_consumer_procinfo(c);
	return c;
}

/* One more holder: a retained table entry, a client that claimed it. */
void
dtd_consumer_hold(dtd_consumer_t *c)
{
	c->dc_refs++;
}

/* A holder lets go; the last one frees it (ECBs off their probes first). */
void
dtd_consumer_release(dtd_consumer_t *c)
{
	if (c == NULL || --c->dc_refs > 0)
		return;
	dtd_consumer_free(c);
}

static void
dtd_consumer_disable(dtd_consumer_t *c)
{
	uint32_t i;

	if (!c->dc_enabled)
		return;
	for (i = c->dc_necb; i > 0; i--) {
		dtd_ecb_t *e = c->dc_ecbs[i - 1];

		dtd_probe_disable(e->de_probe, e);
	}
	c->dc_enabled = 0;
}

static void
dtd_consumer_ecbs_free(dtd_consumer_t *c, uint32_t from)
{
	uint32_t i;

	for (i = from; i < c->dc_necb; i++) {
		free(c->dc_ecbs[i]->de_aggs);
		free(c->dc_ecbs[i]);
	}
	c->dc_necb = from;
}

void
dtd_consumer_free(dtd_consumer_t *c)
{
	uint32_t i;

	if (c == NULL)
		return;
	TAILQ_REMOVE(&dtd_consumers, c, dc_link);
	dtd_limit_uncharge(c);
	dtd_consumer_disable(c);
	dtd_target_drop(c);	/* after its sites are gone */
	dtd_provider_drop(c);
	dtd_consumer_ecbs_free(c, 0);
	free(c->dc_ecbs);
	for (i = 0; i < DTD_RECSZ_NCHUNK; i++)
		free(c->dc_recsz[i]);
	for (i = 0; i < c->dc_nprog; i++)
		dt_proto_prog_free(c->dc_progs[i]);
	free(c->dc_progs);
	free(c->dc_aggs);
	for (i = 0; i < c->dc_vstate.dv_nglobals; i++)
		free(c->dc_vstate.dv_globals[i].dg_data);
	free(c->dc_vstate.dv_globals);
	dif_dvar_fini(&c->dc_vstate);
	if (c->dc_hasbuf)
		dtd_buf_fini(&c->dc_buf);
	if (c->dc_hasagg)
		dtd_agg_fini(&c->dc_agg);
	if (c->dc_spec != NULL) {
		dtd_spec_fini(c->dc_spec);
		free(c->dc_spec);
	}
	free(c);
}

int
dtd_consumer_activity(const dtd_consumer_t *c)
{
	return __atomic_load_n(&c->dc_activity, __ATOMIC_ACQUIRE);
}

/* Set one option from a program; only before tracing starts. */
int
dtd_consumer_option(dtd_consumer_t *c, const char *name, uint64_t v,
    char *err, size_t errlen)
{
	if (strcmp(name, "bufsize") == 0) {
		/*
		 * As illumos: a buffer too small for the enabling fails at
		 * go ("Enabling exceeds size of buffer"), and one larger
		 * than can be had is lowered there under bufresize=auto.
		 */
		if (v == 0) {
			dtd_consumer_err(err, errlen, "invalid bufsize 0");
			return -1;
		}
		if (v > DTD_MAX_BUFSIZE)
			v = DTD_MAX_BUFSIZE;
		c->dc_opts.do_bufsize = v < DTD_MIN_BUFSIZE ? v :
		    v & ~(uint64_t)7;
	} else if (strcmp(name, "aggsize") == 0) {
		if (v < DTD_MIN_BUFSIZE || v > UINT32_MAX - 1) {
			dtd_consumer_err(err, errlen, "invalid aggsize %" PRIu64
			    ": must be %u to %u bytes", v, DTD_MIN_BUFSIZE,
			    UINT32_MAX - 1);
			return -1;
		}
		c->dc_opts.do_aggsize = v & ~(uint64_t)7;
	} else if (strcmp(name, "strsize") == 0) {
		if (v < 1 || v > DIF_MAXSTRSIZE) {
			dtd_consumer_err(err, errlen, "invalid strsize %" PRIu64
			    ": must be 1 to %u", v, DIF_MAXSTRSIZE);
			return -1;
		}
		c->dc_opts.do_strsize = (uint32_t)v;
	} else if (strcmp(name, "bufpolicy") == 0) {
		if (v != DTD_BUFPOLICY_SWITCH && v != DTD_BUFPOLICY_FILL &&
		    v != DTD_BUFPOLICY_RING) {
			dtd_consumer_err(err, errlen, "invalid bufpolicy %"
			    PRIu64, v);
			return -1;
		}
		c->dc_opts.do_bufpolicy = (int)v;
	} else if (strcmp(name, "bufresize") == 0) {
		if (v != DTD_BUFRESIZE_AUTO && v != DTD_BUFRESIZE_MANUAL) {
			dtd_consumer_err(err, errlen, "invalid bufresize %"
			    PRIu64, v);
			return -1;
		}
		c->dc_opts.do_bufresize = (int)v;
	} else if (strcmp(name, "bufscope") == 0) {
		if (v != DTD_BUFSCOPE_CPU && v != DTD_BUFSCOPE_THREAD) {
			dtd_consumer_err(err, errlen, "invalid bufscope %"
			    PRIu64, v);
			return -1;
		}
		c->dc_opts.do_bufscope = (int)v;
	} else if (strcmp(name, "cpu") == 0) {
		if ((int64_t)v != -1 &&
		    (v >= (uint64_t)dtd_consumer_ncpu())) {
			dtd_consumer_err(err, errlen, "invalid cpu %" PRId64
			    ": no such CPU", (int64_t)v);
			return -1;
		}
		c->dc_opts.do_cpu = (int)(int64_t)v;
	} else if (strcmp(name, "dynvarsize") == 0 ||
	    strcmp(name, "specsize") == 0) {
		/*
		 * the spaces they size (dynamic variables, speculations);
		 * dynvarsize has no floor: its space holds one variable
		 * however small, as illumos's holds one chunk
		 */
		if ((name[0] != 'd' && v < DTD_MIN_BUFSIZE) ||
		    v > DTD_MAX_BUFSIZE) {
			dtd_consumer_err(err, errlen, "invalid %s %" PRIu64
			    ": must be %u to %llu bytes", name, v,
			    name[0] == 'd' ? 0 : DTD_MIN_BUFSIZE,
			    DTD_MAX_BUFSIZE);
			return -1;
		}
		if (name[0] == 'd')
			c->dc_opts.do_dynvarsize = v;
		else
			c->dc_opts.do_specsize = v;
	} else if (strcmp(name, "nspec") == 0) {
		if (v < 1 || v > DTD_MAX_NSPEC) {
			dtd_consumer_err(err, errlen, "invalid nspec %" PRIu64
			    ": must be 1 to %u", v, DTD_MAX_NSPEC);
			return -1;
		}
		c->dc_opts.do_nspec = (uint32_t)v;
	} else if (strcmp(name, "maxframes") == 0) {
		if (v < 1 || v > DTRACE_USTACK_MAXFRAMES) {
			dtd_consumer_err(err, errlen, "invalid maxframes %"
			    PRIu64 ": must be 1 to %u", v,
			    DTRACE_USTACK_MAXFRAMES);
			return -1;
		}
		c->dc_opts.do_maxframes = (uint32_t)v;
	} else if (strcmp(name, "destructive") == 0) {
		c->dc_opts.do_destructive = v != 0;
	} else if (strcmp(name, "cleanrate") == 0) {
		/* an interval in ns; illumos clamps it rather than refuse */
		if (v == 0) {
			dtd_consumer_err(err, errlen, "invalid cleanrate 0");
			return -1;
		}
		c->dc_opts.do_cleanrate = v > DTD_MAX_CLEANRATE ?
		    DTD_MAX_CLEANRATE : v < DTD_MIN_CLEANRATE ?
		    DTD_MIN_CLEANRATE : v;
	} else {
		/* a provider's (zdefs, backend, ...), or nobody's */
		switch (dtd_provider_option(c, name, v, err, errlen)) {
		case 1:
			dtd_consumer_err(err, errlen, "unknown option \"%s\"",
			    name);
			return -1;
		case -1:
			return -1;
		}
	}
	return 0;
}

/* Global scalars of one DIFO: the highest id and by-ref sizes. */
static int
dtd_consumer_difovars(const dif_difo_t *d, uint32_t *nglob, uint32_t *sizes,
    uint32_t strsize, char *err, size_t errlen)
{
	uint32_t i, ndx, size;

	if (d == NULL)
		return 0;
	for (i = 0; i < d->dd_varlen; i++) {
		const dif_var_t *v = &d->dd_vartab[i];

		if (v->dv_scope != DIFV_SCOPE_GLOBAL ||
		    v->dv_kind != DIFV_KIND_SCALAR ||
		    v->dv_id < DIF_VAR_OTHER_UBASE || v->dv_id > DIF_VAR_OTHER_MAX)
			continue;
		ndx = v->dv_id - DIF_VAR_OTHER_UBASE;
		if (ndx + 1 > *nglob)
			*nglob = ndx + 1;
		if (sizes == NULL)
			continue;
		size = 0;
		/* a string: strsize characters and its NUL */
		if (v->dv_type.dt_kind == DIF_TYPE_STRING)
			size = (v->dv_type.dt_size ? v->dv_type.dt_size :
			    strsize) + 1;
		else if (v->dv_type.dt_flags & DIF_TF_BYREF)
			size = v->dv_type.dt_size;
		if (size > DTD_MAX_VARSIZE) {
			dtd_consumer_err(err, errlen, "global variable %#x of %u "
			    "bytes is too large", v->dv_id, size);
			return -1;
		}
		if (size > sizes[ndx])
			sizes[ndx] = size;
	}
	return 0;
}

static int
dtd_consumer_progvars(const dtp_prog_t *p, uint32_t *nglob, uint32_t *sizes,
    uint32_t strsize, char *err, size_t errlen)
{
	uint32_t i, j, k;

	for (i = 0; i < p->dp_nstmt; i++) {
		const dtp_stmt_t *s = &p->dp_stmt[i];

		if (dtd_consumer_difovars(s->ds_pred, nglob, sizes, strsize,
		    err, errlen) == -1)
			return -1;
		for (j = 0; j < s->ds_nact; j++) {
			for (k = 0; k < s->ds_act[j].da_ndifo; k++) {
				if (dtd_consumer_difovars(s->ds_act[j].da_difo[k],
				    nglob, sizes, strsize, err, errlen) == -1)
					return -1;
			}
		}
	}
	return 0;
}

/* Grow the consumer's global storage to what p needs. */
static int
dtd_consumer_globals(dtd_consumer_t *c, const dtp_prog_t *p, char *err,
    size_t errlen)
{
	dif_vstate_t *vs = &c->dc_vstate;
	uint32_t nglob = 0, *sizes, i;
	dif_gvar_t *ng;
	char *data;

	if (dtd_consumer_progvars(p, &nglob, NULL, 0, err, errlen) == -1)
		return -1;
	if (nglob == 0)
		return 0;
	if ((sizes = calloc(nglob, sizeof(*sizes))) == NULL)
		goto nomem;
	if (dtd_consumer_progvars(p, &nglob, sizes, c->dc_opts.do_strsize, err,
	    errlen) == -1) {
		free(sizes);
		return -1;
	}
	if (nglob > vs->dv_nglobals) {
		if ((ng = reallocarray(vs->dv_globals, nglob,
		    sizeof(*ng))) == NULL) {
			free(sizes);
			goto nomem;
		}
		memset(ng + vs->dv_nglobals, 0,
		    (nglob - vs->dv_nglobals) * sizeof(*ng));
		vs->dv_globals = ng;
		vs->dv_nglobals = nglob;
	}
	for (i = 0; i < nglob; i++) {
		dif_gvar_t *g = &vs->dv_globals[i];

		if (sizes[i] <= g->dg_size)
			continue;
		if ((data = realloc(g->dg_data, sizes[i])) == NULL) {
			free(sizes);
			goto nomem;
		}
		memset(data + g->dg_size, 0, sizes[i] - g->dg_size);
		g->dg_data = data;
		g->dg_size = sizes[i];
	}
	free(sizes);
	return 0;
nomem:
	dtd_consumer_err(err, errlen, "out of memory for global variables");
	return -1;
}

typedef struct dtd_consumer_mk {
	dtd_consumer_t		*mk_c;
	const dtp_prog_t	*mk_prog;
	uint32_t		mk_stmt;
	uint64_t		mk_maxecb;	/* ECBs c may have in all */
	int			mk_err;
	const char		*mk_late;	/* rematch: only this provider's
						   probes, new to the statement */
} dtd_consumer_mk_t;

/* Has statement s of c an ECB on probe pr already? */
static int
dtd_consumer_hasecb(dtd_probe_t *pr, const dtd_consumer_t *c,
    const dtp_stmt_t *s)
{
	dtd_ecb_t *e;
	int has = 0;

	pthread_rwlock_rdlock(&pr->dpr_lock);
	TAILQ_FOREACH(e, &pr->dpr_ecbs, de_link) {
		if (e->de_consumer == c && e->de_stmt == s) {
			has = 1;
			break;
		}
	}
	pthread_rwlock_unlock(&pr->dpr_lock);
	return has;
}

/*
 * Every record of epid is size bytes: said before the ECB is enabled,
 * so that a writer that finds a record of it in a ring finds its size.
 * A chunk, once there, stays where it is until the consumer is freed.
 */
static int
dtd_consumer_setrecsize(dtd_consumer_t *c, uint32_t epid, uint32_t size)
{
	uint32_t *ch, i = (epid - 1) / DTD_RECSZ_CHUNK;

	if (epid == 0 || epid > DTD_MAX_ECBS)
		return -1;
	if ((ch = c->dc_recsz[i]) == NULL) {
		if ((ch = calloc(DTD_RECSZ_CHUNK, sizeof(*ch))) == NULL)
			return -1;
		__atomic_store_n(&c->dc_recsz[i], ch, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&ch[(epid - 1) % DTD_RECSZ_CHUNK], size,
	    __ATOMIC_RELEASE);
	return 0;
}

/* The size of every record of epid, 0 if it has none (dtd_buf_sizer). */
size_t
dtd_consumer_recsize(void *arg, uint32_t epid)
{
	dtd_consumer_t *c = arg;
	uint32_t *ch;

	if (epid == 0 || epid > DTD_MAX_ECBS)
		return 0;
	ch = __atomic_load_n(&c->dc_recsz[(epid - 1) / DTD_RECSZ_CHUNK],
	    __ATOMIC_ACQUIRE);
	if (ch == NULL)
		return 0;
	return __atomic_load_n(&ch[(epid - 1) % DTD_RECSZ_CHUNK],
	    __ATOMIC_ACQUIRE);
}

static int
dtd_consumer_mkecb(dtd_probe_t *pr, void *arg)
{
	dtd_consumer_mk_t *mk = arg;
	dtd_consumer_t *c = mk->mk_c;
	const dtp_stmt_t *s = &mk->mk_prog->dp_stmt[mk->mk_stmt];
	dtd_ecb_t *e, **ne;
	uint32_t i, ncap;

	if (mk->mk_late != NULL &&
	    (strcmp(pr->dpr_prov->dpv_name, mk->mk_late) != 0 ||
	    dtd_consumer_hasecb(pr, c, s)))
		return 0;

	if (c->dc_necb >= mk->mk_maxecb) {
		mk->mk_err = E2BIG;
		return -1;
	}
	if (c->dc_necb == c->dc_ecbcap) {
		ncap = c->dc_ecbcap ? c->dc_ecbcap * 2 : 16;
		if ((ne = reallocarray(c->dc_ecbs, ncap, sizeof(*ne))) == NULL)
			goto nomem;
		c->dc_ecbs = ne;
		c->dc_ecbcap = ncap;
	}
	if ((e = calloc(1, sizeof(*e))) == NULL)
		goto nomem;
	if (s->ds_nact > 0 &&
	    (e->de_aggs = calloc(s->ds_nact, sizeof(*e->de_aggs))) == NULL) {
		free(e);
		goto nomem;
	}
	for (i = 0; i < s->ds_nact; i++) {
		if (DTRACEACT_ISAGG(s->ds_act[i].da_kind))
			e->de_aggs[i] = dtd_validate_findagg(c, mk->mk_prog,
			    s->ds_act[i].da_arg);
	}
	e->de_consumer = c;
	e->de_probe = pr;
	e->de_prog = mk->mk_prog;
	e->de_stmt = s;
	e->de_stmtidx = mk->mk_stmt;
	e->de_epid = c->dc_necb + 1;
	if (dtd_validate_records(s))
		e->de_recsize = (uint32_t)DTRACE_RECROUND(DTRACE_RECHDR_SIZE +
		    s->ds_size);
	if (dtd_consumer_setrecsize(c, e->de_epid, e->de_recsize) == -1) {
		free(e->de_aggs);
		free(e);
		goto nomem;
	}
	c->dc_ecbs[c->dc_necb++] = e;
	return 0;
nomem:
	mk->mk_err = ENOMEM;
	return -1;
}

/* Does the DIFO call copyout() or copyoutstr()? */
static int
dtd_consumer_difodestr(const dif_difo_t *d)
{
	uint32_t i;

	if (d == NULL)
		return 0;
	for (i = 0; i < d->dd_len; i++) {
		if (DIF_INSTR_OP(d->dd_buf[i]) == DIF_OP_CALL &&
		    (DIF_INSTR_SUBR(d->dd_buf[i]) == DIF_SUBR_COPYOUT ||
		    DIF_INSTR_SUBR(d->dd_buf[i]) == DIF_SUBR_COPYOUTSTR))
			return 1;
	}
	return 0;
}

/* Has the program destructive actions?  The daemon sees for itself. */
static int
dtd_consumer_isdestructive(const dtp_prog_t *p)
{
	uint32_t i, j, k;

	for (i = 0; i < p->dp_nstmt; i++) {
		const dtp_stmt_t *s = &p->dp_stmt[i];

		if (dtd_consumer_difodestr(s->ds_pred))
			return 1;
		for (j = 0; j < s->ds_nact; j++) {
			const dtp_action_t *a = &s->ds_act[j];

			if ((a->da_kind & 0xff00) ==
			    DTRACEACT_PROC_DESTRUCTIVE ||
			    (a->da_kind & 0xff00) ==
			    DTRACEACT_KERNEL_DESTRUCTIVE)
				return 1;
			for (k = 0; k < a->da_ndifo; k++) {
				if (dtd_consumer_difodestr(a->da_difo[k]))
					return 1;
			}
		}
	}
	return 0;
}

/*
 * Take a decoded program: check it, create its ECBs and describe them in
 * reply (a DT_MSG_PROGRAM_OK being built).  On success the consumer owns
 * p; on failure nothing changed, err says why and the caller frees p.
 */
int
dtd_consumer_program(dtd_consumer_t *c, dtp_prog_t *p, dt_msg_t *reply,
    char *err, size_t errlen)
{
	dtd_opts_t saved;
	dtd_consumer_mk_t mk;
	dtp_prog_t **np;
	const dtp_agg_t **na;
	uint32_t i, firstecb = c->dc_necb, maxid;
	int peruid;

	if (dtd_consumer_activity(c) != DT_ACT_INACTIVE) {
		dtd_consumer_err(err, errlen, "tracing has already started");
		return -1;
	}
	if (dtd_limit_program(c, err, errlen) == -1)
		return -1;
	saved = c->dc_opts;
	for (i = 0; i < p->dp_nopt; i++) {
		if (dtd_consumer_option(c, p->dp_opt[i].do_name,
		    p->dp_opt[i].do_value, err, errlen) == -1)
			goto restore;
	}
	if (dtd_validate_program(c, p, err, errlen) == -1)
		goto restore;
	if ((np = reallocarray(c->dc_progs, c->dc_nprog + 1,
	    sizeof(*np))) == NULL)
		goto nomem;
	c->dc_progs = np;
	maxid = c->dc_naggs;
	for (i = 0; i < p->dp_nagg; i++) {
		if (p->dp_agg[i].dg_id + 1 > maxid)
			maxid = p->dp_agg[i].dg_id + 1;
	}
	if (maxid > c->dc_naggs) {
		if ((na = reallocarray(c->dc_aggs, maxid, sizeof(*na))) == NULL)
			goto nomem;
		memset(na + c->dc_naggs, 0,
		    (maxid - c->dc_naggs) * sizeof(*na));
		c->dc_aggs = na;
	}
	/* grown storage stays: it is only ever larger than needed */
	if (dtd_consumer_globals(c, p, err, errlen) == -1)
		goto restore;
	/* the providers' part (pid: each target's backend), before ECBs */
	if (dtd_provider_load(c, p, err, errlen) == -1)
		goto restore;

	mk.mk_c = c;
	mk.mk_prog = p;
	mk.mk_err = 0;
	mk.mk_late = NULL;
	mk.mk_maxecb = dtd_limit_probes(c, DTD_MAX_ECBS, &peruid);
	for (i = 0; i < p->dp_nstmt; i++) {
		mk.mk_stmt = i;
		if (dtd_probe_iter(&p->dp_stmt[i].ds_desc, c,
		    dtd_consumer_mkecb, &mk, err, errlen) != 0) {
			dtd_consumer_ecbs_free(c, firstecb);
			if (err[0] != '\0')
				goto restore;	/* the provider's word */
			if (mk.mk_err == E2BIG &&
			    mk.mk_maxecb < DTD_MAX_ECBS) {
				dtd_limit_probes_err(c, peruid, err, errlen);
				goto restore;
			}
			if (mk.mk_err == E2BIG) {
				dtd_consumer_err(err, errlen, "too many "
				    "enabled probes");
				goto restore;
			}
			goto nomem;
		}
	}

	/* committed: nothing below fails */
	if (dtd_consumer_isdestructive(p))
		c->dc_destructive = 1;
	for (i = 0; i < p->dp_nagg; i++) {
		if (c->dc_aggs[p->dp_agg[i].dg_id] == NULL)
			c->dc_aggs[p->dp_agg[i].dg_id] = &p->dp_agg[i];
	}
	if (maxid > c->dc_naggs)
		c->dc_naggs = maxid;
	c->dc_progs[c->dc_nprog++] = p;
	dtd_limit_charge(c, 1, c->dc_necb - firstecb, 0);

	dt_msg_put_u32(reply, c->dc_necb - firstecb);
	for (i = firstecb; i < c->dc_necb; i++) {
		dtd_ecb_t *e = c->dc_ecbs[i];

		dt_msg_put_u32(reply, e->de_epid);
		dt_msg_put_u32(reply, e->de_stmtidx);
		dtd_probe_encode(reply, e->de_probe);
	}
	log_debug("%s: pid %d: program %u: %u statements, %u ECBs", __func__,
	    (int)c->dc_pid, c->dc_nprog, p->dp_nstmt, c->dc_necb - firstecb);
	return 0;
nomem:
	dtd_consumer_err(err, errlen, "out of memory");
restore:
	c->dc_opts = saved;
	return -1;
}

/*
 * Probes of provider prov appeared while c traces (its target loaded a
 * library, or exec'd): the statements that match them get ECBs on them,
 * enabled at once (main thread, the target waiting in its event).  What
 * cannot be made is logged; the rest traces.
 */
void
dtd_consumer_rematch(dtd_consumer_t *c, const char *prov)
{
	dtd_consumer_mk_t mk;
	uint32_t pi, i, first = c->dc_necb, k, n = 0;
	char err[256];
	int peruid;

	if (dtd_consumer_activity(c) != DT_ACT_ACTIVE)
		return;
	memset(&mk, 0, sizeof(mk));
	mk.mk_c = c;
	mk.mk_late = prov;
	mk.mk_maxecb = dtd_limit_probes(c, DTD_MAX_ECBS, &peruid);
	for (pi = 0; pi < c->dc_nprog; pi++) {
		mk.mk_prog = c->dc_progs[pi];
		for (i = 0; i < mk.mk_prog->dp_nstmt; i++) {
			const dtp_probedesc_t *d =
			    &mk.mk_prog->dp_stmt[i].ds_desc;

			if (d->dpd_provider[0] != '\0' &&
			    fnmatch(d->dpd_provider, prov, 0) != 0)
				continue;
			mk.mk_stmt = i;
			if (dtd_probe_iter(d, c, dtd_consumer_mkecb, &mk, err,
			    sizeof(err)) != 0) {
				log_warnx("%s: pid %d: %s", __func__,
				    (int)c->dc_pid, err[0] != '\0' ? err :
				    strerror(mk.mk_err));
				goto enable;
			}
		}
	}
enable:
	for (k = first; k < c->dc_necb; k++) {
		dtd_ecb_t *e = c->dc_ecbs[k];

		if (dtd_probe_enable(e->de_probe, e) == -1)
			log_warn("%s: pid %d: %s:%s:%s:%s", __func__,
			    (int)c->dc_pid, e->de_probe->dpr_prov->dpv_name,
			    e->de_probe->dpr_mod, e->de_probe->dpr_func,
			    e->de_probe->dpr_name);
		else
			n++;
	}
	if (c->dc_necb > first) {
		dtd_limit_charge(c, 0, c->dc_necb - first, 0);
		log_info("%s: pid %d: %u ECBs on probes of %s that appeared "
		    "(%u enabled)", __func__, (int)c->dc_pid,
		    c->dc_necb - first, prov, n);
	}
}

/*
 * Tell a client of c's ECBs from index from on (DT_MSG_ECBS), made since
 * it last heard: before the records they make.
 */
int
dtd_consumer_announce(dtd_consumer_t *c, uint32_t from,
    int (*send)(void *, dt_msg_t *), void *arg)
{
	dt_msg_t m;
	uint32_t i, j;
	int rv;

	if (from >= c->dc_necb)
		return 0;
	dt_msg_init(&m, DT_MSG_ECBS);
	dt_msg_put_u32(&m, c->dc_necb - from);
	for (i = from; i < c->dc_necb; i++) {
		const dtd_ecb_t *e = c->dc_ecbs[i];

		for (j = 0; j < c->dc_nprog && c->dc_progs[j] != e->de_prog;
		    j++)
			continue;
		dt_msg_put_u32(&m, e->de_epid);
		dt_msg_put_u32(&m, j);
		dt_msg_put_u32(&m, e->de_stmtidx);
		dtd_probe_encode(&m, e->de_probe);
	}
	rv = send(arg, &m);
	dt_msg_free(&m);
	return rv;
}

/*
 * The room a fill buffer keeps for END: the records of the END ECB chain
 * (every ECB of this consumer on dtrace:::END fires into one buffer).
 */
static size_t
dtd_consumer_endreserve(const dtd_consumer_t *c)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < c->dc_necb; i++) {
		if (c->dc_ecbs[i]->de_probe->dpr_id == DTD_PROBE_END)
			n += c->dc_ecbs[i]->de_recsize;
	}
	return n;
}

/*
 * The largest record any ECB writes.  ERROR's do not count: dtrace(1)
 * enables its own reporter there (five values), which would otherwise
 * make every buffer smaller than its record unusable, where the
 * program's own records fit.  A fault's record that does not fit is
 * dropped, and counted, like any other.
 */
static size_t
dtd_consumer_maxrec(const dtd_consumer_t *c)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < c->dc_necb; i++) {
		if (c->dc_ecbs[i]->de_probe->dpr_id == DTD_PROBE_ERROR)
			continue;
		if (c->dc_ecbs[i]->de_recsize > n)
			n = c->dc_ecbs[i]->de_recsize;
	}
	return n;
}

#define DTD_MAX_THREADUNITS	1024

/*
 * Principal buffers of do_bufsize per unit, or, with bufresize=auto,
 * the largest half of it that both the memory budget and malloc allow
 * (and that still holds the largest record and END's reservation).
 * Sets *charged to the memory promised to them.
 */
static int
dtd_consumer_bufalloc(dtd_consumer_t *c, int nunit, uint64_t budget,
    uint64_t *charged, char *err, size_t errlen)
{
	const dtd_opts_t *o = &c->dc_opts;
	uint64_t size = o->do_bufsize, per, need, maxthr = 0;
	size_t reserve = 0;
	int rv;

	need = dtd_consumer_maxrec(c);
	if (size < DTD_MIN_BUFSIZE) {
		dtd_consumer_err(err, errlen,
		    "Enabling exceeds size of buffer");
		return -1;
	}
	if (o->do_bufpolicy == DTD_BUFPOLICY_FILL) {
		reserve = dtd_consumer_endreserve(c);
		if (reserve > size) {
			dtd_consumer_err(err, errlen, "END enablings exceed "
			    "size of principal buffer");
			return -1;
		}
		if (reserve > need)
			need = reserve;
	}
	for (;;) {
		per = size * dtd_buf_halves(o->do_bufpolicy);
		rv = -1;
		if (o->do_bufscope == DTD_BUFSCOPE_THREAD) {
			/* half the budget: aggregations get the rest */
			maxthr = budget / 2 / per;
			if (maxthr > DTD_MAX_THREADUNITS)
				maxthr = DTD_MAX_THREADUNITS;
			if (maxthr >= 1)
				rv = dtd_buf_init_thread(&c->dc_buf,
				    o->do_bufpolicy, (size_t)size,
				    (uint32_t)maxthr);
		} else if (per * (uint64_t)nunit <= budget) {
			rv = dtd_buf_init(&c->dc_buf, o->do_bufpolicy, nunit,
			    (size_t)size);
		}
		if (rv == 0)
			break;
		if (o->do_bufresize == DTD_BUFRESIZE_MANUAL ||
		    (size / 2 & ~(uint64_t)7) < need ||
		    (size / 2 & ~(uint64_t)7) < DTD_MIN_BUFSIZE) {
			dtd_consumer_err(err, errlen, "Not enough space");
			return -1;
		}
		size = size / 2 & ~(uint64_t)7;
	}
	if (size < need) {
		dtd_buf_fini(&c->dc_buf);
		dtd_consumer_err(err, errlen, "Enabling exceeds size of buffer");
		return -1;
	}
	dtd_buf_reserve(&c->dc_buf, reserve);
	dtd_buf_sizer(&c->dc_buf, dtd_consumer_recsize, c);
	c->dc_hasbuf = 1;
	c->dc_bufused = size;
	*charged = o->do_bufscope == DTD_BUFSCOPE_THREAD ? per * maxthr :
	    per * (uint64_t)nunit;
	return 0;
}

/* Aggregation buffers, lowered like the principal ones. */
static int
dtd_consumer_aggalloc(dtd_consumer_t *c, int nunit, uint64_t budget,
    char *err, size_t errlen)
{
	uint64_t size = c->dc_opts.do_aggsize;

	for (;;) {
		/* two halves per unit, as dtd_agg keeps them */
		if (size * 2 * (uint64_t)nunit <= budget &&
		    dtd_agg_init(&c->dc_agg, nunit, (size_t)size) == 0)
			break;
		if (c->dc_opts.do_bufresize == DTD_BUFRESIZE_MANUAL ||
		    (size / 2 & ~(uint64_t)7) < DTD_MIN_BUFSIZE) {
			dtd_consumer_err(err, errlen, "Not enough space");
			return -1;
		}
		size = size / 2 & ~(uint64_t)7;
	}
	c->dc_hasagg = 1;
	c->dc_aggused = size;
	return 0;
}

/*
 * Allocate buffers, put the ECBs on their probes, fire BEGIN.  With -x
 * cpu=N only that CPU traces, so it alone gets buffers (as in illumos).
 */
/*
 * Dynamic variables for GO, when the options are final: the space of
 * self-> variables and associative arrays, dynvarsize bytes, and the
 * number of this-> slots a firing needs (dtd_ecb.c keeps those).
 */
static int
dtd_consumer_dynvars(dtd_consumer_t *c, uint64_t budget, char *err,
    size_t errlen)
{
	const dtp_stmt_t *s;
	uint32_t i, j, k, l, n = 0;

	for (i = 0; i < c->dc_nprog; i++) {
		for (j = 0; j < c->dc_progs[i]->dp_nstmt; j++) {
			s = &c->dc_progs[i]->dp_stmt[j];
			if (s->ds_pred != NULL &&
			    (l = dif_dvar_maxid(s->ds_pred,
			    DIFV_SCOPE_LOCAL)) > n)
				n = l;
			for (k = 0; k < s->ds_nact; k++) {
				for (l = 0; l < s->ds_act[k].da_ndifo; l++) {
					uint32_t m = dif_dvar_maxid(
					    s->ds_act[k].da_difo[l],
					    DIFV_SCOPE_LOCAL);

					if (m > n)
						n = m;
				}
			}
		}
	}
	c->dc_nlocals = n;
	/*
	 * Under a limit (budget not 0) at most a quarter of it, lowered
	 * like the buffers.  A GO after a failed one makes the space again
	 * (nothing can fire into it: no ECB is enabled), for the options
	 * and budget of now.
	 */
	while (budget != 0 && c->dc_opts.do_dynvarsize > budget / 4) {
		if (c->dc_opts.do_bufresize == DTD_BUFRESIZE_MANUAL ||
		    (c->dc_opts.do_dynvarsize / 2 & ~(uint64_t)7) <
		    DTD_MIN_BUFSIZE) {
			dtd_consumer_err(err, errlen, "Not enough space");
			return -1;
		}
		c->dc_opts.do_dynvarsize = c->dc_opts.do_dynvarsize / 2 &
		    ~(uint64_t)7;
	}
	if (dif_dvar_init(&c->dc_vstate, c->dc_opts.do_dynvarsize) == -1) {
		dtd_consumer_err(err, errlen, "cannot allocate dynamic "
		    "variable space");
		return -1;
	}
	return 0;
}

/* Does d call speculation()? */
static int
dtd_consumer_difospec(const dif_difo_t *d)
{
	uint32_t i;

	for (i = 0; d != NULL && i < d->dd_len; i++) {
		if (DIF_INSTR_OP(d->dd_buf[i]) == DIF_OP_CALL &&
		    DIF_INSTR_SUBR(d->dd_buf[i]) == DIF_SUBR_SPECULATION)
			return 1;
	}
	return 0;
}

/* Do the consumer's programs use speculations at all? */
static int
dtd_consumer_usesspec(const dtd_consumer_t *c)
{
	const dtp_stmt_t *s;
	uint32_t i, j, k, l;

	for (i = 0; i < c->dc_nprog; i++) {
		for (j = 0; j < c->dc_progs[i]->dp_nstmt; j++) {
			s = &c->dc_progs[i]->dp_stmt[j];
			if (dtd_consumer_difospec(s->ds_pred))
				return 1;
			for (k = 0; k < s->ds_nact; k++) {
				if ((s->ds_act[k].da_kind & 0xff00) ==
				    DTRACEACT_SPECULATIVE)
					return 1;
				for (l = 0; l < s->ds_act[k].da_ndifo; l++) {
					if (dtd_consumer_difospec(
					    s->ds_act[k].da_difo[l]))
						return 1;
				}
			}
		}
	}
	return 0;
}

/*
 * Speculations: nspec of specsize bytes per CPU, within what the budget
 * leaves, lowered as the other buffers are.  Their buffers are taken
 * from the heap at their first record, so an unused one costs nothing.
 */
static int
dtd_consumer_specalloc(dtd_consumer_t *c, uint64_t budget, char *err,
    size_t errlen)
{
	uint64_t size = c->dc_opts.do_specsize & ~(uint64_t)7;
	uint64_t n = (uint64_t)c->dc_opts.do_nspec * dtd_consumer_ncpu();

	while (size * n > budget) {
		if (c->dc_opts.do_bufresize == DTD_BUFRESIZE_MANUAL ||
		    (size / 2 & ~(uint64_t)7) < DTD_MIN_BUFSIZE) {
			dtd_consumer_err(err, errlen, "Not enough space");
			return -1;
		}
		size = size / 2 & ~(uint64_t)7;
	}
	if ((c->dc_spec = calloc(1, sizeof(*c->dc_spec))) == NULL ||
	    dtd_spec_init(c->dc_spec, c->dc_opts.do_nspec,
	    dtd_consumer_ncpu(), (size_t)size, c->dc_opts.do_cleanrate) == -1) {
		free(c->dc_spec);
		c->dc_spec = NULL;
		dtd_consumer_err(err, errlen, "Not enough space");
		return -1;
	}
	c->dc_specused = size;
	return 0;
}

int
dtd_consumer_go(dtd_consumer_t *c, char *err, size_t errlen)
{
	int nunit = c->dc_opts.do_cpu != -1 ? 1 : dtd_consumer_ncpu();
	uint64_t charged = 0, budget, aggmem = 0, specmem = 0;
	dtd_hit_t hit;
	uint32_t i, j;
	int which, warm;

	if (dtd_consumer_activity(c) != DT_ACT_INACTIVE) {
		dtd_consumer_err(err, errlen, "tracing has already started");
		return -1;
	}
	/* illumos's EACCES at GO; only root may change what programs do */
	if (c->dc_destructive &&
	    (!c->dc_opts.do_destructive || c->dc_uid != 0)) {
		dtd_consumer_err(err, errlen,
		    "Destructive actions not allowed");
		return -1;
	}
	c->dc_allowdestr = c->dc_destructive;
	/* ERROR's records need not fit: see dtd_consumer_maxrec */
	for (i = 0; i < c->dc_nprog; i++) {
		for (j = 0; j < c->dc_progs[i]->dp_nstmt; j++) {
			if (strcmp(c->dc_progs[i]->dp_stmt[j].ds_desc.dpd_name,
			    "ERROR") == 0)
				continue;
			/* the record as written, rounded (dt_proto.h) */
			if (DTRACE_RECROUND(c->dc_progs[i]->dp_stmt[j].ds_size +
			    (uint64_t)DTRACE_RECHDR_SIZE) >
			    c->dc_opts.do_bufsize) {
				dtd_consumer_err(err, errlen, "Enabling exceeds "
				    "size of buffer");
				return -1;
			}
		}
	}
	/*
	 * The memory it may take: the ceiling (principal, aggregation and
	 * speculation buffers), or less under dtraced -L (dtd_limit.c,
	 * which counts dynamic variables too).  Dynamic variables first,
	 * then principal buffers, aggregations and speculations from what
	 * is left; their sizes as promised are charged to the uid.
	 */
	budget = dtd_limit_memory(c, DTD_MAX_CONSUMER_MEM, &which);
	if (dtd_consumer_dynvars(c, which != 0 ? budget : 0, err,
	    errlen) == -1)
		goto nospace;
	/* the ceiling alone leaves dynamic variables out, as it always has */
	if (which != 0)
		budget -= c->dc_opts.do_dynvarsize;
	if (dtd_consumer_bufalloc(c, nunit, budget, &charged,
	    err, errlen) == -1)
		goto nospace;
	if (c->dc_naggs > 0) {
		if (dtd_consumer_aggalloc(c, nunit, budget - charged, err,
		    errlen) == -1) {
			dtd_buf_fini(&c->dc_buf);
			c->dc_hasbuf = 0;
			goto nospace;
		}
		aggmem = c->dc_aggused * 2 * (uint64_t)nunit;
	}
	if (c->dc_spec == NULL && dtd_consumer_usesspec(c)) {
		if (dtd_consumer_specalloc(c, (budget - charged - aggmem) / 2,
		    err, errlen) == -1) {
			dtd_buf_fini(&c->dc_buf);
			c->dc_hasbuf = 0;
			if (c->dc_hasagg) {
				dtd_agg_fini(&c->dc_agg);
				c->dc_hasagg = 0;
			}
			goto nospace;
		}
		specmem = c->dc_specused * c->dc_opts.do_nspec *
		    (uint64_t)dtd_consumer_ncpu();
	}
	c->dc_enabled = 1;
	for (i = 0; i < c->dc_necb; i++) {
		dtd_ecb_t *e = c->dc_ecbs[i];

		if (dtd_probe_enable(e->de_probe, e) == -1) {
			dtd_consumer_err(err, errlen, "cannot enable %s:%s:%s:%s:"
			    " %s", e->de_probe->dpr_prov->dpv_name,
			    e->de_probe->dpr_mod, e->de_probe->dpr_func,
			    e->de_probe->dpr_name, strerror(errno));
			dtd_consumer_disable(c);
			/* nothing fires now: a GO again starts afresh */
			dtd_buf_fini(&c->dc_buf);
			c->dc_hasbuf = 0;
			if (c->dc_hasagg) {
				dtd_agg_fini(&c->dc_agg);
				c->dc_hasagg = 0;
			}
			if (c->dc_spec != NULL) {
				dtd_spec_fini(c->dc_spec);
				free(c->dc_spec);
				c->dc_spec = NULL;
			}
			return -1;
		}
	}
	dtd_limit_charge(c, 0, 0, c->dc_opts.do_dynvarsize + charged +
	    aggmem + specmem);
	/* uprobe sites go live in a batch, before BEGIN */
	dtd_target_commit(c);
	/* BEGIN first, alone; then every probe (unless BEGIN exit()ed) */
	__atomic_store_n(&c->dc_activity, DTD_ACT_WARMUP, __ATOMIC_RELEASE);
	log_info("%s: pid %d: tracing, %u ECBs", __func__, (int)c->dc_pid,
	    c->dc_necb);
	dtd_ecb_hit_consumer(&hit, dtd_probe_lookup(DTD_PROBE_BEGIN), c);
	c->dc_begincpu = hit.dh_cpu;
	dtd_ecb_fire(&hit);
	warm = DTD_ACT_WARMUP;
	(void)__atomic_compare_exchange_n(&c->dc_activity, &warm,
	    DT_ACT_ACTIVE, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	/* BEGIN has run: -c programs held at their entry point may go */
	dtd_target_run(c);
	return 0;
nospace:
	/* a limit of dtraced's, not the machine, is what refused */
	if ((which == 1 || which == 2) && strcmp(err, "Not enough space") == 0)
		dtd_limit_memory_err(c, which, err, errlen);
	return -1;
}

/* Fire END, then take the ECBs off their probes. */
int
dtd_consumer_stop(dtd_consumer_t *c, char *err, size_t errlen)
{
	dtd_hit_t hit;

	switch (dtd_consumer_activity(c)) {
	case DT_ACT_INACTIVE:
		dtd_consumer_err(err, errlen, "tracing has not started");
		return -1;
	case DT_ACT_STOPPED:
		dtd_consumer_err(err, errlen, "tracing has already stopped");
		return -1;
	}
	/* the hits before the stop, then END */
	dtd_provider_flush(c);
	/* END may write into the room a fill buffer kept for it */
	dtd_buf_cooldown(&c->dc_buf);
	dtd_ecb_hit_consumer(&hit, dtd_probe_lookup(DTD_PROBE_END), c);
	c->dc_endcpu = hit.dh_cpu;
	dtd_ecb_fire(&hit);
	__atomic_store_n(&c->dc_activity, DT_ACT_STOPPED, __ATOMIC_RELEASE);
	dtd_consumer_disable(c);
	log_info("%s: pid %d: stopped, %" PRIu64 " errors", __func__,
	    (int)c->dc_pid, __atomic_load_n(&c->dc_errors, __ATOMIC_RELAXED));
	return 0;
}

/* One unit's records as a DT_MSG_BUF.  -1 if send fails. */
static int
dtd_consumer_sendbuf(const dtd_bufsnap_t *bs, int (*send)(void *,
    dt_msg_t *), void *arg)
{
	dt_msg_t m;
	int rv;

	dt_msg_init(&m, DT_MSG_BUF);
	dt_msg_put_u32(&m, (uint32_t)bs->dbs_cpu);
	dt_msg_put_u64(&m, bs->dbs_drops);
	dt_msg_put_u32(&m, bs->dbs_flags);
	if (bs->dbs_flags & DT_BUFF_THREAD)
		dt_msg_put_u32(&m, (uint32_t)bs->dbs_tid);
	dt_msg_put_bytes(&m, bs->dbs_data, bs->dbs_len);
	rv = send(arg, &m);
	dt_msg_free(&m);
	return rv;
}

/* The bytes of BEGIN's records at the start of a unit's snapshot. */
static size_t
dtd_consumer_beginlen(const dtd_consumer_t *c, const dtd_bufsnap_t *bs)
{
	size_t off = 0, size;
	uint32_t epid;
	const dtd_ecb_t *e;

	while (off + DTRACE_RECHDR_SIZE <= bs->dbs_len) {
		dt_proto_rechdr_get(bs->dbs_data + off, &epid, NULL);
		/* an ECB's epid is its index + 1 (dtd_consumer_mkecb) */
		if (epid == DTRACE_EPIDNONE || epid > c->dc_necb)
			break;
		e = c->dc_ecbs[epid - 1];
		size = e->de_recsize;
		if (size < DTRACE_RECHDR_SIZE || size > bs->dbs_len - off ||
		    e->de_probe->dpr_id != DTD_PROBE_BEGIN)
			break;
		off += size;
	}
	return off;
}

/*
 * Snapshot: DT_MSG_BUF per unit (CPU or thread) with records or drops,
 * DT_MSG_AGG per CPU with entries or drops, then DT_MSG_SNAP_END.  Fill
 * and ring buffers are read once, when tracing has stopped: until then
 * they are left alone (a fill buffer must stay full to stop tracing, a
 * ring keeps the newest records).  With DTD_SNAP_PEEK (a snapshot of a
 * retained program) nothing is consumed: every buffer is read as it is
 * and stays for the claim.  Returns -1 if send fails.
 */
int
dtd_consumer_snap(dtd_consumer_t *c, uint32_t what,
    int (*send)(void *, dt_msg_t *), void *arg)
{
	int peek = (what & DTD_SNAP_PEEK) != 0;
	dt_msg_t m;
	int cpu, rv;

	/* committed or discarded speculations whose time has come */
	if (c->dc_spec != NULL)
		dtd_spec_clean(c->dc_spec, dtd_ecb_now());
	/* a peek (snapshot grab) reads fill and ring buffers while they run */
	if ((what & DT_SNAP_BUF) && c->dc_hasbuf &&
	    (c->dc_buf.db_policy == DTD_BUFPOLICY_SWITCH || peek ||
	    dtd_consumer_activity(c) == DT_ACT_STOPPED)) {
		int i, u, nunit = dtd_buf_nunits(&c->dc_buf), first = -1,
		    last = -1, split = 0;
		dtd_bufsnap_t rest;
		char *restdata = NULL;

		/*
		 * illumos's order: the unit BEGIN ran on first (the first
		 * time), the one END ran on last, so a printa() or clear()
		 * in END comes after every other record.  When they are
		 * one unit, BEGIN's records (at its start) go first and
		 * the rest of it last.
		 */
		if (dtd_consumer_activity(c) == DT_ACT_STOPPED)
			last = dtd_buf_unitof(&c->dc_buf, c->dc_endcpu,
			    c->dc_pid);
		if (!c->dc_begunread && !peek) {
			first = dtd_buf_unitof(&c->dc_buf, c->dc_begincpu,
			    c->dc_pid);
			c->dc_begunread = 1;
		}
		if (first == last && first != -1)
			split = 1;
		for (i = -1; i <= nunit; i++) {
			dtd_bufsnap_t bs;
			size_t pre;

			if (i == -1)
				u = first;
			else if (i == nunit)
				u = last;
			else
				u = i;
			if (u < 0 || (i >= 0 && i < nunit &&
			    (u == first || u == last)))
				continue;
			if (split && i == nunit) {
				/* the rest of the unit BEGIN and END shared */
				if (restdata == NULL)
					continue;
				rest.dbs_data = restdata;
				if (dtd_consumer_sendbuf(&rest, send, arg) == -1) {
					free(restdata);
					return -1;
				}
				free(restdata);
				continue;
			}

			if ((peek ? dtd_buf_peek(&c->dc_buf, u, &bs) :
			    dtd_buf_snap(&c->dc_buf, u, &bs)) == -1) {
				log_warn("%s: pid %d: unit %d", __func__,
				    (int)c->dc_pid, u);
				continue;
			}
			if (bs.dbs_len == 0 && bs.dbs_drops == 0)
				continue;
			if (split && i == -1 &&
			    (pre = dtd_consumer_beginlen(c, &bs)) < bs.dbs_len) {
				rest = bs;
				rest.dbs_len = bs.dbs_len - pre;
				if ((restdata = malloc(rest.dbs_len)) == NULL) {
					log_warn("%s: malloc", __func__);
				} else {
					memcpy(restdata, bs.dbs_data + pre,
					    rest.dbs_len);
					/* its drops and state go with the rest */
					bs.dbs_len = pre;
					bs.dbs_drops = 0;
					bs.dbs_flags &= DT_BUFF_THREAD;
				}
			}
			/* no BEGIN record in it: all of it goes last */
			if (split && i == -1 && restdata != NULL && bs.dbs_len == 0)
				continue;
			if (dtd_consumer_sendbuf(&bs, send, arg) == -1) {
				free(restdata);
				return -1;
			}
		}
	}
	if ((what & DT_SNAP_AGG) && c->dc_hasagg) {
		for (cpu = 0; cpu < c->dc_agg.da_ncpu; cpu++) {
			dtd_aggsnap_t as;
			const void *key;
			const uint64_t *val;
			uint32_t aggid, ks, vs;

			if (peek)
				dtd_agg_peek(&c->dc_agg, cpu, &as);
			else
				dtd_agg_snap(&c->dc_agg, cpu, &as);
			if (as.das_nent == 0 && as.das_drops == 0)
				continue;
			dt_msg_init(&m, DT_MSG_AGG);
			dt_msg_put_u32(&m, (uint32_t)cpu);
			dt_msg_put_u64(&m, as.das_drops);
			dt_msg_put_u32(&m, as.das_nent);
			while (dtd_agg_next(&as, &aggid, &key, &ks, &val, &vs)) {
				dt_msg_put_u32(&m, aggid);
				dt_msg_put_u32(&m, ks);
				dt_msg_put_u32(&m, vs);
				dt_msg_put_bytes(&m, key, ks);
				dt_msg_put_bytes(&m, val, vs);
			}
			rv = send(arg, &m);
			dt_msg_free(&m);
			if (rv == -1)
				return -1;
		}
	}
	dt_msg_init(&m, DT_MSG_SNAP_END);
	dt_msg_put_u32(&m, (uint32_t)dtd_consumer_activity(c));
	dt_msg_put_u32(&m, (uint32_t)c->dc_exitstatus);
	dt_msg_put_u64(&m, __atomic_load_n(&c->dc_errors, __ATOMIC_RELAXED));
	/* cumulative: the client reports what grew since its last look */
	dt_msg_put_u64(&m, dif_dvar_drops(&c->dc_vstate, 0));
	dt_msg_put_u32(&m, (uint32_t)__atomic_load_n(&c->dc_reason,
	    __ATOMIC_ACQUIRE));
	/* speculations, cumulative: drops, failures busy, unavailable */
	dt_msg_put_u64(&m, c->dc_spec == NULL ? 0 :
	    __atomic_load_n(&c->dc_spec->dss_drops, __ATOMIC_RELAXED));
	dt_msg_put_u64(&m, c->dc_spec == NULL ? 0 :
	    __atomic_load_n(&c->dc_spec->dss_busy, __ATOMIC_RELAXED));
	dt_msg_put_u64(&m, c->dc_spec == NULL ? 0 :
	    __atomic_load_n(&c->dc_spec->dss_unavail, __ATOMIC_RELAXED));
	rv = send(arg, &m);
	dt_msg_free(&m);
	return rv;
}
