/*
 * test_dt_printf.c: printf() format checking (the compiler's side) and
 * formatting of records (the consumer's side).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt_impl.h"
#include "tap.h"

static const dif_type_t t_int = { DIF_TYPE_CTF, DIF_CKIND_INTEGER,
    DIF_TF_SIGNED, 0, 4 };
static const dif_type_t t_ulong = { DIF_TYPE_CTF, DIF_CKIND_INTEGER, 0, 0, 8 };
static const dif_type_t t_dbl = { DIF_TYPE_CTF, DIF_CKIND_FLOAT, 0, 0, 8 };
static const dif_type_t t_str = { DIF_TYPE_STRING, DIF_CKIND_UNKNOWN,
    DIF_TF_BYREF, 0, 256 };

/* A format as a one-line test name. */
static const char *
esc(const char *f)
{
	static char buf[4][128];
	static int n;
	char *b = buf[n++ % 4];
	size_t i = 0;

	for (; *f != '\0' && i < sizeof(buf[0]) - 3; f++) {
		if (*f == '\n') {
			b[i++] = '\\';
			b[i++] = 'n';
		} else {
			b[i++] = *f;
		}
	}
	b[i] = '\0';
	return b;
}

static void
check_ok(dtrace_hdl_t *dtp, const char *fmt, int n, const dif_type_t *t)
{
	const char *tag = NULL;
	char msg[512] = "";

	tap_ok(dt_printf_check(dtp, fmt, n, t, NULL, &tag, msg, sizeof(msg)) == 0,
	    "check \"%s\" with %d args accepted%s%s", esc(fmt), n, msg[0] ? ": " :
	    "", msg);
}

static void
check_bad(dtrace_hdl_t *dtp, const char *fmt, int n, const dif_type_t *t,
    const char *wtag, const char *wmsg)
{
	const char *tag = NULL;
	char msg[512] = "";
	int rv = dt_printf_check(dtp, fmt, n, t, NULL, &tag, msg, sizeof(msg));

	tap_is(rv, -1, "check \"%s\" with %d args refused", esc(fmt), n);
	tap_str(tag, wtag, "  tag");
	if (wmsg != NULL)
		tap_str(msg, wmsg, "  message");
}

/*
 * A record layout: int32 at 0, int64 at 8, string[16] at 16, u8 at 32,
 * a double at 40, string[16] at 48.
 */
static char data[64];
static dtrace_recdesc_t recs[] = {
	{ DTRACEACT_DIFEXPR, 4, 0, 4, 0, 0, DTRACE_REC_INT },
	{ DTRACEACT_DIFEXPR, 8, 8, 8, 0, 0, DTRACE_REC_INT },
	{ DTRACEACT_DIFEXPR, 16, 16, 1, 0, 0, DTRACE_REC_STRING },
	{ DTRACEACT_DIFEXPR, 1, 32, 1, 0, 0, DTRACE_REC_UINT },
	{ DTRACEACT_DIFEXPR, 8, 40, 8, 0, 0, DTRACE_REC_BYTES },
	{ DTRACEACT_DIFEXPR, 16, 48, 1, 0, 0, DTRACE_REC_STRING },
};

/* dt_consume_bytes() into a string. */
static char *
bytes(dtrace_hdl_t *dtp, const void *p, size_t n, int quiet, int raw)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	dt_consume_bytes(dtp, fp, p, n, quiet, raw);
	fclose(fp);
	return buf;
}

/* dt_consume_datum() of one record of data into a string. */
static char *
datum(dtrace_hdl_t *dtp, const dtrace_recdesc_t *r, int quiet)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	dt_consume_datum(dtp, fp, r, data + r->dtrd_offset, quiet);
	fclose(fp);
	return buf;
}

static void
out_is(char *got, const char *want, const char *name)
{
	tap_str(got, want, "%s", name);
	free(got);
}

static char *
fmt(dtrace_hdl_t *dtp, const char *f, const dtrace_recdesc_t *r, int n,
    int *rvp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	*rvp = dt_printf_format(dtp, fp, f, r, n, data);
	fclose(fp);
	return buf;
}

static void
fmt_is(dtrace_hdl_t *dtp, const char *f, const dtrace_recdesc_t *r, int n,
    const char *want)
{
	int rv;
	char *got = fmt(dtp, f, r, n, &rv);

	tap_ok(rv == 0, "format \"%s\" succeeds", esc(f));
	tap_str(got, want, "  output of \"%s\"", esc(f));
	free(got);
}

int
main(void)
{
	dtrace_hdl_t *dtp = calloc(1, sizeof(*dtp));
	dif_type_t args[4];
	size_t k;
	int32_t i32 = -42;
	int64_t i64 = 1234567890123LL;
	uint8_t u8 = 'A';
	char *out, want[128];
	int rv;

	setenv("TZ", "UTC", 1);
	tzset();
	for (k = 0; k < DTRACEOPT_MAX; k++)
		dtp->dt_options[k] = DTRACEOPT_UNSET;

	/* the compiler's check */
	args[0] = t_int;
	args[1] = t_str;
	check_ok(dtp, "hello %d %s\n", 2, args);
	check_ok(dtp, "100%% sure\n", 0, args);
	check_ok(dtp, "%-+ #08.3lld|%hhx|%zu", 3, (dif_type_t[]){ t_int,
	    t_int, t_ulong });
	check_ok(dtp, "%*d %.*s", 4, (dif_type_t[]){ t_int, t_int, t_int,
	    t_str });
	check_bad(dtp, "%d and %d\n", 1, args, "D_PRINTF_ARG_PROTO",
	    "printf( ) prototype mismatch: conversion #2 (%d) is missing a "
	    "corresponding value argument");
	check_bad(dtp, "%d\n", 2, args, "D_PRINTF_ARG_EXTRA",
	    "printf( ) prototype mismatch: only 1 arguments required by this "
	    "format string");
	check_bad(dtp, "%s\n", 1, args, "D_PRINTF_ARG_TYPE",
	    "printf( ) argument #2 is incompatible with conversion #1 "
	    "prototype:\n\tconversion: %s\n\t prototype: char [] or string "
	    "(or use stringof)\n\t  argument: int");
	check_bad(dtp, "%d\n", 1, &t_str, "D_PRINTF_ARG_TYPE", NULL);
	check_bad(dtp, "%*d\n", 1, args, "D_PRINTF_ARG_PROTO", NULL);
	check_bad(dtp, "%*d\n", 0, args, "D_PRINTF_DYN_PROTO", NULL);
	check_bad(dtp, "%*d\n", 1, &t_str, "D_PRINTF_DYN_TYPE", NULL);
	check_bad(dtp, "%*d\n", 2, (dif_type_t[]){ t_str, t_int },
	    "D_PRINTF_DYN_TYPE", NULL);
	check_bad(dtp, "%y\n", 1, args, "D_PRINTF_FMT",
	    "printf( ) format conversion #1 is undefined: %y");
	check_ok(dtp, "%Y\n", 1, args);
	check_ok(dtp, "%S\n", 1, args + 1);
	check_bad(dtp, "%S\n", 1, args, "D_PRINTF_ARG_TYPE", NULL);
	check_bad(dtp, "%Y\n", 1, args + 1, "D_PRINTF_ARG_TYPE", NULL);
	check_bad(dtp, "%e\n", 1, args, "D_PRINTF_ARG_TYPE",
	    "printf( ) argument #2 is incompatible with conversion #1 "
	    "prototype:\n\tconversion: %e\n\t prototype: double\n\t  "
	    "argument: int");
	check_ok(dtp, "%e %E %f %g %G", 5, (dif_type_t[]){ t_dbl, t_dbl,
	    t_dbl, t_dbl, t_dbl });
	check_bad(dtp, "%ws\n", 1, args + 1, "D_PRINTF_FMT",
	    "printf( ) format conversion #1 (%ws) is not supported: D "
	    "strings hold no wide characters");
	check_bad(dtp, "%wc\n", 1, args, "D_PRINTF_FMT", NULL);
	check_bad(dtp, "%k\n", 1, args, "D_PRINTF_ARG_TYPE",
	    "printf( ) argument #2 is incompatible with conversion #1 "
	    "prototype:\n\tconversion: %k\n\t prototype: stack\n\t  "
	    "argument: int");
	check_bad(dtp, "%k\n", 0, args, "D_PRINTF_ARG_PROTO",
	    "printf( ) prototype mismatch: conversion #1 (%k) is missing a "
	    "corresponding value argument");
	check_bad(dtp, "tail %", 0, args, "D_SYNTAX",
	    "format conversion #1 name expected before end of format string");
	check_bad(dtp, "%1$d\n", 1, args, "D_SYNTAX",
	    "format conversion #1 uses unsupported positional format (%n$)");
	check_bad(dtp, "%d %*1$d\n", 2, args, "D_SYNTAX", NULL);
	check_ok(dtp, "%?x %-?d\n", 2, (dif_type_t[]){ t_int, t_int });
	check_bad(dtp, "%.*d\n", 2, (dif_type_t[]){ t_str, t_int },
	    "D_PRINTF_DYN_TYPE", "printf( ) argument #2 is incompatible with "
	    "conversion #1 prototype:\n\tconversion: % .* d\n\t prototype: "
	    "int\n\t  argument: string");
	check_bad(dtp, "%d %.*d\n", 1, args, "D_PRINTF_DYN_PROTO",
	    "printf( ) prototype mismatch: conversion #2 (%d) is missing a "
	    "corresponding \".*\" argument");

	/* the consumer's formatting */
	memcpy(data, &i32, 4);
	memcpy(data + 8, &i64, 8);
	memcpy(data + 16, "sixteen-chars-xx", 16);	/* no NUL: bounded */
	memcpy(data + 32, &u8, 1);
	fmt_is(dtp, "hello %d\n", recs, 1, "hello -42\n");
	fmt_is(dtp, "[%5d][%-5d][%05d]", (dtrace_recdesc_t[]){ recs[0],
	    recs[0], recs[0] }, 3, "[  -42][-42  ][-0042]");
	fmt_is(dtp, "%u", recs, 1, "4294967254");
	fmt_is(dtp, "%x %X %o", (dtrace_recdesc_t[]){ recs[0], recs[0],
	    recs[3] }, 3, "ffffffd6 FFFFFFD6 101");
	fmt_is(dtp, "%lld %d", (dtrace_recdesc_t[]){ recs[1], recs[1] }, 2,
	    "1234567890123 1234567890123");
	fmt_is(dtp, "%hhd %hd", (dtrace_recdesc_t[]){ recs[0], recs[1] }, 2,
	    "-42 1227");
	fmt_is(dtp, "<%s>", recs + 2, 1, "<sixteen-chars-xx>");
	fmt_is(dtp, "<%.3s><%20s>", (dtrace_recdesc_t[]){ recs[2], recs[2] },
	    2, "<six><    sixteen-chars-xx>");
	fmt_is(dtp, "%c%c", (dtrace_recdesc_t[]){ recs[3], recs[3] }, 2, "AA");
	fmt_is(dtp, "%p", recs + 1, 1, "11f71fb04cb");
	fmt_is(dtp, "100%%\n", recs, 0, "100%\n");
	/* 'A' is 65: the width and the precision come from records */
	snprintf(want, sizeof(want), "[%65d]", -42);
	fmt_is(dtp, "[%*d]", (dtrace_recdesc_t[]){ recs[3], recs[0] }, 2,
	    want);
	snprintf(want, sizeof(want), "[%.65d]", -42);
	fmt_is(dtp, "[%.*d]", (dtrace_recdesc_t[]){ recs[3], recs[0] }, 2,
	    want);

	/* %S: C escapes; %Y: local time (TZ=UTC here) */
	memcpy(data + 48, "a\tb\"\\\001 \351z", 10);
	fmt_is(dtp, "<%S>", recs + 5, 1, "<a\\tb\\\"\\\\\\001 \\351z>");
	fmt_is(dtp, "<%12.4S>", recs + 5, 1, "<        a\\tb>");
	i64 = 1700000000123456789LL;	/* 2023-11-14 22:13:20 UTC */
	memcpy(data + 8, &i64, 8);
	fmt_is(dtp, "%Y", recs + 1, 1, "2023 Nov 14 22:13:20");
	fmt_is(dtp, "[%-22Y]", recs + 1, 1, "[2023 Nov 14 22:13:20  ]");
	i64 = 0;
	memcpy(data + 8, &i64, 8);
	fmt_is(dtp, "%Y", recs + 1, 1, "1970 Jan  1 00:00:00");
	/* %a %A: hex when the address cannot be resolved, as illumos */
	i64 = 0x401000;
	memcpy(data + 8, &i64, 8);
	fmt_is(dtp, "%a|%A|%20a|%p", (dtrace_recdesc_t[]){ recs[1], recs[1],
	    recs[1], recs[1] }, 4, "0x401000|0x401000|            0x401000|"
	    "401000");
	/* the floating conversions, of a double record */
	{
		double d = 1234.5678;

		memcpy(data + 40, &d, 8);
	}
	fmt_is(dtp, "%e|%E|%.2f|%g|%G|%10.1f|%-10.3e|", (dtrace_recdesc_t[]){
	    recs[4], recs[4], recs[4], recs[4], recs[4], recs[4], recs[4] }, 7,
	    "1.234568e+03|1.234568E+03|1234.57|1234.57|1234.57|    1234.6|"
	    "1.235e+03 |");
	/* flags */
	fmt_is(dtp, "%+d|% d|%#x|%#o|%-+6d|%+.4d", (dtrace_recdesc_t[]){
	    recs[0], recs[0], recs[3], recs[3], recs[0], recs[0] }, 6,
	    "-42|-42|0x41|0101|-42   |-0042");

	/* trace(): integers by size, strings, bytes (illumos formats) */
	{
		int8_t m1 = -1;
		int16_t m2 = -1;

		memcpy(data + 32, &m1, 1);
		out_is(datum(dtp, &recs[3], 0), " 255", "trace of a u8");
		out_is(datum(dtp, &recs[3], 1), "255", "  quiet");
		memcpy(data + 32, &m2, 2);
		out_is(datum(dtp, &(dtrace_recdesc_t){ DTRACEACT_DIFEXPR, 2,
		    32, 2, 0, 0, DTRACE_REC_INT }, 0), " 65535",
		    "trace of a short -1");
	}
	out_is(datum(dtp, &recs[0], 0), "      -42", "trace of an int");
	out_is(datum(dtp, &recs[0], 1), "-42", "  quiet");
	i64 = -5;
	memcpy(data + 8, &i64, 8);
	out_is(datum(dtp, &recs[1], 0), "               -5",
	    "trace of a long long");
	memcpy(data + 48, "hello\0\0\0\0\0\0\0\0\0\0\0", 16);
	out_is(datum(dtp, &recs[5], 0), "  hello                            ",
	    "trace of a string");
	out_is(datum(dtp, &recs[5], 1), "hello", "  quiet");
	memcpy(data + 48, "hello\0\0\0\0\0\0\0\0x\0\0", 16);
	out_is(datum(dtp, &recs[5], 1),
	    "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	    "  0123456789abcdef\n"
	    "         0: 68 65 6c 6c 6f 00 00 00 00 00 00 00 00 78 00 00"
	    "  hello........x..\n",
	    "  bytes after the NUL: a hex dump");
	out_is(bytes(dtp, "\0\0\0", 4, 0, 0),
	    "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	    "  0123456789abcdef\n"
	    "         0: 00 00 00 00                                    "
	    "  ....\n", "an empty string is a hex dump, as in illumos");
	out_is(bytes(dtp, "0123456789abcdefXYZ\001", 20, 0, 1),
	    "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	    "  0123456789abcdef\n"
	    "         0: 30 31 32 33 34 35 36 37 38 39 61 62 63 64 65 66"
	    "  0123456789abcdef\n"
	    "        10: 58 59 5a 01                                    "
	    "  XYZ.\n", "tracemem: always a hex dump, 16 bytes a row");
	out_is(bytes(dtp, "abc", 3, 0, 0), "  abc                              ",
	    "printable bytes to the end: a string");
	dtp->dt_options[DTRACEOPT_RAWBYTES] = 1;
	out_is(bytes(dtp, "ab", 3, 1, 0),
	    "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	    "  0123456789abcdef\n"
	    "         0: 61 62 00                                       "
	    "  ab.\n", "-x rawbytes: a string as a hex dump");
	dtp->dt_options[DTRACEOPT_RAWBYTES] = DTRACEOPT_UNSET;

	out = fmt(dtp, "%d %d", recs, 1, &rv);
	tap_is(rv, -1, "too few records fails");
	tap_is(dtp->dt_errno, EDT_BADCONV, "  with EDT_BADCONV");
	free(out);
	out = fmt(dtp, "%s", recs, 1, &rv);
	tap_is(rv, -1, "%%s of an integer record fails");
	free(out);

	dt_usym_fini(dtp);	/* %a looked up symbols */
	free(dtp);
	return tap_done();
}
