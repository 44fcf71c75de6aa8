/*
 * dt_aggregate.c: the consumer's copy of the aggregations, and printing
 * them.
 *
 * The daemon snapshots each CPU's aggregation buffer by switching it, so
 * every DT_MSG_AGG carries what was aggregated since the last snapshot;
 * merging folds it into one entry per (aggregation id, key) with the
 * aggregating function's own rule (illumos does the same).  clear(),
 * trunc(), normalize() and denormalize() act on this copy, as illumos's
 * library actions do.
 *
 * Output follows illumos dtrace(1) byte for byte: entries sorted by
 * aggregation, then value, then key (options aggsortkey, aggsortkeypos,
 * aggsortpos, aggsortrev), keys as dt_print_datum prints them, values
 * by function, histograms as dt_print_quantize and friends draw them.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define DT_AGG_ROUND8(x)	(((x) + 7) & ~(size_t)7)
#define DT_AGG_NBUCKETS		1024
#define DT_AGG_QZERO		DT_PROTO_QUANTIZE_ZERO

typedef struct dt_aggent {
	uint32_t	ae_aggid;
	uint32_t	ae_keysize;
	uint32_t	ae_nval;	/* u64 values */
	uint64_t	ae_hash;
	uint64_t	ae_normal;	/* normalize(): shown value / this */
	char		*ae_key;
	uint64_t	*ae_val;
	struct dt_aggent *ae_next;	/* hash chain */
} dt_aggent_t;

struct dt_aggregate {
	dt_aggent_t	*ag_hash[DT_AGG_NBUCKETS];
	dt_aggent_t	**ag_all;
	size_t		ag_n;
	size_t		ag_cap;
	uint8_t		*ag_printed;	/* by aggregation id: printa() did */
	uint32_t	ag_nprinted;
};

/* What entries are sorted by: set from the options around each sort. */
static struct {
	int	sc_keysort;	/* aggsortkey */
	int	sc_keypos;	/* aggsortkeypos */
	int	sc_rev;		/* aggsortrev */
	const dtrace_hdl_t *sc_dtp;
} dt_aggregate_sc;

static uint64_t
dt_aggregate_hash(uint32_t aggid, const char *key, uint32_t keysize)
{
	uint64_t h = 0xcbf29ce484222325ull ^ aggid;
	uint32_t i;

	for (i = 0; i < keysize; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void
dt_aggregate_freeent(dt_aggent_t *e)
{
	free(e->ae_key);
	free(e->ae_val);
	free(e);
}

void
dt_aggregate_fini(dtrace_hdl_t *dtp)
{
	struct dt_aggregate *ag = dtp->dt_aggregate;
	size_t i;

	if (ag == NULL)
		return;
	for (i = 0; i < ag->ag_n; i++)
		dt_aggregate_freeent(ag->ag_all[i]);
	free(ag->ag_all);
	free(ag->ag_printed);
	free(ag);
	dtp->dt_aggregate = NULL;
}

static struct dt_aggregate *
dt_aggregate_get(dtrace_hdl_t *dtp)
{
	if (dtp->dt_aggregate == NULL)
		dtp->dt_aggregate = calloc(1, sizeof(struct dt_aggregate));
	return dtp->dt_aggregate;
}

static const dtp_agg_t *
dt_aggregate_desc(const dtrace_hdl_t *dtp, uint32_t id)
{
	return id < dtp->dt_naggdesc ? dtp->dt_aggdesc[id] : NULL;
}

/*
 * As illumos does, a usym() or ufunc() key aggregates by function and a
 * umod() key by module: their addresses become the symbol's or the
 * module's start.  Returns key, or a normalised copy in *copyp.
 */
static const char *
dt_aggregate_symkey(dtrace_hdl_t *dtp, const dtp_agg_t *desc,
    const char *key, uint32_t keysize, char **copyp)
{
	size_t off = 0;
	uint64_t pid, pc;
	uint32_t i;

	*copyp = NULL;
	for (i = 0; i < desc->dg_nkeys; i++) {
		const dtp_aggkey_t *k = &desc->dg_keys[i];
		int how = dt_usym_keyhow(k->dk_kind);

		if ((how & ~DT_USYM_KERNEL) != DT_USYM_ADDR &&
		    how != -1 && k->dk_size == 16 && off + 16 <= keysize) {
			if (*copyp == NULL) {
				if ((*copyp = malloc(keysize)) == NULL)
					return key;
				memcpy(*copyp, key, keysize);
			}
			memcpy(&pid, *copyp + off, 8);
			memcpy(&pc, *copyp + off + 8, 8);
			pc = dt_usym_start(dtp, (pid_t)pid, pc, how);
			memcpy(*copyp + off + 8, &pc, 8);
		}
		off += DT_AGG_ROUND8(k->dk_size);
	}
	return *copyp != NULL ? *copyp : key;
}

static int
dt_aggregate_add1(dtrace_hdl_t *dtp, const dtp_agg_t *desc, uint32_t aggid,
    const char *key, uint32_t keysize, const uint64_t *val, uint32_t nval);

static int
dt_aggregate_add(dtrace_hdl_t *dtp, const dtp_agg_t *desc, uint32_t aggid,
    const char *key, uint32_t keysize, const uint64_t *val, uint32_t nval)
{
	char *copy;
	int rv;

	key = dt_aggregate_symkey(dtp, desc, key, keysize, &copy);
	rv = dt_aggregate_add1(dtp, desc, aggid, key, keysize, val, nval);
	free(copy);
	return rv;
}

static int
dt_aggregate_add1(dtrace_hdl_t *dtp, const dtp_agg_t *desc, uint32_t aggid,
    const char *key, uint32_t keysize, const uint64_t *val, uint32_t nval)
{
	struct dt_aggregate *ag = dtp->dt_aggregate;
	uint64_t h = dt_aggregate_hash(aggid, key, keysize);
	dt_aggent_t *e;

	for (e = ag->ag_hash[h % DT_AGG_NBUCKETS]; e != NULL; e = e->ae_next) {
		if (e->ae_hash == h && e->ae_aggid == aggid &&
		    e->ae_keysize == keysize &&
		    memcmp(e->ae_key, key, keysize) == 0)
			break;
	}
	if (e != NULL) {
		dt_aggval_fold(desc->dg_kind, e->ae_val, val, nval);
		return 0;
	}
	if (ag->ag_n == ag->ag_cap) {
		size_t cap = ag->ag_cap ? ag->ag_cap * 2 : 64;
		dt_aggent_t **na = realloc(ag->ag_all, cap * sizeof(*na));

		if (na == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		ag->ag_all = na;
		ag->ag_cap = cap;
	}
	if ((e = calloc(1, sizeof(*e))) == NULL ||
	    (e->ae_key = malloc(keysize ? keysize : 1)) == NULL ||
	    (e->ae_val = malloc(nval * sizeof(uint64_t))) == NULL) {
		if (e != NULL)
			free(e->ae_key);
		free(e);
		return dt_set_errno(dtp, EDT_NOMEM);
	}
	e->ae_aggid = aggid;
	e->ae_keysize = keysize;
	e->ae_nval = nval;
	e->ae_hash = h;
	e->ae_normal = 1;
	memcpy(e->ae_key, key, keysize);
	memcpy(e->ae_val, val, nval * sizeof(uint64_t));
	e->ae_next = ag->ag_hash[h % DT_AGG_NBUCKETS];
	ag->ag_hash[h % DT_AGG_NBUCKETS] = e;
	ag->ag_all[ag->ag_n++] = e;
	return 0;
}

/* Merge one DT_MSG_AGG: u32 cpu, u64 drops, u32 nent, then the entries. */
int
dt_aggregate_merge(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	uint32_t cpu, nent, i;
	uint64_t drops, *val = NULL;
	size_t valcap = 0;

	if (dt_aggregate_get(dtp) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	cpu = dt_msg_get_u32(m);
	drops = dt_msg_get_u64(m);
	nent = dt_msg_get_u32(m);
	if (m->dm_err || cpu >= dtp->dt_ncpu)
		goto bad;
	dt_consume_drops(dtp, (int)cpu, drops, 1);
	for (i = 0; i < nent; i++) {
		uint32_t aggid = dt_msg_get_u32(m);
		uint32_t keysize = dt_msg_get_u32(m);
		uint32_t valsize = dt_msg_get_u32(m);
		const dtp_agg_t *desc;
		const char *key;
		const void *vp;

		if (m->dm_err || (desc = dt_aggregate_desc(dtp, aggid)) ==
		    NULL || keysize != dt_proto_agg_keysize(desc) ||
		    valsize != dt_proto_agg_valsize(desc) || valsize == 0)
			goto bad;
		key = dt_msg_get_bytes(m, keysize);
		vp = dt_msg_get_bytes(m, valsize);
		if (m->dm_err)
			goto bad;
		/* the payload is not aligned for u64 */
		if (valsize > valcap) {
			uint64_t *nv = realloc(val, valsize);

			if (nv == NULL) {
				free(val);
				return dt_set_errno(dtp, EDT_NOMEM);
			}
			val = nv;
			valcap = valsize;
		}
		memcpy(val, vp, valsize);
		if (dt_aggregate_add(dtp, desc, aggid, key, keysize, val,
		    valsize / sizeof(uint64_t)) != 0) {
			free(val);
			return -1;
		}
	}
	free(val);
	if (!dt_msg_done(m))
		goto bad;
	return 0;
bad:
	free(val);
	return dt_conn_error(dtp, EDT_PROTO, "malformed AGG from dtraced");
}

/* illumos's DTRACE_QUANTIZE_BUCKETVAL */
static int64_t
dt_aggregate_qvalue(int i)
{
	if (i < DT_AGG_QZERO)
		return -(int64_t)(1ULL << (DT_AGG_QZERO - 1 - i));
	if (i == DT_AGG_QZERO)
		return 0;
	return (int64_t)(1ULL << (i - DT_AGG_QZERO - 1));
}

/*
 * A walk over llquantize's buckets in order, as illumos's printer walks
 * them: bucket 0 is below factor^lo, then each magnitude's linear steps,
 * then the overflow bucket.  lq_value is the bucket's lowest value; a
 * magnitude that passes INT64_MAX ends there (dt_proto_llq_mul), and
 * its buckets at or past that bound can hold nothing (lq_empty).
 */
typedef struct dt_aggregate_llq {
	uint64_t	lq_factor;
	int64_t		lq_nsteps;
	int64_t		lq_order, lq_hi;
	int64_t		lq_this;	/* the magnitude's top */
	int64_t		lq_value, lq_step;
	int64_t		lq_left;	/* its buckets from this one on */
	int		lq_empty;
} dt_aggregate_llq_t;

static void
dt_aggregate_llq_mag(dt_aggregate_llq_t *q)
{
	int64_t nb;

	q->lq_this = dt_proto_llq_mul(q->lq_value, q->lq_factor);
	nb = q->lq_this > q->lq_nsteps ? q->lq_nsteps : q->lq_this;
	q->lq_step = q->lq_this / nb;
	q->lq_left = nb - nb / (int64_t)q->lq_factor;
	q->lq_empty = q->lq_value >= q->lq_this;
}

/* To bucket 1 (lq_value is then factor^lo, bucket 0's bound). */
static void
dt_aggregate_llq_init(dt_aggregate_llq_t *q, const dtp_agg_t *d)
{
	q->lq_factor = d->dg_params[0];
	q->lq_order = (int64_t)d->dg_params[1];
	q->lq_hi = (int64_t)d->dg_params[2];
	q->lq_nsteps = (int64_t)d->dg_params[3];
	q->lq_value = dt_proto_llq_pow(q->lq_factor, (uint64_t)q->lq_order);
	dt_aggregate_llq_mag(q);
}

/* To the next bucket; 0 once past the last magnitude's buckets. */
static int
dt_aggregate_llq_next(dt_aggregate_llq_t *q)
{
	if (--q->lq_left > 0) {
		if (q->lq_step > q->lq_this - q->lq_value)
			q->lq_value = q->lq_this;
		else
			q->lq_value += q->lq_step;
		q->lq_empty = q->lq_value >= q->lq_this;
		return 1;
	}
	q->lq_value = q->lq_this;
	if (++q->lq_order > q->lq_hi) {
		q->lq_empty = 0;
		return 0;
	}
	dt_aggregate_llq_mag(q);
	return 1;
}

/*
 * The sum a histogram is sorted by (each bucket weighted by its value),
 * and the count at zero that breaks ties, as illumos computes them.
 */
static long double
dt_aggregate_histsum(const dtp_agg_t *d, const int64_t *v, uint32_t n,
    int64_t *zerop)
{
	long double total = 0;
	dt_aggregate_llq_t q;
	int64_t base, step;
	uint32_t i, levels;

	*zerop = 0;
	switch (d->dg_kind) {
	case DTRACEAGG_QUANTIZE:
		for (i = 0; i < n; i++)
			total += (long double)dt_aggregate_qvalue((int)i) *
			    (long double)v[i];
		*zerop = v[DT_AGG_QZERO];
		return total;
	case DTRACEAGG_LQUANTIZE:
		base = (int64_t)d->dg_params[0];
		step = (int64_t)d->dg_params[2];
		levels = n - 2;
		total = (long double)v[0] * (long double)(base - 1);
		if (base - 1 == 0)
			*zerop = v[0];
		for (i = 0; i < levels; base += step, i++) {
			total += (long double)v[i + 1] * (long double)base;
			if (base == 0)
				*zerop = v[i + 1];
		}
		if (base + 1 == 0)
			*zerop = v[levels + 1];
		return total + (long double)v[levels + 1] *
		    (long double)(base + 1);
	default:	/* llquantize */
		dt_aggregate_llq_init(&q, d);
		total = (long double)v[0] * (long double)(q.lq_value - 1);
		for (i = 1; i < n; i++) {
			total += (long double)v[i] * (long double)q.lq_value;
			if (!dt_aggregate_llq_next(&q)) {
				i++;
				break;
			}
		}
		*zerop = v[0];
		if (i < n)
			total += (long double)v[i] * (long double)q.lq_value;
		return total;
	}
}

/* illumos's dt_aggregate_valcmp */
static int
dt_aggregate_valcmp(const dtp_agg_t *d, const uint64_t *lv,
    const uint64_t *rv, uint32_t n)
{
	int64_t l, r, lz, rz;
	long double ls, rs;

	switch (d->dg_kind) {
	case DTRACEAGG_AVG:
		l = lv[0] ? (int64_t)lv[1] / (int64_t)lv[0] : 0;
		r = rv[0] ? (int64_t)rv[1] / (int64_t)rv[0] : 0;
		break;
	case DTRACEAGG_STDDEV: {
		uint64_t ls2 = dt_aggval_stddev(lv, 1);
		uint64_t rs2 = dt_aggval_stddev(rv, 1);

		return ls2 < rs2 ? -1 : ls2 > rs2;
	}
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		ls = dt_aggregate_histsum(d, (const int64_t *)lv, n, &lz);
		rs = dt_aggregate_histsum(d, (const int64_t *)rv, n, &rz);
		if (ls != rs)
			return ls < rs ? -1 : 1;
		return lz < rz ? -1 : lz > rz;
	default:
		l = (int64_t)lv[0];
		r = (int64_t)rv[0];
		break;
	}
	return l < r ? -1 : l > r;
}

/*
 * illumos's dt_aggregate_keycmp: key elements from aggsortkeypos on,
 * wrapping around; integers compared unsigned, strings by their bytes.
 */
static int
dt_aggregate_keycmp(const dtp_agg_t *d, const char *lk, const char *rk)
{
	uint32_t n = d->dg_nkeys, i, pos;
	int keypos = dt_aggregate_sc.sc_keypos;

	if (keypos < 0 || (uint32_t)keypos >= n)
		keypos = 0;
	for (i = 0; i < n; i++) {
		const dtp_aggkey_t *k;
		size_t off = 0;
		uint32_t j;
		int c = 0;

		pos = (i + (uint32_t)keypos) % n;
		for (j = 0; j < pos; j++)
			off += DT_AGG_ROUND8(d->dg_keys[j].dk_size);
		k = &d->dg_keys[pos];
		if (k->dk_kind == DTP_KEY_STRING || k->dk_size > 8) {
			/* illumos: records of other sizes byte by byte */
			c = memcmp(lk + off, rk + off, k->dk_size);
		} else {
			uint64_t l = 0, r = 0;

			memcpy(&l, lk + off, k->dk_size < 8 ? k->dk_size : 8);
			memcpy(&r, rk + off, k->dk_size < 8 ? k->dk_size : 8);
			c = l < r ? -1 : l > r;
		}
		if (c != 0)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

/* Aggregation id, then value and key (or key and value), maybe reversed. */
static int
dt_aggregate_cmp(const void *lp, const void *rp)
{
	const dt_aggent_t *l = *(dt_aggent_t *const *)lp;
	const dt_aggent_t *r = *(dt_aggent_t *const *)rp;
	const dtp_agg_t *d;
	int rv;

	if (l->ae_aggid != r->ae_aggid) {
		rv = l->ae_aggid < r->ae_aggid ? -1 : 1;
	} else {
		d = dt_aggregate_desc(dt_aggregate_sc.sc_dtp, l->ae_aggid);
		if (dt_aggregate_sc.sc_keysort) {
			if ((rv = dt_aggregate_keycmp(d, l->ae_key,
			    r->ae_key)) == 0)
				rv = dt_aggregate_valcmp(d, l->ae_val,
				    r->ae_val, l->ae_nval);
		} else if ((rv = dt_aggregate_valcmp(d, l->ae_val, r->ae_val,
		    l->ae_nval)) == 0) {
			rv = dt_aggregate_keycmp(d, l->ae_key, r->ae_key);
		}
	}
	return dt_aggregate_sc.sc_rev ? -rv : rv;
}

static void
dt_aggregate_sortopts(const dtrace_hdl_t *dtp)
{
	dtrace_optval_t kp = dtp->dt_options[DTRACEOPT_AGGSORTKEYPOS];

	dt_aggregate_sc.sc_dtp = dtp;
	dt_aggregate_sc.sc_keysort =
	    dtp->dt_options[DTRACEOPT_AGGSORTKEY] != DTRACEOPT_UNSET;
	dt_aggregate_sc.sc_rev =
	    dtp->dt_options[DTRACEOPT_AGGSORTREV] != DTRACEOPT_UNSET;
	dt_aggregate_sc.sc_keypos = kp != DTRACEOPT_UNSET && kp >= 0 &&
	    kp <= INT_MAX ? (int)kp : 0;
}

/*
 * The entries of aggregation id (all of them for id UINT32_MAX, skipping
 * those printa() printed), sorted; *np of them.  The caller frees.
 */
static dt_aggent_t **
dt_aggregate_sorted(dtrace_hdl_t *dtp, uint32_t id, size_t *np)
{
	struct dt_aggregate *ag = dtp->dt_aggregate;
	dt_aggent_t **v;
	size_t i, n = 0;

	*np = 0;
	if ((v = malloc((ag->ag_n + 1) * sizeof(*v))) == NULL) {
		dt_set_errno(dtp, EDT_NOMEM);
		return NULL;
	}
	for (i = 0; i < ag->ag_n; i++) {
		uint32_t a = ag->ag_all[i]->ae_aggid;

		if (id != UINT32_MAX ? a != id : a < ag->ag_nprinted &&
		    ag->ag_printed[a])
			continue;
		if (dt_aggregate_desc(dtp, a) == NULL)
			continue;
		v[n++] = ag->ag_all[i];
	}
	dt_aggregate_sortopts(dtp);
	qsort(v, n, sizeof(*v), dt_aggregate_cmp);
	*np = n;
	return v;
}

static int
dt_aggregate_setprinted(dtrace_hdl_t *dtp, uint32_t id)
{
	struct dt_aggregate *ag = dtp->dt_aggregate;

	if (id >= ag->ag_nprinted) {
		uint32_t n = id + 16;
		uint8_t *np = realloc(ag->ag_printed, n);

		if (np == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		memset(np + ag->ag_nprinted, 0, n - ag->ag_nprinted);
		ag->ag_printed = np;
		ag->ag_nprinted = n;
	}
	ag->ag_printed[id] = 1;
	return 0;
}

/*
 * The keys as dt_print_datum prints them: by size, strings "%-50s",
 * stacks a frame a line after a newline, symbols "  %-50s".  Packed
 * (agghist, aggpack), strings are right-aligned in 16 columns.
 */
static int
dt_aggregate_print_keys(dtrace_hdl_t *dtp, FILE *fp, const dtp_agg_t *d,
    const char *key, int packed)
{
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < d->dg_nkeys; i++) {
		const dtp_aggkey_t *k = &d->dg_keys[i];
		const char *p = key + off;
		uint64_t v = 0;
		int rv;

		if (k->dk_kind == DTP_KEY_STRING && packed) {
			rv = fprintf(fp, " %16.*s",
			    (int)strnlen(p, k->dk_size), p);
		} else if (k->dk_kind == DTP_KEY_STRING) {
			rv = fprintf(fp, "  %-50.*s",
			    (int)strnlen(p, k->dk_size), p);
		} else if (k->dk_kind == DTP_KEY_USTACK) {
			rv = dt_usym_print_stack(dtp, fp, p,
			    k->dk_size / 8 - 1, 0);
		} else if (k->dk_kind == DTP_KEY_STACK) {
			rv = dt_usym_print_stack(dtp, fp, p, k->dk_size / 8,
			    DT_USYM_KERNEL);
		} else if (dt_usym_keyhow(k->dk_kind) != -1) {
			rv = dt_usym_print_sym(dtp, fp, p,
			    dt_usym_keyhow(k->dk_kind));
		} else {
			memcpy(&v, p, k->dk_size < 8 ? k->dk_size : 8);
			switch (k->dk_size) {
			case 1:
				rv = fprintf(fp, " %3u", (unsigned)(uint8_t)v);
				break;
			case 2:
				rv = fprintf(fp, " %5u", (unsigned)(uint16_t)v);
				break;
			case 4:
				rv = fprintf(fp, " %8d", (int32_t)(uint32_t)v);
				break;
			default:
				rv = fprintf(fp, " %16lld", (long long)v);
				break;
			}
		}
		if (rv < 0)
			return -1;
		off += DT_AGG_ROUND8(k->dk_size);
	}
	return 0;
}

/* illumos's dt_print_quantline: one bar, or two halves for mixed signs. */
static int
dt_aggregate_quantline(FILE *fp, int64_t val, uint64_t normal,
    long double total, int positives, int negatives)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char spaces[] = "                                        ";
	unsigned depth, len = 40;
	const char *a = ats, *s = spaces;
	long double f;
	/* illumos divides by the unsigned normal: keep its arithmetic */
	long long shown = (long long)((unsigned long long)val / normal);

	if (!negatives) {
		depth = 0;
		if (positives) {
			f = ((val < 0 ? -(long double)val : (long double)val) *
			    len) / total;
			depth = (unsigned)(f + 0.5);
		}
		if (depth > len)
			depth = len;
		return fprintf(fp, "|%s%s %-9lld\n", a + len - depth,
		    s + depth, shown);
	}
	f = ((val < 0 ? -(long double)val : (long double)val) * len) / total;
	if (!positives) {
		depth = (unsigned)(f + 0.5);
		if (depth > len)
			depth = len;
		return fprintf(fp, "%s%s| %-9lld\n", s + depth,
		    a + len - depth, shown);
	}
	len /= 2;
	a += len;
	s += len;
	f = ((val < 0 ? -(long double)val : (long double)val) * len) / total;
	depth = (unsigned)(f + 0.5);
	if (depth > len)
		depth = len;
	if (val <= 0)
		return fprintf(fp, "%s%s|%*s %-9lld\n", s + depth,
		    a + len - depth, (int)len, "", shown);
	return fprintf(fp, "%20s|%s%s %-9lld\n", "", a + len - depth,
	    s + depth, shown);
}

/* -x aggzoom: the largest bar is this much of the full width */
#define DT_AGG_ZOOMMAX	0.95

/*
 * illumos's dt_quantize_total: what a full bar stands for is the sum of
 * the rows, or under aggzoom the largest row over DT_AGG_ZOOMMAX.
 */
static void
dt_aggregate_qtotal(const dtrace_hdl_t *dtp, int64_t datum,
    long double *total)
{
	long double val = datum < 0 ? -(long double)datum :
	    (long double)datum;

	if (dtp->dt_options[DTRACEOPT_AGGZOOM] == DTRACEOPT_UNSET) {
		*total += val;
		return;
	}
	val *= 1 / DT_AGG_ZOOMMAX;
	if (*total < val)
		*total = val;
}

/*
 * A histogram: the rows from one before the first non-zero bucket to
 * one after the last (illumos's trimming), with its labels.
 */
static int
dt_aggregate_print_hist(const dtrace_hdl_t *dtp, FILE *fp,
    const dtp_agg_t *d, const uint64_t *uv, uint32_t nval, uint64_t normal)
{
	const int64_t *v = (const int64_t *)uv;
	int n = (int)nval, first = 0, last = n - 1, i, positives = 0,
	    negatives = 0, bin;
	dt_aggregate_llq_t q;
	long double total = 0;
	char c[32];

	/*
	 * illumos's quantize never looks at its last bucket (2^62 and up)
	 * for data, and shows a count there as no data at all: a bug,
	 * which dtrace-utils fixed too.  Every bucket is looked at.
	 */
	while (first < n && v[first] == 0)
		first++;
	if (first == n) {
		/* no data (cleared, or negative increments): around zero */
		if (d->dg_kind == DTRACEAGG_QUANTIZE) {
			first = DT_AGG_QZERO - 1;
			last = DT_AGG_QZERO + 1;
		} else {
			first = 0;
			last = d->dg_kind == DTRACEAGG_LQUANTIZE ? 2 : 1;
		}
	} else {
		if (first > 0)
			first--;
		while (last > 0 && v[last] == 0)
			last--;
		if (last < n - 1)
			last++;
	}
	for (i = first; i <= last; i++) {
		positives |= v[i] > 0;
		negatives |= v[i] < 0;
		dt_aggregate_qtotal(dtp, v[i], &total);
	}
	if (fprintf(fp, "\n%16s %41s %-9s\n", "value",
	    "------------- Distribution -------------", "count") < 0)
		return -1;

	if (d->dg_kind != DTRACEAGG_LLQUANTIZE) {
		for (i = first; i <= last; i++) {
			int64_t base = (int64_t)d->dg_params[0];
			int64_t lstep = (int64_t)d->dg_params[2];

			if (d->dg_kind == DTRACEAGG_QUANTIZE) {
				fprintf(fp, "%16lld ",
				    (long long)dt_aggregate_qvalue(i));
			} else if (i == 0) {
				snprintf(c, sizeof(c), "< %d", (int)base);
				fprintf(fp, "%16s ", c);
			} else if (i == n - 1) {
				snprintf(c, sizeof(c), ">= %d",
				    (int)(base + (n - 2) * lstep));
				fprintf(fp, "%16s ", c);
			} else {
				fprintf(fp, "%16d ", (int)(base +
				    (i - 1) * lstep));
			}
			if (dt_aggregate_quantline(fp, v[i], normal, total,
			    positives, negatives) < 0)
				return -1;
		}
		return 0;
	}

	/* llquantize: walk the magnitudes as illumos's printer does */
	dt_aggregate_llq_init(&q, d);
	if (first == 0) {
		snprintf(c, sizeof(c), "< %lld", (long long)q.lq_value);
		fprintf(fp, "%16s ", c);
		if (dt_aggregate_quantline(fp, v[0], normal, total, positives,
		    negatives) < 0)
			return -1;
	}
	for (bin = 1; bin < n; bin++) {
		if (bin >= first && bin <= last && !q.lq_empty) {
			fprintf(fp, "%16lld ", (long long)q.lq_value);
			if (dt_aggregate_quantline(fp, v[bin], normal, total,
			    positives, negatives) < 0)
				return -1;
		}
		if (!dt_aggregate_llq_next(&q)) {
			bin++;
			break;
		}
	}
	if (last < bin || bin >= n)
		return 0;
	snprintf(c, sizeof(c), ">= %lld", (long long)q.lq_value);
	fprintf(fp, "%16s ", c);
	return dt_aggregate_quantline(fp, v[bin], normal, total, positives,
	    negatives) < 0 ? -1 : 0;
}

/* A value as dt_print_datum prints it in an unformatted line. */
static int
dt_aggregate_print_value(const dtrace_hdl_t *dtp, FILE *fp,
    const dtp_agg_t *d, const uint64_t *v, uint32_t nval, uint64_t normal)
{
	switch (d->dg_kind) {
	case DTRACEAGG_AVG:
		return fprintf(fp, " %16lld", v[0] ? (long long)((int64_t)v[1] /
		    (int64_t)normal / (int64_t)v[0]) : 0);
	case DTRACEAGG_STDDEV:
		return fprintf(fp, " %16llu",
		    (unsigned long long)dt_aggval_stddev(v, normal));
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		return dt_aggregate_print_hist(dtp, fp, d, v, nval, normal);
	default:
		/* illumos: (long long)value / normal, an unsigned division */
		return fprintf(fp, " %16lld",
		    (long long)((unsigned long long)v[0] / normal));
	}
}

/* One printa() bundle: a key and each aggregation's value for it. */
typedef struct dt_aggbundle {
	const char	*ab_key;
	const dtp_agg_t	**ab_desc;	/* per aggregation */
	const uint64_t	**ab_val;
	uint32_t	*ab_nval;
	uint64_t	*ab_normal;
} dt_aggbundle_t;

/* %@ in a printa() format: as illumos's pfprint_* functions print it. */
static int
dt_aggregate_pfprint(dtrace_hdl_t *dtp, FILE *fp, const char *cfmt, int i,
    void *arg)
{
	const dt_aggbundle_t *b = arg;
	const dtp_agg_t *d = b->ab_desc[i];
	const uint64_t *v = b->ab_val[i];
	uint64_t normal = b->ab_normal[i];
	char conv = cfmt[strlen(cfmt) - 1];
	int rv;

	switch (d->dg_kind) {
	case DTRACEAGG_AVG:
		rv = fprintf(fp, cfmt, v[0] ? v[1] / normal / v[0] : 0);
		break;
	case DTRACEAGG_STDDEV:
		rv = fprintf(fp, cfmt, dt_aggval_stddev(v, normal));
		break;
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		rv = dt_aggregate_print_hist(dtp, fp, d, v, b->ab_nval[i],
		    normal);
		break;
	default:
		if (conv == 'd')
			rv = fprintf(fp, cfmt, (long long)((int64_t)v[0] /
			    (int64_t)normal));
		else if (conv == 'c')
			rv = fprintf(fp, "%c", (int)(v[0] / normal));
		else if (strchr("eEfgG", conv) != NULL)
			rv = fprintf(fp, "%.0s", "");
		else
			rv = fprintf(fp, cfmt, (unsigned long long)(v[0] /
			    normal));
		break;
	}
	return rv < 0 ? dt_set_errno(dtp, errno) : 0;
}

/* The record descriptions of an aggregation's keys, for dt_printf. */
static dtrace_recdesc_t *
dt_aggregate_keyrecs(dtrace_hdl_t *dtp, const dtp_agg_t *d)
{
	dtrace_recdesc_t *r;
	size_t off = 0;
	uint32_t i;

	if ((r = calloc(d->dg_nkeys + 1, sizeof(*r))) == NULL) {
		dt_set_errno(dtp, EDT_NOMEM);
		return NULL;
	}
	for (i = 0; i < d->dg_nkeys; i++) {
		const dtp_aggkey_t *k = &d->dg_keys[i];

		switch (k->dk_kind) {
		case DTP_KEY_USTACK:
			r[i].dtrd_action = DTRACEACT_USTACK;
			r[i].dtrd_arg = k->dk_size / 8 - 1;
			break;
		case DTP_KEY_STACK:
			r[i].dtrd_action = DTRACEACT_STACK;
			r[i].dtrd_arg = k->dk_size / 8;
			break;
		case DTP_KEY_USYM:
			r[i].dtrd_action = DTRACEACT_USYM;
			break;
		case DTP_KEY_UMOD:
			r[i].dtrd_action = DTRACEACT_UMOD;
			break;
		case DTP_KEY_UADDR:
			r[i].dtrd_action = DTRACEACT_UADDR;
			break;
		case DTP_KEY_SYM:
			r[i].dtrd_action = DTRACEACT_SYM;
			break;
		case DTP_KEY_MOD:
			r[i].dtrd_action = DTRACEACT_MOD;
			break;
		default:
			r[i].dtrd_action = DTRACEACT_DIFEXPR;
			break;
		}
		r[i].dtrd_size = k->dk_size;
		r[i].dtrd_offset = (uint32_t)off;
		r[i].dtrd_type = k->dk_kind == DTP_KEY_STRING ?
		    DTRACE_REC_STRING : k->dk_kind == DTP_KEY_INT ?
		    DTRACE_REC_INT : DTRACE_REC_UINT;
		off += DT_AGG_ROUND8(k->dk_size);
	}
	return r;
}

/* Print one bundle: unformatted (fmt NULL) or with a printa() format. */
static int
dt_aggregate_print_bundle(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    const dtrace_recdesc_t *recs, dt_aggbundle_t *b, int naggs)
{
	dt_printf_agg_t pa;
	int i;

	if (fmt != NULL) {
		pa.pa_naggs = naggs;
		pa.pa_print = dt_aggregate_pfprint;
		pa.pa_arg = b;
		return dt_printf_aformat(dtp, fp, fmt, recs,
		    (int)b->ab_desc[0]->dg_nkeys, b->ab_key, &pa);
	}
	if (dt_aggregate_print_keys(dtp, fp, b->ab_desc[0], b->ab_key, 0) != 0)
		return dt_set_errno(dtp, errno);
	for (i = 0; i < naggs; i++) {
		if (dt_aggregate_print_value(dtp, fp, b->ab_desc[i],
		    b->ab_val[i], b->ab_nval[i], b->ab_normal[i]) < 0)
			return dt_set_errno(dtp, errno);
	}
	if (fprintf(fp, "\n") < 0)
		return dt_set_errno(dtp, errno);
	return 0;
}

/*
 * -x agghist and -x aggpack, decided per aggregation as illumos does
 * with its DTRACE_A_TOTAL and DTRACE_A_MINMAXBIN flags: agghist draws
 * the entries of a count(), sum(), avg() or stddev() as the rows of one
 * histogram, keyed by their keys; aggpack draws each key's quantize()
 * or lquantize() on one line, over the buckets the aggregation uses.
 * min(), max() and llquantize() print as they always do, and so do
 * printa() with a format and printa() of several aggregations.
 */
typedef struct dt_aggpk {
	uint32_t	pk_id;
	int		pk_hist;
	int		pk_pack;
	int		pk_hdr;		/* the header was printed */
	int		pk_pos, pk_neg;	/* agghist: values of a sign */
	int64_t		pk_total;	/* agghist: a full bar */
	int		pk_minbin;	/* aggpack: the buckets used */
	int		pk_maxbin;
} dt_aggpk_t;

/* agghist: the value an entry is drawn by */
static int64_t
dt_aggregate_histval(const dtp_agg_t *d, const uint64_t *v)
{
	switch (d->dg_kind) {
	case DTRACEAGG_AVG:
		return v[0] ? (int64_t)v[1] / (int64_t)v[0] : 0;
	case DTRACEAGG_STDDEV:
		return (int64_t)dt_aggval_stddev(v, 1);
	default:
		return (int64_t)v[0];
	}
}

/*
 * The agghist total (illumos's dt_aggregate_total: the sum of the
 * magnitudes or, under aggzoom, the largest over DT_AGG_ZOOMMAX, in
 * integers) and the aggpack range (dt_aggregate_minmaxbin: the used
 * buckets of every key of a quantize(), zero's alone when none is
 * used; all the buckets of an lquantize()).
 */
static void
dt_aggregate_pkinit(const dtrace_hdl_t *dtp, uint32_t id, dt_aggpk_t *pk)
{
	const struct dt_aggregate *ag = dtp->dt_aggregate;
	const dtp_agg_t *d = dt_aggregate_desc(dtp, id);
	int zoom = dtp->dt_options[DTRACEOPT_AGGZOOM] != DTRACEOPT_UNSET;
	size_t i;
	int j;

	memset(pk, 0, sizeof(*pk));
	pk->pk_id = id;
	pk->pk_minbin = INT_MAX;
	pk->pk_maxbin = -1;
	if (d == NULL)
		return;
	switch (d->dg_kind) {
	case DTRACEAGG_COUNT:
	case DTRACEAGG_SUM:
	case DTRACEAGG_AVG:
	case DTRACEAGG_STDDEV:
		pk->pk_hist = dtp->dt_options[DTRACEOPT_AGGHIST] !=
		    DTRACEOPT_UNSET;
		break;
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
		pk->pk_pack = dtp->dt_options[DTRACEOPT_AGGPACK] !=
		    DTRACEOPT_UNSET;
		break;
	default:
		return;
	}
	for (i = 0; i < ag->ag_n; i++) {
		const dt_aggent_t *e = ag->ag_all[i];
		const int64_t *v = (const int64_t *)e->ae_val;
		int64_t val;
		int lo = -1, hi = -1;

		if (e->ae_aggid != id)
			continue;
		if (pk->pk_hist) {
			val = dt_aggregate_histval(d, e->ae_val);
			pk->pk_pos |= val > 0;
			if (val < 0) {
				pk->pk_neg = 1;
				val = -val;
			}
			if (!zoom) {
				pk->pk_total += val;
				continue;
			}
			val = (int64_t)((long double)val *
			    (1 / DT_AGG_ZOOMMAX));
			if (val > pk->pk_total)
				pk->pk_total = val;
			continue;
		}
		if (!pk->pk_pack)
			continue;
		if (d->dg_kind == DTRACEAGG_LQUANTIZE) {
			lo = 0;
			hi = (int)e->ae_nval - 1;
		} else {
			for (j = 0; j < (int)e->ae_nval; j++) {
				if (v[j] == 0)
					continue;
				if (lo == -1)
					lo = j;
				hi = j;
			}
			if (lo == -1)
				lo = hi = DT_AGG_QZERO;
		}
		if (lo < pk->pk_minbin)
			pk->pk_minbin = lo;
		if (hi > pk->pk_maxbin)
			pk->pk_maxbin = hi;
	}
}

/* illumos's dt_ndigits: the columns of a packed line's end labels */
static int
dt_aggregate_ndigits(long long val)
{
	long long cmp = 10;
	int n = 1;

	if (val < 0) {
		val = val == LLONG_MIN ? LLONG_MAX : -val;
		n++;
	}
	while (val > cmp && cmp > 0) {
		n++;
		cmp *= 10;
	}
	return n < 4 ? 4 : n;
}

/*
 * One bucket of a packed line, as illumos's dt_print_packed draws it:
 * blank when empty, else one of eight heights, the Unicode lower
 * blocks (U+2581 to U+2588) or, for terminals known not to show them
 * and under -x encoding=ascii, "__xxxxXX"; negative counts "vvvvVV".
 */
static int
dt_aggregate_packed(const dtrace_hdl_t *dtp, FILE *fp, int64_t datum,
    long double total)
{
	static const char ascii[] = "__xxxxXX";
	static const char neg[] = "vvvvVV";
	const char *term;
	unsigned idx, len;
	int utf8;

	if (datum == 0)
		return fputc(' ', fp) == EOF ? -1 : 0;
	if (datum < 0) {
		len = sizeof(neg) - 1;
		idx = (unsigned)(-(long double)datum * (len - 1) / total +
		    0.5);
		return fputc(neg[idx < len ? idx : len - 1], fp) == EOF ?
		    -1 : 0;
	}
	len = sizeof(ascii) - 1;
	idx = (unsigned)((long double)datum * (len - 1) / total + 0.5);
	if (idx >= len)
		idx = len - 1;
	if (dtp->dt_encoding != DT_ENCODING_UNSET) {
		utf8 = dtp->dt_encoding == DT_ENCODING_UTF8;
	} else {
		term = getenv("TERM");
		utf8 = term != NULL && strcmp(term, "sun") != 0 &&
		    strcmp(term, "sun-color") != 0 &&
		    strcmp(term, "dumb") != 0;
	}
	if (utf8)
		return fprintf(fp, "\xe2\x96%c", (char)(0x81 + idx)) < 0 ?
		    -1 : 0;
	return fputc(ascii[idx], fp) == EOF ? -1 : 0;
}

/*
 * The packed line of a quantize() or lquantize(): the range's lowest
 * value, a character a bucket, its highest value and the count.  A
 * quantize() shows the buckets any key uses, with one more on each
 * side (none below zero's); an lquantize() all of them, under- and
 * overflow included, between its base and its limit.  As in illumos,
 * normalize() does not apply.
 */
static int
dt_aggregate_print_packed(const dtrace_hdl_t *dtp, FILE *fp,
    const dtp_agg_t *d, const uint64_t *uv, uint32_t nval,
    const dt_aggpk_t *pk, int hdr, int width)
{
	const int64_t *v = (const int64_t *)uv;
	long double total = 0, count = 0;
	long long minval, maxval;
	int min, max, minw, maxw, i;

	if (d->dg_kind == DTRACEAGG_QUANTIZE) {
		min = pk->pk_minbin;
		max = pk->pk_maxbin;
		if (min != 0 && min != DT_AGG_QZERO)
			min--;
		if (max < (int)nval - 1)
			max++;
		minval = dt_aggregate_qvalue(min);
		maxval = dt_aggregate_qvalue(max);
		minw = dt_aggregate_ndigits(minval);
		maxw = dt_aggregate_ndigits(maxval);
	} else {
		min = 0;
		max = (int)nval - 1;
		minval = (long long)(int64_t)d->dg_params[0];
		maxval = minval + (long long)(nval - 2) *
		    (long long)(int64_t)d->dg_params[2];
		maxw = 8;
		minw = maxw - 1;
	}
	if (hdr) {
		if (fprintf(fp, "\n%*s %*s .", width, width > 0 ? "key" : "",
		    minw, "min") < 0)
			return -1;
		for (i = min; i <= max; i++) {
			if (fputc('-', fp) == EOF)
				return -1;
		}
		return fprintf(fp, ". %*s | count\n", -maxw, "max") < 0 ?
		    -1 : 0;
	}
	if (fprintf(fp, " %*lld :", minw, minval) < 0)
		return -1;
	for (i = min; i <= max; i++) {
		dt_aggregate_qtotal(dtp, v[i], &total);
		count += v[i];
	}
	for (i = min; i <= max; i++) {
		if (dt_aggregate_packed(dtp, fp, v[i], total) < 0)
			return -1;
	}
	return fprintf(fp, ": %*lld | %lld\n", -maxw, maxval,
	    (long long)count) < 0 ? -1 : 0;
}

/*
 * An entry under agghist or aggpack: the aggregation's header before
 * its first entry (illumos's dt_print_quanthdr and its packed form,
 * "key" right-aligned over the keys), then the keys and one row.
 */
static int
dt_aggregate_print_pk(dtrace_hdl_t *dtp, FILE *fp, dt_aggpk_t *pk,
    const dt_aggent_t *e)
{
	const dtp_agg_t *d = dt_aggregate_desc(dtp, e->ae_aggid);
	int width = 0, rv;
	uint32_t i;

	if (!pk->pk_hdr) {
		for (i = 0; i < d->dg_nkeys; i++) {
			uint32_t sz = d->dg_keys[i].dk_size;

			width += (sz == 1 ? 3 : sz == 2 ? 5 : sz == 4 ? 8 :
			    16) + 1;
		}
		if (pk->pk_hist)
			rv = fprintf(fp, "\n%*s %41s %-9s\n",
			    width ? width : 16, width ? "key" : "value",
			    "------------- Distribution -------------",
			    "count");
		else
			rv = dt_aggregate_print_packed(dtp, fp, d, e->ae_val,
			    e->ae_nval, pk, 1, width);
		if (rv < 0)
			return dt_set_errno(dtp, errno);
		pk->pk_hdr = 1;
	}
	if (dt_aggregate_print_keys(dtp, fp, d, e->ae_key, 1) != 0)
		return dt_set_errno(dtp, errno);
	if (pk->pk_hist)
		rv = fprintf(fp, " ") < 0 ? -1 : dt_aggregate_quantline(fp,
		    dt_aggregate_histval(d, e->ae_val), e->ae_normal,
		    (long double)pk->pk_total, pk->pk_pos, pk->pk_neg);
	else
		rv = dt_aggregate_print_packed(dtp, fp, d, e->ae_val,
		    e->ae_nval, pk, 0, width);
	return rv < 0 ? dt_set_errno(dtp, errno) : 0;
}

/* Print one entry on its own (pk: agghist and aggpack, or NULL). */
static int
dt_aggregate_print_ent(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    const dtrace_recdesc_t *recs, const dt_aggent_t *e, dt_aggpk_t *pk)
{
	const dtp_agg_t *d = dt_aggregate_desc(dtp, e->ae_aggid);
	const uint64_t *val = e->ae_val;
	uint32_t nval = e->ae_nval;
	uint64_t normal = e->ae_normal;
	dt_aggbundle_t b;

	if (fmt == NULL && pk != NULL && (pk->pk_hist || pk->pk_pack))
		return dt_aggregate_print_pk(dtp, fp, pk, e);

	b.ab_key = e->ae_key;
	b.ab_desc = &d;
	b.ab_val = &val;
	b.ab_nval = &nval;
	b.ab_normal = &normal;
	return dt_aggregate_print_bundle(dtp, fp, fmt, recs, &b, 1);
}

/* oformat=json: an aggregation's keys as a JSON array. */
static void
dt_aggregate_json_keys(dtrace_hdl_t *dtp, dt_json_t *j, const dtp_agg_t *d,
    const char *key)
{
	size_t off = 0;
	uint32_t i;

	dt_json_array_begin(j);
	for (i = 0; i < d->dg_nkeys; i++) {
		const dtp_aggkey_t *k = &d->dg_keys[i];
		const char *p = key + off;
		uint64_t v = 0;

		if (k->dk_kind == DTP_KEY_STRING) {
			dt_json_string(j, p, k->dk_size);
		} else if (k->dk_kind == DTP_KEY_USTACK) {
			dt_usym_json_stack(dtp, j, p, k->dk_size / 8 - 1, 0);
		} else if (k->dk_kind == DTP_KEY_STACK) {
			dt_usym_json_stack(dtp, j, p, k->dk_size / 8,
			    DT_USYM_KERNEL);
		} else if (dt_usym_keyhow(k->dk_kind) != -1) {
			char name[1024];

			dt_usym_recname(dtp, p, dt_usym_keyhow(k->dk_kind),
			    name, sizeof(name));
			dt_json_string(j, name, sizeof(name));
		} else {
			/* as the text shows them: by size */
			memcpy(&v, p, k->dk_size < 8 ? k->dk_size : 8);
			switch (k->dk_size) {
			case 1:
				dt_json_uint(j, (uint8_t)v);
				break;
			case 2:
				dt_json_uint(j, (uint16_t)v);
				break;
			case 4:
				dt_json_int(j, (int32_t)(uint32_t)v);
				break;
			default:
				dt_json_int(j, (int64_t)v);
				break;
			}
		}
		off += DT_AGG_ROUND8(k->dk_size);
	}
	dt_json_array_end(j);
}

static void
dt_aggregate_json_bucket(dt_json_t *j, int64_t min, int64_t max,
    int64_t val, uint64_t normal)
{
	if (val == 0)
		return;
	dt_json_object_begin(j);
	dt_json_kint(j, "min", min);
	dt_json_kint(j, "max", max);
	dt_json_kint(j, "count", (int64_t)((uint64_t)val / normal));
	dt_json_object_end(j);
}

/*
 * A histogram's non-empty buckets, each with the range of values it
 * counts (the text's row label is min; the open ends are INT64_MIN and
 * INT64_MAX).
 */
static void
dt_aggregate_json_hist(dt_json_t *j, const dtp_agg_t *d, const uint64_t *uv,
    uint32_t nval, uint64_t normal)
{
	const int64_t *v = (const int64_t *)uv;
	int n = (int)nval, i, bin;
	dt_aggregate_llq_t q;
	int64_t min, max;

	dt_json_array_begin(j);
	if (d->dg_kind == DTRACEAGG_QUANTIZE) {
		for (i = 0; i < n; i++) {
			if (i < DT_AGG_QZERO) {
				max = dt_aggregate_qvalue(i);
				min = i == 0 ? INT64_MIN :
				    dt_aggregate_qvalue(i - 1) + 1;
			} else if (i == DT_AGG_QZERO) {
				min = max = 0;
			} else {
				min = dt_aggregate_qvalue(i);
				max = i == n - 1 ? INT64_MAX :
				    dt_aggregate_qvalue(i + 1) - 1;
			}
			dt_aggregate_json_bucket(j, min, max, v[i],
			    normal);
		}
	} else if (d->dg_kind == DTRACEAGG_LQUANTIZE) {
		int64_t base = (int64_t)d->dg_params[0];
		int64_t lstep = (int64_t)d->dg_params[2];

		for (i = 0; i < n; i++) {
			if (i == 0) {
				min = INT64_MIN;
				max = base - 1;
			} else if (i == n - 1) {
				min = base + (n - 2) * lstep;
				max = INT64_MAX;
			} else {
				min = base + (i - 1) * lstep;
				max = min + lstep - 1;
			}
			dt_aggregate_json_bucket(j, min, max, v[i],
			    normal);
		}
	} else {
		/* llquantize: the text printer's walk of the magnitudes */
		dt_aggregate_llq_init(&q, d);
		if (n > 0)
			dt_aggregate_json_bucket(j, INT64_MIN,
			    q.lq_value - 1, v[0], normal);
		for (bin = 1; bin < n; bin++) {
			int64_t lo = q.lq_value, top = q.lq_this;

			if (q.lq_step < top - lo)
				top = lo + q.lq_step;
			if (!q.lq_empty)
				dt_aggregate_json_bucket(j, lo,
				    top - 1, v[bin], normal);
			if (!dt_aggregate_llq_next(&q)) {
				bin++;
				break;
			}
		}
		if (bin < n)
			dt_aggregate_json_bucket(j, q.lq_value,
			    INT64_MAX, v[bin], normal);
	}
	dt_json_array_end(j);
}

/*
 * oformat=json: the members of aggregation id's object, its entries
 * sorted as the text prints them: "name", "function" and "data", an
 * array of { "keys": [...], "value": n } or, for histograms,
 * { "keys": [...], "buckets": [{ "min", "max", "count" }...] }.
 */
int
dt_aggregate_json(dtrace_hdl_t *dtp, dt_json_t *j, uint32_t id)
{
	const dtp_agg_t *d = dt_aggregate_desc(dtp, id);
	dt_aggent_t **v;
	size_t i, n;

	if (d == NULL)
		return dt_set_errno(dtp, EDT_BADAGGVAR);
	if ((v = dt_aggregate_sorted(dtp, id, &n)) == NULL)
		return -1;
	dt_json_kstring(j, "name", d->dg_name);
	dt_json_kstring(j, "function", dt_ident_aggfunc_name(d->dg_kind));
	dt_json_key(j, "data");
	dt_json_array_begin(j);
	for (i = 0; i < n; i++) {
		const dt_aggent_t *e = v[i];
		const uint64_t *val = e->ae_val;
		uint64_t normal = e->ae_normal;

		dt_json_object_begin(j);
		dt_json_key(j, "keys");
		dt_aggregate_json_keys(dtp, j, d, e->ae_key);
		switch (d->dg_kind) {
		case DTRACEAGG_AVG:
			dt_json_kint(j, "value", val[0] ?
			    (int64_t)val[1] / (int64_t)normal /
			    (int64_t)val[0] : 0);
			break;
		case DTRACEAGG_STDDEV:
			dt_json_kuint(j, "value",
			    dt_aggval_stddev(val, normal));
			break;
		case DTRACEAGG_QUANTIZE:
		case DTRACEAGG_LQUANTIZE:
		case DTRACEAGG_LLQUANTIZE:
			dt_json_key(j, "buckets");
			dt_aggregate_json_hist(j, d, val, e->ae_nval, normal);
			break;
		default:
			dt_json_kint(j, "value",
			    (int64_t)(val[0] / normal));
			break;
		}
		dt_json_object_end(j);
	}
	free(v);
	dt_json_array_end(j);
	if (dt_json_error(j) != 0)
		return dt_set_errno(dtp, errno);
	return 0;
}

/* oformat=json at exit: one line per aggregation printa() left. */
static int
dt_aggregate_print_json(dtrace_hdl_t *dtp, FILE *fp)
{
	dt_aggent_t **v;
	size_t i, n;
	dt_json_t j;

	if ((v = dt_aggregate_sorted(dtp, UINT32_MAX, &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (i > 0 && v[i]->ae_aggid == v[i - 1]->ae_aggid)
			continue;
		dt_json_beginline(&j, fp, "aggregation");
		if (dt_aggregate_json(dtp, &j, v[i]->ae_aggid) != 0) {
			free(v);
			return -1;
		}
		if (dt_json_endline(&j) != 0) {
			free(v);
			return dt_set_errno(dtp, errno);
		}
	}
	free(v);
	return 0;
}

/*
 * Print every aggregation printa() has not printed, at exit: each
 * entry a line (or a histogram), one aggregation right after the other
 * as illumos prints them: the only blank lines are the one dtrace(1)
 * prints before the first and those each histogram brings.
 */
int
dtrace_aggregate_print(dtrace_hdl_t *dtp, FILE *fp, void *unused)
{
	dt_aggpk_t pk;
	dt_aggent_t **v;
	size_t i, n;

	if (dtp->dt_aggregate == NULL || dtp->dt_aggregate->ag_n == 0)
		return 0;
	if (DT_JSON(dtp))
		return dt_aggregate_print_json(dtp, fp);
	if ((v = dt_aggregate_sorted(dtp, UINT32_MAX, &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (i == 0 || v[i]->ae_aggid != pk.pk_id)
			dt_aggregate_pkinit(dtp, v[i]->ae_aggid, &pk);
		if (dt_aggregate_print_ent(dtp, fp, NULL, NULL, v[i], &pk) !=
		    0) {
			free(v);
			return -1;
		}
	}
	free(v);
	return 0;
}

/* printa() of one aggregation: its entries, sorted. */
static int
dt_aggregate_printa_one(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    uint32_t id)
{
	const dtp_agg_t *d = dt_aggregate_desc(dtp, id);
	dtrace_recdesc_t *recs = NULL;
	dt_aggpk_t pk;
	dt_aggent_t **v;
	size_t i, n;
	int rv = 0;

	if (d == NULL)
		return dt_set_errno(dtp, EDT_BADAGGVAR);
	if ((v = dt_aggregate_sorted(dtp, id, &n)) == NULL)
		return -1;
	if (fmt != NULL && (recs = dt_aggregate_keyrecs(dtp, d)) == NULL)
		rv = -1;
	dt_aggregate_pkinit(dtp, id, &pk);
	for (i = 0; i < n && rv == 0; i++)
		rv = dt_aggregate_print_ent(dtp, fp, fmt, recs, v[i], &pk);
	free(recs);
	free(v);
	return rv;
}

/* Bundles of a joined printa(): by aggsortpos's value, the others, key. */
static struct {
	int		jc_pos;
	int		jc_naggs;
} dt_aggregate_jc;

static int
dt_aggregate_bundlecmp(const void *lp, const void *rp)
{
	const dt_aggbundle_t *l = lp, *r = rp;
	int i, j, rv = 0, n = dt_aggregate_jc.jc_naggs;

	if (dt_aggregate_sc.sc_keysort)
		rv = dt_aggregate_keycmp(l->ab_desc[0], l->ab_key, r->ab_key);
	for (j = 0; rv == 0 && j < n; j++) {
		/* the sort position first, then the others in order */
		i = j == 0 ? dt_aggregate_jc.jc_pos :
		    j <= dt_aggregate_jc.jc_pos ? j - 1 : j;
		rv = dt_aggregate_valcmp(l->ab_desc[i], l->ab_val[i],
		    r->ab_val[i], l->ab_nval[i]);
	}
	if (rv == 0 && !dt_aggregate_sc.sc_keysort)
		rv = dt_aggregate_keycmp(l->ab_desc[0], l->ab_key, r->ab_key);
	return dt_aggregate_sc.sc_rev ? -rv : rv;
}

/*
 * printa() of several aggregations joined on their keys: one line per
 * key any of them has, those without it showing a zero value.
 */
static int
dt_aggregate_printa_joined(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    const uint32_t *ids, int naggs)
{
	struct dt_aggregate *ag = dtp->dt_aggregate;
	const dtp_agg_t **descs = NULL, *d0;
	dtrace_recdesc_t *recs = NULL;
	dt_aggbundle_t *b = NULL;
	uint64_t **zero = NULL;
	size_t nb = 0, i, k;
	dtrace_optval_t pos = dtp->dt_options[DTRACEOPT_AGGSORTPOS];
	int j, rv = -1;

	if ((descs = calloc(naggs, sizeof(*descs))) == NULL ||
	    (zero = calloc(naggs, sizeof(*zero))) == NULL ||
	    (b = calloc(ag->ag_n + 1, sizeof(*b))) == NULL)
		goto nomem;
	for (j = 0; j < naggs; j++) {
		if ((descs[j] = dt_aggregate_desc(dtp, ids[j])) == NULL) {
			dt_set_errno(dtp, EDT_BADAGGVAR);
			goto out;
		}
		if (dt_proto_agg_keysize(descs[j]) !=
		    dt_proto_agg_keysize(descs[0])) {
			dt_set_errno(dtp, EDT_BADAGGVAR);
			goto out;
		}
		k = dt_proto_agg_valsize(descs[j]) / sizeof(uint64_t);
		if ((zero[j] = calloc(k, sizeof(uint64_t))) == NULL)
			goto nomem;
	}
	d0 = descs[0];
	/* one bundle per distinct key of any of the aggregations */
	for (i = 0; i < ag->ag_n; i++) {
		const dt_aggent_t *e = ag->ag_all[i];
		size_t x;

		for (j = 0; j < naggs && ids[j] != e->ae_aggid; j++)
			continue;
		if (j == naggs)
			continue;
		for (x = 0; x < nb; x++) {
			if (memcmp(b[x].ab_key, e->ae_key, e->ae_keysize) == 0)
				break;
		}
		if (x == nb) {
			int a;

			b[nb].ab_key = e->ae_key;
			if ((b[nb].ab_desc = calloc(naggs,
			    sizeof(*b[nb].ab_desc))) == NULL ||
			    (b[nb].ab_val = calloc(naggs,
			    sizeof(*b[nb].ab_val))) == NULL ||
			    (b[nb].ab_nval = calloc(naggs,
			    sizeof(*b[nb].ab_nval))) == NULL ||
			    (b[nb].ab_normal = calloc(naggs,
			    sizeof(*b[nb].ab_normal))) == NULL) {
				nb++;
				goto nomem;
			}
			for (a = 0; a < naggs; a++) {
				b[nb].ab_desc[a] = descs[a];
				b[nb].ab_val[a] = zero[a];
				b[nb].ab_nval[a] = (uint32_t)
				    (dt_proto_agg_valsize(descs[a]) /
				    sizeof(uint64_t));
				b[nb].ab_normal[a] = 1;
			}
			nb++;
		}
		b[x].ab_val[j] = e->ae_val;
		b[x].ab_normal[j] = e->ae_normal;
	}
	dt_aggregate_sortopts(dtp);
	dt_aggregate_jc.jc_naggs = naggs;
	dt_aggregate_jc.jc_pos = pos != DTRACEOPT_UNSET && pos >= 0 &&
	    pos < naggs ? (int)pos : 0;
	qsort(b, nb, sizeof(*b), dt_aggregate_bundlecmp);
	if (fmt != NULL && (recs = dt_aggregate_keyrecs(dtp, d0)) == NULL)
		goto out;
	for (i = 0; i < nb; i++) {
		if (dt_aggregate_print_bundle(dtp, fp, fmt, recs, &b[i],
		    naggs) != 0)
			goto out;
	}
	rv = 0;
	goto out;
nomem:
	dt_set_errno(dtp, EDT_NOMEM);
out:
	for (i = 0; b != NULL && i < nb; i++) {
		free(b[i].ab_desc);
		free(b[i].ab_val);
		free(b[i].ab_nval);
		free(b[i].ab_normal);
	}
	for (j = 0; zero != NULL && j < naggs; j++)
		free(zero[j]);
	free(zero);
	free(b);
	free(descs);
	free(recs);
	return rv;
}

/*
 * printa([fmt, ] @a, ...) at the point of its record.  Unformatted, it
 * starts with a newline, as illumos's does.  The aggregations it prints
 * are not printed again at exit.
 */
int
dt_aggregate_printa(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    const uint32_t *ids, int naggs)
{
	int i, rv;

	if (dt_aggregate_get(dtp) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	if (fmt == NULL && fprintf(fp, "\n") < 0)
		return dt_set_errno(dtp, errno);
	if (naggs == 1)
		rv = dt_aggregate_printa_one(dtp, fp, fmt, ids[0]);
	else
		rv = dt_aggregate_printa_joined(dtp, fp, fmt, ids, naggs);
	for (i = 0; rv == 0 && i < naggs; i++)
		rv = dt_aggregate_setprinted(dtp, ids[i]);
	return rv;
}

/*
 * printa() under oformat=json: a record object with each aggregation's
 * data and, for a format, the text it prints.
 */
int
dt_aggregate_printa_json(dtrace_hdl_t *dtp, dt_json_t *j, const char *fmt,
    const uint32_t *ids, int naggs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf;
	int i, rv = 0;

	if (dt_aggregate_get(dtp) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	dt_json_object_begin(j);
	dt_json_kstring(j, "action", "printa");
	dt_json_key(j, "aggregations");
	dt_json_array_begin(j);
	for (i = 0; rv == 0 && i < naggs; i++) {
		dt_json_object_begin(j);
		rv = dt_aggregate_json(dtp, j, ids[i]);
		dt_json_object_end(j);
	}
	dt_json_array_end(j);
	if (rv == 0 && fmt != NULL) {
		/* the formatted text, made by the text printer */
		if ((mf = open_memstream(&buf, &len)) == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		rv = dt_aggregate_printa(dtp, mf, fmt, ids, naggs);
		if (fclose(mf) != 0 && rv == 0)
			rv = dt_set_errno(dtp, EDT_NOMEM);
		if (rv == 0) {
			dt_json_key(j, "value");
			dt_json_string(j, buf, len);
		}
		free(buf);
	}
	dt_json_object_end(j);
	for (i = 0; rv == 0 && i < naggs; i++)
		rv = dt_aggregate_setprinted(dtp, ids[i]);
	return rv;
}

/* Drop entry number i (of ag_all). */
static void
dt_aggregate_remove(struct dt_aggregate *ag, size_t i)
{
	dt_aggent_t *e = ag->ag_all[i], **pp;

	for (pp = &ag->ag_hash[e->ae_hash % DT_AGG_NBUCKETS]; *pp != e;
	    pp = &(*pp)->ae_next)
		continue;
	*pp = e->ae_next;
	ag->ag_all[i] = ag->ag_all[--ag->ag_n];
	dt_aggregate_freeent(e);
}

/* trunc(@a, n): keep the n greatest entries (n < 0: the -n least). */
static int
dt_aggregate_trunc(dtrace_hdl_t *dtp, uint32_t id, int64_t keep)
{
	struct dt_aggregate *ag = dtp->dt_aggregate;
	dt_aggent_t **v;
	size_t i, j, n;
	int rev = dtp->dt_options[DTRACEOPT_AGGSORTREV] != DTRACEOPT_UNSET;

	if ((v = dt_aggregate_sorted(dtp, id, &n)) == NULL)
		return -1;
	/* value order, whatever aggsortrev says: greatest first for n >= 0 */
	if ((keep >= 0) != rev) {
		for (i = 0; i < n / 2; i++) {
			dt_aggent_t *t = v[i];

			v[i] = v[n - 1 - i];
			v[n - 1 - i] = t;
		}
	}
	if (keep < 0)
		keep = -keep;
	for (i = (size_t)keep; i < n; i++) {
		for (j = 0; j < ag->ag_n && ag->ag_all[j] != v[i]; j++)
			continue;
		if (j < ag->ag_n)
			dt_aggregate_remove(ag, j);
	}
	free(v);
	return 0;
}

/*
 * A library action of a record: clear(), trunc(), normalize() and
 * denormalize() of aggregation id; val is trunc()'s or normalize()'s
 * value.
 */
int
dt_aggregate_libact(dtrace_hdl_t *dtp, uint32_t act, uint32_t id,
    int64_t val)
{
	struct dt_aggregate *ag;
	const dtp_agg_t *d;
	size_t i;

	if ((ag = dt_aggregate_get(dtp)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	if ((d = dt_aggregate_desc(dtp, id)) == NULL)
		return dt_set_errno(dtp, EDT_BADAGGVAR);
	switch (act) {
	case DTP_LIBACT_TRUNC:
		return dt_aggregate_trunc(dtp, id, val);
	case DTP_LIBACT_NORMALIZE:
		if (val <= 0)
			return dt_set_errno(dtp, EDT_BADNORMAL);
		break;
	case DTP_LIBACT_CLEAR:
	case DTP_LIBACT_DENORMALIZE:
		break;
	default:
		return dt_set_errno(dtp, EDT_BADRVAL);
	}
	for (i = 0; i < ag->ag_n; i++) {
		dt_aggent_t *e = ag->ag_all[i];

		if (e->ae_aggid != id)
			continue;
		if (act == DTP_LIBACT_CLEAR)
			dt_aggval_zero(d->dg_kind, e->ae_val, e->ae_nval);
		else
			e->ae_normal = act == DTP_LIBACT_NORMALIZE ?
			    (uint64_t)val : 1;
	}
	return 0;
}
