/*
 * test_dtd_agg.c: per-CPU aggregation buffers: count and sum per key,
 * switching snapshots, drops when full.
 */
#include <errno.h>
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

int
main(void)
{
	dtd_agg_t a;
	char ka[8] = "a", kb[8] = "b", kc[8] = "c";
	want_t w[3];
	int i;

	tap_is(dtd_agg_init(&a, 2, 4096), 0, "init");
	for (i = 0; i < 3; i++)
		tap_is(dtd_agg_update(&a, 0, 1, DTRACEAGG_COUNT, ka, 8, 8, 0), 0,
		    "count a on cpu 0");
	for (i = 0; i < 2; i++)
		dtd_agg_update(&a, 1, 1, DTRACEAGG_COUNT, ka, 8, 8, 0);
	dtd_agg_update(&a, 0, 2, DTRACEAGG_SUM, kb, 8, 8, 5);
	dtd_agg_update(&a, 0, 2, DTRACEAGG_SUM, kb, 8, 8, 7);
	dtd_agg_update(&a, 0, 2, DTRACEAGG_SUM, ka, 8, 8, (uint64_t)-2);
	dtd_agg_update(&a, 0, 3, DTRACEAGG_COUNT, NULL, 0, 8, 0);

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

	dtd_agg_update(&a, 0, 1, DTRACEAGG_COUNT, ka, 8, 8, 0);
	w[0].val = 1;
	check(&a, 0, w, 1, 0, "counts restart after a switch");

	errno = 0;
	tap_is(dtd_agg_update(&a, 0, 1, DTRACEAGG_QUANTIZE, ka, 8, 8, 0), -1,
	    "quantize not supported yet");
	tap_is(errno, ENOTSUP, "ENOTSUP");
	dtd_agg_fini(&a);

	/* 64 bytes hold one 40-byte entry */
	tap_is(dtd_agg_init(&a, 1, 64), 0, "init tiny");
	tap_is(dtd_agg_update(&a, 0, 1, DTRACEAGG_COUNT, ka, 8, 8, 0), 0,
	    "first key fits");
	tap_is(dtd_agg_update(&a, 0, 1, DTRACEAGG_COUNT, kb, 8, 8, 0), -1,
	    "second key dropped");
	tap_is(dtd_agg_update(&a, 0, 1, DTRACEAGG_COUNT, kc, 8, 8, 0), -1,
	    "third key dropped");
	tap_is(dtd_agg_update(&a, 0, 1, DTRACEAGG_COUNT, ka, 8, 8, 0), 0,
	    "existing key still counts");
	w[0].val = 2;
	check(&a, 0, w, 1, 2, "full buffer");
	dtd_agg_fini(&a);
	return tap_done();
}
