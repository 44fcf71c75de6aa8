/*
 * dtd_validate.c: a program a client sends, checked before any of it can
 * run: every DIFO through dif_verify, and the statement structure
 * against the record layout, the formats and the aggregations it names.
 * dtd_consumer.c takes a program only once it passed.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dtd.h"

#define DTD_MAX_AGGID		65536
#define DTD_MAX_AGGKEYS		DIF_DTR_NREGS

static void	dtd_validate_err(char *, size_t, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

static void
dtd_validate_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static const char *
dtd_validate_aggname(uint32_t kind)
{
	static const char *names[] = { "none", "count", "min", "max", "avg",
	    "sum", "stddev", "quantize", "lquantize", "llquantize" };
	uint32_t i = kind - DTRACEACT_AGGREGATION;

	return i < sizeof(names) / sizeof(names[0]) ? names[i] : "unknown";
}

/*
 * The values an aggregating action computes after its keys: none for
 * count(), the value, and for the histograms an optional increment.
 * Returns the least number, -1 for an unknown function; *maxp the most.
 */
static int
dtd_validate_aggnargs(uint32_t kind, int *maxp)
{
	switch (kind) {
	case DTRACEAGG_COUNT:
		*maxp = 0;
		return 0;
	case DTRACEAGG_SUM:
	case DTRACEAGG_MIN:
	case DTRACEAGG_MAX:
	case DTRACEAGG_AVG:
	case DTRACEAGG_STDDEV:
		*maxp = 1;
		return 1;
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		*maxp = 2;
		return 1;
	default:
		*maxp = -1;
		return -1;
	}
}

static int
dtd_validate_aggsame(const dtp_agg_t *a, const dtp_agg_t *b)
{
	uint32_t i;

	if (a->dg_kind != b->dg_kind || a->dg_nkeys != b->dg_nkeys ||
	    memcmp(a->dg_params, b->dg_params, sizeof(a->dg_params)) != 0)
		return 0;
	for (i = 0; i < a->dg_nkeys; i++) {
		if (a->dg_keys[i].dk_kind != b->dg_keys[i].dk_kind ||
		    a->dg_keys[i].dk_size != b->dg_keys[i].dk_size)
			return 0;
	}
	return 1;
}

static int
dtd_validate_checkagg(const dtd_consumer_t *c, const dtp_agg_t *g,
    char *err, size_t errlen)
{
	uint32_t j;
	int max;

	if (g->dg_id >= DTD_MAX_AGGID) {
		dtd_validate_err(err, errlen, "aggregation id %u out of range",
		    g->dg_id);
		return -1;
	}
	if (dtd_validate_aggnargs(g->dg_kind, &max) == -1) {
		dtd_validate_err(err, errlen, "@%s: aggregating function %s() "
		    "is not supported by this dtraced yet", g->dg_name,
		    dtd_validate_aggname(g->dg_kind));
		return -1;
	}
	/* the histograms' parameters: their layout must be one we can size */
	if (dt_proto_agg_valsize(g) == 0) {
		dtd_validate_err(err, errlen, "@%s: invalid %s() parameters",
		    g->dg_name, dtd_validate_aggname(g->dg_kind));
		return -1;
	}
	if (DTD_AGGENT_HDRSIZE + dt_proto_agg_keysize(g) +
	    dt_proto_agg_valsize(g) > c->dc_opts.do_aggsize) {
		dtd_validate_err(err, errlen, "@%s: an entry exceeds the "
		    "aggregation buffer size %" PRIu64, g->dg_name,
		    c->dc_opts.do_aggsize);
		return -1;
	}
	if (g->dg_nkeys > DTD_MAX_AGGKEYS) {
		dtd_validate_err(err, errlen, "@%s: %u keys, at most %u",
		    g->dg_name, g->dg_nkeys, DTD_MAX_AGGKEYS);
		return -1;
	}
	for (j = 0; j < g->dg_nkeys; j++) {
		const dtp_aggkey_t *k = &g->dg_keys[j];

		switch (k->dk_kind) {
		case DTP_KEY_INT:
		case DTP_KEY_UINT:
			if (k->dk_size != 1 && k->dk_size != 2 &&
			    k->dk_size != 4 && k->dk_size != 8)
				goto bad;
			break;
		case DTP_KEY_STRING:
			/* strsize characters and the NUL */
			if (k->dk_size < 1 ||
			    k->dk_size > c->dc_opts.do_strsize + 1)
				goto bad;
			break;
		case DTP_KEY_USTACK:
			if (k->dk_size < 16 || k->dk_size % 8 != 0 ||
			    k->dk_size > (DTRACE_USTACK_MAXFRAMES + 1) * 8)
				goto bad;
			break;
		case DTP_KEY_STACK:
			if (k->dk_size < 8 || k->dk_size % 8 != 0 ||
			    k->dk_size > DTRACE_STACK_MAXFRAMES * 8)
				goto bad;
			break;
		case DTP_KEY_USYM:
		case DTP_KEY_UMOD:
		case DTP_KEY_UADDR:
		case DTP_KEY_SYM:
		case DTP_KEY_MOD:
			if (k->dk_size != 16)
				goto bad;
			break;
		default:
			goto bad;
		}
	}
	if (g->dg_id < c->dc_naggs && c->dc_aggs[g->dg_id] != NULL &&
	    !dtd_validate_aggsame(c->dc_aggs[g->dg_id], g)) {
		dtd_validate_err(err, errlen, "@%s: aggregation id %u "
		    "redefined differently", g->dg_name, g->dg_id);
		return -1;
	}
	return 0;
bad:
	dtd_validate_err(err, errlen, "@%s: key %u has an invalid kind %u or "
	    "size %u", g->dg_name, j, g->dg_keys[j].dk_kind,
	    g->dg_keys[j].dk_size);
	return -1;
}

const dtp_agg_t *
dtd_validate_findagg(const dtd_consumer_t *c, const dtp_prog_t *p,
    uint64_t id)
{
	uint32_t i;

	for (i = 0; i < p->dp_nagg; i++) {
		if (p->dp_agg[i].dg_id == id)
			return &p->dp_agg[i];
	}
	if (id < c->dc_naggs)
		return c->dc_aggs[id];
	return NULL;
}

static int
dtd_validate_isref(const dif_difo_t *d)
{
	return d->dd_rtype.dt_kind == DIF_TYPE_STRING ||
	    (d->dd_rtype.dt_flags & DIF_TF_BYREF);
}

static int
dtd_validate_verify(const dif_difo_t *d, const char *what, uint32_t si,
    uint32_t ai, char *err, size_t errlen)
{
	char verr[256];

	if (d == NULL) {
		dtd_validate_err(err, errlen, "statement %u: %s %u: missing DIF "
		    "object", si, what, ai);
		return -1;
	}
	verr[0] = '\0';
	if (dif_verify(d, verr, sizeof(verr)) != 0) {
		dtd_validate_err(err, errlen, "statement %u: %s %u: invalid DIF: "
		    "%s", si, what, ai, verr[0] ? verr : "rejected");
		return -1;
	}
	return 0;
}

/*
 * Does a firing of this statement put a record in the principal buffer?
 * As in illumos: a clause with no actions records the bare header (the
 * default action); otherwise only if some action records something.
 * printf() and exit() always do; a statement that is only evaluated
 * (x = 1, a zero-size DIFEXPR), aggregations, commit() and discard()
 * store no data, so a clause of only those prints no line (the
 * committed records print theirs).  speculate() is sized all the same,
 * as illumos sizes it: a clause of only it has a speculative record.
 */
int
dtd_validate_records(const dtp_stmt_t *s)
{
	uint32_t i;

	if (s->ds_nact == 0)
		return 1;
	for (i = 0; i < s->ds_nact; i++) {
		switch (s->ds_act[i].da_kind) {
		case DTRACEACT_PRINTF:
		case DTRACEACT_EXIT:
		case DTRACEACT_PRINTA:	/* the consumer acts where it lies */
		case DTRACEACT_LIBACT:
		case DTRACEACT_TRACEMEM:
		case DTRACEACT_TRACEMEM_DYNSIZE:
		case DTRACEACT_USTACK:
		case DTRACEACT_STACK:
		case DTRACEACT_USYM:
		case DTRACEACT_UMOD:
		case DTRACEACT_UADDR:
		case DTRACEACT_SYM:
		case DTRACEACT_MOD:
		case DTRACEACT_SYSTEM:
		case DTRACEACT_FREOPEN:
		case DTRACEACT_SPECULATE:	/* its record, speculatively */
			return 1;
		case DTRACEACT_DIFEXPR:
			if (s->ds_act[i].da_size > 0)
				return 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* An action that records its DIFO's value at da_offset. */
static int
dtd_validate_checkrec(const dtd_consumer_t *c, const dtp_stmt_t *s,
    const dtp_action_t *a, uint32_t si, uint32_t ai, char *err, size_t errlen)
{
	const dif_difo_t *d;

	if (a->da_ndifo > 1) {
		dtd_validate_err(err, errlen, "statement %u: action %u has %u "
		    "DIF objects", si, ai, a->da_ndifo);
		return -1;
	}
	if (a->da_size == 0)
		return 0;
	if (a->da_ndifo == 0) {
		dtd_validate_err(err, errlen, "statement %u: action %u records "
		    "%u bytes but computes nothing", si, ai, a->da_size);
		return -1;
	}
	if ((uint64_t)a->da_offset + a->da_size > s->ds_size) {
		dtd_validate_err(err, errlen, "statement %u: action %u: bytes "
		    "%u..%u outside the record of %u bytes", si, ai,
		    a->da_offset, a->da_offset + a->da_size, s->ds_size);
		return -1;
	}
	if (a->da_align != 0 && a->da_align != 1 && a->da_align != 2 &&
	    a->da_align != 4 && a->da_align != 8) {
		dtd_validate_err(err, errlen, "statement %u: action %u: bad "
		    "alignment %u", si, ai, a->da_align);
		return -1;
	}
	if (a->da_align > 1 && a->da_offset % a->da_align != 0) {
		dtd_validate_err(err, errlen, "statement %u: action %u: offset "
		    "%u is not %u-aligned", si, ai, a->da_offset, a->da_align);
		return -1;
	}
	d = a->da_difo[0];
	if (d->dd_rtype.dt_kind == DIF_TYPE_STRING) {
		if (a->da_size > c->dc_opts.do_strsize + 1) {
			dtd_validate_err(err, errlen, "statement %u: action %u: "
			    "string of %u bytes exceeds strsize %u", si, ai,
			    a->da_size - 1, c->dc_opts.do_strsize);
			return -1;
		}
	} else if (d->dd_rtype.dt_flags & DIF_TF_BYREF) {
		if (a->da_size > d->dd_rtype.dt_size) {
			dtd_validate_err(err, errlen, "statement %u: action %u: "
			    "records %u bytes of a %u-byte object", si, ai,
			    a->da_size, d->dd_rtype.dt_size);
			return -1;
		}
	} else if (a->da_size != 1 && a->da_size != 2 && a->da_size != 4 &&
	    a->da_size != 8) {
		dtd_validate_err(err, errlen, "statement %u: action %u: an "
		    "integer of %u bytes", si, ai, a->da_size);
		return -1;
	}
	return 0;
}

static int
dtd_validate_checkstmt(const dtd_consumer_t *c, const dtp_prog_t *p,
    uint32_t si, char *err, size_t errlen)
{
	const dtp_stmt_t *s = &p->dp_stmt[si];
	const dtp_agg_t *g;
	uint32_t i, k;
	int nargs, maxargs;

	/* a record larger than bufsize: GO refuses, in illumos's words */
	if (s->ds_pred != NULL &&
	    dtd_validate_verify(s->ds_pred, "predicate", si, 0, err,
	    errlen) == -1)
		return -1;
	for (i = 0; i < s->ds_nact; i++) {
		const dtp_action_t *a = &s->ds_act[i];

		for (k = 0; k < a->da_ndifo; k++) {
			if (dtd_validate_verify(a->da_difo[k], "action", si, i,
			    err, errlen) == -1)
				return -1;
		}
		switch (a->da_kind) {
		case DTRACEACT_DIFEXPR:
		case DTRACEACT_PRINTA:
		case DTRACEACT_LIBACT:
			if (dtd_validate_checkrec(c, s, a, si, i, err,
			    errlen) == -1)
				return -1;
			break;
		case DTRACEACT_TRACEMEM:
			/* tracemem(addr, n): n bytes copied from addr */
			if (a->da_ndifo != 1 || a->da_size == 0 ||
			    !(a->da_difo[0]->dd_rtype.dt_flags &
			    DIF_TF_BYREF) ||
			    a->da_difo[0]->dd_rtype.dt_kind ==
			    DIF_TYPE_STRING) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "tracemem() at action %u needs an address "
				    "and a size", si, i);
				return -1;
			}
			if (dtd_validate_checkrec(c, s, a, si, i, err,
			    errlen) == -1)
				return -1;
			break;
		case DTRACEACT_USTACK: {
			/* pid, nframes pcs, strsize bytes; computed here */
			uint64_t nf = DTRACE_USTACK_NFRAMES(a->da_arg);
			uint64_t ss = DTRACE_USTACK_STRSIZE(a->da_arg);

			if (a->da_ndifo != 0 || nf == 0 ||
			    nf > DTRACE_USTACK_MAXFRAMES || ss > 65536 ||
			    a->da_size != (nf + 1) * 8 + ss ||
			    a->da_offset % 8 != 0 ||
			    (uint64_t)a->da_offset + a->da_size > s->ds_size) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "ustack() at action %u has a bad layout",
				    si, i);
				return -1;
			}
			break;
		}
		case DTRACEACT_STACK:
			/* nframes pcs, da_arg of them; computed here */
			if (a->da_ndifo != 0 || a->da_arg == 0 ||
			    a->da_arg > DTRACE_STACK_MAXFRAMES ||
			    a->da_size != a->da_arg * 8 ||
			    a->da_offset % 8 != 0 ||
			    (uint64_t)a->da_offset + a->da_size > s->ds_size) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "stack() at action %u has a bad layout",
				    si, i);
				return -1;
			}
			break;
		case DTRACEACT_USYM:
		case DTRACEACT_UMOD:
		case DTRACEACT_UADDR:
		case DTRACEACT_SYM:
		case DTRACEACT_MOD:
			/* pid, then the address the DIFO computes */
			if (a->da_ndifo != 1 || a->da_size != 16 ||
			    a->da_offset % 8 != 0 ||
			    dtd_validate_isref(a->da_difo[0]) ||
			    (uint64_t)a->da_offset + a->da_size > s->ds_size) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "action %u needs one address", si, i);
				return -1;
			}
			break;
		case DTRACEACT_TRACEMEM_DYNSIZE:
			/* the byte count of the tracemem() that follows */
			if (a->da_ndifo != 1 || a->da_size != 8 ||
			    dtd_validate_isref(a->da_difo[0]) ||
			    (uint64_t)i + 1 >= s->ds_nact ||
			    s->ds_act[i + 1].da_kind != DTRACEACT_TRACEMEM) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "tracemem() dynamic size at action %u "
				    "without its tracemem()", si, i);
				return -1;
			}
			if (dtd_validate_checkrec(c, s, a, si, i, err,
			    errlen) == -1)
				return -1;
			break;
		case DTRACEACT_SPECULATE:
		case DTRACEACT_COMMIT:
		case DTRACEACT_DISCARD:
			/* an id, recording nothing itself */
			if (a->da_ndifo != 1 || a->da_size != 0 ||
			    dtd_validate_isref(a->da_difo[0])) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "speculative action %u needs one integer",
				    si, i);
				return -1;
			}
			break;
		case DTRACEACT_EXIT:
			if (a->da_ndifo != 1 ||
			    dtd_validate_isref(a->da_difo[0])) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "exit() needs one integer", si);
				return -1;
			}
			if (dtd_validate_checkrec(c, s, a, si, i, err,
			    errlen) == -1)
				return -1;
			break;
		case DTRACEACT_STOP:
			if (a->da_ndifo != 0 || a->da_size != 0) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "stop() takes nothing", si);
				return -1;
			}
			break;
		case DTRACEACT_RAISE:
		case DTRACEACT_CHILL:
			if (a->da_ndifo != 1 || a->da_size != 0 ||
			    dtd_validate_isref(a->da_difo[0])) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "raise() and chill() need one integer", si);
				return -1;
			}
			break;
		case DTRACEACT_PRINTF:
		case DTRACEACT_SYSTEM:
		case DTRACEACT_FREOPEN:
			if (a->da_arg >= p->dp_nfmt) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "action %u: format %" PRIu64 " of %u", si,
				    i, a->da_arg, p->dp_nfmt);
				return -1;
			}
			/* it records its first argument (or a dummy int) */
			if (a->da_ndifo != 1 || a->da_size == 0) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "printf at action %u records no value",
				    si, i);
				return -1;
			}
			/* the other arguments are the actions that follow */
			nargs = a->da_nargs > 0 ? a->da_nargs - 1 : 0;
			if ((uint64_t)i + nargs >= s->ds_nact) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "printf at action %u wants %u arguments",
				    si, i, a->da_nargs);
				return -1;
			}
			for (k = 1; k <= (uint32_t)nargs; k++) {
				if (s->ds_act[i + k].da_kind !=
				    DTRACEACT_DIFEXPR) {
					dtd_validate_err(err, errlen,
					    "statement %u: printf argument %u "
					    "is not an expression", si, k);
					return -1;
				}
			}
			if (dtd_validate_checkrec(c, s, a, si, i, err,
			    errlen) == -1)
				return -1;
			break;
		default:
			if (!DTRACEACT_ISAGG(a->da_kind)) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "action kind 0x%x is not supported by this "
				    "dtraced", si, a->da_kind);
				return -1;
			}
			if ((g = dtd_validate_findagg(c, p, a->da_arg)) == NULL) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "aggregation id %" PRIu64 " is not "
				    "described", si, a->da_arg);
				return -1;
			}
			if (g->dg_kind != a->da_kind) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "@%s is a %s(), used as %s()", si,
				    g->dg_name, dtd_validate_aggname(g->dg_kind),
				    dtd_validate_aggname(a->da_kind));
				return -1;
			}
			if ((nargs = dtd_validate_aggnargs(a->da_kind,
			    &maxargs)) == -1) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "aggregating function %s() is not "
				    "supported by this dtraced yet", si,
				    dtd_validate_aggname(a->da_kind));
				return -1;
			}
			if (a->da_ndifo < g->dg_nkeys + (uint32_t)nargs ||
			    a->da_ndifo > g->dg_nkeys + (uint32_t)maxargs) {
				dtd_validate_err(err, errlen, "statement %u: "
				    "@%s has %u keys and %d to %d arguments, "
				    "the action computes %u values", si,
				    g->dg_name, g->dg_nkeys, nargs, maxargs,
				    a->da_ndifo);
				return -1;
			}
			for (k = 0; k < a->da_ndifo; k++) {
				int str = a->da_difo[k]->dd_rtype.dt_kind ==
				    DIF_TYPE_STRING;
				int want = k < g->dg_nkeys &&
				    g->dg_keys[k].dk_kind == DTP_KEY_STRING;

				if (str != want ||
				    (!str && dtd_validate_isref(a->da_difo[k]))) {
					dtd_validate_err(err, errlen,
					    "statement %u: @%s: value %u has "
					    "the wrong type", si, g->dg_name, k);
					return -1;
				}
			}
			break;
		}
	}
	return 0;
}

/*
 * Check program p of consumer c (its aggregations, then each statement);
 * 0, or -1 with err.  Nothing is changed.
 */
int
dtd_validate_program(const dtd_consumer_t *c, const dtp_prog_t *p,
    char *err, size_t errlen)
{
	uint32_t i, j;

	for (i = 0; i < p->dp_nagg; i++) {
		for (j = 0; j < i; j++) {
			if (p->dp_agg[j].dg_id == p->dp_agg[i].dg_id) {
				dtd_validate_err(err, errlen, "aggregation id "
				    "%u described twice", p->dp_agg[i].dg_id);
				return -1;
			}
		}
		if (dtd_validate_checkagg(c, &p->dp_agg[i], err, errlen) == -1)
			return -1;
	}
	for (i = 0; i < p->dp_nstmt; i++) {
		if (dtd_validate_checkstmt(c, p, i, err, errlen) == -1)
			return -1;
	}
	return 0;
}
