/*
 * test_dt_printf.c: printf() format checking (the compiler's side) and
 * formatting of records (the consumer's side).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "tap.h"

static const dif_type_t t_int = { DIF_TYPE_CTF, DIF_CKIND_INTEGER,
    DIF_TF_SIGNED, 0, 4 };
static const dif_type_t t_ulong = { DIF_TYPE_CTF, DIF_CKIND_INTEGER, 0, 0, 8 };
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

	tap_ok(dt_printf_check(dtp, fmt, n, t, &tag, msg, sizeof(msg)) == 0,
	    "check \"%s\" with %d args accepted%s%s", esc(fmt), n, msg[0] ? ": " :
	    "", msg);
}

static void
check_bad(dtrace_hdl_t *dtp, const char *fmt, int n, const dif_type_t *t,
    const char *wtag, const char *wmsg)
{
	const char *tag = NULL;
	char msg[512] = "";
	int rv = dt_printf_check(dtp, fmt, n, t, &tag, msg, sizeof(msg));

	tap_is(rv, -1, "check \"%s\" with %d args refused", esc(fmt), n);
	tap_str(tag, wtag, "  tag");
	if (wmsg != NULL)
		tap_str(msg, wmsg, "  message");
}

/* A record layout: int32 at 0, int64 at 8, string[16] at 16, u8 at 32. */
static char data[40];
static dtrace_recdesc_t recs[] = {
	{ DTRACEACT_DIFEXPR, 4, 0, 4, 0, 0, DTRACE_REC_INT },
	{ DTRACEACT_DIFEXPR, 8, 8, 8, 0, 0, DTRACE_REC_INT },
	{ DTRACEACT_DIFEXPR, 16, 16, 1, 0, 0, DTRACE_REC_STRING },
	{ DTRACEACT_DIFEXPR, 1, 32, 1, 0, 0, DTRACE_REC_UINT },
};

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
	int32_t i32 = -42;
	int64_t i64 = 1234567890123LL;
	uint8_t u8 = 'A';
	char *out, want[128];
	int rv;

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
	    "printf( ) prototype mismatch: only 2 arguments required by this "
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
	check_bad(dtp, "%Y\n", 1, args, "D_PRINTF_FMT", NULL);
	check_bad(dtp, "%ws\n", 1, args, "D_PRINTF_FMT", NULL);
	check_bad(dtp, "%k\n", 1, args, "D_PRINTF_FMT", NULL);
	check_bad(dtp, "tail %", 0, args, "D_PRINTF_FMT", NULL);

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

	out = fmt(dtp, "%d %d", recs, 1, &rv);
	tap_is(rv, -1, "too few records fails");
	tap_is(dtp->dt_errno, EDT_BADCONV, "  with EDT_BADCONV");
	free(out);
	out = fmt(dtp, "%s", recs, 1, &rv);
	tap_is(rv, -1, "%%s of an integer record fails");
	free(out);

	free(dtp);
	return tap_done();
}
