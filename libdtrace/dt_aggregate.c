/*
 * dt_aggregate.c: the consumer's copy of the aggregations.
 *
 * The daemon snapshots each CPU's aggregation buffer by switching it, so
 * every DT_MSG_AGG carries what was aggregated since the last snapshot;
 * merging folds it into one entry per (aggregation id, key) with the
 * aggregating function's own rule (illumos does the same).  Printing
 * follows dtrace(1) at exit: per aggregation, entries sorted by value
 * then key, illumos column widths.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define DT_AGG_ROUND8(x)	(((x) + 7) & ~(size_t)7)
#define DT_AGG_NBUCKETS		1024
#define DT_AGG_QZERO		63	/* quantize: the zero bucket */

typedef struct dt_aggent {
	uint32_t	ae_aggid;
	uint32_t	ae_keysize;
	uint32_t	ae_nval;	/* u64 values */
	uint64_t	ae_hash;
	char		*ae_key;
	uint64_t	*ae_val;
	struct dt_aggent *ae_next;	/* hash chain */
} dt_aggent_t;

struct dt_aggregate {
	dt_aggent_t	*ag_hash[DT_AGG_NBUCKETS];
	dt_aggent_t	**ag_all;
	size_t		ag_n;
	size_t		ag_cap;
};

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

void
dt_aggregate_fini(dtrace_hdl_t *dtp)
{
	struct dt_aggregate *ag = dtp->dt_aggregate;
	size_t i;

	if (ag == NULL)
		return;
	for (i = 0; i < ag->ag_n; i++) {
		free(ag->ag_all[i]->ae_key);
		free(ag->ag_all[i]->ae_val);
		free(ag->ag_all[i]);
	}
	free(ag->ag_all);
	free(ag);
	dtp->dt_aggregate = NULL;
}

static void
dt_aggregate_fold(uint32_t kind, uint64_t *dst, const uint64_t *src,
    uint32_t n)
{
	uint32_t i;

	switch (kind) {
	case DTRACEAGG_MIN:
		if ((int64_t)src[0] < (int64_t)dst[0])
			dst[0] = src[0];
		break;
	case DTRACEAGG_MAX:
		if ((int64_t)src[0] > (int64_t)dst[0])
			dst[0] = src[0];
		break;
	case DTRACEAGG_STDDEV:
		/* count, total, then a 128-bit sum of squares (lo, hi) */
		dst[0] += src[0];
		dst[1] += src[1];
		dst[3] += src[3] + (dst[2] + src[2] < dst[2]);
		dst[2] += src[2];
		break;
	default:
		for (i = 0; i < n; i++)
			dst[i] += src[i];
		break;
	}
}

static int
dt_aggregate_add(dtrace_hdl_t *dtp, const dtp_agg_t *desc, uint32_t aggid,
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
		dt_aggregate_fold(desc->dg_kind, e->ae_val, val, nval);
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
	uint64_t drops;

	if (dtp->dt_aggregate == NULL &&
	    (dtp->dt_aggregate = calloc(1, sizeof(struct dt_aggregate))) ==
	    NULL)
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
		uint64_t val[256];
		uint32_t nval;

		if (m->dm_err || aggid >= dtp->dt_naggdesc ||
		    (desc = dtp->dt_aggdesc[aggid]) == NULL ||
		    keysize != dt_proto_agg_keysize(desc) ||
		    valsize != dt_proto_agg_valsize(desc) || valsize == 0 ||
		    valsize > sizeof(val))
			goto bad;
		key = dt_msg_get_bytes(m, keysize);
		vp = dt_msg_get_bytes(m, valsize);
		if (m->dm_err)
			goto bad;
		/* the payload is not aligned for u64 */
		memcpy(val, vp, valsize);
		nval = valsize / sizeof(uint64_t);
		if (dt_aggregate_add(dtp, desc, aggid, key, keysize, val,
		    nval) != 0)
			return -1;
	}
	if (!dt_msg_done(m))
		goto bad;
	return 0;
bad:
	return dt_conn_error(dtp, EDT_PROTO, "malformed AGG from dtraced");
}

static uint64_t
dt_aggregate_isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit != 0) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

static uint64_t
dt_aggregate_stddev(const uint64_t *v)
{
	unsigned __int128 sumsq, mean2;
	int64_t mean;

	if (v[0] == 0)
		return 0;
	mean = (int64_t)v[1] / (int64_t)v[0];
	sumsq = ((unsigned __int128)v[3] << 64 | v[2]) / v[0];
	mean2 = (unsigned __int128)((__int128)mean * mean);
	if (sumsq <= mean2)
		return 0;
	sumsq -= mean2;
	if (sumsq >> 64)
		return UINT64_MAX;
	return dt_aggregate_isqrt((uint64_t)sumsq);
}

static int64_t
dt_aggregate_hist_value(const dtp_agg_t *d, int i)
{
	if (d->dg_kind == DTRACEAGG_QUANTIZE) {
		if (i < DT_AGG_QZERO)
			return -(int64_t)(1ULL << (DT_AGG_QZERO - 1 - i));
		if (i == DT_AGG_QZERO)
			return 0;
		return (int64_t)(1ULL << (i - DT_AGG_QZERO - 1));
	}
	return (int64_t)d->dg_params[0] + (i - 1) * (int64_t)d->dg_params[2];
}

/* The value entries are ordered by. */
static int64_t
dt_aggregate_sortval(const dtp_agg_t *d, const dt_aggent_t *e)
{
	int64_t sum = 0;
	uint32_t i;

	switch (d->dg_kind) {
	case DTRACEAGG_AVG:
		return e->ae_val[0] ? (int64_t)e->ae_val[1] /
		    (int64_t)e->ae_val[0] : 0;
	case DTRACEAGG_STDDEV:
		return (int64_t)dt_aggregate_stddev(e->ae_val);
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
		for (i = 0; i < e->ae_nval; i++)
			sum += (int64_t)e->ae_val[i] *
			    dt_aggregate_hist_value(d, (int)i);
		return sum;
	default:
		return (int64_t)e->ae_val[0];
	}
}

static int
dt_aggregate_keycmp(const dtp_agg_t *d, const dt_aggent_t *a,
    const dt_aggent_t *b)
{
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < d->dg_nkeys; i++) {
		const dtp_aggkey_t *k = &d->dg_keys[i];
		const char *pa = a->ae_key + off, *pb = b->ae_key + off;
		int c = 0;

		if (k->dk_kind == DTP_KEY_STRING) {
			c = strncmp(pa, pb, k->dk_size);
		} else {
			uint64_t va = 0, vb = 0;
			size_t n = k->dk_size < 8 ? k->dk_size : 8;

			memcpy(&va, pa, n);
			memcpy(&vb, pb, n);
			if (k->dk_kind == DTP_KEY_INT && n < 8) {
				va = (uint64_t)((int64_t)(va << (64 - 8 * n)) >>
				    (64 - 8 * n));
				vb = (uint64_t)((int64_t)(vb << (64 - 8 * n)) >>
				    (64 - 8 * n));
			}
			if (k->dk_kind == DTP_KEY_INT)
				c = (int64_t)va < (int64_t)vb ? -1 :
				    (int64_t)va > (int64_t)vb;
			else
				c = va < vb ? -1 : va > vb;
		}
		if (c != 0)
			return c < 0 ? -1 : 1;
		off += DT_AGG_ROUND8(k->dk_size);
	}
	return 0;
}

static const dtp_agg_t *dt_aggregate_sortdesc;

static int
dt_aggregate_cmp(const void *l, const void *r)
{
	const dt_aggent_t *a = *(dt_aggent_t *const *)l;
	const dt_aggent_t *b = *(dt_aggent_t *const *)r;
	const dtp_agg_t *d = dt_aggregate_sortdesc;
	int64_t va = dt_aggregate_sortval(d, a), vb = dt_aggregate_sortval(d, b);

	if (va != vb)
		return va < vb ? -1 : 1;
	return dt_aggregate_keycmp(d, a, b);
}

static int
dt_aggregate_print_keys(FILE *fp, const dtp_agg_t *d, const dt_aggent_t *e)
{
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < d->dg_nkeys; i++) {
		const dtp_aggkey_t *k = &d->dg_keys[i];
		const char *p = e->ae_key + off;

		if (k->dk_kind == DTP_KEY_STRING) {
			fprintf(fp, "  %-50.*s", (int)strnlen(p, k->dk_size),
			    p);
		} else {
			uint64_t v = 0;

			memcpy(&v, p, k->dk_size < 8 ? k->dk_size : 8);
			switch (k->dk_size) {
			case 1:
				fprintf(fp, " %3d", (int)(uint8_t)v);
				break;
			case 2:
				fprintf(fp, " %5d", (int)(uint16_t)v);
				break;
			case 4:
				fprintf(fp, " %8d", (int32_t)(uint32_t)v);
				break;
			default:
				fprintf(fp, " %16lld", (long long)v);
				break;
			}
		}
		off += DT_AGG_ROUND8(k->dk_size);
	}
	return 0;
}

static int
dt_aggregate_quantline(FILE *fp, int64_t val, uint64_t total)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	const int len = 40;
	int depth = 0;

	if (total != 0) {
		long double f = ((long double)(val < 0 ? -val : val) * len) /
		    total;

		depth = (int)(f + 0.5);
		if (depth > len)
			depth = len;
	}
	return fprintf(fp, "|%s%*s %-9lld\n", ats + len - depth, len - depth,
	    "", (long long)val);
}

static int
dt_aggregate_print_hist(FILE *fp, const dtp_agg_t *d, const dt_aggent_t *e)
{
	int n = (int)e->ae_nval, first, last, i;
	uint64_t total = 0;

	for (i = 0; i < n; i++)
		total += (int64_t)e->ae_val[i] < 0 ? -e->ae_val[i] :
		    e->ae_val[i];
	for (first = 0; first < n && e->ae_val[first] == 0; first++)
		continue;
	if (first == n) {
		if (d->dg_kind == DTRACEAGG_QUANTIZE) {
			first = DT_AGG_QZERO - 1;
			last = DT_AGG_QZERO + 1;
		} else {
			first = 0;
			last = n > 1 ? 1 : 0;
		}
	} else {
		if (first > 0)
			first--;
		for (last = n - 1; last > 0 && e->ae_val[last] == 0; last--)
			continue;
		if (last < n - 1)
			last++;
	}
	fprintf(fp, "\n%16s %41s %-9s\n", "value",
	    "------------- Distribution -------------", "count");
	for (i = first; i <= last; i++) {
		if (d->dg_kind == DTRACEAGG_LQUANTIZE && i == 0) {
			char c[32];

			snprintf(c, sizeof(c), "< %lld",
			    (long long)(int64_t)d->dg_params[0]);
			fprintf(fp, "%16s ", c);
		} else if (d->dg_kind == DTRACEAGG_LQUANTIZE && i == n - 1) {
			char c[32];

			snprintf(c, sizeof(c), ">= %lld",
			    (long long)(int64_t)d->dg_params[0] +
			    (long long)(n - 2) * (int64_t)d->dg_params[2]);
			fprintf(fp, "%16s ", c);
		} else {
			fprintf(fp, "%16lld ",
			    (long long)dt_aggregate_hist_value(d, i));
		}
		if (dt_aggregate_quantline(fp, (int64_t)e->ae_val[i],
		    total) < 0)
			return -1;
	}
	return 0;
}

static int
dt_aggregate_print_value(FILE *fp, const dtp_agg_t *d, const dt_aggent_t *e)
{
	switch (d->dg_kind) {
	case DTRACEAGG_COUNT:
	case DTRACEAGG_SUM:
	case DTRACEAGG_MIN:
	case DTRACEAGG_MAX:
	case DTRACEAGG_AVG:
		return fprintf(fp, " %16lld",
		    (long long)dt_aggregate_sortval(d, e));
	case DTRACEAGG_STDDEV:
		return fprintf(fp, " %16llu",
		    (unsigned long long)dt_aggregate_stddev(e->ae_val));
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
		return dt_aggregate_print_hist(fp, d, e);
	default:
		errno = ENOTSUP;
		return -1;
	}
}

/*
 * Print every aggregation with entries, in id order: its entries, each
 * a line, then a blank line.  dtrace(1) prints the blank line that
 * comes before the first aggregation.
 */
int
dtrace_aggregate_print(dtrace_hdl_t *dtp, FILE *fp, void *unused)
{
	struct dt_aggregate *ag = dtp->dt_aggregate;
	dt_aggent_t **v;
	uint32_t id;
	size_t i, n;

	if (ag == NULL || ag->ag_n == 0)
		return 0;
	if ((v = malloc(ag->ag_n * sizeof(*v))) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	for (id = 0; id < dtp->dt_naggdesc; id++) {
		const dtp_agg_t *d = dtp->dt_aggdesc[id];

		if (d == NULL)
			continue;
		for (i = 0, n = 0; i < ag->ag_n; i++) {
			if (ag->ag_all[i]->ae_aggid == id)
				v[n++] = ag->ag_all[i];
		}
		if (n == 0)
			continue;
		dt_aggregate_sortdesc = d;
		qsort(v, n, sizeof(*v), dt_aggregate_cmp);
		if (dtp->dt_options[DTRACEOPT_AGGSORTREV] != DTRACEOPT_UNSET) {
			for (i = 0; i < n / 2; i++) {
				dt_aggent_t *t = v[i];

				v[i] = v[n - 1 - i];
				v[n - 1 - i] = t;
			}
		}
		for (i = 0; i < n; i++) {
			dt_aggregate_print_keys(fp, d, v[i]);
			if (dt_aggregate_print_value(fp, d, v[i]) < 0 ||
			    fprintf(fp, "\n") < 0) {
				free(v);
				return dt_set_errno(dtp, errno);
			}
		}
		if (fprintf(fp, "\n") < 0) {
			free(v);
			return dt_set_errno(dtp, errno);
		}
	}
	free(v);
	return 0;
}
