/*
 * dtd_agg.c: per-CPU aggregation buffers.
 *
 * Each CPU owns two arenas of aggsize bytes (active, inactive) and a hash
 * index for each.  An entry is a 24-byte header (u32 next, u32 aggid,
 * u32 keysize, u32 valsize, u64 hash), the key padded to 8 bytes, then
 * valsize bytes of u64 values.  Entries are never freed inside an arena:
 * a snapshot switches arenas and empties the new active one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"

#define DTD_AGG_ROUND8(x)	(((x) + 7) & ~(size_t)7)

typedef struct dtd_aggent {
	uint32_t	dae_next;	/* offset + 1 of the next in the bucket */
	uint32_t	dae_aggid;
	uint32_t	dae_keysize;
	uint32_t	dae_valsize;
	uint64_t	dae_hash;
} dtd_aggent_t;

static uint64_t
dtd_agg_hash(uint32_t aggid, const void *key, uint32_t keysize)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull ^ aggid, w;
	uint32_t i;

	/*
	 * A word at a time: a key holds strings of strsize bytes (256 by
	 * default), hashed on every update; a byte at a time, they were
	 * half of the daemon's time under syscall:::entry { @[execname] =
	 * count(); }.
	 */
	for (i = 0; i + 8 <= keysize; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	for (; i < keysize; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

int
dtd_agg_init(dtd_agg_t *a, int ncpu, size_t size)
{
	uint32_t nb = 64;
	int i, k;

	memset(a, 0, sizeof(*a));
	if (ncpu < 1 || size < DTD_MIN_BUFSIZE || size > UINT32_MAX - 1) {
		errno = EINVAL;
		return -1;
	}
	/* about one bucket per 256 bytes of arena */
	while (nb < size / 256 && nb < (1u << 20))
		nb <<= 1;
	a->da_size = size & ~(size_t)7;
	a->da_nbucket = nb;
	if ((a->da_cpu = calloc(ncpu, sizeof(*a->da_cpu))) == NULL)
		return -1;
	for (i = 0; i < ncpu; i++) {
		dtd_aggcpu_t *c = &a->da_cpu[i];

		a->da_ncpu = i + 1;
		pthread_mutex_init(&c->dac_lock, NULL);
		for (k = 0; k < 2; k++) {
			if ((c->dac_data[k] = calloc(1, a->da_size)) == NULL ||
			    (c->dac_hash[k] = calloc(nb, sizeof(uint32_t))) == NULL) {
				dtd_agg_fini(a);
				errno = ENOMEM;
				return -1;
			}
		}
	}
	return 0;
}

void
dtd_agg_fini(dtd_agg_t *a)
{
	int i;

	if (a->da_cpu == NULL)
		return;
	for (i = 0; i < a->da_ncpu; i++) {
		dtd_aggcpu_t *c = &a->da_cpu[i];

		free(c->dac_data[0]);
		free(c->dac_data[1]);
		free(c->dac_hash[0]);
		free(c->dac_hash[1]);
		pthread_mutex_destroy(&c->dac_lock);
	}
	free(a->da_cpu);
	memset(a, 0, sizeof(*a));
}

/* illumos's DTRACE_QUANTIZE_BUCKETVAL: the lowest value of bucket i. */
int64_t
dtd_agg_quantize_value(int i)
{
	int zero = DT_PROTO_QUANTIZE_ZERO;

	if (i < zero)
		return -(int64_t)(1ULL << (zero - 1 - i));
	if (i == zero)
		return 0;
	return (int64_t)(1ULL << (i - zero - 1));
}

/* The quantize() bucket of val, as illumos's kernel picks it. */
int
dtd_agg_quantize_bucket(int64_t val)
{
	int i, zero = DT_PROTO_QUANTIZE_ZERO;

	if (val < 0) {
		for (i = 0; i < zero; i++) {
			if (val <= dtd_agg_quantize_value(i))
				return i;
		}
		return zero - 1;	/* not reached: bucket 0 is -2^62 */
	}
	for (i = zero + 1; i < DT_PROTO_QUANTIZE_NBUCKETS; i++) {
		if (val < dtd_agg_quantize_value(i))
			return i - 1;
	}
	return DT_PROTO_QUANTIZE_NBUCKETS - 1;
}

/*
 * The lquantize() bucket of val: 0 below lo, then one per step, then
 * the overflow bucket.  illumos takes the value as a 32-bit quantity.
 */
int
dtd_agg_lquantize_bucket(const dtp_agg_t *g, int64_t val)
{
	int64_t base = (int64_t)g->dg_params[0];
	int64_t step = (int64_t)g->dg_params[2];
	int64_t levels = ((int64_t)g->dg_params[1] - base) / step;
	int64_t v = (int32_t)(uint32_t)(uint64_t)val, level;

	if (v < base)
		return 0;
	level = (v - base) / step;
	if (level < levels)
		return (int)level + 1;
	return (int)levels + 1;
}

/*
 * The llquantize() bucket of val (illumos's layout): 0 below factor^lo;
 * then each magnitude [factor^k, factor^(k+1)) split in at most nsteps
 * equal buckets, less those the previous magnitude already covers; the
 * last bucket takes factor^(hi+1) and up.  As in illumos, a magnitude
 * whose top does not fit in 63 bits ends at INT64_MAX (dt_proto_llq_mul).
 */
int
dtd_agg_llquantize_bucket(const dtp_agg_t *g, int64_t val)
{
	uint64_t factor = g->dg_params[0];
	int64_t lo = (int64_t)g->dg_params[1], hi = (int64_t)g->dg_params[2];
	int64_t nsteps = (int64_t)g->dg_params[3];
	int64_t this, last, order, base = 1;

	this = dt_proto_llq_pow(factor, (uint64_t)lo);
	if (val < (last = this))
		return 0;
	for (order = lo; order <= hi; order++) {
		int64_t nb;

		this = dt_proto_llq_mul(this, factor);
		nb = this > nsteps ? nsteps : this;
		if (val < this)
			return (int)(base + (val - last) / (this / nb));
		base += nb - nb / (int64_t)factor;
		last = this;
	}
	return (int)base;
}

/* A new entry's value: min and max start from the far end. */
static void
dtd_agg_initval(uint32_t kind, uint64_t *v)
{
	if (kind == DTRACEAGG_MIN)
		v[0] = (uint64_t)INT64_MAX;
	else if (kind == DTRACEAGG_MAX)
		v[0] = (uint64_t)INT64_MIN;
}

/*
 * Aggregate val (with increment incr, for the histograms) for g's key
 * on cpu.  Returns 0, or -1 when a new key did not fit (a drop, counted
 * for that CPU) or the function is unknown (errno ENOTSUP).
 */
int
dtd_agg_update(dtd_agg_t *a, int cpu, const dtp_agg_t *g, const void *key,
    uint32_t keysize, uint64_t val, uint64_t incr)
{
	uint32_t aggid = g->dg_id, kind = g->dg_kind, valsize;
	dtd_aggcpu_t *c;
	dtd_aggent_t *e = NULL;
	uint64_t h, *v, sq, lo;
	uint32_t *head, off;
	int64_t sval;
	char *data;
	size_t need;
	int b;

	valsize = (uint32_t)dt_proto_agg_valsize(g);
	if (valsize == 0) {
		errno = ENOTSUP;
		return -1;
	}
	/* the bucket first: it reads only the parameters */
	switch (kind) {
	case DTRACEAGG_QUANTIZE:
		b = dtd_agg_quantize_bucket((int64_t)val);
		break;
	case DTRACEAGG_LQUANTIZE:
		b = dtd_agg_lquantize_bucket(g, (int64_t)val);
		break;
	case DTRACEAGG_LLQUANTIZE:
		b = dtd_agg_llquantize_bucket(g, (int64_t)val);
		break;
	default:
		b = 0;
		break;
	}
	if (b < 0 || (uint32_t)b >= valsize / 8) {
		errno = ERANGE;
		return -1;
	}
	if (cpu < 0 || cpu >= a->da_ncpu)
		cpu = 0;
	c = &a->da_cpu[cpu];
	h = dtd_agg_hash(aggid, key, keysize);

	pthread_mutex_lock(&c->dac_lock);
	data = c->dac_data[c->dac_active];
	head = &c->dac_hash[c->dac_active][h & (a->da_nbucket - 1)];
	for (off = *head; off != 0; off = e->dae_next) {
		e = (dtd_aggent_t *)(data + off - 1);
		if (e->dae_hash == h && e->dae_aggid == aggid &&
		    e->dae_keysize == keysize &&
		    (keysize == 0 || memcmp(e + 1, key, keysize) == 0))
			break;
	}
	if (off == 0) {
		need = sizeof(*e) + DTD_AGG_ROUND8(keysize) + valsize;
		if (need > a->da_size || c->dac_off > a->da_size - need) {
			c->dac_drops++;
			pthread_mutex_unlock(&c->dac_lock);
			return -1;
		}
		e = (dtd_aggent_t *)(data + c->dac_off);
		e->dae_next = *head;
		e->dae_aggid = aggid;
		e->dae_keysize = keysize;
		e->dae_valsize = valsize;
		e->dae_hash = h;
		if (keysize > 0)
			memcpy(e + 1, key, keysize);
		memset((char *)(e + 1) + keysize, 0,
		    DTD_AGG_ROUND8(keysize) - keysize + valsize);
		dtd_agg_initval(kind,
		    (uint64_t *)((char *)(e + 1) + DTD_AGG_ROUND8(keysize)));
		*head = (uint32_t)c->dac_off + 1;
		c->dac_off += need;
		c->dac_nent++;
	}
	v = (uint64_t *)((char *)(e + 1) + DTD_AGG_ROUND8(keysize));
	sval = (int64_t)val;
	switch (kind) {
	case DTRACEAGG_COUNT:
		v[0]++;
		break;
	case DTRACEAGG_SUM:
		v[0] += val;
		break;
	case DTRACEAGG_MIN:
		if (sval < (int64_t)v[0])
			v[0] = val;
		break;
	case DTRACEAGG_MAX:
		if (sval > (int64_t)v[0])
			v[0] = val;
		break;
	case DTRACEAGG_AVG:
		v[0]++;
		v[1] += val;
		break;
	case DTRACEAGG_STDDEV: {
		/* the square of |val| as 128 bits, added to v[2] (low), v[3] */
		unsigned __int128 s2;
		uint64_t mag = sval < 0 ? -(uint64_t)val : val;

		v[0]++;
		v[1] += val;
		s2 = (unsigned __int128)mag * mag;
		sq = (uint64_t)(s2 >> 64);
		lo = (uint64_t)s2;
		v[2] += lo;
		v[3] += sq + (v[2] < lo);
		break;
	}
	default:	/* the histograms */
		v[b] += incr;
		break;
	}
	pthread_mutex_unlock(&c->dac_lock);
	return 0;
}

/* Switch cpu's arenas; iterate the result with dtd_agg_next. */
void
dtd_agg_snap(dtd_agg_t *a, int cpu, dtd_aggsnap_t *s)
{
	dtd_aggcpu_t *c = &a->da_cpu[cpu];
	int was;

	pthread_mutex_lock(&c->dac_lock);
	was = c->dac_active;
	s->das_data = c->dac_data[was];
	s->das_len = c->dac_off;
	s->das_off = 0;
	s->das_nent = c->dac_nent;
	s->das_drops = c->dac_drops;
	c->dac_active = !was;
	c->dac_off = 0;
	c->dac_nent = 0;
	c->dac_drops = 0;
	memset(c->dac_hash[!was], 0, a->da_nbucket * sizeof(uint32_t));
	pthread_mutex_unlock(&c->dac_lock);
}

/*
 * A snapshot that consumes nothing (a retained program's snapshot grab):
 * a copy of cpu's active arena, made in its inactive one under the lock,
 * while values change in place.  Entries and drops stay where they are;
 * what the inactive arena held (the previous snapshot) is gone.
 */
void
dtd_agg_peek(dtd_agg_t *a, int cpu, dtd_aggsnap_t *s)
{
	dtd_aggcpu_t *c = &a->da_cpu[cpu];
	int act;

	pthread_mutex_lock(&c->dac_lock);
	act = c->dac_active;
	memcpy(c->dac_data[!act], c->dac_data[act], c->dac_off);
	s->das_data = c->dac_data[!act];
	s->das_len = c->dac_off;
	s->das_off = 0;
	s->das_nent = c->dac_nent;
	s->das_drops = c->dac_drops;
	pthread_mutex_unlock(&c->dac_lock);
}

/*
 * A consistent copy of every CPU's active arena, for a reader that must
 * not consume (the metrics exporter): all the CPUs' locks are held at
 * once, so the copy is one instant of the aggregations, with no update
 * seen on one CPU and missed on another.  A hit waits at most for the
 * copy.  The entries of every CPU follow one another in s->das_data
 * (malloc'd: the caller frees it), for dtd_agg_next; the same key may
 * appear once per CPU.  -1 (ENOMEM) when the copy cannot be had.
 */
int
dtd_agg_copy(dtd_agg_t *a, dtd_aggsnap_t *s)
{
	size_t need = 0, have = 0, off;
	char *buf = NULL, *nbuf;
	int cpu;

	memset(s, 0, sizeof(*s));
	for (;;) {
		for (cpu = 0; cpu < a->da_ncpu; cpu++)
			pthread_mutex_lock(&a->da_cpu[cpu].dac_lock);
		need = 0;
		for (cpu = 0; cpu < a->da_ncpu; cpu++)
			need += a->da_cpu[cpu].dac_off;
		if (need <= have)
			break;
		for (cpu = a->da_ncpu - 1; cpu >= 0; cpu--)
			pthread_mutex_unlock(&a->da_cpu[cpu].dac_lock);
		/* outside the locks; room for what a hit adds meanwhile */
		have = need + need / 8 + 4096;
		if ((nbuf = realloc(buf, have)) == NULL) {
			free(buf);
			errno = ENOMEM;
			return -1;
		}
		buf = nbuf;
	}
	off = 0;
	for (cpu = 0; cpu < a->da_ncpu; cpu++) {
		dtd_aggcpu_t *c = &a->da_cpu[cpu];

		if (c->dac_off > 0)
			memcpy(buf + off, c->dac_data[c->dac_active],
			    c->dac_off);
		off += c->dac_off;
		s->das_nent += c->dac_nent;
		s->das_drops += c->dac_drops;
	}
	for (cpu = a->da_ncpu - 1; cpu >= 0; cpu--)
		pthread_mutex_unlock(&a->da_cpu[cpu].dac_lock);
	s->das_data = buf;
	s->das_len = off;
	return 0;
}

/* Aggregation drops not yet handed out, on every CPU. */
uint64_t
dtd_agg_drops(dtd_agg_t *a)
{
	uint64_t n = 0;
	int cpu;

	for (cpu = 0; cpu < a->da_ncpu; cpu++) {
		pthread_mutex_lock(&a->da_cpu[cpu].dac_lock);
		n += a->da_cpu[cpu].dac_drops;
		pthread_mutex_unlock(&a->da_cpu[cpu].dac_lock);
	}
	return n;
}

int
dtd_agg_next(dtd_aggsnap_t *s, uint32_t *aggid, const void **key,
    uint32_t *keysize, const uint64_t **val, uint32_t *valsize)
{
	const dtd_aggent_t *e;

	if (s->das_off + sizeof(*e) > s->das_len)
		return 0;
	e = (const dtd_aggent_t *)(s->das_data + s->das_off);
	*aggid = e->dae_aggid;
	*key = e + 1;
	*keysize = e->dae_keysize;
	*val = (const uint64_t *)((const char *)(e + 1) +
	    DTD_AGG_ROUND8(e->dae_keysize));
	*valsize = e->dae_valsize;
	s->das_off += sizeof(*e) + DTD_AGG_ROUND8(e->dae_keysize) +
	    e->dae_valsize;
	return 1;
}
