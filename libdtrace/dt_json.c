/*
 * dt_json.c: the one JSON writer of -x oformat=json.  Records, printa()
 * and aggregations at exit, drops and errors are all written through it
 * (dt_consume.c, dt_aggregate.c, dt_usym.c, dt_work.c), so that the
 * quoting of strings and the commas between members and elements are
 * made in one place.
 *
 * A dt_json_t writes to a stream and remembers, at each depth, whether
 * something was written there already (then a comma goes first) and
 * whether a key was just written (then its value follows the colon).
 * Output is compact: no space anywhere, one line per top-level object,
 * which dt_json_beginline opens with its "type" and dt_json_endline
 * ends.  Errors are the stream's: dt_json_error.
 */
#include <stdio.h>
#include <string.h>

#include "dt_impl.h"

void
dt_json_init(dt_json_t *j, FILE *fp)
{
	memset(j, 0, sizeof(*j));
	j->dj_fp = fp;
}

/* Before a key or a value: a comma unless it is the first here. */
static void
dt_json_sep(dt_json_t *j)
{
	if (j->dj_key) {
		j->dj_key = 0;
		return;
	}
	if (j->dj_more[j->dj_depth])
		fputc(',', j->dj_fp);
	j->dj_more[j->dj_depth] = 1;
}

static void
dt_json_open(dt_json_t *j, int c)
{
	dt_json_sep(j);
	fputc(c, j->dj_fp);
	/* deeper than any output of ours goes: keep writing, flat */
	if (j->dj_depth < DT_JSON_MAXDEPTH - 1)
		j->dj_depth++;
	j->dj_more[j->dj_depth] = 0;
}

static void
dt_json_close(dt_json_t *j, int c)
{
	fputc(c, j->dj_fp);
	if (j->dj_depth > 0)
		j->dj_depth--;
}

void
dt_json_object_begin(dt_json_t *j)
{
	dt_json_open(j, '{');
}

void
dt_json_object_end(dt_json_t *j)
{
	dt_json_close(j, '}');
}

void
dt_json_array_begin(dt_json_t *j)
{
	dt_json_open(j, '[');
}

void
dt_json_array_end(dt_json_t *j)
{
	dt_json_close(j, ']');
}

/* The end of a top-level object's line: the next one starts afresh. */
void
dt_json_newline(dt_json_t *j)
{
	fputc('\n', j->dj_fp);
	j->dj_more[0] = 0;
	j->dj_key = 0;
}

/*
 * The length of the well-formed UTF-8 sequence of two to four bytes at
 * s (at most n, no NUL), or 0: no overlong form, no surrogate, nothing
 * past U+10FFFF.
 */
static size_t
dt_json_utf8(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/*
 * A JSON string of up to n bytes, ending at a NUL.  Well-formed UTF-8
 * goes as it is (JSON's own encoding); control characters, DEL and each
 * byte of anything else are \u00XX escapes (the byte as a code point),
 * so any data, even invalid UTF-8, makes valid JSON.
 */
static void
dt_json_quote(FILE *fp, const char *s, size_t n)
{
	size_t i, u;

	fputc('"', fp);
	for (i = 0; i < n && s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			if (c >= 0x80 && (u = dt_json_utf8(
			    (const unsigned char *)s + i,
			    strnlen(s + i, n - i))) != 0) {
				fwrite(s + i, 1, u, fp);
				i += u - 1;
			} else if (c < 0x20 || c > 0x7e) {
				fprintf(fp, "\\u%04x", c);
			} else {
				fputc(c, fp);
			}
			break;
		}
	}
	fputc('"', fp);
}

/* A member's name; its value comes next. */
void
dt_json_key(dt_json_t *j, const char *name)
{
	dt_json_sep(j);
	dt_json_quote(j->dj_fp, name, strlen(name));
	fputc(':', j->dj_fp);
	j->dj_key = 1;
}

/* A string of up to n bytes, ending at a NUL (SIZE_MAX: a C string). */
void
dt_json_string(dt_json_t *j, const char *s, size_t n)
{
	dt_json_sep(j);
	dt_json_quote(j->dj_fp, s, n);
}

void
dt_json_int(dt_json_t *j, int64_t v)
{
	dt_json_sep(j);
	fprintf(j->dj_fp, "%lld", (long long)v);
}

void
dt_json_uint(dt_json_t *j, uint64_t v)
{
	dt_json_sep(j);
	fprintf(j->dj_fp, "%llu", (unsigned long long)v);
}

/* As the text shows a double: six decimals. */
void
dt_json_double(dt_json_t *j, double v)
{
	dt_json_sep(j);
	fprintf(j->dj_fp, "%f", v);
}

/* Raw bytes as an array of numbers. */
void
dt_json_bytes(dt_json_t *j, const unsigned char *c, size_t n)
{
	size_t i;

	dt_json_array_begin(j);
	for (i = 0; i < n; i++)
		dt_json_uint(j, c[i]);
	dt_json_array_end(j);
}

/*
 * Values another writer made (a comma-separated list of them, len
 * bytes), as the next values here: an empty list adds nothing.
 */
void
dt_json_values(dt_json_t *j, const char *buf, size_t len)
{
	if (len == 0)
		return;
	dt_json_sep(j);
	fwrite(buf, 1, len, j->dj_fp);
}

/* Key and value at once, for the common members. */
void
dt_json_kstring(dt_json_t *j, const char *name, const char *s)
{
	dt_json_key(j, name);
	dt_json_string(j, s, SIZE_MAX);
}

void
dt_json_kint(dt_json_t *j, const char *name, int64_t v)
{
	dt_json_key(j, name);
	dt_json_int(j, v);
}

void
dt_json_kuint(dt_json_t *j, const char *name, uint64_t v)
{
	dt_json_key(j, name);
	dt_json_uint(j, v);
}

/* -1 when the stream failed (errno says why), else 0. */
int
dt_json_error(const dt_json_t *j)
{
	return ferror(j->dj_fp) ? -1 : 0;
}

/*
 * A line's top-level object opens on fp, its first member the "type"
 * that tells a reader which kind of line this is.
 */
void
dt_json_beginline(dt_json_t *j, FILE *fp, const char *type)
{
	dt_json_init(j, fp);
	dt_json_object_begin(j);
	dt_json_kstring(j, "type", type);
}

/* A line's top-level object ends: dt_json_error() of all it wrote. */
int
dt_json_endline(dt_json_t *j)
{
	dt_json_object_end(j);
	dt_json_newline(j);
	return dt_json_error(j);
}
