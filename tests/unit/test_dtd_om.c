/*
 * test_dtd_om.c: the text of a metrics scrape (daemon/dtd_om.c): names
 * made of what the formats allow, label values and HELP escaped and
 * made valid UTF-8, the two formats' counters and end; and the metrics
 * address of -M and of dtraced.conf (daemon/dtd_metrics.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "dtd.h"
#include "tap.h"

/* The text written so far, NUL-terminated (freed by the next call). */
static const char *
text(struct evbuffer *b)
{
	static char *s;
	size_t n = evbuffer_get_length(b);

	free(s);
	s = calloc(1, n + 1);
	evbuffer_copyout(b, s, n);
	return s;
}

static void
test_names(void)
{
	char buf[DTD_OM_NAMELEN];

	tap_is(dtd_om_name(buf, sizeof(buf), "dtrace", "web-1.lat", "ns"),
	    19, "name of three parts");
	tap_str(buf, "dtrace_web_1_lat_ns", "'-' and '.' become '_'");
	tap_is(dtd_om_name(buf, sizeof(buf), "dtrace", "calls", ""), 12,
	    "an empty part (@) is left out");
	tap_str(buf, "dtrace_calls", "no trailing '_'");
	dtd_om_name(buf, sizeof(buf), "9lives", NULL, NULL);
	tap_str(buf, "_9lives", "a leading digit gets a '_'");
	dtd_om_name(buf, sizeof(buf), "caf\xc3\xa9", NULL, NULL);
	tap_str(buf, "caf__", "bytes past ASCII become '_'");
	tap_is(dtd_om_name(buf, 8, "dtrace", "calls", NULL), -1,
	    "too long for the buffer: -1");
	tap_is(dtd_om_name(buf, sizeof(buf), "", NULL, NULL), -1,
	    "nothing: -1");
}

static void
test_prometheus(void)
{
	struct evbuffer *b = evbuffer_new();
	dtd_om_t om;

	dtd_om_init(&om, b, 0);
	dtd_om_family(&om, "dtrace_p_n", DTD_OM_COUNTER,
	    "@n = count() \"q\" a\\b\nc");
	dtd_om_sample(&om, "dtrace_p_n", "_total");
	dtd_om_label(&om, "execname", "a\\b\"c\nd", 7);
	dtd_om_label(&om, "key1", "", 0);
	dtd_om_value_u64(&om, 18446744073709551615ull);
	dtd_om_family(&om, "dtrace_p_m", DTD_OM_GAUGE, "min");
	dtd_om_sample(&om, "dtrace_p_m", "");
	dtd_om_value_i64(&om, -9223372036854775807ll - 1);
	dtd_om_end(&om);
	tap_str(text(b),
	    "# HELP dtrace_p_n_total @n = count() \"q\" a\\\\b\\nc\n"
	    "# TYPE dtrace_p_n_total counter\n"
	    "dtrace_p_n_total{execname=\"a\\\\b\\\"c\\nd\",key1=\"\"} "
	    "18446744073709551615\n"
	    "# HELP dtrace_p_m min\n"
	    "# TYPE dtrace_p_m gauge\n"
	    "dtrace_p_m -9223372036854775808\n",
	    "Prometheus text: counter family named with _total, HELP keeps "
	    "'\"', labels escaped, no # EOF");
	tap_str(dtd_om_content_type(&om),
	    "text/plain; version=0.0.4; charset=utf-8",
	    "Prometheus text: content type");
	tap_is(om.om_nsample, 2, "two samples");
	evbuffer_free(b);
}

static void
test_openmetrics(void)
{
	struct evbuffer *b = evbuffer_new();
	dtd_om_t om;

	dtd_om_init(&om, b, 1);
	dtd_om_family(&om, "dtrace_p_n", DTD_OM_COUNTER, "say \"hi\"");
	dtd_om_sample(&om, "dtrace_p_n", "_total");
	dtd_om_value_u64(&om, 1000);
	dtd_om_family(&om, "dtrace_p_q", DTD_OM_HISTOGRAM, "q");
	dtd_om_sample(&om, "dtrace_p_q", "_bucket");
	dtd_om_label(&om, "le", "+Inf", 4);
	dtd_om_value_i64(&om, 3);
	dtd_om_end(&om);
	tap_str(text(b),
	    "# HELP dtrace_p_n say \\\"hi\\\"\n"
	    "# TYPE dtrace_p_n counter\n"
	    "dtrace_p_n_total 1000\n"
	    "# HELP dtrace_p_q q\n"
	    "# TYPE dtrace_p_q histogram\n"
	    "dtrace_p_q_bucket{le=\"+Inf\"} 3\n"
	    "# EOF\n",
	    "OpenMetrics: counter family without _total, HELP escapes "
	    "'\"', # EOF");
	tap_str(dtd_om_content_type(&om),
	    "application/openmetrics-text; version=1.0.0; charset=utf-8",
	    "OpenMetrics: content type");
	evbuffer_free(b);
}

/* Label values are UTF-8: what is not well formed becomes U+FFFD. */
static void
test_utf8(void)
{
	static const struct {
		const char	*in;
		const char	*out;
		const char	*what;
	} t[] = {
		{ "caf\xc3\xa9", "caf\xc3\xa9", "two-byte sequence kept" },
		{ "\xe2\x82\xac\xf0\x9f\x98\x80",
		    "\xe2\x82\xac\xf0\x9f\x98\x80",
		    "three- and four-byte sequences kept" },
		{ "a\xff" "b", "a\xef\xbf\xbd" "b", "a stray byte replaced" },
		{ "\xc0\x80", "\xef\xbf\xbd\xef\xbf\xbd",
		    "an overlong NUL: each byte replaced" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		    "a surrogate replaced" },
		{ "x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd",
		    "a sequence cut short replaced" },
		{ "tab\there", "tab\there", "a tab kept" },
	};
	struct evbuffer *b;
	dtd_om_t om;
	char want[128];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		b = evbuffer_new();
		dtd_om_init(&om, b, 1);
		dtd_om_sample(&om, "m", "");
		dtd_om_label(&om, "k", t[i].in, strlen(t[i].in));
		dtd_om_value_u64(&om, 1);
		dtd_om_flush(&om);
		snprintf(want, sizeof(want), "m{k=\"%s\"} 1\n", t[i].out);
		tap_str(text(b), want, "%s", t[i].what);
		evbuffer_free(b);
	}
}

/* Text gathered past the writer's own buffer arrives whole, in order. */
static void
test_big(void)
{
	struct evbuffer *b = evbuffer_new();
	char line[64], *want, big[40000];
	size_t n = 0, i;
	dtd_om_t om;

	want = malloc(3000 * 64 + sizeof(big) + 16);
	dtd_om_init(&om, b, 1);
	for (i = 0; i < 3000; i++) {
		dtd_om_sample(&om, "m", "_total");
		snprintf(line, sizeof(line), "%zu", i);
		dtd_om_label(&om, "k", line, strlen(line));
		dtd_om_value_u64(&om, i * 7);
		n += (size_t)sprintf(want + n, "m_total{k=\"%zu\"} %zu\n", i,
		    i * 7);
	}
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	dtd_om_sample(&om, "m", "");
	dtd_om_label(&om, "k", big, strlen(big));
	dtd_om_value_u64(&om, 1);
	n += (size_t)sprintf(want + n, "m{k=\"%s\"} 1\n", big);
	dtd_om_end(&om);
	strcpy(want + n, "# EOF\n");
	tap_is(evbuffer_get_length(b), n + 6, "3000 samples and a 40k label: "
	    "every byte");
	tap_ok(strcmp(text(b), want) == 0, "in order");
	tap_is(om.om_err, 0, "no error");
	free(want);
	evbuffer_free(b);
}

static void
test_listen(void)
{
	char err[256], dir[] = "/tmp/test_dtd_om.XXXXXX", path[300];
	static const char *bad[] = { "0", "65536", "x", "127.0.0.1:", ":9464",
	    "::1:9464", "[::1]9464", "[]:9464", "9464x", "-1" };
	FILE *fp;
	size_t i;

	tap_is(dtd_metrics_listen("9464", err, sizeof(err)), 0, "-M port");
	tap_is(dtd_metrics_listen("0.0.0.0:9464", err, sizeof(err)), 0,
	    "-M address:port");
	tap_is(dtd_metrics_listen("[::1]:9464", err, sizeof(err)), 0,
	    "-M [v6]:port");
	tap_is(dtd_metrics_listen("off", err, sizeof(err)), 0, "-M off");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_is(dtd_metrics_listen(bad[i], err, sizeof(err)), -1,
		    "-M %s refused", bad[i]);
	tap_str(err, "invalid metrics address \"-1\": use port, "
	    "address:port, [address]:port or off", "and why");

	if (mkdtemp(dir) == NULL) {
		tap_ok(0, "mkdtemp");
		return;
	}
	tap_is(dtd_metrics_config(dir, err, sizeof(err)), 0,
	    "no dtraced.conf: nothing to do");
	snprintf(path, sizeof(path), "%s/%s", dir, DTD_METRICS_CONF);
	fp = fopen(path, "w");
	fprintf(fp, "# the scrape endpoint\n\n  metrics\t127.0.0.1:9464  # "
	    "local\n");
	fclose(fp);
	tap_is(dtd_metrics_config(dir, err, sizeof(err)), 0,
	    "dtraced.conf with comments and blanks");
	fp = fopen(path, "w");
	fprintf(fp, "metrics 9464\nmetric 9465\n");
	fclose(fp);
	tap_is(dtd_metrics_config(dir, err, sizeof(err)), -1,
	    "a misspelt key refused");
	snprintf(path, sizeof(path), "%s/dtraced.conf:2: expected \"metrics "
	    "[address:]port\" or \"metrics off\"", dir);
	tap_str(err, path, "with its file and line");
	snprintf(path, sizeof(path), "%s/%s", dir, DTD_METRICS_CONF);
	fp = fopen(path, "w");
	fprintf(fp, "metrics 99999\n");
	fclose(fp);
	tap_is(dtd_metrics_config(dir, err, sizeof(err)), -1,
	    "a bad port refused");
	snprintf(path, sizeof(path), "%s/dtraced.conf:1: invalid metrics "
	    "address \"99999\": use port, address:port, [address]:port or off",
	    dir);
	tap_str(err, path, "with its file, line and why");
	snprintf(path, sizeof(path), "%s/%s", dir, DTD_METRICS_CONF);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	test_names();
	test_prometheus();
	test_openmetrics();
	test_utf8();
	test_big();
	test_listen();
	return tap_done();
}
