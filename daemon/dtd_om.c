/*
 * dtd_om.c: the text of a metrics scrape, in the OpenMetrics text format
 * (application/openmetrics-text 1.0.0) or in the Prometheus text format
 * (text/plain 0.0.4) that scrapers asking for nothing else get.
 *
 * The two differ where a scraper would refuse the other's text: an
 * OpenMetrics counter family is named without _total and its sample
 * with it, while the Prometheus format names both with it; OpenMetrics
 * escapes '"' in HELP text and ends with "# EOF".  Names are made of
 * [a-zA-Z0-9_] whatever D allowed; label values are UTF-8, each byte
 * that is not part of a well-formed sequence replaced by U+FFFD, as
 * both formats require.  Knows nothing of D or of HTTP.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <event2/buffer.h>

#include "dtd.h"

void
dtd_om_init(dtd_om_t *om, struct evbuffer *out, int openmetrics)
{
	memset(om, 0, sizeof(*om));
	om->om_out = out;
	om->om_openmetrics = openmetrics;
}

/* What is gathered goes to the evbuffer (one add per 16k, not per word). */
void
dtd_om_flush(dtd_om_t *om)
{
	if (om->om_len > 0 && evbuffer_add(om->om_out, om->om_buf,
	    om->om_len) == -1)
		om->om_err = 1;
	om->om_len = 0;
}

static void
dtd_om_add(dtd_om_t *om, const char *s, size_t len)
{
	if (om->om_len + len > sizeof(om->om_buf)) {
		dtd_om_flush(om);
		if (len > sizeof(om->om_buf)) {
			if (evbuffer_add(om->om_out, s, len) == -1)
				om->om_err = 1;
			return;
		}
	}
	memcpy(om->om_buf + om->om_len, s, len);
	om->om_len += len;
}

static void
dtd_om_puts(dtd_om_t *om, const char *s)
{
	dtd_om_add(om, s, strlen(s));
}

/*
 * A metric or label name from parts joined by '_': every byte that may
 * not be in one becomes '_', and one that would start with a digit gets
 * a '_' in front.  Returns the length, or -1 when it does not fit.
 */
int
dtd_om_name(char *buf, size_t size, const char *a, const char *b,
    const char *c)
{
	const char *parts[3] = { a, b, c };
	size_t n = 0;
	const char *p;
	int i;

	for (i = 0; i < 3; i++) {
		if (parts[i] == NULL || parts[i][0] == '\0')
			continue;
		if (n > 0) {
			if (n + 1 >= size)
				return -1;
			buf[n++] = '_';
		}
		for (p = parts[i]; *p != '\0'; p++) {
			char ch = *p;

			if (n + 2 >= size)
				return -1;
			if (n == 0 && ch >= '0' && ch <= '9')
				buf[n++] = '_';
			if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' &&
			    ch <= 'Z') || (ch >= '0' && ch <= '9')))
				ch = '_';
			buf[n++] = ch;
		}
	}
	if (n == 0 || n >= size)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* The length of the well-formed UTF-8 sequence at s, or 0. */
static size_t
dtd_om_utf8len(const unsigned char *s, size_t len)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * Text with the escapes of a label value (quote: '"' escaped) or of a
 * HELP line (Prometheus: only '\\' and newline), made valid UTF-8.
 */
static void
dtd_om_escaped(dtd_om_t *om, const char *s, size_t len, int quote)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, n;

	while (i < len) {
		const char *esc = NULL;

		if (p[i] == '\\')
			esc = "\\\\";
		else if (p[i] == '\n')
			esc = "\\n";
		else if (p[i] == '"' && quote)
			esc = "\\\"";
		if (esc != NULL) {
			dtd_om_add(om, s + i - run, run);
			run = 0;
			dtd_om_puts(om, esc);
			i++;
			continue;
		}
		if ((n = dtd_om_utf8len(p + i, len - i)) == 0) {
			dtd_om_add(om, s + i - run, run);
			run = 0;
			dtd_om_puts(om, "\xef\xbf\xbd");
			i++;
			continue;
		}
		run += n;
		i += n;
	}
	dtd_om_add(om, s + i - run, run);
}

static const char *
dtd_om_typename(int type)
{
	switch (type) {
	case DTD_OM_COUNTER:
		return "counter";
	case DTD_OM_HISTOGRAM:
		return "histogram";
	default:
		return "gauge";
	}
}

/*
 * A metric family: its HELP and TYPE lines.  Its samples follow, none
 * of another family among them.
 */
void
dtd_om_family(dtd_om_t *om, const char *name, int type, const char *help)
{
	/* the Prometheus format names a counter by its sample */
	const char *sfx = type == DTD_OM_COUNTER && !om->om_openmetrics ?
	    "_total" : "";

	om->om_type = type;
	dtd_om_puts(om, "# HELP ");
	dtd_om_puts(om, name);
	dtd_om_puts(om, sfx);
	dtd_om_puts(om, " ");
	dtd_om_escaped(om, help, strlen(help), om->om_openmetrics);
	dtd_om_puts(om, "\n# TYPE ");
	dtd_om_puts(om, name);
	dtd_om_puts(om, sfx);
	dtd_om_puts(om, " ");
	dtd_om_puts(om, dtd_om_typename(type));
	dtd_om_puts(om, "\n");
}

/* A sample of the family: name and suffix (_total, _bucket, _count). */
void
dtd_om_sample(dtd_om_t *om, const char *name, const char *suffix)
{
	dtd_om_puts(om, name);
	dtd_om_puts(om, suffix);
	om->om_nlabel = 0;
}

/* One label of the sample begun: value is len bytes, any bytes. */
void
dtd_om_label(dtd_om_t *om, const char *name, const char *value, size_t len)
{
	dtd_om_puts(om, om->om_nlabel++ == 0 ? "{" : ",");
	dtd_om_puts(om, name);
	dtd_om_puts(om, "=\"");
	dtd_om_escaped(om, value, len, 1);
	dtd_om_puts(om, "\"");
}

/* The sample's value, as text ("+Inf", a decimal integer). */
void
dtd_om_value(dtd_om_t *om, const char *value)
{
	if (om->om_nlabel > 0)
		dtd_om_puts(om, "}");
	dtd_om_puts(om, " ");
	dtd_om_puts(om, value);
	dtd_om_puts(om, "\n");
	om->om_nsample++;
}

void
dtd_om_value_i64(dtd_om_t *om, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	dtd_om_value(om, buf);
}

void
dtd_om_value_u64(dtd_om_t *om, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	dtd_om_value(om, buf);
}

/* The end of the exposition (OpenMetrics says so), all in the evbuffer. */
void
dtd_om_end(dtd_om_t *om)
{
	if (om->om_openmetrics)
		dtd_om_puts(om, "# EOF\n");
	dtd_om_flush(om);
}

const char *
dtd_om_content_type(const dtd_om_t *om)
{
	return om->om_openmetrics ?
	    "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	    "text/plain; version=0.0.4; charset=utf-8";
}
