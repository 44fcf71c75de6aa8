/*
 * dt_printf.c: printf() formats.  The compiler checks a format against
 * its argument types (dt_printf_check); the consumer formats a record
 * with it (dt_printf_format).  Both walk the format with the same parser.
 *
 * D conversions follow C's, with D's meanings where they differ: %a and
 * %A print a user address symbolically, "mod`func+0xoff" (dt_usym.c),
 * in the process of a usym()/uaddr() key, else in $target (illumos's %a
 * names kernel addresses; user space has none, so it names user ones
 * too), %p prints a pointer in hex, %S a string with C
 * escapes for unprintable characters, %Y a walltimestamp as
 * "2024 Jan  5 12:34:56" in local time, %T as RFC 822 has it,
 * "Fri, 05 Jan 2024 12:34:56 UTC".  %k prints a stack: in printa()
 * a ustack() or stack() key (dt_printf_stacktype marks its type); no D
 * value has that type, so printf() has nothing to print with it, as in
 * illumos.  %wc/%ws need wide characters, which D strings cannot hold.
 * Both are refused when the program is compiled.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt_impl.h"

/* Argument classes a conversion accepts. */
#define DT_PFA_INT	0x1
#define DT_PFA_PTR	0x2
#define DT_PFA_STR	0x4
#define DT_PFA_FP	0x8

/* x86-64: the upper half of the address space is the kernel's */
#define DT_PRINTF_KERNELBASE	0xffff800000000000ull

typedef struct dt_pfconv {
	char		pc_flags[8];	/* - + space # 0 ' */
	int		pc_agg;		/* the @ flag: printa()'s value */
	int		pc_width;	/* -1: none, -2: '*' */
	int		pc_prec;	/* -1: none, -2: '.*' */
	char		pc_len[3];	/* hh h l ll L z j t */
	char		pc_conv;	/* d i u ... or 'w' for wc/ws */
	char		pc_name[8];	/* "lld", "s": for messages */
} dt_pfconv_t;

typedef struct dt_pfinfo {
	char		pi_conv;
	unsigned	pi_accept;	/* DT_PFA_* */
	const char	*pi_proto;	/* prototype text for messages */
} dt_pfinfo_t;

static const dt_pfinfo_t dt_printf_info[] = {
	{ 'a', DT_PFA_INT | DT_PFA_PTR, "pointer or integer" },
	{ 'A', DT_PFA_INT | DT_PFA_PTR, "pointer or integer" },
	{ 'c', DT_PFA_INT, "char" },
	{ 'd', DT_PFA_INT, "char, short, int, long, or long long" },
	{ 'i', DT_PFA_INT, "char, short, int, long, or long long" },
	{ 'o', DT_PFA_INT | DT_PFA_PTR, "unsigned int" },
	{ 'u', DT_PFA_INT | DT_PFA_PTR, "unsigned int" },
	{ 'x', DT_PFA_INT | DT_PFA_PTR, "unsigned int" },
	{ 'X', DT_PFA_INT | DT_PFA_PTR, "unsigned int" },
	{ 'p', DT_PFA_INT | DT_PFA_PTR, "pointer or integer" },
	{ 's', DT_PFA_STR, "char [] or string (or use stringof)" },
	{ 'S', DT_PFA_STR, "char [] or string (or use stringof)" },
	{ 'Y', DT_PFA_INT, "int64_t" },
	{ 'T', DT_PFA_INT, "int64_t" },
	{ 'e', DT_PFA_FP, "double" },
	{ 'E', DT_PFA_FP, "double" },
	{ 'f', DT_PFA_FP, "double" },
	{ 'g', DT_PFA_FP, "double" },
	{ 'G', DT_PFA_FP, "double" },
	{ '\0', 0, NULL }
};

static const dt_pfinfo_t *
dt_printf_lookup(char conv)
{
	const dt_pfinfo_t *pi;

	for (pi = dt_printf_info; pi->pi_conv != '\0'; pi++) {
		if (pi->pi_conv == conv)
			return pi;
	}
	return NULL;
}

/* Results of dt_printf_parse. */
#define DT_PF_OK	0
#define DT_PF_INCOMPLETE 1	/* format ends inside a conversion */
#define DT_PF_UNDEF	2	/* no such conversion */
#define DT_PF_KSTACK	3	/* %k: needs a kernel stack() */
#define DT_PF_WIDE	4	/* %wc %ws: wide characters */
#define DT_PF_POSITION	5	/* %n$: an argument by position */

/* The width the '?' flag gives: that of a pointer in hex (LP64). */
#define DT_PF_PTRWIDTH	16

/*
 * Parse the conversion that starts at *fmtp (just after the '%') and
 * advance *fmtp past it.
 */
static int
dt_printf_parse(const char **fmtp, dt_pfconv_t *pc)
{
	const char *f = *fmtp;
	size_t nf = 0, nl = 0;
	int ptrw = 0;

	memset(pc, 0, sizeof(*pc));
	pc->pc_width = pc->pc_prec = -1;
	while (*f != '\0' && strchr("-+ #0'@?", *f) != NULL) {
		if (*f == '@')
			pc->pc_agg = 1;
		else if (*f == '?')
			ptrw = 1;	/* illumos: the width of a pointer */
		else if (nf < sizeof(pc->pc_flags) - 1 &&
		    strchr(pc->pc_flags, *f) == NULL)
			pc->pc_flags[nf++] = *f;
		f++;
	}
	if (*f == '*') {
		const char *d = ++f;

		pc->pc_width = -2;
		/* "%*1$d": D has no positional arguments, as illumos */
		while (*d >= '0' && *d <= '9')
			d++;
		if (d > f && *d == '$') {
			*fmtp = d + 1;
			return DT_PF_POSITION;
		}
	} else if (*f >= '1' && *f <= '9') {
		pc->pc_width = 0;
		while (*f >= '0' && *f <= '9') {
			if (pc->pc_width < 100000)
				pc->pc_width = pc->pc_width * 10 + (*f - '0');
			f++;
		}
	}
	if (*f == '$') {
		*fmtp = f + 1;
		return DT_PF_POSITION;
	}
	if (pc->pc_width == -1 && ptrw)
		pc->pc_width = DT_PF_PTRWIDTH;
	if (*f == '.') {
		f++;
		if (*f == '*') {
			pc->pc_prec = -2;
			f++;
		} else {
			pc->pc_prec = 0;
			while (*f >= '0' && *f <= '9') {
				if (pc->pc_prec < 100000)
					pc->pc_prec = pc->pc_prec * 10 +
					    (*f - '0');
				f++;
			}
		}
	}
	/* as in illumos, '@' may come after the width too: "%8@d" */
	while (*f == '@') {
		pc->pc_agg = 1;
		f++;
	}
	if ((f[0] == 'h' && f[1] == 'h') || (f[0] == 'l' && f[1] == 'l')) {
		pc->pc_len[nl++] = *f++;
		pc->pc_len[nl++] = *f++;
	} else if (*f != '\0' && strchr("hlLzjt", *f) != NULL) {
		pc->pc_len[nl++] = *f++;
	}
	*fmtp = f;
	if (*f == '\0')
		return DT_PF_INCOMPLETE;
	pc->pc_conv = *f++;
	if (pc->pc_conv == 'w' && (*f == 'c' || *f == 's'))
		f++;
	*fmtp = f;
	snprintf(pc->pc_name, sizeof(pc->pc_name), "%s%s%c",
	    pc->pc_agg ? "@" : "", pc->pc_len, pc->pc_conv);
	if (pc->pc_conv == 'w')
		snprintf(pc->pc_name, sizeof(pc->pc_name), "%s%.2s",
		    pc->pc_len, f - 2);
	if (pc->pc_conv == '%')
		return DT_PF_OK;
	if (pc->pc_conv == 'k')
		return DT_PF_KSTACK;
	if (pc->pc_conv == 'w' && (f[-1] == 'c' || f[-1] == 's'))
		return DT_PF_WIDE;
	if (dt_printf_lookup(pc->pc_conv) == NULL)
		return DT_PF_UNDEF;
	return DT_PF_OK;
}

/*
 * The type of a ustack() aggregation key, for %k in printa(): by-ref,
 * of no known kind and no size, which no D value has.
 */
void
dt_printf_stacktype(dif_type_t *t)
{
	memset(t, 0, sizeof(*t));
	t->dt_kind = DIF_TYPE_CTF;
	t->dt_ckind = DIF_CKIND_UNKNOWN;
	t->dt_flags = DIF_TF_BYREF;
}

static int
dt_printf_isstack(const dif_type_t *t)
{
	return t->dt_kind == DIF_TYPE_CTF && t->dt_ckind == DIF_CKIND_UNKNOWN &&
	    t->dt_flags == DIF_TF_BYREF && t->dt_size == 0;
}

static unsigned
dt_printf_class(const dif_type_t *t)
{
	if (t->dt_kind == DIF_TYPE_STRING)
		return DT_PFA_STR;
	if (t->dt_flags & DIF_TF_BYREF)
		return 0;
	switch (t->dt_ckind) {
	case DIF_CKIND_UNKNOWN:
		/* no size: void, or an aggregation (see dt_cc_act_printf) */
		return t->dt_size == 0 ? 0 : DT_PFA_INT;
	case DIF_CKIND_INTEGER:
	case DIF_CKIND_ENUM:
		return DT_PFA_INT;
	case DIF_CKIND_POINTER:
		return DT_PFA_PTR;
	case DIF_CKIND_FLOAT:
		return DT_PFA_FP;
	default:
		return 0;
	}
}

static const char *
dt_printf_typename(const dif_type_t *t, char *buf, size_t len)
{
	const char *base;

	if (t->dt_kind == DIF_TYPE_STRING)
		return "string";
	switch (t->dt_ckind) {
	case DIF_CKIND_POINTER:
		return "pointer";
	case DIF_CKIND_FLOAT:
		return t->dt_size == 4 ? "float" : "double";
	case DIF_CKIND_STRUCT:
		return "struct";
	case DIF_CKIND_UNION:
		return "union";
	case DIF_CKIND_ARRAY:
		return "array";
	case DIF_CKIND_FUNCTION:
		return "function";
	case DIF_CKIND_ENUM:
		return "enum";
	default:
		break;
	}
	switch (t->dt_size) {
	case 1:
		base = "char";
		break;
	case 2:
		base = "short";
		break;
	case 4:
		base = "int";
		break;
	case 8:
		base = "long long";
		break;
	default:
		return "integer";
	}
	snprintf(buf, len, "%s%s", (t->dt_flags & DIF_TF_SIGNED) ? "" :
	    "unsigned ", base);
	return buf;
}

static int
dt_printf_fail(const char **tagp, const char *tag, char *msg, size_t msglen,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int
dt_printf_fail(const char **tagp, const char *tag, char *msg, size_t msglen,
    const char *fmt, ...)
{
	va_list ap;

	if (tagp != NULL)
		*tagp = tag;
	if (msg != NULL && msglen > 0) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * Check fmt against nargs value arguments of types argtypes: those of
 * printf(), or for printa() (aggkind != 0) the aggregation's keys, with
 * %@ conversions taking its value.  Returns 0, or -1 with the illumos
 * tag in *tagp and the message in msg.
 */
static int
dt_printf_check_common(const char *func, const char *fmt, int nargs,
    const dif_type_t *argtypes, const char *const *argnames,
    uint32_t aggkind, const char **tagp, char *msg, size_t msglen)
{
	const char *f = fmt;
	dt_pfconv_t pc;
	int conv = 0, arg = 0;
	char tn[32];

/* an argument's type in messages: its D name when the compiler gave it */
#define DT_PF_TYPENAME(i)	(argnames != NULL && argnames[i] != NULL ? \
	argnames[i] : dt_printf_typename(&argtypes[i], tn, sizeof(tn)))

	while ((f = strchr(f, '%')) != NULL) {
		const dt_pfinfo_t *pi;
		unsigned cls;
		int rv;

		f++;
		rv = dt_printf_parse(&f, &pc);
		if (pc.pc_conv == '%' && rv == DT_PF_OK)
			continue;
		conv++;
		/* illumos's words and its tag, D_SYNTAX, for these two */
		if (rv == DT_PF_INCOMPLETE)
			return dt_printf_fail(tagp, "D_SYNTAX", msg, msglen,
			    "format conversion #%d name expected before end "
			    "of format string", conv);
		if (rv == DT_PF_POSITION)
			return dt_printf_fail(tagp, "D_SYNTAX", msg, msglen,
			    "format conversion #%d uses unsupported "
			    "positional format (%%n$)", conv);
		if (rv == DT_PF_UNDEF)
			return dt_printf_fail(tagp, "D_PRINTF_FMT", msg, msglen,
			    "%s( ) format conversion #%d is undefined: "
			    "%%%s", func, conv, pc.pc_name);
		/*
		 * %k: only a stack() or ustack() aggregation key has the
		 * stack type; a D value never has it (printf's arguments)
		 */
		if (rv == DT_PF_KSTACK && !pc.pc_agg) {
			if (arg >= nargs)
				return dt_printf_fail(tagp,
				    "D_PRINTF_ARG_PROTO", msg, msglen,
				    "%s( ) prototype mismatch: conversion "
				    "#%d (%%%s) is missing a corresponding "
				    "value argument", func, conv, pc.pc_name);
			if (aggkind != 0 && dt_printf_isstack(&argtypes[arg])) {
				arg++;
				continue;
			}
			return dt_printf_fail(tagp, "D_PRINTF_ARG_TYPE", msg,
			    msglen, "%s( ) argument #%d is incompatible "
			    "with conversion #%d prototype:\n\tconversion: "
			    "%%%s\n\t prototype: stack\n\t  argument: %s",
			    func, arg + 2, conv, pc.pc_name,
			    dt_printf_typename(&argtypes[arg], tn,
			    sizeof(tn)));
		}
		if (rv == DT_PF_KSTACK && aggkind == 0)
			return dt_printf_fail(tagp, "D_PRINTF_AGG_CONV",
			    msg, msglen, "%%@ conversion requires an "
			    "aggregation and is not for use with %s( )",
			    func);
		if (rv == DT_PF_KSTACK)
			return dt_printf_fail(tagp, "D_PRINTF_ARG_TYPE", msg,
			    msglen, "%s( ) aggregating action is "
			    "incompatible with conversion #%d prototype:\n"
			    "\tconversion: %%%s\n\t prototype: stack\n\t  "
			    "argument: %s", func, conv, pc.pc_name,
			    aggkind == DTRACEAGG_COUNT ? "uint64_t" :
			    "int64_t");
		if (rv == DT_PF_WIDE)
			return dt_printf_fail(tagp, "D_PRINTF_FMT", msg, msglen,
			    "%s( ) format conversion #%d (%%%s) is not "
			    "supported: D strings hold no wide characters",
			    func, conv, pc.pc_name);

		if (pc.pc_width == -2 || pc.pc_prec == -2) {
			int n = (pc.pc_width == -2) + (pc.pc_prec == -2), k;

			for (k = 0; k < n; k++, arg++) {
				char c = (k == 0 && pc.pc_width == -2) ?
				    '*' : '.';

				if (arg >= nargs)
					return dt_printf_fail(tagp,
					    "D_PRINTF_DYN_PROTO", msg, msglen,
					    "%s( ) prototype mismatch: "
					    "conversion #%d (%%%s) is missing "
					    "a corresponding \"%s\" argument",
					    func, conv, pc.pc_name,
					    c == '*' ? "*" : ".*");
				if (dt_printf_class(&argtypes[arg]) !=
				    DT_PFA_INT)
					return dt_printf_fail(tagp,
					    "D_PRINTF_DYN_TYPE", msg, msglen,
					    "%s( ) argument #%d is "
					    "incompatible with conversion #%d "
					    "prototype:\n\tconversion: %% %s %s"
					    "\n\t prototype: int\n\t  "
					    "argument: %s", func, arg + 2, conv,
					    c == '*' ? "*" : ".*", pc.pc_name,
					    DT_PF_TYPENAME(arg));
			}
		}
		pi = dt_printf_lookup(pc.pc_conv);
		if (pc.pc_agg) {
			/* the value: uint64_t for count(), else int64_t */
			if (aggkind == 0)
				return dt_printf_fail(tagp, "D_PRINTF_AGG_CONV",
				    msg, msglen, "%%@ conversion requires an "
				    "aggregation and is not for use with %s( )",
				    func);
			if ((pi->pi_accept & DT_PFA_INT) == 0)
				return dt_printf_fail(tagp, "D_PRINTF_ARG_TYPE",
				    msg, msglen, "%s( ) aggregating action is "
				    "incompatible with conversion #%d "
				    "prototype:\n\tconversion: %%%s\n\t "
				    "prototype: %s\n\t  argument: %s", func,
				    conv, pc.pc_name, pi->pi_proto,
				    aggkind == DTRACEAGG_COUNT ? "uint64_t" :
				    "int64_t");
			continue;
		}
		if (arg >= nargs)
			return dt_printf_fail(tagp, "D_PRINTF_ARG_PROTO", msg,
			    msglen, "%s( ) prototype mismatch: conversion "
			    "#%d (%%%s) is missing a corresponding value "
			    "argument", func, conv, pc.pc_name);
		cls = dt_printf_class(&argtypes[arg]);
		if ((cls & pi->pi_accept) == 0)
			return dt_printf_fail(tagp, "D_PRINTF_ARG_TYPE", msg,
			    msglen, "%s( ) argument #%d is incompatible "
			    "with conversion #%d prototype:\n\tconversion: "
			    "%%%s\n\t prototype: %s\n\t  argument: %s", func,
			    arg + 2, conv, pc.pc_name, pi->pi_proto,
			    DT_PF_TYPENAME(arg));
		arg++;
	}
	/* printa() may leave keys unprinted */
	if (arg < nargs && aggkind == 0)
		return dt_printf_fail(tagp, "D_PRINTF_ARG_EXTRA", msg, msglen,
		    "%s( ) prototype mismatch: only %d arguments "
		    "required by this format string", func, arg);
	return 0;
#undef DT_PF_TYPENAME
}

int
dt_printf_check(dtrace_hdl_t *dtp, const char *fmt, int nargs,
    const dif_type_t *argtypes, const char *const *argnames,
    const char **tagp, char *msg, size_t msglen)
{
	return dt_printf_check_common("printf", fmt, nargs, argtypes,
	    argnames, 0, tagp, msg, msglen);
}

/* A printa() format, against the keys of an aggregation of aggkind. */
int
dt_printa_check(dtrace_hdl_t *dtp, const char *fmt, int nkeys,
    const dif_type_t *keytypes, uint32_t aggkind, const char **tagp,
    char *msg, size_t msglen)
{
	return dt_printf_check_common("printa", fmt, nkeys, keytypes, NULL,
	    aggkind, tagp, msg, msglen);
}

/* The integer in a record, extended to 64 bits. */
static uint64_t
dt_printf_int(const dtrace_recdesc_t *rp, const char *base, int sign)
{
	const char *p = base + rp->dtrd_offset;

	switch (rp->dtrd_size) {
	case 1: {
		uint8_t v;

		memcpy(&v, p, 1);
		return sign ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return sign ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return sign ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v = 0;

		memcpy(&v, p, rp->dtrd_size < 8 ? rp->dtrd_size : 8);
		return v;
	}
	}
}

static int
dt_printf_isint(const dtrace_recdesc_t *rp)
{
	return (rp->dtrd_type == DTRACE_REC_INT ||
	    rp->dtrd_type == DTRACE_REC_UINT) &&
	    (rp->dtrd_size == 1 || rp->dtrd_size == 2 || rp->dtrd_size == 4 ||
	    rp->dtrd_size == 8);
}

/*
 * %S: the string with C escapes, as illumos prints it.  \a \b \f \n \r
 * \t \v \" and \\ keep their letter; any other byte outside '!'..'~'
 * but the space becomes a three-digit octal escape.  The record bounds
 * the string even without a NUL.
 */
static char *
dt_printf_escape(const char *s, size_t n)
{
	static const char from[] = "\a\b\f\n\r\t\v\"\\";
	static const char to[] = "abfnrtv\"\\";
	char *buf, *q;
	size_t i;

	if ((buf = malloc(n * 4 + 1)) == NULL)
		return NULL;
	for (i = 0, q = buf; i < n && s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = strchr(from, c);

		if (e != NULL) {
			*q++ = '\\';
			*q++ = to[e - from];
		} else if (c != ' ' && (c < '!' || c > '~')) {
			*q++ = '\\';
			*q++ = '0' + ((c >> 6) & 3);
			*q++ = '0' + ((c >> 3) & 7);
			*q++ = '0' + (c & 7);
		} else {
			*q++ = (char)c;
		}
	}
	*q = '\0';
	return buf;
}

/*
 * %Y: nanoseconds since the epoch (walltimestamp) in the adb/mdb form
 * illumos uses, "1973 Dec  3 17:20:00", in local time.
 */
static void
dt_printf_time(uint64_t ns, char *buf, size_t len)
{
	/* ctime(3)'s English names, whatever the locale */
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	time_t sec = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (localtime_r(&sec, &tm) == NULL) {
		snprintf(buf, len, "%llu", (unsigned long long)sec);
		return;
	}
	snprintf(buf, len, "%d %.3s %2d %02d:%02d:%02d", tm.tm_year + 1900,
	    months + 3 * tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec);
}

/*
 * %T: the same, as RFC 822 dates are written (illumos's %T), zone too.
 * The year is the ISO 8601 week-based one (strftime's %G), as illumos
 * prints it: the last days of December can count as the next year's.
 */
static void
dt_printf_time822(uint64_t ns, char *buf, size_t len)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	static const char days[] = "SunMonTueWedThuFriSat";
	time_t sec = (time_t)(ns / 1000000000ull);
	char year[16];
	struct tm tm;

	if (localtime_r(&sec, &tm) == NULL ||
	    strftime(year, sizeof(year), "%G", &tm) == 0) {
		snprintf(buf, len, "%llu", (unsigned long long)sec);
		return;
	}
	snprintf(buf, len, "%.3s, %02d %.3s %s %02d:%02d:%02d %s",
	    days + 3 * tm.tm_wday, tm.tm_mday, months + 3 * tm.tm_mon, year,
	    tm.tm_hour, tm.tm_min, tm.tm_sec,
	    tm.tm_zone != NULL ? tm.tm_zone : "");
}

/*
 * Build the C format for one conversion: flags, width, precision.  As
 * illumos's, a precision of 0 (written or given by ".*") is none.
 */
static void
dt_printf_cfmt(char *buf, size_t len, const dt_pfconv_t *pc, int width,
    int prec, const char *lenmod, char conv)
{
	int off;

	off = snprintf(buf, len, "%%%s", pc->pc_flags);
	if (width >= 0)
		off += snprintf(buf + off, len - off, "%d", width);
	if (prec > 0)
		off += snprintf(buf + off, len - off, ".%d", prec);
	snprintf(buf + off, len - off, "%s%c", lenmod, conv);
}

/*
 * Format fmt with the nrecs argument records recs, each read at base +
 * its offset: a printf() record, or for printa() (agg != NULL) the keys
 * of an aggregation entry, the %@ conversions printing its value(s).
 * As illumos does, each %@ takes the next aggregation's value and those
 * past the last repeat the last one's; keys left over go unprinted.
 */
static int
dt_printf_doformat(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    const dtrace_recdesc_t *recs, int nrecs, const char *base,
    const dt_printf_agg_t *agg)
{
	const char *f = fmt, *pct;
	char cfmt[64];
	dt_pfconv_t pc;
	int arg = 0, curagg = 0;

	while ((pct = strchr(f, '%')) != NULL) {
		int width, prec, rv;
		const dtrace_recdesc_t *rp;
		uint64_t v;

		if (pct > f && fwrite(f, 1, pct - f, fp) != (size_t)(pct - f))
			return dt_set_errno(dtp, errno);
		f = pct + 1;
		rv = dt_printf_parse(&f, &pc);
		if (rv == DT_PF_KSTACK && !pc.pc_agg) {
			/* %k: a ustack() or stack() key, a frame a line */
			if (arg >= nrecs ||
			    (recs[arg].dtrd_action != DTRACEACT_USTACK &&
			    recs[arg].dtrd_action != DTRACEACT_STACK))
				return dt_set_errno(dtp, EDT_BADCONV);
			rp = &recs[arg++];
			if (rp->dtrd_action == DTRACEACT_STACK)
				rv = dt_usym_print_stack(dtp, fp,
				    base + rp->dtrd_offset,
				    (uint32_t)rp->dtrd_arg, DT_USYM_KERNEL);
			else
				rv = dt_usym_print_stack(dtp, fp,
				    base + rp->dtrd_offset,
				    DTRACE_USTACK_NFRAMES(rp->dtrd_arg), 0);
			if (rv != 0)
				return dt_set_errno(dtp, errno);
			continue;
		}
		if (rv != DT_PF_OK)
			return dt_set_errno(dtp, EDT_BADCONV);
		if (pc.pc_conv == '%') {
			if (fputc('%', fp) == EOF)
				return dt_set_errno(dtp, errno);
			continue;
		}
		width = pc.pc_width;
		prec = pc.pc_prec;
		if (width == -2) {
			if (arg >= nrecs || !dt_printf_isint(&recs[arg]))
				return dt_set_errno(dtp, EDT_BADCONV);
			width = (int)(int64_t)dt_printf_int(&recs[arg++], base,
			    1);
			if (width < 0) {
				/* a negative width is the '-' flag */
				size_t n = strlen(pc.pc_flags);

				if (strchr(pc.pc_flags, '-') == NULL &&
				    n < sizeof(pc.pc_flags) - 1)
					pc.pc_flags[n] = '-';
				width = width == INT32_MIN ? 0 : -width;
			}
		}
		if (prec == -2) {
			if (arg >= nrecs || !dt_printf_isint(&recs[arg]))
				return dt_set_errno(dtp, EDT_BADCONV);
			prec = (int)(int64_t)dt_printf_int(&recs[arg++], base,
			    1);
			if (prec < 0)
				prec = -1;
		}
		if (pc.pc_agg && (pc.pc_conv == 'Y' || pc.pc_conv == 'T')) {
			/* a time: the value as a number first, then its text */
			char tbuf[64], *mb = NULL;
			size_t ml = 0;
			FILE *mf;

			if (agg == NULL)
				return dt_set_errno(dtp, EDT_BADCONV);
			if ((mf = open_memstream(&mb, &ml)) == NULL)
				return dt_set_errno(dtp, EDT_NOMEM);
			rv = agg->pa_print(dtp, mf, "%llu", curagg,
			    agg->pa_arg);
			fclose(mf);
			v = mb != NULL ? strtoull(mb, NULL, 10) : 0;
			free(mb);
			if (rv != 0)
				return -1;
			if (pc.pc_conv == 'T')
				dt_printf_time822(v, tbuf, sizeof(tbuf));
			else
				dt_printf_time(v, tbuf, sizeof(tbuf));
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "", 's');
			if (fprintf(fp, cfmt, tbuf) < 0)
				return dt_set_errno(dtp, errno);
			if (curagg < agg->pa_naggs - 1)
				curagg++;
			continue;
		}
		if (pc.pc_agg) {
			if (agg == NULL)
				return dt_set_errno(dtp, EDT_BADCONV);
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "ll", pc.pc_conv == 'p' || pc.pc_conv == 'a' ||
			    pc.pc_conv == 'A' ? 'x' : pc.pc_conv == 'i' ? 'd' :
			    pc.pc_conv);
			if (agg->pa_print(dtp, fp, cfmt, curagg,
			    agg->pa_arg) != 0)
				return -1;
			if (curagg < agg->pa_naggs - 1)
				curagg++;
			continue;
		}
		if (arg >= nrecs)
			return dt_set_errno(dtp, EDT_BADCONV);
		rp = &recs[arg++];

		switch (pc.pc_conv) {
		case 's': {
			const char *s = base + rp->dtrd_offset;
			char *copy;

			if (rp->dtrd_type != DTRACE_REC_STRING)
				return dt_set_errno(dtp, EDT_BADCONV);
			/* the record bounds the string even without a NUL */
			if ((copy = strndup(s, rp->dtrd_size)) == NULL)
				return dt_set_errno(dtp, EDT_NOMEM);
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "", 's');
			rv = fprintf(fp, cfmt, copy);
			free(copy);
			break;
		}
		case 'S': {
			char *esc;

			if (rp->dtrd_type != DTRACE_REC_STRING)
				return dt_set_errno(dtp, EDT_BADCONV);
			if ((esc = dt_printf_escape(base + rp->dtrd_offset,
			    rp->dtrd_size)) == NULL)
				return dt_set_errno(dtp, EDT_NOMEM);
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "", 's');
			rv = fprintf(fp, cfmt, esc);
			free(esc);
			break;
		}
		case 'Y':
		case 'T': {
			char tbuf[64];

			if (!dt_printf_isint(rp))
				return dt_set_errno(dtp, EDT_BADCONV);
			if (pc.pc_conv == 'T')
				dt_printf_time822(dt_printf_int(rp, base, 0),
				    tbuf, sizeof(tbuf));
			else
				dt_printf_time(dt_printf_int(rp, base, 0),
				    tbuf, sizeof(tbuf));
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "", 's');
			rv = fprintf(fp, cfmt, tbuf);
			break;
		}
		case 'c':
			if (!dt_printf_isint(rp))
				return dt_set_errno(dtp, EDT_BADCONV);
			v = dt_printf_int(rp, base, 0);
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "", 'c');
			rv = fprintf(fp, cfmt, (int)(unsigned char)v);
			break;
		case 'd':
		case 'i':
			if (!dt_printf_isint(rp))
				return dt_set_errno(dtp, EDT_BADCONV);
			/* as in C: the value widens by its own type's sign */
			v = dt_printf_int(rp, base,
			    rp->dtrd_type == DTRACE_REC_INT);
			if (strcmp(pc.pc_len, "hh") == 0)
				v = (uint64_t)(int64_t)(signed char)v;
			else if (strcmp(pc.pc_len, "h") == 0)
				v = (uint64_t)(int64_t)(short)v;
			/*
			 * an unsigned value prints unsigned, as illumos turns
			 * %d into %u for an argument of unsigned type
			 */
			if (rp->dtrd_type == DTRACE_REC_UINT && pc.pc_len[0] !=
			    'h') {
				dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width,
				    prec, "ll", 'u');
				rv = fprintf(fp, cfmt, (unsigned long long)v);
				break;
			}
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "ll", pc.pc_conv);
			rv = fprintf(fp, cfmt, (long long)v);
			break;
		case 'o':
		case 'u':
		case 'x':
		case 'X':
		case 'p':
			if (!dt_printf_isint(rp))
				return dt_set_errno(dtp, EDT_BADCONV);
			v = dt_printf_int(rp, base, 0);
			if (strcmp(pc.pc_len, "hh") == 0)
				v = (unsigned char)v;
			else if (strcmp(pc.pc_len, "h") == 0)
				v = (unsigned short)v;
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "ll", pc.pc_conv == 'p' ? 'x' : pc.pc_conv);
			rv = fprintf(fp, cfmt, (unsigned long long)v);
			break;
		case 'a':
		case 'A': {
			char addr[1024];
			uint64_t pid = 0;

			int how = DT_USYM_ADDR;

			/* a usym()-style record carries its pid */
			if (rp->dtrd_size == 16 &&
			    dt_usym_acthow(rp->dtrd_action) != -1) {
				memcpy(&pid, base + rp->dtrd_offset, 8);
				memcpy(&v, base + rp->dtrd_offset + 8, 8);
				how |= dt_usym_acthow(rp->dtrd_action) &
				    DT_USYM_KERNEL;
			} else if (dt_printf_isint(rp)) {
				v = dt_printf_int(rp, base, 0);
				pid = (uint64_t)dt_usym_target(dtp);
				/* no process maps the kernel's half */
				if (v >= DT_PRINTF_KERNELBASE)
					how |= DT_USYM_KERNEL;
			} else {
				return dt_set_errno(dtp, EDT_BADCONV);
			}
			dt_usym_name(dtp, (pid_t)pid, v, how, addr,
			    sizeof(addr));
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "", 's');
			rv = fprintf(fp, cfmt, addr);
			break;
		}
		default: {	/* e E f g G */
			double d;

			if (rp->dtrd_type == DTRACE_REC_INT &&
			    dt_printf_isint(rp)) {
				d = (double)(int64_t)dt_printf_int(rp, base, 1);
			} else if (rp->dtrd_type == DTRACE_REC_UINT &&
			    dt_printf_isint(rp)) {
				d = (double)dt_printf_int(rp, base, 0);
			} else if (rp->dtrd_size == sizeof(double)) {
				memcpy(&d, base + rp->dtrd_offset, sizeof(d));
			} else if (rp->dtrd_size == sizeof(float)) {
				float fl;

				memcpy(&fl, base + rp->dtrd_offset, sizeof(fl));
				d = fl;
			} else {
				return dt_set_errno(dtp, EDT_BADCONV);
			}
			dt_printf_cfmt(cfmt, sizeof(cfmt), &pc, width, prec,
			    "", pc.pc_conv);
			rv = fprintf(fp, cfmt, d);
			break;
		}
		}
		if (rv < 0)
			return dt_set_errno(dtp, errno);
	}
	if (*f != '\0' && fputs(f, fp) == EOF)
		return dt_set_errno(dtp, errno);
	return 0;
}

int
dt_printf_format(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    const dtrace_recdesc_t *recs, int nrecs, const char *base)
{
	return dt_printf_doformat(dtp, fp, fmt, recs, nrecs, base, NULL);
}

/* A printa() format for one entry: keys in recs at base, values by agg. */
int
dt_printf_aformat(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    const dtrace_recdesc_t *recs, int nrecs, const char *base,
    const dt_printf_agg_t *agg)
{
	return dt_printf_doformat(dtp, fp, fmt, recs, nrecs, base, agg);
}
