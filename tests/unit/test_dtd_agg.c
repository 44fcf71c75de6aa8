/*
 * test_dtd_agg.c: per-CPU aggregation buffers: count and sum per key,
 * switching snapshots, drops when full; every function's update rule
 * and illumos's bucket math for quantize, lquantize and llquantize.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"
#include "tap.h"

typedef struct {
	uint32_t	aggid;
	char		key[16];
	uint32_t	keysize;
	uint64_t	val;
	int		found;
} want_t;

static int
check(dtd_agg_t *a, int cpu, want_t *w, int nw, uint64_t drops,
    const char *what)
{
	dtd_aggsnap_t s;
	const void *key;
	const uint64_t *val;
	uint32_t aggid, ks, vs;
	int i, n = 0, bad = 0;

	dtd_agg_snap(a, cpu, &s);
	for (i = 0; i < nw; i++)
		w[i].found = 0;
	while (dtd_agg_next(&s, &aggid, &key, &ks, &val, &vs)) {
		n++;
		for (i = 0; i < nw; i++) {
			if (w[i].aggid == aggid && w[i].keysize == ks &&
			    memcmp(w[i].key, key, ks) == 0)
				break;
		}
		if (i == nw || vs != 8 || val[0] != w[i].val || w[i].found++)
			bad++;
	}
	tap_is(n, nw, "%s: %d entries", what, nw);
	tap_is(s.das_nent, nw, "%s: nent", what);
	tap_is(bad, 0, "%s: values as expected", what);
	tap_is(s.das_drops, drops, "%s: drops", what);
	return bad;
}

static dtp_agg_t	the_agg;

/* An aggregation without keys of one kind (params left as set). */
static const dtp_agg_t *
agg(uint32_t id, uint32_t kind)
{
	the_agg.dg_id = id;
	the_agg.dg_kind = kind;
	return &the_agg;
}

/* Aggregate the values v[0..n-1] with g on a fresh buffer; the result. */
static const uint64_t *
run(const dtp_agg_t *g, const int64_t *v, int n, uint64_t incr)
{
	static uint64_t out[4096];
	dtd_aggsnap_t s;
	const void *key;
	const uint64_t *val;
	uint32_t aggid, ks, vs;
	dtd_agg_t a;
	int i;

	memset(out, 0xee, sizeof(out));
	if (dtd_agg_init(&a, 1, 1 << 20) != 0)
		return out;
	for (i = 0; i < n; i++)
		dtd_agg_update(&a, 0, g, NULL, 0, (uint64_t)v[i], incr);
	dtd_agg_snap(&a, 0, &s);
	if (dtd_agg_next(&s, &aggid, &key, &ks, &val, &vs) &&
	    vs <= sizeof(out))
		memcpy(out, val, vs);
	dtd_agg_fini(&a);
	return out;
}

static void
test_funcs(void)
{
	static const int64_t v[] = { 5, -7, 3, 10 };
	dtp_agg_t g;
	const uint64_t *r;

	memset(&g, 0, sizeof(g));
	g.dg_id = 1;
	g.dg_kind = DTRACEAGG_MIN;
	tap_is((int64_t)run(&g, v, 4, 1)[0], -7, "min");
	g.dg_kind = DTRACEAGG_MAX;
	tap_is((int64_t)run(&g, v, 4, 1)[0], 10, "max");
	tap_is((int64_t)run(&g, v, 1, 1)[0], 5, "max of one value");
	g.dg_kind = DTRACEAGG_SUM;
	tap_is((int64_t)run(&g, v, 4, 1)[0], 11, "sum");
	g.dg_kind = DTRACEAGG_AVG;
	r = run(&g, v, 4, 1);
	tap_is(r[0], 4, "avg: count");
	tap_is((int64_t)r[1], 11, "avg: total");
	g.dg_kind = DTRACEAGG_STDDEV;
	r = run(&g, v, 4, 1);
	tap_is(r[0], 4, "stddev: count");
	tap_is((int64_t)r[1], 11, "stddev: total");
	tap_is(r[2], 25 + 49 + 9 + 100, "stddev: sum of squares, low");
	tap_is(r[3], 0, "stddev: sum of squares, high");
	{
		static const int64_t big[] = { INT64_MIN, INT64_MIN };

		r = run(&g, big, 2, 1);
		/* 2 * 2^126 = 2^127 */
		tap_is(r[2], 0, "stddev: 128-bit square, low");
		tap_is(r[3], 1ULL << 63, "stddev: 128-bit square, high");
	}
}

static void
test_buckets(void)
{
	dtp_agg_t g;
	const uint64_t *r;
	static const int64_t q[] = { 0, 1, 2, 3, 4, -1, -2, -3, 1000 };
	int64_t v;

	/* quantize: illumos's 127 buckets, 0 at 63 */
	memset(&g, 0, sizeof(g));
	g.dg_kind = DTRACEAGG_QUANTIZE;
	tap_is(dt_proto_agg_nbuckets(&g), 127, "quantize: 127 buckets");
	tap_is(dtd_agg_quantize_bucket(0), 63, "quantize 0");
	tap_is(dtd_agg_quantize_bucket(1), 64, "quantize 1");
	tap_is(dtd_agg_quantize_bucket(2), 65, "quantize 2");
	tap_is(dtd_agg_quantize_bucket(3), 65, "quantize 3");
	tap_is(dtd_agg_quantize_bucket(4), 66, "quantize 4");
	tap_is(dtd_agg_quantize_bucket(-1), 62, "quantize -1");
	tap_is(dtd_agg_quantize_bucket(-2), 61, "quantize -2");
	tap_is(dtd_agg_quantize_bucket(-3), 61, "quantize -3: with -2");
	tap_is(dtd_agg_quantize_bucket(INT64_MAX), 126, "quantize max");
	tap_is(dtd_agg_quantize_bucket(INT64_MIN), 0, "quantize min");
	tap_is(dtd_agg_quantize_value(64), 1, "bucket 64 is 1");
	tap_is(dtd_agg_quantize_value(62), -1, "bucket 62 is -1");
	r = run(&g, q, 9, 3);
	tap_is(r[63], 3, "quantize: increment");
	tap_is(r[65], 6, "quantize: 2 and 3 together");
	tap_is(r[73], 3, "quantize: 1000 in 512");

	/* lquantize(x, 0, 10, 3): 3 levels (0, 3, 6), < 0 and >= 9 */
	g.dg_kind = DTRACEAGG_LQUANTIZE;
	g.dg_params[0] = 0;
	g.dg_params[1] = 10;
	g.dg_params[2] = 3;
	tap_is(dt_proto_agg_nbuckets(&g), 5, "lquantize: levels + 2");
	tap_is(dtd_agg_lquantize_bucket(&g, -1), 0, "lquantize underflow");
	tap_is(dtd_agg_lquantize_bucket(&g, 0), 1, "lquantize 0");
	tap_is(dtd_agg_lquantize_bucket(&g, 5), 2, "lquantize 5");
	tap_is(dtd_agg_lquantize_bucket(&g, 8), 3, "lquantize 8");
	tap_is(dtd_agg_lquantize_bucket(&g, 9), 4, "lquantize 9: overflow");
	tap_is(dtd_agg_lquantize_bucket(&g, 1LL << 32), 1,
	    "lquantize takes 32 bits");
	g.dg_params[2] = 0;
	tap_is(dt_proto_agg_nbuckets(&g), -1, "lquantize step 0 refused");
	g.dg_params[2] = 1;
	g.dg_params[1] = 100000;
	tap_is(dt_proto_agg_nbuckets(&g), -1, "lquantize 100000 levels refused");

	/* llquantize(x, 10, 0, 2, 10): <1, 1..9, 10..90, 100..900, >= 1000 */
	g.dg_kind = DTRACEAGG_LLQUANTIZE;
	g.dg_params[0] = 10;
	g.dg_params[1] = 0;
	g.dg_params[2] = 2;
	g.dg_params[3] = 10;
	tap_is(dt_proto_agg_nbuckets(&g), 29, "llquantize: 1 + 3 * 9 + 1");
	tap_is(dtd_agg_llquantize_bucket(&g, 0), 0, "llquantize 0");
	tap_is(dtd_agg_llquantize_bucket(&g, 1), 1, "llquantize 1");
	tap_is(dtd_agg_llquantize_bucket(&g, 9), 9, "llquantize 9");
	tap_is(dtd_agg_llquantize_bucket(&g, 10), 10, "llquantize 10");
	tap_is(dtd_agg_llquantize_bucket(&g, 55), 14, "llquantize 55");
	tap_is(dtd_agg_llquantize_bucket(&g, 999), 27, "llquantize 999");
	tap_is(dtd_agg_llquantize_bucket(&g, 1000), 28, "llquantize 1000");
	tap_is(dtd_agg_llquantize_bucket(&g, INT64_MAX), 28,
	    "llquantize max: nbuckets - 1");
	/*
	 * factor 2, 0..4, 4 steps: a magnitude has at most its own size
	 * in buckets, less the previous one's: 1 | 2 3 | 4 6 | 8 12 |
	 * 16 24 | >= 32
	 */
	g.dg_params[0] = 2;
	g.dg_params[2] = 4;
	g.dg_params[3] = 4;
	v = dtd_agg_llquantize_bucket(&g, INT64_MAX);
	tap_is(dt_proto_agg_nbuckets(&g), (int)v + 1,
	    "llquantize: nbuckets is the top bucket + 1");
	tap_is(dtd_agg_llquantize_bucket(&g, 1), 1, "llquantize/2: 1");
	tap_is(dtd_agg_llquantize_bucket(&g, 3), 3, "llquantize/2: 3");
	tap_is(dtd_agg_llquantize_bucket(&g, 7), 5, "llquantize/2: 7 with 6");
	tap_is(dtd_agg_llquantize_bucket(&g, 9), 6, "llquantize/2: 9 with 8");
	tap_is(dtd_agg_llquantize_bucket(&g, 31), 9, "llquantize/2: 31 with 24");
	tap_is(dtd_agg_llquantize_bucket(&g, 32), 10, "llquantize/2: 32 over");
	g.dg_params[3] = 6;
	tap_is(dt_proto_agg_nbuckets(&g), -1, "llquantize uneven steps refused");
	g.dg_params[0] = 10;
	g.dg_params[2] = 19;
	g.dg_params[3] = 10;
	/*
	 * factor 10 up to magnitude 19: 10^19 and 10^20 pass INT64_MAX,
	 * so magnitude 18 ends there (its steps INT64_MAX / 10 wide) and
	 * 19 is empty, as in illumos; INT64_MAX alone is in the top bucket
	 */
	v = dt_proto_agg_nbuckets(&g);
	tap_is(v, 1 + 20 * 9 + 1, "llquantize to 10^19: 20 magnitudes");
	tap_is(dtd_agg_llquantize_bucket(&g, INT64_MAX), (int)v - 1,
	    "llquantize to 10^19: INT64_MAX on top");
	tap_is(dtd_agg_llquantize_bucket(&g, INT64_MAX - 1), 1 + 18 * 9 + 8,
	    "llquantize to 10^19: INT64_MAX - 1 in magnitude 18's last");
	tap_is(dtd_agg_llquantize_bucket(&g, 1000000000000000000LL),
	    1 + 18 * 9, "llquantize to 10^19: 10^18 opens magnitude 18");
	g.dg_params[2] = 65535;
	tap_is(dt_proto_agg_nbuckets(&g), 1 + 65536 * 9 + 1,
	    "llquantize to magnitude 65535: empty magnitudes kept");
	g.dg_params[0] = 2;
	g.dg_params[3] = 65536 / 2;
	tap_is(dt_proto_agg_nbuckets(&g), -1, "llquantize: too many buckets");
	tap_is(dt_proto_llq_mul(INT64_MAX / 3 + 1, 3), INT64_MAX,
	    "llq_mul saturates");
	tap_is(dt_proto_llq_pow(2, 62), 1LL << 62, "llq_pow 2^62");
	tap_is(dt_proto_llq_pow(2, 63), INT64_MAX, "llq_pow 2^63 saturates");
}

/* A peek (snapshot of a retained program) consumes nothing. */
static void
test_peek(void)
{
	dtd_agg_t a;
	dtd_aggsnap_t s;
	const void *key;
	const uint64_t *val;
	uint32_t aggid, ks, vs;
	char ka[8] = "a";
	int i;

	tap_is(dtd_agg_init(&a, 1, 4096), 0, "peek: init");
	for (i = 0; i < 4; i++)
		dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1);
	dtd_agg_peek(&a, 0, &s);
	tap_ok(dtd_agg_next(&s, &aggid, &key, &ks, &val, &vs) && val[0] == 4 &&
	    !dtd_agg_next(&s, &aggid, &key, &ks, &val, &vs), "peek: count 4");
	dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1);
	dtd_agg_peek(&a, 0, &s);
	tap_ok(dtd_agg_next(&s, &aggid, &key, &ks, &val, &vs) && val[0] == 5,
	    "peek again: count 5, nothing was consumed");
	dtd_agg_snap(&a, 0, &s);
	tap_ok(dtd_agg_next(&s, &aggid, &key, &ks, &val, &vs) && val[0] == 5,
	    "snapshot after peeks: count 5");
	dtd_agg_snap(&a, 0, &s);
	tap_is(s.das_nent, 0, "then empty");
	tap_is(dtd_agg_drops(&a), 0, "no drops");
	dtd_agg_fini(&a);
}

/*
 * dtd_agg_copy: every CPU's active arena in one buffer, consuming
 * nothing: a later snapshot of each CPU still has everything.
 */
static void
test_copy(void)
{
	dtd_agg_t a;
	dtd_aggsnap_t s;
	const void *key;
	const uint64_t *val;
	uint32_t aggid, ks, vs;
	char ka[8] = "a", kb[8] = "b";
	uint64_t tot_a = 0, tot_b = 0;
	int i, n = 0;

	tap_is(dtd_agg_init(&a, 3, 4096), 0, "copy: init, 3 CPUs");
	tap_is(dtd_agg_copy(&a, &s), 0, "copy of nothing");
	tap_is(s.das_len, 0, "copy of nothing: empty");
	free((void *)s.das_data);
	for (i = 0; i < 5; i++)
		dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1);
	for (i = 0; i < 7; i++)
		dtd_agg_update(&a, 2, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1);
	dtd_agg_update(&a, 2, agg(1, DTRACEAGG_COUNT), kb, 8, 0, 1);
	tap_is(dtd_agg_copy(&a, &s), 0, "copy");
	tap_is(s.das_nent, 3, "copy: a on CPUs 0 and 2, b on 2");
	while (dtd_agg_next(&s, &aggid, &key, &ks, &val, &vs)) {
		n++;
		if (memcmp(key, ka, 8) == 0)
			tot_a += val[0];
		else
			tot_b += val[0];
	}
	tap_is(n, 3, "copy: 3 entries to walk");
	tap_is(tot_a, 12, "copy: a counted 5 + 7");
	tap_is(tot_b, 1, "copy: b counted 1");
	free((void *)s.das_data);
	tap_is(dtd_agg_copy(&a, &s), 0, "copy again");
	tap_is(s.das_nent, 3, "copy again: consumed nothing");
	free((void *)s.das_data);
	dtd_agg_snap(&a, 2, &s);
	tap_is(s.das_nent, 2, "a snapshot of CPU 2 after the copies: a and b");
	dtd_agg_fini(&a);
}

int
main(void)
{
	dtd_agg_t a;
	char ka[8] = "a", kb[8] = "b", kc[8] = "c";
	want_t w[3];
	int i;

	test_peek();
	test_copy();
	tap_is(dtd_agg_init(&a, 2, 4096), 0, "init");
	for (i = 0; i < 3; i++)
		tap_is(dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1), 0,
		    "count a on cpu 0");
	for (i = 0; i < 2; i++)
		dtd_agg_update(&a, 1, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1);
	dtd_agg_update(&a, 0, agg(2, DTRACEAGG_SUM), kb, 8, 5, 1);
	dtd_agg_update(&a, 0, agg(2, DTRACEAGG_SUM), kb, 8, 7, 1);
	dtd_agg_update(&a, 0, agg(2, DTRACEAGG_SUM), ka, 8, (uint64_t)-2, 1);
	dtd_agg_update(&a, 0, agg(3, DTRACEAGG_COUNT), NULL, 0, 0, 1);

	memset(w, 0, sizeof(w));
	w[0].aggid = 1; memcpy(w[0].key, ka, 8); w[0].keysize = 8; w[0].val = 3;
	w[1].aggid = 2; memcpy(w[1].key, kb, 8); w[1].keysize = 8; w[1].val = 12;
	w[2].aggid = 2; memcpy(w[2].key, ka, 8); w[2].keysize = 8;
	w[2].val = (uint64_t)-2;
	{
		want_t w4[4];

		memcpy(w4, w, sizeof(w));
		memset(&w4[3], 0, sizeof(w4[3]));
		w4[3].aggid = 3;
		w4[3].val = 1;
		check(&a, 0, w4, 4, 0, "cpu 0");
	}
	w[0].val = 2;
	check(&a, 1, w, 1, 0, "cpu 1");
	check(&a, 0, w, 0, 0, "cpu 0 after its snapshot");

	dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1);
	w[0].val = 1;
	check(&a, 0, w, 1, 0, "counts restart after a switch");

	errno = 0;
	tap_is(dtd_agg_update(&a, 0, agg(1, DTRACEACT_PRINTA), ka, 8, 0, 1), -1,
	    "not an aggregating function");
	tap_is(errno, ENOTSUP, "ENOTSUP");
	dtd_agg_fini(&a);

	test_funcs();
	test_buckets();

	/* 64 bytes hold one 40-byte entry */
	tap_is(dtd_agg_init(&a, 1, 64), 0, "init tiny");
	tap_is(dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1), 0,
	    "first key fits");
	tap_is(dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), kb, 8, 0, 1), -1,
	    "second key dropped");
	tap_is(dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), kc, 8, 0, 1), -1,
	    "third key dropped");
	tap_is(dtd_agg_update(&a, 0, agg(1, DTRACEAGG_COUNT), ka, 8, 0, 1), 0,
	    "existing key still counts");
	w[0].val = 2;
	check(&a, 0, w, 1, 2, "full buffer");
	dtd_agg_fini(&a);
	return tap_done();
}
