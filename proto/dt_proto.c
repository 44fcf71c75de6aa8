/*
 * dt_proto.c: the compiled-program object on the wire.
 *
 * Layout of a DT_MSG_PROGRAM payload (all little-endian):
 *
 *	u32 nstmt, u32 nagg, u32 nfmt, u32 nopt
 *	nopt  x { str name, u64 value }
 *	nfmt  x { str format }
 *	nagg  x { u32 id, u32 kind, str name, u32 nkeys,
 *		  nkeys x { u32 kind, u32 size }, 4 x u64 param }
 *	nstmt x { str provider, str module, str function, str name,
 *		  u32 flags, u32 size, u8 has-predicate, [difo],
 *		  u32 nact, nact x { u32 kind, u32 size, u32 offset,
 *		  u32 align, u64 arg, u32 nargs, u32 ndifo, ndifo x difo } }
 *
 *	difo = u32 len, len x u32 instruction,
 *	       u32 intlen, intlen x u64,
 *	       u32 strlen, strlen bytes,
 *	       u32 varlen, varlen x { u32 name, u32 id, u8 kind, u8 scope,
 *				     u16 flags, type },
 *	       type (the return type)
 *	type = u8 kind, u8 ckind, u8 flags, u8 pad, u32 size
 *
 * The decoder trusts nothing: every count is checked against what is
 * left of the payload before memory is allocated for it, and every
 * string against its limit.  It checks shape only; the daemon verifies
 * the DIF (dif_verify) and the meaning of the statements.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_proto.h"

#define DT_PROTO_MAXSTMT	65536
#define DT_PROTO_MAXACT		65536	/* actions per statement: one a statement */
#define DT_PROTO_MAXDIFO	64	/* DIFOs per action */
#define DT_PROTO_MAXAGG		65536
#define DT_PROTO_MAXKEYS	64
#define DT_PROTO_MAXFMT		65536
#define DT_PROTO_MAXFMTLEN	8192
#define DT_PROTO_MAXOPT		256
#define DT_PROTO_MAXOPTNAME	64

static void
dt_proto_type_encode(dt_msg_t *m, const dif_type_t *t)
{
	dt_msg_put_u8(m, t->dt_kind);
	dt_msg_put_u8(m, t->dt_ckind);
	dt_msg_put_u8(m, t->dt_flags);
	dt_msg_put_u8(m, 0);
	dt_msg_put_u32(m, t->dt_size);
}

static void
dt_proto_type_decode(dt_msg_t *m, dif_type_t *t)
{
	t->dt_kind = dt_msg_get_u8(m);
	t->dt_ckind = dt_msg_get_u8(m);
	t->dt_flags = dt_msg_get_u8(m);
	t->dt_pad = dt_msg_get_u8(m);
	t->dt_size = dt_msg_get_u32(m);
}

void
dt_proto_difo_encode(dt_msg_t *m, const dif_difo_t *dp)
{
	uint32_t i;

	dt_msg_put_u32(m, dp->dd_len);
	for (i = 0; i < dp->dd_len; i++)
		dt_msg_put_u32(m, dp->dd_buf[i]);
	dt_msg_put_u32(m, dp->dd_intlen);
	for (i = 0; i < dp->dd_intlen; i++)
		dt_msg_put_u64(m, dp->dd_inttab[i]);
	dt_msg_put_u32(m, dp->dd_strlen);
	dt_msg_put_bytes(m, dp->dd_strtab, dp->dd_strlen);
	dt_msg_put_u32(m, dp->dd_varlen);
	for (i = 0; i < dp->dd_varlen; i++) {
		const dif_var_t *v = &dp->dd_vartab[i];

		dt_msg_put_u32(m, v->dv_name);
		dt_msg_put_u32(m, v->dv_id);
		dt_msg_put_u8(m, v->dv_kind);
		dt_msg_put_u8(m, v->dv_scope);
		dt_msg_put_u16(m, v->dv_flags);
		dt_proto_type_encode(m, &v->dv_type);
	}
	dt_proto_type_encode(m, &dp->dd_rtype);
}

/* A count is plausible if count elements of at least min bytes remain. */
static int
dt_proto_count_ok(dt_msg_t *m, uint32_t count, uint32_t limit, size_t min)
{
	if (m->dm_err)
		return 0;
	if (count > limit || (uint64_t)count * min > m->dm_len - m->dm_off) {
		m->dm_err = EPROTO;
		return 0;
	}
	return 1;
}

dif_difo_t *
dt_proto_difo_decode(dt_msg_t *m)
{
	dif_difo_t *dp;
	uint32_t i, n;
	const void *p;

	if ((dp = calloc(1, sizeof(*dp))) == NULL) {
		m->dm_err = ENOMEM;
		return NULL;
	}
	n = dt_msg_get_u32(m);
	if (!dt_proto_count_ok(m, n, DIF_MAXINSTRS, 4))
		goto fail;
	if (n > 0 && (dp->dd_buf = calloc(n, sizeof(dif_instr_t))) == NULL)
		goto nomem;
	dp->dd_len = n;
	for (i = 0; i < n; i++)
		dp->dd_buf[i] = dt_msg_get_u32(m);

	n = dt_msg_get_u32(m);
	if (!dt_proto_count_ok(m, n, DIF_MAXINTTAB, 8))
		goto fail;
	if (n > 0 && (dp->dd_inttab = calloc(n, sizeof(uint64_t))) == NULL)
		goto nomem;
	dp->dd_intlen = n;
	for (i = 0; i < n; i++)
		dp->dd_inttab[i] = dt_msg_get_u64(m);

	n = dt_msg_get_u32(m);
	if (!dt_proto_count_ok(m, n, DIF_MAXSTRTAB, 1))
		goto fail;
	if (n > 0) {
		if ((p = dt_msg_get_bytes(m, n)) == NULL)
			goto fail;
		if ((dp->dd_strtab = malloc(n)) == NULL)
			goto nomem;
		memcpy(dp->dd_strtab, p, n);
	}
	dp->dd_strlen = n;

	n = dt_msg_get_u32(m);
	if (!dt_proto_count_ok(m, n, DIF_MAXVARS, 20))
		goto fail;
	if (n > 0 && (dp->dd_vartab = calloc(n, sizeof(dif_var_t))) == NULL)
		goto nomem;
	dp->dd_varlen = n;
	for (i = 0; i < n; i++) {
		dif_var_t *v = &dp->dd_vartab[i];

		v->dv_name = dt_msg_get_u32(m);
		v->dv_id = dt_msg_get_u32(m);
		v->dv_kind = dt_msg_get_u8(m);
		v->dv_scope = dt_msg_get_u8(m);
		v->dv_flags = dt_msg_get_u16(m);
		dt_proto_type_decode(m, &v->dv_type);
	}
	dt_proto_type_decode(m, &dp->dd_rtype);
	if (m->dm_err)
		goto fail;
	return dp;
nomem:
	m->dm_err = ENOMEM;
fail:
	dif_difo_free(dp);
	return NULL;
}

void
dt_proto_prog_encode(dt_msg_t *m, const dtp_prog_t *pp)
{
	uint32_t i, j, k;

	dt_msg_put_u32(m, pp->dp_nstmt);
	dt_msg_put_u32(m, pp->dp_nagg);
	dt_msg_put_u32(m, pp->dp_nfmt);
	dt_msg_put_u32(m, pp->dp_nopt);
	for (i = 0; i < pp->dp_nopt; i++) {
		dt_msg_put_str(m, pp->dp_opt[i].do_name);
		dt_msg_put_u64(m, pp->dp_opt[i].do_value);
	}
	for (i = 0; i < pp->dp_nfmt; i++)
		dt_msg_put_str(m, pp->dp_fmt[i]);
	for (i = 0; i < pp->dp_nagg; i++) {
		const dtp_agg_t *ag = &pp->dp_agg[i];

		dt_msg_put_u32(m, ag->dg_id);
		dt_msg_put_u32(m, ag->dg_kind);
		dt_msg_put_str(m, ag->dg_name);
		dt_msg_put_u32(m, ag->dg_nkeys);
		for (j = 0; j < ag->dg_nkeys; j++) {
			dt_msg_put_u32(m, ag->dg_keys[j].dk_kind);
			dt_msg_put_u32(m, ag->dg_keys[j].dk_size);
			dt_msg_put_str(m, ag->dg_keys[j].dk_name != NULL ?
			    ag->dg_keys[j].dk_name : "");
		}
		for (j = 0; j < 4; j++)
			dt_msg_put_u64(m, ag->dg_params[j]);
	}
	for (i = 0; i < pp->dp_nstmt; i++) {
		const dtp_stmt_t *sp = &pp->dp_stmt[i];

		dt_msg_put_str(m, sp->ds_desc.dpd_provider);
		dt_msg_put_str(m, sp->ds_desc.dpd_mod);
		dt_msg_put_str(m, sp->ds_desc.dpd_func);
		dt_msg_put_str(m, sp->ds_desc.dpd_name);
		dt_msg_put_u32(m, sp->ds_flags);
		dt_msg_put_u32(m, sp->ds_size);
		dt_msg_put_u8(m, sp->ds_pred != NULL);
		if (sp->ds_pred != NULL)
			dt_proto_difo_encode(m, sp->ds_pred);
		dt_msg_put_u32(m, sp->ds_nact);
		for (j = 0; j < sp->ds_nact; j++) {
			const dtp_action_t *ap = &sp->ds_act[j];

			dt_msg_put_u32(m, ap->da_kind);
			dt_msg_put_u32(m, ap->da_size);
			dt_msg_put_u32(m, ap->da_offset);
			dt_msg_put_u32(m, ap->da_align);
			dt_msg_put_u64(m, ap->da_arg);
			dt_msg_put_u32(m, ap->da_nargs);
			dt_msg_put_u32(m, ap->da_ndifo);
			for (k = 0; k < ap->da_ndifo; k++)
				dt_proto_difo_encode(m, ap->da_difo[k]);
		}
	}
}

static void
dt_proto_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0 || err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int
dt_proto_stmt_decode(dt_msg_t *m, dtp_stmt_t *sp)
{
	uint32_t j, k;

	dt_msg_get_strbuf(m, sp->ds_desc.dpd_provider, DTRACE_PROVNAMELEN);
	dt_msg_get_strbuf(m, sp->ds_desc.dpd_mod, DTRACE_MODNAMELEN);
	dt_msg_get_strbuf(m, sp->ds_desc.dpd_func, DTRACE_FUNCNAMELEN);
	dt_msg_get_strbuf(m, sp->ds_desc.dpd_name, DTRACE_NAMELEN);
	sp->ds_flags = dt_msg_get_u32(m);
	sp->ds_size = dt_msg_get_u32(m);
	switch (dt_msg_get_u8(m)) {
	case 0:
		break;
	case 1:
		if ((sp->ds_pred = dt_proto_difo_decode(m)) == NULL)
			return -1;
		break;
	default:
		m->dm_err = EPROTO;
		return -1;
	}
	sp->ds_nact = dt_msg_get_u32(m);
	if (!dt_proto_count_ok(m, sp->ds_nact, DT_PROTO_MAXACT, 32)) {
		sp->ds_nact = 0;
		return -1;
	}
	if (sp->ds_nact > 0 &&
	    (sp->ds_act = calloc(sp->ds_nact, sizeof(dtp_action_t))) == NULL) {
		sp->ds_nact = 0;
		m->dm_err = ENOMEM;
		return -1;
	}
	for (j = 0; j < sp->ds_nact; j++) {
		dtp_action_t *ap = &sp->ds_act[j];
		uint32_t ndifo;

		ap->da_kind = dt_msg_get_u32(m);
		ap->da_size = dt_msg_get_u32(m);
		ap->da_offset = dt_msg_get_u32(m);
		ap->da_align = dt_msg_get_u32(m);
		ap->da_arg = dt_msg_get_u64(m);
		ap->da_nargs = dt_msg_get_u32(m);
		ndifo = dt_msg_get_u32(m);
		if (!dt_proto_count_ok(m, ndifo, DT_PROTO_MAXDIFO, 24))
			return -1;
		if (ndifo > 0 && (ap->da_difo = calloc(ndifo,
		    sizeof(dif_difo_t *))) == NULL) {
			m->dm_err = ENOMEM;
			return -1;
		}
		for (k = 0; k < ndifo; k++) {
			if ((ap->da_difo[k] = dt_proto_difo_decode(m)) == NULL)
				return -1;
			ap->da_ndifo = k + 1;
		}
	}
	return m->dm_err ? -1 : 0;
}

/*
 * Decode a program.  On failure returns NULL with a reason in err (which
 * must start empty); the caller treats that as a malformed message.
 */
dtp_prog_t *
dt_proto_prog_decode(dt_msg_t *m, char *err, size_t errlen)
{
	dtp_prog_t *pp;
	uint32_t nstmt, nagg, nfmt, nopt, i, j;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if ((pp = calloc(1, sizeof(*pp))) == NULL) {
		dt_proto_err(err, errlen, "out of memory");
		return NULL;
	}
	nstmt = dt_msg_get_u32(m);
	nagg = dt_msg_get_u32(m);
	nfmt = dt_msg_get_u32(m);
	nopt = dt_msg_get_u32(m);

	if (!dt_proto_count_ok(m, nopt, DT_PROTO_MAXOPT, 12)) {
		dt_proto_err(err, errlen, "bad option count %u", nopt);
		goto fail;
	}
	if (nopt > 0 && (pp->dp_opt = calloc(nopt, sizeof(dtp_opt_t))) == NULL)
		goto nomem;
	for (i = 0; i < nopt; i++) {
		pp->dp_nopt = i + 1;
		pp->dp_opt[i].do_name = dt_msg_get_strdup(m, DT_PROTO_MAXOPTNAME);
		pp->dp_opt[i].do_value = dt_msg_get_u64(m);
		if (m->dm_err)
			goto bad;
	}

	if (!dt_proto_count_ok(m, nfmt, DT_PROTO_MAXFMT, 4)) {
		dt_proto_err(err, errlen, "bad format count %u", nfmt);
		goto fail;
	}
	if (nfmt > 0 && (pp->dp_fmt = calloc(nfmt, sizeof(char *))) == NULL)
		goto nomem;
	for (i = 0; i < nfmt; i++) {
		pp->dp_nfmt = i + 1;
		pp->dp_fmt[i] = dt_msg_get_strdup(m, DT_PROTO_MAXFMTLEN);
		if (m->dm_err)
			goto bad;
	}

	if (!dt_proto_count_ok(m, nagg, DT_PROTO_MAXAGG, 48)) {
		dt_proto_err(err, errlen, "bad aggregation count %u", nagg);
		goto fail;
	}
	if (nagg > 0 && (pp->dp_agg = calloc(nagg, sizeof(dtp_agg_t))) == NULL)
		goto nomem;
	for (i = 0; i < nagg; i++) {
		dtp_agg_t *ag = &pp->dp_agg[i];

		pp->dp_nagg = i + 1;
		ag->dg_id = dt_msg_get_u32(m);
		ag->dg_kind = dt_msg_get_u32(m);
		ag->dg_name = dt_msg_get_strdup(m, 256);
		ag->dg_nkeys = dt_msg_get_u32(m);
		if (!dt_proto_count_ok(m, ag->dg_nkeys, DT_PROTO_MAXKEYS, 12)) {
			ag->dg_nkeys = 0;
			goto bad;
		}
		if (ag->dg_nkeys > 0 && (ag->dg_keys = calloc(ag->dg_nkeys,
		    sizeof(dtp_aggkey_t))) == NULL)
			goto nomem;
		for (j = 0; j < ag->dg_nkeys; j++) {
			ag->dg_keys[j].dk_kind = dt_msg_get_u32(m);
			ag->dg_keys[j].dk_size = dt_msg_get_u32(m);
			ag->dg_keys[j].dk_name = dt_msg_get_strdup(m,
			    DT_PROTO_KEYNAMELEN - 1);
		}
		for (j = 0; j < 4; j++)
			ag->dg_params[j] = dt_msg_get_u64(m);
		if (m->dm_err)
			goto bad;
	}

	if (!dt_proto_count_ok(m, nstmt, DT_PROTO_MAXSTMT, 29)) {
		dt_proto_err(err, errlen, "bad statement count %u", nstmt);
		goto fail;
	}
	if (nstmt > 0 &&
	    (pp->dp_stmt = calloc(nstmt, sizeof(dtp_stmt_t))) == NULL)
		goto nomem;
	for (i = 0; i < nstmt; i++) {
		pp->dp_nstmt = i + 1;
		if (dt_proto_stmt_decode(m, &pp->dp_stmt[i]) == -1) {
			if (m->dm_err == ENOMEM)
				goto nomem;
			dt_proto_err(err, errlen, "malformed statement %u", i);
			goto fail;
		}
	}
	if (!dt_msg_done(m)) {
		dt_proto_err(err, errlen, "%zu bytes of trailing garbage",
		    m->dm_len - m->dm_off);
		goto fail;
	}
	return pp;
nomem:
	dt_proto_err(err, errlen, "out of memory");
	goto fail;
bad:
	dt_proto_err(err, errlen, "malformed program");
fail:
	if (m->dm_err == 0)
		m->dm_err = EPROTO;
	dt_proto_prog_free(pp);
	return NULL;
}

/* Free what a program holds (not the dtp_prog_t itself) and zero it. */
void
dt_proto_prog_fini(dtp_prog_t *pp)
{
	uint32_t i, j, k;

	for (i = 0; i < pp->dp_nopt; i++)
		free(pp->dp_opt[i].do_name);
	free(pp->dp_opt);
	for (i = 0; i < pp->dp_nfmt; i++)
		free(pp->dp_fmt[i]);
	free(pp->dp_fmt);
	for (i = 0; i < pp->dp_nagg; i++) {
		free(pp->dp_agg[i].dg_name);
		for (j = 0; pp->dp_agg[i].dg_keys != NULL &&
		    j < pp->dp_agg[i].dg_nkeys; j++)
			free(pp->dp_agg[i].dg_keys[j].dk_name);
		free(pp->dp_agg[i].dg_keys);
	}
	free(pp->dp_agg);
	for (i = 0; i < pp->dp_nstmt; i++) {
		dtp_stmt_t *sp = &pp->dp_stmt[i];

		dif_difo_free(sp->ds_pred);
		for (j = 0; j < sp->ds_nact; j++) {
			for (k = 0; k < sp->ds_act[j].da_ndifo; k++)
				dif_difo_free(sp->ds_act[j].da_difo[k]);
			free(sp->ds_act[j].da_difo);
		}
		free(sp->ds_act);
	}
	free(pp->dp_stmt);
	memset(pp, 0, sizeof(*pp));
}

void
dt_proto_prog_free(dtp_prog_t *pp)
{
	if (pp == NULL)
		return;
	dt_proto_prog_fini(pp);
	free(pp);
}

/* Bytes of an aggregation's key: each element 8-aligned. */
size_t
dt_proto_agg_keysize(const dtp_agg_t *ag)
{
	size_t size = 0;
	uint32_t i;

	for (i = 0; i < ag->dg_nkeys; i++)
		size += (ag->dg_keys[i].dk_size + 7) & ~(size_t)7;
	return size;
}

/*
 * llquantize's bounds: this * factor, or INT64_MAX where that does not
 * fit (illumos's kernel saturates its magnitudes the same way, so the
 * magnitude that passes INT64_MAX ends there and those above are empty).
 */
int64_t
dt_proto_llq_mul(int64_t this, uint64_t factor)
{
	if (this < 0 || factor == 0 || (uint64_t)this > INT64_MAX / factor)
		return INT64_MAX;
	return this * (int64_t)factor;
}

/* factor^n, saturated at INT64_MAX */
int64_t
dt_proto_llq_pow(uint64_t factor, uint64_t n)
{
	int64_t v = 1;

	while (n-- > 0 && v != INT64_MAX)
		v = dt_proto_llq_mul(v, factor);
	return v;
}

/*
 * Buckets of a histogram aggregation, 0 for the others, -1 when its
 * parameters are invalid.  The layouts are illumos's:
 * quantize: one bucket per power of two, negative and positive, and
 * zero (DTRACE_QUANTIZE_NBUCKETS).
 * lquantize: (hi - lo) / step levels plus an underflow and an overflow
 * bucket; dg_params = { lo, hi, step }.
 * llquantize: an underflow bucket (below factor^lo), then for each
 * magnitude from lo to hi its linear steps (those of the previous
 * magnitude excluded), then an overflow bucket; dg_params = { factor,
 * lo, hi, steps }.
 */
int
dt_proto_agg_nbuckets(const dtp_agg_t *ag)
{
	int64_t lo, hi, step, levels;
	uint64_t factor, nsteps, v, this;
	int64_t base;
	uint64_t order;

	switch (ag->dg_kind) {
	case DTRACEAGG_QUANTIZE:
		return DT_PROTO_QUANTIZE_NBUCKETS;
	case DTRACEAGG_LQUANTIZE:
		lo = (int64_t)ag->dg_params[0];
		hi = (int64_t)ag->dg_params[1];
		step = (int64_t)ag->dg_params[2];
		if (lo < INT32_MIN || lo > INT32_MAX || hi < INT32_MIN ||
		    hi > INT32_MAX || step <= 0 || step > UINT16_MAX ||
		    hi <= lo)
			return -1;
		levels = (hi - lo) / step;
		if (levels == 0 || levels > UINT16_MAX)
			return -1;
		return (int)levels + 2;
	case DTRACEAGG_LLQUANTIZE:
		factor = ag->dg_params[0];
		lo = (int64_t)ag->dg_params[1];
		hi = (int64_t)ag->dg_params[2];
		nsteps = ag->dg_params[3];
		if (factor < 2 || factor > UINT16_MAX || lo < 0 ||
		    hi > UINT16_MAX || lo >= hi || nsteps < factor ||
		    nsteps > UINT16_MAX || nsteps % factor != 0)
			return -1;
		for (v = factor; v < nsteps; v *= factor)
			continue;
		if (v % nsteps != 0)
			return -1;
		/*
		 * the bucket INT64_MAX falls in, as illumos sizes it, + 1;
		 * a magnitude past INT64_MAX is cut there
		 */
		this = (uint64_t)dt_proto_llq_pow(factor, (uint64_t)lo);
		base = 1;
		for (order = (uint64_t)lo; order <= (uint64_t)hi; order++) {
			uint64_t nb;

			this = (uint64_t)dt_proto_llq_mul((int64_t)this, factor);
			nb = this > nsteps ? nsteps : this;
			base += (int64_t)(nb - nb / factor);
			if (base > DT_PROTO_MAXBUCKETS)
				return -1;
		}
		return (int)base + 1;
	default:
		return 0;
	}
}

/*
 * Bytes of an aggregation's value, or 0 when the function is not one
 * this protocol version can carry.
 */
size_t
dt_proto_agg_valsize(const dtp_agg_t *ag)
{
	int nb;

	switch (ag->dg_kind) {
	case DTRACEAGG_COUNT:
	case DTRACEAGG_SUM:
	case DTRACEAGG_MIN:
	case DTRACEAGG_MAX:
		return 8;
	case DTRACEAGG_AVG:
		return 16;		/* count, total */
	case DTRACEAGG_STDDEV:
		return 32;		/* count, total, 128-bit sum of squares */
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		nb = dt_proto_agg_nbuckets(ag);
		return nb > 0 ? (size_t)nb * 8 : 0;
	default:
		return 0;
	}
}

/*
 * A retained program's name (DT_MSG_RETAIN, DT_MSG_CLAIM): 1 to
 * DT_RETAIN_NAMELEN - 1 letters, digits, '_', '.' or '-', not starting
 * with '.' or '-' (it names a file NAME.d in dtraced's configuration).
 */
int
dt_proto_retain_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n >= DT_RETAIN_NAMELEN || name[0] == '.' ||
	    name[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
		    ch == '-'))
			return 0;
	}
	return 1;
}

/*
 * A record's header (see DTRACE_RECHDR_SIZE): the timestamp goes in two
 * 4-byte halves, high first, as illumos splits it, so that a header
 * 4-aligned in a buffer is all a record needs.
 */
void
dt_proto_rechdr_put(void *rec, uint32_t epid, uint64_t ts)
{
	uint32_t hi = (uint32_t)(ts >> 32), lo = (uint32_t)ts;
	char *p = rec;

	memcpy(p, &epid, sizeof(epid));
	memcpy(p + 4, &hi, sizeof(hi));
	memcpy(p + 8, &lo, sizeof(lo));
}

void
dt_proto_rechdr_get(const void *rec, uint32_t *epid, uint64_t *ts)
{
	uint32_t hi, lo;
	const char *p = rec;

	memcpy(epid, p, sizeof(*epid));
	memcpy(&hi, p + 4, sizeof(hi));
	memcpy(&lo, p + 8, sizeof(lo));
	if (ts != NULL)
		*ts = (uint64_t)hi << 32 | lo;
}
