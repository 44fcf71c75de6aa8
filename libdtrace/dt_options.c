/*
 * dt_options.c: the -x option table (dtrace_setopt, dtrace_getopt).
 *
 * Options fall in three groups, as in illumos: compile-time options
 * (flags the compiler reads), run-time options that are frozen once a
 * program has been sent to the daemon, and dynamic run-time options that
 * only the consumer uses and that may change while tracing.
 *
 * retain=NAME and grab=claim|snapshot are ours (retained programs,
 * dt_retain.c); dt_options_export/import carry a retaining consumer's
 * options to the one that claims its program.  export, also ours, is
 * one of them: dtraced serves the aggregations of a retained program
 * that set it to a metrics scraper.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dt_impl.h"

#define DT_NANOSEC	1000000000ULL

typedef int dt_option_f(dtrace_hdl_t *, const char *, uintptr_t);

typedef struct dt_option {
	const char	*o_name;
	dt_option_f	*o_func;
	uintptr_t	o_arg;		/* option index or flag */
} dt_option_t;

/*
 * A size: a number with an optional k, m, g or t suffix (any case).
 * Returns 0, or -1 when the text is not a size.
 */
int
dt_options_parse_size(const char *arg, dtrace_optval_t *valp)
{
	unsigned long long val, mul = 1;
	char *end;

	if (arg == NULL || !isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	val = strtoull(arg, &end, 0);
	if (errno != 0)
		return -1;
	if (*end != '\0') {
		switch (tolower((unsigned char)*end)) {
		case 't':
			mul = 1ULL << 40;
			break;
		case 'g':
			mul = 1ULL << 30;
			break;
		case 'm':
			mul = 1ULL << 20;
			break;
		case 'k':
			mul = 1ULL << 10;
			break;
		default:
			return -1;
		}
		if (end[1] != '\0')
			return -1;
	}
	if (val > (unsigned long long)INT64_MAX / mul)
		return -1;
	*valp = (dtrace_optval_t)(val * mul);
	return 0;
}

/*
 * A rate or an interval, stored in nanoseconds: a number with a time
 * suffix (ns, us, ms, s, m, h, d and their long forms) or "hz"; a bare
 * number is a frequency in hertz.
 */
int
dt_options_parse_rate(const char *arg, dtrace_optval_t *valp)
{
	static const struct {
		const char		*name;
		unsigned long long	mul;	/* 0: hertz */
	} suffix[] = {
		{ "ns", 1 }, { "nsec", 1 },
		{ "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "s", DT_NANOSEC }, { "sec", DT_NANOSEC },
		{ "m", DT_NANOSEC * 60 }, { "min", DT_NANOSEC * 60 },
		{ "h", DT_NANOSEC * 3600 }, { "hour", DT_NANOSEC * 3600 },
		{ "d", DT_NANOSEC * 86400 }, { "day", DT_NANOSEC * 86400 },
		{ "hz", 0 },
	};
	unsigned long long val, mul = 0;
	char *end;
	size_t i;

	if (arg == NULL || !isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	val = strtoull(arg, &end, 0);
	if (errno != 0)
		return -1;
	if (*end != '\0') {
		for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
			if (strcasecmp(suffix[i].name, end) == 0)
				break;
		}
		if (i == sizeof(suffix) / sizeof(suffix[0]))
			return -1;
		mul = suffix[i].mul;
	}
	if (mul == 0) {
		if (val == 0)
			return -1;
		val = DT_NANOSEC / val;
		if (val == 0)
			val = 1;
	} else {
		if (val > (unsigned long long)INT64_MAX / mul)
			return -1;
		val *= mul;
	}
	*valp = (dtrace_optval_t)val;
	return 0;
}

/* A flag or a plain number: illumos treats any value as "set". */
static int
dt_opt_runtime(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	dtrace_optval_t val = 0;

	if (arg != NULL) {
		unsigned long long v;
		char *end;

		errno = 0;
		v = strtoull(arg, &end, 0);
		if (*arg == '\0' || *end != '\0' || errno != 0 ||
		    v > INT64_MAX || arg[0] == '-')
			return dt_set_errno(dtp, EDT_BADOPTVAL);
		val = (dtrace_optval_t)v;
	}
	dtp->dt_options[option] = val;
	return 0;
}

static int
dt_opt_number(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	if (arg == NULL)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	return dt_opt_runtime(dtp, arg, option);
}

/*
 * maxframes (dtrace-utils'): the most frames any stack records, which
 * caps ustack()'s and jstack()'s counts and ustackdepth.
 */
static int
dt_opt_maxframes(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	char *end;
	long long v;

	if (arg == NULL)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	errno = 0;
	v = strtoll(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || v <= 0 ||
	    v > DTRACE_USTACK_MAXFRAMES)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	dtp->dt_options[option] = v;
	return 0;
}

static int
dt_opt_size(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	dtrace_optval_t val;

	if (dt_options_parse_size(arg, &val) != 0)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	dtp->dt_options[option] = val;
	return 0;
}

static int
dt_opt_strsize(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	dtrace_optval_t val;

	if (dt_options_parse_size(arg, &val) != 0 || val < 2 ||
	    val > DIF_MAXSTRSIZE)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	dtp->dt_options[option] = val;
	return 0;
}

static int
dt_opt_rate(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	dtrace_optval_t val;

	if (dt_options_parse_rate(arg, &val) != 0)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	dtp->dt_options[option] = val;
	return 0;
}

static int
dt_opt_cpu(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	unsigned long v;
	char *end;

	if (arg == NULL || !isdigit((unsigned char)arg[0]))
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	errno = 0;
	v = strtoul(arg, &end, 0);
	if (*end != '\0' || errno != 0 || v > INT32_MAX)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	dtp->dt_options[option] = (dtrace_optval_t)v;
	return 0;
}

/* An option whose value is one of a few words. */
typedef struct dt_optkw {
	const char	*kw_name;
	dtrace_optval_t	kw_value;
} dt_optkw_t;

static int
dt_opt_keyword(dtrace_hdl_t *dtp, const char *arg, uintptr_t option,
    const dt_optkw_t *kw)
{
	if (arg == NULL)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	for (; kw->kw_name != NULL; kw++) {
		if (strcmp(arg, kw->kw_name) == 0) {
			dtp->dt_options[option] = kw->kw_value;
			return 0;
		}
	}
	return dt_set_errno(dtp, EDT_BADOPTVAL);
}

static int
dt_opt_bufpolicy(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	static const dt_optkw_t kw[] = {
		{ "ring", DTRACEOPT_BUFPOLICY_RING },
		{ "fill", DTRACEOPT_BUFPOLICY_FILL },
		{ "switch", DTRACEOPT_BUFPOLICY_SWITCH },
		{ NULL, 0 }
	};

	return dt_opt_keyword(dtp, arg, option, kw);
}

static int
dt_opt_bufresize(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	static const dt_optkw_t kw[] = {
		{ "auto", DTRACEOPT_BUFRESIZE_AUTO },
		{ "manual", DTRACEOPT_BUFRESIZE_MANUAL },
		{ NULL, 0 }
	};

	return dt_opt_keyword(dtp, arg, option, kw);
}

static int
dt_opt_bufscope(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	static const dt_optkw_t kw[] = {
		{ "cpu", DTRACEOPT_BUFSCOPE_CPU },
		{ "thread", DTRACEOPT_BUFSCOPE_THREAD },
		{ NULL, 0 }
	};

	return dt_opt_keyword(dtp, arg, option, kw);
}

/* backend: how the daemon traces the processes (ours) */
static int
dt_opt_backend(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	static const dt_optkw_t kw[] = {
		{ "auto", DTRACEOPT_BACKEND_AUTO },
		{ "ptrace", DTRACEOPT_BACKEND_PTRACE },
		{ "uprobe", DTRACEOPT_BACKEND_UPROBE },
		{ "inline", DTRACEOPT_BACKEND_INLINE },
		{ NULL, 0 }
	};

	return dt_opt_keyword(dtp, arg, option, kw);
}

/*
 * oformat: FreeBSD's name for structured output.  Only text (dtrace's
 * own) and json (one object per line) exist here; FreeBSD's libxo
 * formats xml and html are refused rather than faked.
 */
static int
dt_opt_oformat(dtrace_hdl_t *dtp, const char *arg, uintptr_t option)
{
	static const dt_optkw_t kw[] = {
		{ "text", DTRACEOPT_OFORMAT_TEXT },
		{ "json", DTRACEOPT_OFORMAT_JSON },
		{ NULL, 0 }
	};

	return dt_opt_keyword(dtp, arg, option, kw);
}

static int
dt_opt_cflag(dtrace_hdl_t *dtp, const char *arg, uintptr_t flag)
{
	if (arg != NULL)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	dtp->dt_copts |= (uint32_t)flag;
	return 0;
}

static int
dt_opt_socket(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	char *s;

	if (arg == NULL || *arg == '\0')
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	if (dtp->dt_connected)
		return dt_set_errno(dtp, EDT_ACTIVE);
	if ((s = strdup(arg)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	free(dtp->dt_socket);
	dtp->dt_socket = s;
	return 0;
}

/* -x retain=NAME: leave the program running in dtraced under NAME. */
static int
dt_opt_retain(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	char *s;

	if (arg == NULL || !dt_proto_retain_name_ok(arg))
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	if (dtp->dt_active)
		return dt_set_errno(dtp, EDT_ACTIVE);
	if ((s = strdup(arg)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	free(dtp->dt_retain);
	dtp->dt_retain = s;
	return 0;
}

/* -x grab=claim|snapshot: what dtrace_claim() does by default. */
static int
dt_opt_grab(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	if (arg != NULL && strcmp(arg, "claim") == 0)
		dtp->dt_grabsnap = 0;
	else if (arg != NULL && strcmp(arg, "snapshot") == 0)
		dtp->dt_grabsnap = 1;
	else
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	return 0;
}

/*
 * -x evaltime=exec|preinit|postinit|main: where a -c command is held
 * while tracing is set up (the daemon's DT_MSG_GRAB flags).  Read when
 * the command is started, before any program is compiled.
 */
static int
dt_opt_evaltime(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	static const struct {
		const char	*name;
		uint32_t	flag;
	} ev[] = {
		{ "exec", DT_GRAB_EXEC },
		{ "preinit", DT_GRAB_PREINIT },
		{ "postinit", 0 },
		{ "main", DT_GRAB_MAIN },
	};
	size_t i;

	for (i = 0; arg != NULL && i < sizeof(ev) / sizeof(ev[0]); i++) {
		if (strcmp(arg, ev[i].name) == 0) {
			dtp->dt_evaltime = ev[i].flag;
			return 0;
		}
	}
	return dt_set_errno(dtp, EDT_BADOPTVAL);
}

/* -D name[=value], -U name, -I dir: cpp arguments (dt_cpp.c) */
static int
dt_opt_cpp_arg(dtrace_hdl_t *dtp, const char *arg, uintptr_t which)
{
	return dt_cpp_add_arg(dtp, which == 'D' ? "-D" : which == 'U' ?
	    "-U" : "-I", arg);
}

static int
dt_opt_cpppath(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	return dt_cpp_set_path(dtp, arg);
}

/* -L DIR, -x libdir=DIR: a directory of D libraries (dt_lib.c) */
static int
dt_opt_libdir(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	return dt_lib_adddir(dtp, arg);
}

/* -x version=M.m[.u]: the D version to compile for (dt_ident.c) */
static int
dt_opt_version(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	return dt_ident_version(dtp, arg);
}

/*
 * -x linkmode=kernel|primary|dynamic|static and -x linktype=elf|dof:
 * how illumos's dtrace -G links DOF, accepted with illumos's values.  Our
 * -G makes an object of semaphores for <sys/sdt.h> probes, with no DOF
 * and nothing to link, so they change nothing.
 */
static int
dt_opt_linkmode(dtrace_hdl_t *dtp, const char *arg, uintptr_t which)
{
	static const char *const kw[] = { "kernel", "primary", "dynamic",
	    "static", "elf", "dof", NULL };
	int i = which == 't' ? 4 : 0, end = which == 't' ? 6 : 4;

	for (; arg != NULL && i < end; i++) {
		if (strcmp(arg, kw[i]) == 0)
			return 0;
	}
	return dt_set_errno(dtp, EDT_BADOPTVAL);
}

/*
 * -X a|c|s|t, -x stdc: the ISO C mode of cpp.  GNU cpp always defines
 * __STDC__ but in traditional (K&R) mode, which is what s asks for;
 * a (the default), c and t need nothing more.
 */
static int
dt_opt_stdc(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	if (arg == NULL || arg[0] == '\0' || arg[1] != '\0' ||
	    strchr("acst", arg[0]) == NULL)
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	dtp->dt_stdc = arg[0];
	return 0;
}

/*
 * -x encoding=ascii|utf8: the characters aggpack draws its bars with,
 * as in illumos; unset, UTF-8 blocks unless $TERM is a terminal known
 * not to show them.
 */
static int
dt_opt_encoding(dtrace_hdl_t *dtp, const char *arg, uintptr_t unused)
{
	if (arg != NULL && strcmp(arg, "ascii") == 0)
		dtp->dt_encoding = DT_ENCODING_ASCII;
	else if (arg != NULL && strcmp(arg, "utf8") == 0)
		dtp->dt_encoding = DT_ENCODING_UTF8;
	else
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	return 0;
}

/* Compile-time options. */
static const dt_option_t dt_options_ct[] = {
	{ "cpp", dt_opt_cflag, DT_COPT_CPP },
	{ "cpphdrs", dt_opt_cflag, DT_COPT_CPPHDRS },
	{ "cpppath", dt_opt_cpppath, 0 },
	{ "define", dt_opt_cpp_arg, 'D' },
	{ "incdir", dt_opt_cpp_arg, 'I' },
	{ "undef", dt_opt_cpp_arg, 'U' },
	{ "defaultargs", dt_opt_cflag, DT_COPT_DEFARGS },
	{ "droptags", dt_opt_cflag, DT_COPT_DROPTAGS },
	{ "errtags", dt_opt_cflag, DT_COPT_ERRTAGS },
	{ "zdefs", dt_opt_cflag, DT_COPT_ZDEFS },
	{ "socket", dt_opt_socket, 0 },
	{ "retain", dt_opt_retain, 0 },
	{ "grab", dt_opt_grab, 0 },
	{ "evaltime", dt_opt_evaltime, 0 },
	{ "version", dt_opt_version, 0 },
	{ "linkmode", dt_opt_linkmode, 'm' },
	{ "linktype", dt_opt_linkmode, 't' },
	{ "nolibs", dt_opt_cflag, DT_COPT_NOLIBS },
	{ "libdir", dt_opt_libdir, 0 },
	{ "argref", dt_opt_cflag, DT_COPT_ARGREF },
	{ "core", dt_opt_cflag, DT_COPT_CORE },
	{ "stdc", dt_opt_stdc, 0 },
	{ "encoding", dt_opt_encoding, 0 },
	{ NULL, NULL, 0 }
};

/* Run-time options the daemon needs: frozen once a program is sent. */
static const dt_option_t dt_options_rt[] = {
	{ "aggsize", dt_opt_size, DTRACEOPT_AGGSIZE },
	{ "backend", dt_opt_backend, DTRACEOPT_BACKEND },
	{ "bufpolicy", dt_opt_bufpolicy, DTRACEOPT_BUFPOLICY },
	{ "bufresize", dt_opt_bufresize, DTRACEOPT_BUFRESIZE },
	{ "bufscope", dt_opt_bufscope, DTRACEOPT_BUFSCOPE },
	{ "bufsize", dt_opt_size, DTRACEOPT_BUFSIZE },
	{ "cleanrate", dt_opt_rate, DTRACEOPT_CLEANRATE },
	{ "cpu", dt_opt_cpu, DTRACEOPT_CPU },
	{ "destructive", dt_opt_runtime, DTRACEOPT_DESTRUCTIVE },
	{ "dynvarsize", dt_opt_size, DTRACEOPT_DYNVARSIZE },
	{ "export", dt_opt_runtime, DTRACEOPT_EXPORT },
	{ "grabanon", dt_opt_runtime, DTRACEOPT_GRABANON },
	{ "jstackframes", dt_opt_number, DTRACEOPT_JSTACKFRAMES },
	{ "jstackstrsize", dt_opt_size, DTRACEOPT_JSTACKSTRSIZE },
	{ "maxframes", dt_opt_maxframes, DTRACEOPT_MAXFRAMES },
	{ "nspec", dt_opt_number, DTRACEOPT_NSPEC },
	{ "specsize", dt_opt_size, DTRACEOPT_SPECSIZE },
	{ "stackframes", dt_opt_number, DTRACEOPT_STACKFRAMES },
	{ "statusrate", dt_opt_rate, DTRACEOPT_STATUSRATE },
	{ "strsize", dt_opt_strsize, DTRACEOPT_STRSIZE },
	{ "uprobebufsize", dt_opt_size, DTRACEOPT_UPROBEBUFSIZE },
	{ "ustackframes", dt_opt_number, DTRACEOPT_USTACKFRAMES },
	{ NULL, NULL, 0 }
};

/* Dynamic run-time options: the consumer's alone, settable any time. */
static const dt_option_t dt_options_drt[] = {
	{ "agghist", dt_opt_runtime, DTRACEOPT_AGGHIST },
	{ "aggpack", dt_opt_runtime, DTRACEOPT_AGGPACK },
	{ "aggrate", dt_opt_rate, DTRACEOPT_AGGRATE },
	{ "aggsortkey", dt_opt_runtime, DTRACEOPT_AGGSORTKEY },
	{ "aggsortkeypos", dt_opt_number, DTRACEOPT_AGGSORTKEYPOS },
	{ "aggsortpos", dt_opt_number, DTRACEOPT_AGGSORTPOS },
	{ "aggsortrev", dt_opt_runtime, DTRACEOPT_AGGSORTREV },
	{ "aggzoom", dt_opt_runtime, DTRACEOPT_AGGZOOM },
	{ "flowindent", dt_opt_runtime, DTRACEOPT_FLOWINDENT },
	{ "noresolve", dt_opt_runtime, DTRACEOPT_NORESOLVE },
	{ "oformat", dt_opt_oformat, DTRACEOPT_OFORMAT },
	{ "quiet", dt_opt_runtime, DTRACEOPT_QUIET },
	{ "quietresize", dt_opt_runtime, DTRACEOPT_QUIETRESIZE },
	{ "rawbytes", dt_opt_runtime, DTRACEOPT_RAWBYTES },
	{ "stackindent", dt_opt_number, DTRACEOPT_STACKINDENT },
	{ "switchrate", dt_opt_rate, DTRACEOPT_SWITCHRATE },
	{ NULL, NULL, 0 }
};

static const dt_option_t *
dt_options_lookup(const dt_option_t *tab, const char *name)
{
	for (; tab->o_name != NULL; tab++) {
		if (strcmp(tab->o_name, name) == 0)
			return tab;
	}
	return NULL;
}

int
dtrace_setopt(dtrace_hdl_t *dtp, const char *name, const char *arg)
{
	const dt_option_t *op;

	if (name == NULL)
		return dt_set_errno(dtp, EDT_BADOPT);
	if ((op = dt_options_lookup(dt_options_ct, name)) != NULL)
		return op->o_func(dtp, arg, op->o_arg);
	if ((op = dt_options_lookup(dt_options_drt, name)) != NULL)
		return op->o_func(dtp, arg, op->o_arg);
	if ((op = dt_options_lookup(dt_options_rt, name)) != NULL) {
		if (dtp->dt_execd || dtp->dt_active)
			return dt_set_errno(dtp, EDT_ACTIVE);
		return op->o_func(dtp, arg, op->o_arg);
	}
	return dt_set_errno(dtp, EDT_BADOPT);
}

int
dtrace_getopt(dtrace_hdl_t *dtp, const char *name, dtrace_optval_t *valp)
{
	const dt_option_t *op;

	if (name == NULL)
		return dt_set_errno(dtp, EDT_BADOPT);
	if ((op = dt_options_lookup(dt_options_ct, name)) != NULL) {
		if (op->o_func == dt_opt_cflag)
			*valp = (dtp->dt_copts & op->o_arg) ? 0 :
			    DTRACEOPT_UNSET;
		else
			*valp = DTRACEOPT_UNSET;
		return 0;
	}
	if ((op = dt_options_lookup(dt_options_drt, name)) == NULL &&
	    (op = dt_options_lookup(dt_options_rt, name)) == NULL)
		return dt_set_errno(dtp, EDT_BADOPT);
	*valp = dtp->dt_options[op->o_arg];
	return 0;
}

/*
 * The options set on this handle, as (name, number) pairs: every set
 * run-time option, and the compile-time flags (value 0).  A retained
 * program keeps them for the consumer that claims it.
 */
int
dt_options_export(dtrace_hdl_t *dtp,
    int (*func)(dtrace_hdl_t *, const char *, uint64_t, void *), void *arg)
{
	const dt_option_t *tabs[2] = { dt_options_rt, dt_options_drt };
	const dt_option_t *op;
	int i;

	for (op = dt_options_ct; op->o_name != NULL; op++) {
		if (op->o_func == dt_opt_cflag && (dtp->dt_copts & op->o_arg) &&
		    func(dtp, op->o_name, 0, arg) != 0)
			return -1;
	}
	for (i = 0; i < 2; i++) {
		for (op = tabs[i]; op->o_name != NULL; op++) {
			dtrace_optval_t v = dtp->dt_options[op->o_arg];

			if (v != DTRACEOPT_UNSET &&
			    func(dtp, op->o_name, (uint64_t)v, arg) != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * One option from dt_options_export, on the handle that claims the
 * program: set unless the claiming command set it itself.  Unknown
 * names (another version's) are ignored.
 */
void
dt_options_import(dtrace_hdl_t *dtp, const char *name, uint64_t value)
{
	const dt_option_t *op;

	if ((op = dt_options_lookup(dt_options_ct, name)) != NULL) {
		if (op->o_func == dt_opt_cflag)
			dtp->dt_copts |= (uint32_t)op->o_arg;
		return;
	}
	if ((op = dt_options_lookup(dt_options_drt, name)) == NULL &&
	    (op = dt_options_lookup(dt_options_rt, name)) == NULL)
		return;
	if (dtp->dt_options[op->o_arg] == DTRACEOPT_UNSET)
		dtp->dt_options[op->o_arg] = (dtrace_optval_t)value;
}
