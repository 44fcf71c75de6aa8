/*
 * dtd_metrics.c: the aggregations of retained programs, served to a
 * metrics scraper (Prometheus, or anything that reads OpenMetrics).
 *
 * Off unless asked: dtraced -M [address:]port, or a "metrics" line in
 * CONFDIR/dtraced.conf; the address is 127.0.0.1 unless given.  Only the
 * retained programs that set the export option (dtrace -x export, or
 * #pragma D option export) are served: their owners chose to show their
 * aggregations to whoever may reach the endpoint.
 *
 * Each aggregation is a metric family, dtrace_PROGRAM_AGGREGATION
 * (dtrace_PROGRAM for @), its keys labels named after the key
 * expressions (execname, pid, ufunc, a variable or member) or key0,
 * key1...; count() and sum() are counters, min(), max(), avg() and
 * stddev() gauges with the values dtrace(1) prints, and quantize(),
 * lquantize() and llquantize() histograms: each bucket's "le" is the
 * largest integer it holds (the next bucket's lowest value less one),
 * the buckets from the first to the last that holds anything, +Inf
 * and _count; no _sum, which DTrace does not keep.  Values are totals
 * since the program started (a retained program's aggregations are
 * never consumed while it is retained), read as one instant of every
 * CPU (dtd_agg_copy).  dtraced_exported_drops and
 * dtraced_exported_errors count, per program, what makes its values
 * less than exact.
 *
 * The HTTP server is libevent's, on the main event loop, where the
 * consumers live: a scrape reads them with no lock of ours, and answers
 * with a buffer that libevent writes as the scraper reads it, so a slow
 * or stuck scraper holds nothing but its own connection (closed after
 * DTD_METRICS_TIMEOUT without progress; at most DTD_METRICS_MAXCONN
 * scraping at once).  The hit path waits only while each program's
 * arenas are copied.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "dtd.h"

#define DTD_METRICS_TIMEOUT	10	/* seconds a connection may idle */
#define DTD_METRICS_MAXHDR	8192	/* bytes of request headers */
#define DTD_METRICS_PATH	"/metrics"
/*
 * Connections that have asked for a scrape and are open: each may hold
 * a whole scrape in its output while the scraper reads it, so that is
 * what bounds the memory a scraper (any local user, by default) may make
 * the daemon hold.  The next is answered 503.
 */
#define DTD_METRICS_MAXCONN	16

static char		dtd_metrics_addr[128];
static uint16_t		dtd_metrics_port;
static int		dtd_metrics_on;
static struct evhttp	*dtd_metrics_http;
static struct evhttp_connection *dtd_metrics_conns[DTD_METRICS_MAXCONN];

/* One scrape. */
typedef struct dtd_metrics_prog {
	char		mp_name[DT_RETAIN_NAMELEN];
	uint64_t	mp_drops;
	uint64_t	mp_errors;
} dtd_metrics_prog_t;

typedef struct dtd_metrics_scrape {
	dtd_om_t	*ms_om;
	char		(*ms_fam)[DTD_OM_NAMELEN]; /* families so far */
	uint32_t	ms_nfam, ms_famcap;
	dtd_metrics_prog_t *ms_prog;
	uint32_t	ms_nprog, ms_progcap;
	int		ms_err;
} dtd_metrics_scrape_t;

/* An aggregation entry of the copy. */
typedef struct dtd_metrics_ent {
	uint32_t	me_aggid;
	uint32_t	me_keysize;
	uint32_t	me_valsize;
	const char	*me_key;
	const uint64_t	*me_val;
} dtd_metrics_ent_t;

static void
dtd_metrics_err(char *err, size_t errlen, const char *fmt, const char *arg)
{
	snprintf(err, errlen, fmt, arg);
}

/*
 * -M or the configuration's value: "port", "address:port",
 * "[v6address]:port", or "off".
 */
int
dtd_metrics_listen(const char *spec, char *err, size_t errlen)
{
	char addr[sizeof(dtd_metrics_addr)];
	const char *port, *end;
	unsigned long n;
	char *e;

	if (strcmp(spec, "off") == 0) {
		dtd_metrics_on = 0;
		return 0;
	}
	snprintf(addr, sizeof(addr), "%s", DTD_METRICS_ADDR);
	if (spec[0] == '[') {
		if ((end = strchr(spec, ']')) == NULL || end[1] != ':' ||
		    (size_t)(end - spec - 1) >= sizeof(addr) || end == spec + 1)
			goto bad;
		memcpy(addr, spec + 1, (size_t)(end - spec - 1));
		addr[end - spec - 1] = '\0';
		port = end + 2;
	} else if ((end = strrchr(spec, ':')) != NULL) {
		if ((size_t)(end - spec) >= sizeof(addr) || end == spec ||
		    memchr(spec, ':', (size_t)(end - spec)) != NULL)
			goto bad;
		memcpy(addr, spec, (size_t)(end - spec));
		addr[end - spec] = '\0';
		port = end + 1;
	} else
		port = spec;
	errno = 0;
	n = strtoul(port, &e, 10);
	if (*port < '0' || *port > '9' || *e != '\0' || errno != 0 ||
	    n == 0 || n > 65535)
		goto bad;
	snprintf(dtd_metrics_addr, sizeof(dtd_metrics_addr), "%s", addr);
	dtd_metrics_port = (uint16_t)n;
	dtd_metrics_on = 1;
	return 0;
bad:
	dtd_metrics_err(err, errlen, "invalid metrics address \"%s\": use "
	    "port, address:port, [address]:port or off", spec);
	return -1;
}

/*
 * CONFDIR/dtraced.conf, when -M did not say: lines of "key value",
 * '#' comments.  The one key is "metrics"; another is refused, so that
 * a misspelt line is not silently ignored.  No file: nothing to do.
 */
int
dtd_metrics_config(const char *confdir, char *err, size_t errlen)
{
	char path[PATH_MAX], line[512], why[256], *key, *val, *save;
	int lineno = 0, rv = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", confdir, DTD_METRICS_CONF);
	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (rv == 0 && fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		if ((key = strtok_r(line, " \t", &save)) == NULL)
			continue;
		val = strtok_r(NULL, " \t", &save);
		if (strcmp(key, "metrics") != 0 || val == NULL ||
		    strtok_r(NULL, " \t", &save) != NULL) {
			snprintf(err, errlen, "%s:%d: expected \"metrics "
			    "[address:]port\" or \"metrics off\"", path,
			    lineno);
			rv = -1;
		} else if (dtd_metrics_listen(val, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
			rv = -1;
		}
	}
	fclose(fp);
	return rv;
}

/* Is this family's name new in the scrape?  Two programs may clash. */
static int
dtd_metrics_newfam(dtd_metrics_scrape_t *ms, const char *name)
{
	uint32_t i;
	void *p;

	for (i = 0; i < ms->ms_nfam; i++) {
		if (strcmp(ms->ms_fam[i], name) == 0)
			return 0;
	}
	if (ms->ms_nfam == ms->ms_famcap) {
		uint32_t cap = ms->ms_famcap == 0 ? 64 : ms->ms_famcap * 2;

		if ((p = realloc(ms->ms_fam, cap * sizeof(*ms->ms_fam))) ==
		    NULL) {
			ms->ms_err = 1;
			return 0;
		}
		ms->ms_fam = p;
		ms->ms_famcap = cap;
	}
	snprintf(ms->ms_fam[ms->ms_nfam++], DTD_OM_NAMELEN, "%s", name);
	return 1;
}

static int
dtd_metrics_entcmp(const void *a, const void *b)
{
	const dtd_metrics_ent_t *l = a, *r = b;
	uint32_t n;
	int d;

	if (l->me_aggid != r->me_aggid)
		return l->me_aggid < r->me_aggid ? -1 : 1;
	n = l->me_keysize < r->me_keysize ? l->me_keysize : r->me_keysize;
	if (n > 0 && (d = memcmp(l->me_key, r->me_key, n)) != 0)
		return d;
	return l->me_keysize < r->me_keysize ? -1 :
	    l->me_keysize > r->me_keysize;
}

/*
 * The largest value each of a histogram's n buckets holds, but the last
 * (+Inf), in le[0 .. n-2], in the daemon's bucket layout (dtd_agg.c).
 */
static void
dtd_metrics_bounds(const dtp_agg_t *g, uint32_t n, int64_t *le)
{
	int zero = DT_PROTO_QUANTIZE_ZERO;
	uint32_t i;

	switch (g->dg_kind) {
	case DTRACEAGG_QUANTIZE:
		for (i = 0; i + 1 < n; i++) {
			if ((int)i < zero)
				le[i] = dtd_agg_quantize_value((int)i);
			else if ((int)i == zero)
				le[i] = 0;
			else
				le[i] = dtd_agg_quantize_value((int)i + 1) - 1;
		}
		break;
	case DTRACEAGG_LQUANTIZE: {
		int64_t base = (int64_t)g->dg_params[0];
		int64_t step = (int64_t)g->dg_params[2];

		for (i = 0; i + 1 < n; i++) {
			/* parameters a client sent: no overflow for them */
			__int128 top = (__int128)base + (__int128)i * step - 1;

			le[i] = top > INT64_MAX ? INT64_MAX :
			    top < INT64_MIN ? INT64_MIN : (int64_t)top;
		}
		break;
	}
	default: {	/* llquantize */
		uint64_t factor = g->dg_params[0];
		int64_t lo = (int64_t)g->dg_params[1];
		int64_t hi = (int64_t)g->dg_params[2];
		int64_t nsteps = (int64_t)g->dg_params[3];
		int64_t this, last, order, nb, width, j;

		this = dt_proto_llq_pow(factor, (uint64_t)lo);
		i = 0;
		if (i + 1 < n)
			le[i++] = this - 1;
		last = this;
		for (order = lo; order <= hi && i + 1 < n; order++) {
			this = dt_proto_llq_mul(this, factor);
			nb = this > nsteps ? nsteps : this;
			width = this / nb;
			for (j = 0; j < nb - nb / (int64_t)factor && i + 1 < n;
			    j++) {
				/* a magnitude cut at INT64_MAX ends there */
				__int128 top = (__int128)last +
				    (__int128)(j + 1) * width - 1;

				le[i++] = top > INT64_MAX ? INT64_MAX :
				    (int64_t)top;
			}
			last = this;
		}
		while (i + 1 < n) {	/* not reached: the layouts agree */
			le[i] = i > 0 ? le[i - 1] : INT64_MAX;
			i++;
		}
		break;
	}
	}
}

/*
 * The label names of g's keys: the key expression's name made a label
 * name, or keyN; never twice, never "le" for a histogram, never one
 * of the names OpenMetrics reserves (__*).
 */
static void
dtd_metrics_labelnames(const dtp_agg_t *g, int hist,
    char (*names)[DT_PROTO_KEYNAMELEN + 16])
{
	char keyn[24];
	uint32_t i, j;
	size_t sz = DT_PROTO_KEYNAMELEN + 16;

	for (i = 0; i < g->dg_nkeys; i++) {
		const char *kn = g->dg_keys[i].dk_name;
		char *nm = names[i];

		snprintf(keyn, sizeof(keyn), "key%u", i);
		if (kn == NULL || dtd_om_name(nm, sz, kn, NULL, NULL) == -1 ||
		    strncmp(nm, "__", 2) == 0 ||
		    (hist && strcmp(nm, "le") == 0))
			snprintf(nm, sz, "%s", keyn);
		/* a name taken: keyN, and that taken (a key named so) keyN_ */
		for (;;) {
			for (j = 0; j < i && strcmp(names[j], nm) != 0; j++)
				;
			if (j == i)
				break;
			if (strncmp(nm, keyn, strlen(keyn)) != 0)
				snprintf(nm, sz, "%s", keyn);
			else if (strlen(nm) + 1 < sz)
				strcat(nm, "_");
			else
				break;
		}
	}
}

/* The text of key element k of an entry, in buf (len bytes). */
static size_t
dtd_metrics_keytext(const dtp_aggkey_t *k, const char *p, char *buf,
    size_t size)
{
	uint64_t u = 0, pc;
	int64_t s = 0;
	size_t n = 0, i;

	switch (k->dk_kind) {
	case DTP_KEY_INT:
		switch (k->dk_size) {
		case 1: { int8_t v; memcpy(&v, p, 1); s = v; break; }
		case 2: { int16_t v; memcpy(&v, p, 2); s = v; break; }
		case 4: { int32_t v; memcpy(&v, p, 4); s = v; break; }
		default: memcpy(&s, p, 8); break;
		}
		return (size_t)snprintf(buf, size, "%" PRId64, s);
	case DTP_KEY_UINT:
		switch (k->dk_size) {
		case 1: { uint8_t v; memcpy(&v, p, 1); u = v; break; }
		case 2: { uint16_t v; memcpy(&v, p, 2); u = v; break; }
		case 4: { uint32_t v; memcpy(&v, p, 4); u = v; break; }
		default: memcpy(&u, p, 8); break;
		}
		return (size_t)snprintf(buf, size, "%" PRIu64, u);
	case DTP_KEY_STRING:
		n = strnlen(p, k->dk_size);
		if (n >= size)
			n = size - 1;
		memcpy(buf, p, n);
		return n;
	case DTP_KEY_USTACK:
	case DTP_KEY_STACK:
		/*
		 * (ustack(): the pid, then) the frames: their addresses,
		 * innermost first
		 */
		for (i = k->dk_kind == DTP_KEY_USTACK ? 8 : 0;
		    i + 8 <= k->dk_size; i += 8) {
			memcpy(&pc, p + i, 8);
			if (pc == 0)
				break;
			if (n + 24 > size)
				break;
			n += (size_t)snprintf(buf + n, size - n, "%s0x%" PRIx64,
			    n > 0 ? "," : "", pc);
		}
		return n;
	default:	/* usym, ufunc, umod, uaddr: the address */
		memcpy(&pc, p + 8, 8);
		return (size_t)snprintf(buf, size, "0x%" PRIx64, pc);
	}
}

/* The labels of one series: its keys' texts, then le if given. */
static void
dtd_metrics_labels(dtd_om_t *om, const dtp_agg_t *g,
    char (*names)[DT_PROTO_KEYNAMELEN + 16], const char *text,
    const size_t *off, const size_t *len, const char *le)
{
	uint32_t i;

	for (i = 0; i < g->dg_nkeys; i++)
		dtd_om_label(om, names[i], text + off[i], len[i]);
	if (le != NULL)
		dtd_om_label(om, "le", le, strlen(le));
}

/* One series of a histogram: cumulative buckets, +Inf, _count. */
static void
dtd_metrics_hist(dtd_om_t *om, const char *fam, const dtp_agg_t *g,
    char (*names)[DT_PROTO_KEYNAMELEN + 16], const char *text,
    const size_t *off, const size_t *len, const uint64_t *v, uint32_t n,
    const int64_t *le)
{
	/* unsigned: increments may be anything; shown as dtrace would */
	uint64_t cum = 0;
	uint32_t i, first = n, last = 0;
	char buf[32];

	for (i = 0; i + 1 < n; i++) {
		if (v[i] != 0) {
			if (first == n)
				first = i;
			last = i;
		}
	}
	for (i = first; first < n && i <= last; i++) {
		cum += v[i];
		snprintf(buf, sizeof(buf), "%" PRId64, le[i]);
		dtd_om_sample(om, fam, "_bucket");
		dtd_metrics_labels(om, g, names, text, off, len, buf);
		dtd_om_value_i64(om, (int64_t)cum);
	}
	cum = 0;
	for (i = 0; i < n; i++)
		cum += v[i];
	dtd_om_sample(om, fam, "_bucket");
	dtd_metrics_labels(om, g, names, text, off, len, "+Inf");
	dtd_om_value_i64(om, (int64_t)cum);
	dtd_om_sample(om, fam, "_count");
	dtd_metrics_labels(om, g, names, text, off, len, NULL);
	dtd_om_value_i64(om, (int64_t)cum);
}

static const char *
dtd_metrics_funcname(uint32_t kind)
{
	static const char *names[] = { "count", "min", "max", "avg", "sum",
	    "stddev", "quantize", "lquantize", "llquantize" };
	uint32_t i = kind - DTRACEAGG_COUNT;

	return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

/*
 * One aggregation of a program: its family, then a series per key from
 * ents[0 .. nent-1] (sorted, one key's CPUs next to one another).
 */
static void
dtd_metrics_family(dtd_metrics_scrape_t *ms, const char *prog,
    const dtp_agg_t *g, const dtd_metrics_ent_t *ents, size_t nent)
{
	dtd_om_t *om = ms->ms_om;
	char fam[DTD_OM_NAMELEN], help[DTD_OM_NAMELEN + 128];
	char (*names)[DT_PROTO_KEYNAMELEN + 16] = NULL;
	size_t *off = NULL, *len = NULL, textsize = 1, e, k;
	uint64_t *tot = NULL;
	int64_t *le = NULL;
	uint32_t valsize, nval, i, kind = g->dg_kind;
	char *text = NULL;
	int type, hist;

	hist = kind == DTRACEAGG_QUANTIZE || kind == DTRACEAGG_LQUANTIZE ||
	    kind == DTRACEAGG_LLQUANTIZE;
	type = hist ? DTD_OM_HISTOGRAM : kind == DTRACEAGG_COUNT ||
	    kind == DTRACEAGG_SUM ? DTD_OM_COUNTER : DTD_OM_GAUGE;
	if (dtd_om_name(fam, sizeof(fam), "dtrace", prog, g->dg_name) == -1 ||
	    !dtd_metrics_newfam(ms, fam)) {
		log_debug("%s: %s: @%s: its metric name is taken or too long, "
		    "not served", __func__, prog, g->dg_name);
		return;
	}
	valsize = (uint32_t)dt_proto_agg_valsize(g);
	nval = valsize / 8;
	names = calloc(g->dg_nkeys + 1, sizeof(*names));
	off = calloc(g->dg_nkeys + 1, sizeof(*off));
	len = calloc(g->dg_nkeys + 1, sizeof(*len));
	tot = malloc(valsize > 0 ? valsize : 8);
	le = hist ? calloc(nval, sizeof(*le)) : NULL;
	for (i = 0; i < g->dg_nkeys; i++) {
		/* a string's bytes, a stack's "0x...," per frame, a number */
		textsize += g->dg_keys[i].dk_size / 8 * 24 +
		    g->dg_keys[i].dk_size + 32;
	}
	text = malloc(textsize);
	if (names == NULL || off == NULL || len == NULL || tot == NULL ||
	    text == NULL || (hist && le == NULL)) {
		ms->ms_err = 1;
		goto out;
	}
	snprintf(help, sizeof(help), "@%s = %s(), retained program %s",
	    g->dg_name, dtd_metrics_funcname(kind), prog);
	dtd_om_family(om, fam, type, help);
	dtd_metrics_labelnames(g, hist, names);
	if (hist)
		dtd_metrics_bounds(g, nval, le);

	for (e = 0; e < nent; e = k) {
		const dtd_metrics_ent_t *x = &ents[e];
		size_t at = 0, ko = 0;

		if (x->me_valsize != valsize)
			break;	/* not this aggregation's layout */
		memcpy(tot, x->me_val, valsize);
		for (k = e + 1; k < nent && ents[k].me_keysize ==
		    x->me_keysize && ents[k].me_valsize == valsize &&
		    memcmp(ents[k].me_key, x->me_key, x->me_keysize) == 0; k++)
			dt_aggval_fold(kind, tot, ents[k].me_val, nval);
		for (i = 0; i < g->dg_nkeys; i++) {
			const dtp_aggkey_t *kd = &g->dg_keys[i];

			if (ko + kd->dk_size > x->me_keysize)
				break;
			off[i] = at;
			len[i] = dtd_metrics_keytext(kd, x->me_key + ko,
			    text + at, textsize - at);
			at += len[i];
			ko += (kd->dk_size + 7) & ~(size_t)7;
		}
		if (i < g->dg_nkeys)
			continue;	/* a key not of this layout */
		if (hist) {
			dtd_metrics_hist(om, fam, g, names, text, off, len, tot,
			    nval, le);
			continue;
		}
		dtd_om_sample(om, fam, type == DTD_OM_COUNTER ? "_total" : "");
		dtd_metrics_labels(om, g, names, text, off, len, NULL);
		switch (kind) {
		case DTRACEAGG_COUNT:
			dtd_om_value_u64(om, tot[0]);
			break;
		case DTRACEAGG_AVG:
			dtd_om_value_i64(om, tot[0] == 0 ? 0 :
			    (int64_t)tot[1] / (int64_t)tot[0]);
			break;
		case DTRACEAGG_STDDEV:
			dtd_om_value_u64(om, dt_aggval_stddev(tot, 1));
			break;
		default:	/* sum, min, max */
			dtd_om_value_i64(om, (int64_t)tot[0]);
			break;
		}
	}
out:
	free(names);
	free(off);
	free(len);
	free(tot);
	free(le);
	free(text);
}

/* dtd_retain_exported: one program's aggregations. */
static void
dtd_metrics_program(const char *name, dtd_consumer_t *c, void *arg)
{
	dtd_metrics_scrape_t *ms = arg;
	dtd_metrics_ent_t *ents = NULL;
	dtd_metrics_prog_t *mp;
	dtd_aggsnap_t s;
	const void *key;
	const uint64_t *val;
	uint32_t aggid, ks, vs, id;
	size_t n = 0, e = 0, k;
	void *p;

	if (ms->ms_nprog == ms->ms_progcap) {
		uint32_t cap = ms->ms_progcap == 0 ? 16 : ms->ms_progcap * 2;

		if ((p = realloc(ms->ms_prog, cap * sizeof(*ms->ms_prog))) ==
		    NULL) {
			ms->ms_err = 1;
			return;
		}
		ms->ms_prog = p;
		ms->ms_progcap = cap;
	}
	mp = &ms->ms_prog[ms->ms_nprog++];
	snprintf(mp->mp_name, sizeof(mp->mp_name), "%s", name);
	mp->mp_drops = 0;
	mp->mp_errors = __atomic_load_n(&c->dc_errors, __ATOMIC_RELAXED);
	if (!c->dc_hasagg)
		return;
	if (dtd_agg_copy(&c->dc_agg, &s) == -1) {
		ms->ms_err = 1;
		return;
	}
	mp->mp_drops = s.das_drops;
	if (s.das_nent > 0 &&
	    (ents = calloc(s.das_nent, sizeof(*ents))) == NULL) {
		free((void *)s.das_data);
		ms->ms_err = 1;
		return;
	}
	while (n < s.das_nent &&
	    dtd_agg_next(&s, &aggid, &key, &ks, &val, &vs)) {
		ents[n].me_aggid = aggid;
		ents[n].me_key = key;
		ents[n].me_keysize = ks;
		ents[n].me_val = val;
		ents[n].me_valsize = vs;
		n++;
	}
	if (n > 1)
		qsort(ents, n, sizeof(*ents), dtd_metrics_entcmp);
	/* every aggregation the program declared, in id order */
	for (id = 0; id < c->dc_naggs; id++) {
		while (e < n && ents[e].me_aggid < id)
			e++;
		for (k = e; k < n && ents[k].me_aggid == id; k++)
			;
		if (c->dc_aggs[id] != NULL)
			dtd_metrics_family(ms, name, c->dc_aggs[id], ents + e,
			    k - e);
		e = k;
	}
	free(ents);
	free((void *)s.das_data);
}

/* The whole scrape, into om.  -1: out of memory on the way. */
int
dtd_metrics_write(dtd_om_t *om)
{
	dtd_metrics_scrape_t ms;
	uint32_t i, k;

	memset(&ms, 0, sizeof(ms));
	ms.ms_om = om;
	dtd_retain_exported(dtd_metrics_program, &ms);
	for (k = 0; k < 2; k++) {
		const char *fam = k == 0 ? "dtraced_exported_drops" :
		    "dtraced_exported_errors";

		dtd_om_family(om, fam, DTD_OM_COUNTER, k == 0 ?
		    "aggregation drops (keys that found no room), per "
		    "exported program" : "errors (faults in probe clauses), "
		    "per exported program");
		for (i = 0; i < ms.ms_nprog; i++) {
			dtd_om_sample(om, fam, "_total");
			dtd_om_label(om, "program", ms.ms_prog[i].mp_name,
			    strlen(ms.ms_prog[i].mp_name));
			dtd_om_value_u64(om, k == 0 ? ms.ms_prog[i].mp_drops :
			    ms.ms_prog[i].mp_errors);
		}
	}
	dtd_om_end(om);
	free(ms.ms_fam);
	free(ms.ms_prog);
	return ms.ms_err || om->om_err ? -1 : 0;
}

static void
dtd_metrics_closed(struct evhttp_connection *evcon, void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < DTD_METRICS_MAXCONN; i++) {
		if (dtd_metrics_conns[i] == evcon)
			dtd_metrics_conns[i] = NULL;
	}
}

/* Count req's connection among those that scrape; 0 if it is one too many. */
static int
dtd_metrics_admit(struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	int i, hole = -1;

	if (evcon == NULL)
		return 0;
	for (i = 0; i < DTD_METRICS_MAXCONN; i++) {
		if (dtd_metrics_conns[i] == evcon)
			return 1;
		if (dtd_metrics_conns[i] == NULL && hole == -1)
			hole = i;
	}
	if (hole == -1)
		return 0;
	dtd_metrics_conns[hole] = evcon;
	evhttp_connection_set_closecb(evcon, dtd_metrics_closed, NULL);
	return 1;
}

static void
dtd_metrics_notfound(struct evhttp_request *req, void *arg)
{
	(void)arg;
	evhttp_send_error(req, HTTP_NOTFOUND, NULL);
}

/*
 * GET /metrics.  OpenMetrics to a scraper that accepts it (Prometheus
 * asks for it first), the Prometheus text format to any other.
 */
static void
dtd_metrics_serve(struct evhttp_request *req, void *arg)
{
	const char *accept;
	struct evbuffer *buf;
	struct timespec t0, t1, c0, c1;
	dtd_om_t om;

	(void)arg;
	if (!dtd_metrics_admit(req)) {
		log_warnx("%s: %d scrapers connected already: one refused",
		    __func__, DTD_METRICS_MAXCONN);
		evhttp_send_error(req, HTTP_SERVUNAVAIL, NULL);
		return;
	}
	accept = evhttp_find_header(evhttp_request_get_input_headers(req),
	    "Accept");
	if ((buf = evbuffer_new()) == NULL) {
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	dtd_om_init(&om, buf, accept != NULL &&
	    strstr(accept, "application/openmetrics-text") != NULL);
	if (dtd_metrics_write(&om) == -1) {
		log_warnx("%s: out of memory", __func__);
		evbuffer_free(buf);
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	/* the wall time, and the CPU time that a loaded machine does not */
	log_debug("%s: %" PRIu64 " samples, %zu bytes in %ld us (%ld us "
	    "of CPU)", __func__, om.om_nsample, evbuffer_get_length(buf),
	    (long)((t1.tv_sec - t0.tv_sec) * 1000000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000),
	    (long)((c1.tv_sec - c0.tv_sec) * 1000000 +
	    (c1.tv_nsec - c0.tv_nsec) / 1000));
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", dtd_om_content_type(&om));
	evhttp_send_reply(req, HTTP_OK, "OK", buf);
	evbuffer_free(buf);
}

/* Listen, if asked.  -1 with err when the address cannot be had. */
int
dtd_metrics_start(struct event_base *base, char *err, size_t errlen)
{
	if (!dtd_metrics_on)
		return 0;
	if ((dtd_metrics_http = evhttp_new(base)) == NULL) {
		snprintf(err, errlen, "metrics: evhttp_new failed");
		return -1;
	}
	evhttp_set_allowed_methods(dtd_metrics_http,
	    EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
	evhttp_set_timeout(dtd_metrics_http, DTD_METRICS_TIMEOUT);
	evhttp_set_max_headers_size(dtd_metrics_http, DTD_METRICS_MAXHDR);
	evhttp_set_max_body_size(dtd_metrics_http, 0);
	evhttp_set_gencb(dtd_metrics_http, dtd_metrics_notfound, NULL);
	if (evhttp_set_cb(dtd_metrics_http, DTD_METRICS_PATH,
	    dtd_metrics_serve, NULL) != 0 ||
	    evhttp_bind_socket_with_handle(dtd_metrics_http, dtd_metrics_addr,
	    dtd_metrics_port) == NULL) {
		snprintf(err, errlen, "metrics: cannot listen on %s port %u: "
		    "%s", dtd_metrics_addr, (unsigned)dtd_metrics_port,
		    strerror(errno));
		evhttp_free(dtd_metrics_http);
		dtd_metrics_http = NULL;
		return -1;
	}
	log_info("metrics served at http://%s%s%s:%u%s", strchr(
	    dtd_metrics_addr, ':') != NULL ? "[" : "", dtd_metrics_addr,
	    strchr(dtd_metrics_addr, ':') != NULL ? "]" : "",
	    (unsigned)dtd_metrics_port, DTD_METRICS_PATH);
	return 0;
}

void
dtd_metrics_stop(void)
{
	if (dtd_metrics_http != NULL)
		evhttp_free(dtd_metrics_http);
	dtd_metrics_http = NULL;
	memset(dtd_metrics_conns, 0, sizeof(dtd_metrics_conns));
}
