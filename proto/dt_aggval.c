/*
 * dt_aggval.c: the arithmetic of an aggregation's value as it travels,
 * shared by both sides: the daemon folds each CPU's value into a total
 * for the metrics it serves, dtrace(1) folds the CPUs' values it is sent
 * and prints them.  Both must get the same numbers, so there is one
 * copy of the rules: how values fold (min, max, stddev's 128-bit sum of
 * squares with its carry, the rest added word by word), what a value
 * with nothing aggregated is, and stddev() as illumos computes it.
 */
#include <stdint.h>
#include <string.h>

#include "dt_proto.h"

/* A value with nothing aggregated: min and max start from the far end. */
void
dt_aggval_zero(uint32_t kind, uint64_t *v, uint32_t n)
{
	memset(v, 0, n * sizeof(uint64_t));
	if (kind == DTRACEAGG_MIN)
		v[0] = (uint64_t)INT64_MAX;
	else if (kind == DTRACEAGG_MAX)
		v[0] = (uint64_t)INT64_MIN;
}

/* Fold src, one CPU's value of n words, into dst. */
void
dt_aggval_fold(uint32_t kind, uint64_t *dst, const uint64_t *src, uint32_t n)
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

/* The integer square root of x, rounded down. */
static uint64_t
dt_aggval_isqrt(unsigned __int128 x)
{
	unsigned __int128 r = 0, bit = (unsigned __int128)1 << 126;

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
	return (uint64_t)r;
}

/*
 * stddev() of a value (count, total, sum of squares lo, hi) normalized
 * by normal (1: not), as illumos computes it: the integer square root of
 * (sum of squares / n) - mean^2, each step truncating.
 */
uint64_t
dt_aggval_stddev(const uint64_t *v, uint64_t normal)
{
	unsigned __int128 avgsq, sqavg;
	int64_t avg;

	if (v[0] == 0)
		return 0;
	avgsq = ((unsigned __int128)v[3] << 64 | v[2]) / normal / normal /
	    v[0];
	avg = (int64_t)v[1] / (int64_t)normal / (int64_t)v[0];
	if (avg < 0)
		avg = -avg;
	sqavg = (unsigned __int128)(uint64_t)avg * (uint64_t)avg;
	return dt_aggval_isqrt(avgsq - sqavg);
}
