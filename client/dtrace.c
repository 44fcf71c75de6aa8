/*
 * dtrace(1): compile D programs, have dtraced run them, print what comes
 * back.  Flags, messages and exit codes follow illumos dtrace(1): 0 on
 * success (or the status given to exit()), 1 on errors, 2 on usage errors.
 *
 * Retained programs stand in for illumos's anonymous tracing: -x
 * retain=NAME leaves the program running in dtraced once tracing has
 * started; -a [NAME] claims one (stops it and prints everything), or with
 * -x grab=snapshot prints it and leaves it running; -a -l lists them.
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtrace.h"

#define E_SUCCESS	0
#define E_ERROR		1
#define E_USAGE		2

#define DTRACE_OPTSTR	"+3:6:aAb:Bc:CD:ef:FGhHi:I:lL:m:n:o:p:P:qs:SU:vVwx:X:Z"

/* Version string, as illumos reports its D language version. */
#define DTRACE_VERSSTR	"Sun D 1.13"

typedef struct dtrace_cmd {
	int		dc_script;	/* -s: a file; else a description */
	dtrace_probespec_t dc_spec;
	char		*dc_arg;	/* the argument as given */
	char		*dc_name;	/* what "matched" messages call it */
	char		*dc_idtext;	/* -i: the program on descriptions */
	const char	*dc_desc;	/* "description" or "script" */
	dtrace_prog_t	*dc_prog;
} dtrace_cmd_t;

/* (tests/fuzz/fuzz_cli.c sets these back between runs: add new ones there) */
static const char	*g_pname = "dtrace";
static dtrace_hdl_t	*g_dtp;
static FILE		*g_ofp;
static char		*g_ofile;
static int		g_sdtmode;	/* 'h' or 'G', or 0 */
static int		g_nsdt;
static dtrace_cmd_t	*g_cmdv;
static int		g_cmdc;
static char		**g_argv;
static int		g_argc;
static unsigned int	g_cflags;
static int		g_exec = 1;
static int		g_list, g_vers, g_verbose;
static int		g_quiet, g_testing, g_status = E_SUCCESS;
static int		g_json;		/* -x oformat=json: the library prints all */
static int		g_flowindent;	/* -F */
static int		g_grabanon;	/* -a */
static int		g_core;		/* -x core: armed at exit */
static int		g_anon;		/* -A */
static char		**g_anonopt;	/* -A: options set, "name[=val]" */
static int		g_nanonopt;
static int		g_grabsnap;	/* -x grab=snapshot */
static const char	*g_retain;	/* -x retain=NAME */
static volatile sig_atomic_t g_intr, g_newline, g_impatient;

/* -c and -p, in command-line order: the first is $target */
typedef struct dtrace_target {
	int		dt_create;	/* -c */
	char		*dt_arg;
	pid_t		dt_pid;
	int		dt_told;	/* -v: its backend said */
} dtrace_target_t;
static dtrace_target_t	*g_targv;
static int		g_targc;
static int		g_pslive;	/* targets that have not exited */
static pid_t		g_target;	/* the first target's pid */

static int
usage(FILE *fp)
{
	static const char predact[] = "[[ predicate ] action ]";

	/* what works: -32 is refused, so not here */
	fprintf(fp, "Usage: %s [-64] [-aACeFGhHlqSvVwZ] "
	    "[-b bufsz] [-c cmd] [-D name[=def]]\n\t[-I path] "
	    "[-L path] [-o output] [-p pid] [-s script] [-U name]\n\t"
	    "[-x opt[=val]] [-X a|c|s|t]\n\n", g_pname);
	fprintf(fp, "\t[-P provider %s]\n", predact);
	fprintf(fp, "\t[-m [ provider: ]module %s]\n", predact);
	fprintf(fp, "\t[-f [[ provider: ]module: ]func %s]\n", predact);
	fprintf(fp, "\t[-n [[[ provider: ]module: ]func: ]name %s]\n",
	    predact);
	fprintf(fp, "\t[-i probe-id %s] [ args ... ]\n\n", predact);
	fprintf(fp, "\tpredicate -> '/' D-expression '/'\n");
	fprintf(fp, "\t   action -> '{' D-statements '}'\n");
	fprintf(fp, "\n"
	    "\t-64 generate 64-bit D programs\n\n"
	    "\t-a  claim a retained program (anonymous tracing state)\n"
	    "\t-A  save programs for dtraced to retain at start "
	    "(anonymous tracing)\n"
	    "\t-b  set trace buffer size\n"
	    "\t-c  run specified command and exit upon its completion\n"
	    "\t-C  run cpp(1) preprocessor on script files\n"
	    "\t-D  define symbol when invoking preprocessor\n"
	    "\t-e  exit after compiling request but prior to enabling probes\n"
	    "\t-f  enable or list probes matching the specified function name\n"
	    "\t-F  coalesce trace output by function\n"
	    "\t-G  generate an ELF file containing embedded dtrace program\n"
	    "\t-h  generate a header file with definitions for static probes\n"
	    "\t-H  print included files when invoking preprocessor\n"
	    "\t-i  enable or list probes matching the specified probe id\n"
	    "\t-I  add include directory to preprocessor search path\n"
	    "\t-l  list probes matching specified criteria\n"
	    "\t-L  add library directory to library search path\n"
	    "\t-m  enable or list probes matching the specified module name\n"
	    "\t-n  enable or list probes matching the specified probe name\n"
	    "\t-o  set output file\n"
	    "\t-p  grab specified process-ID and cache its symbol tables\n"
	    "\t-P  enable or list probes matching the specified provider "
	    "name\n"
	    "\t-q  set quiet mode (only output explicitly traced data)\n"
	    "\t-s  enable or list probes according to the specified D script\n"
	    "\t-S  print D compiler intermediate code\n"
	    "\t-U  undefine symbol when invoking preprocessor\n"
	    "\t-v  set verbose mode (report stability attributes, "
	    "arguments)\n"
	    "\t-V  report DTrace API version\n"
	    "\t-w  permit destructive actions\n"
	    "\t-x  enable or modify compiler and tracing options\n"
	    "\t-X  specify ISO C conformance settings for preprocessor\n"
	    "\t-Z  permit probe descriptions that match zero probes\n");
	return E_USAGE;
}

static void
verror(const char *fmt, va_list ap)
{
	int error = errno;

	fflush(stdout);
	fprintf(stderr, "%s: ", g_pname);
	vfprintf(stderr, fmt, ap);
	if (fmt[strlen(fmt) - 1] != '\n')
		fprintf(stderr, ": %s\n", strerror(error));
}

/* An error; the format ends in a newline, or strerror(errno) is added. */
static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
}

/* An informational message; -q and the quiet option suppress these. */
static void
notice(const char *fmt, ...)
{
	va_list ap;

	if (g_quiet)
		return;
	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn))
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	if (g_dtp != NULL)
		dtrace_close(g_dtp);
	exit(E_ERROR);
}

/* A libdtrace failure: the message, then the library's error text. */
static void __attribute__((noreturn))
dfatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", g_pname);
	/*
	 * No daemon could be reached or started: whatever we were doing,
	 * dtrace could not initialize, as illumos says when it cannot open
	 * its device.
	 */
	if (g_dtp != NULL && dtrace_errno(g_dtp) == DTRACE_ENODAEMON)
		fmt = "failed to initialize dtrace";
	if (fmt != NULL) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	if (fmt != NULL && fmt[strlen(fmt) - 1] != '\n')
		fprintf(stderr, ": %s\n",
		    dtrace_errmsg(g_dtp, dtrace_errno(g_dtp)));
	else if (fmt == NULL)
		fprintf(stderr, "%s\n",
		    dtrace_errmsg(g_dtp, dtrace_errno(g_dtp)));
	if (g_dtp != NULL)
		dtrace_close(g_dtp);
	exit(E_ERROR);
}

static void __attribute__((noreturn))
unsupported(int c)
{
	fprintf(stderr, "%s: -%c is not yet supported\n", g_pname, c);
	if (g_dtp != NULL)
		dtrace_close(g_dtp);
	exit(E_USAGE);
}

/*
 * The text of a file, NUL-terminated; exits on errors.  The text ends at
 * its first NUL byte, as the compiler's does (dt_cpp.c): /dev/zero is an
 * empty script, not a read until memory runs out.
 */
static char *
read_text(const char *path)
{
	FILE *fp;
	char *buf = NULL, *nul = NULL;
	size_t len = 0, cap = 0, n;

	if ((fp = fopen(path, "r")) == NULL)
		fatal("failed to open %s: %s", path, strerror(errno));
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if ((buf = realloc(buf, cap)) == NULL)
				fatal("failed to allocate memory");
		}
		n = fread(buf + len, 1, cap - len - 1, fp);
		if ((nul = memchr(buf + len, '\0', n)) != NULL)
			n = (size_t)(nul - (buf + len));
		len += n;
	} while (n > 0 && nul == NULL);
	if (ferror(fp))
		fatal("failed to read %s", path);
	fclose(fp);
	buf[len] = '\0';
	return buf;
}

/*
 * -h and -G: the header, or the object of semaphores, of the providers
 * the -s files define (dt_sdt.c), to -o's file or to the first file's
 * name with .h or .o for .d, in the current directory.
 */
static int
sdt_main(void)
{
	char *text = NULL, *t, out[PATH_MAX], err[512];
	const char *first = NULL, *base, *dot;
	size_t len = 0;
	FILE *fp;
	int i, rc;

	for (i = 0; i < g_cmdc; i++) {
		if (!g_cmdv[i].dc_script) {
			fprintf(stderr, "%s: -%c needs provider definitions "
			    "given with -s only\n", g_pname, g_sdtmode);
			return E_USAGE;
		}
		if (first == NULL)
			first = g_cmdv[i].dc_arg;
		t = read_text(g_cmdv[i].dc_arg);
		if ((text = realloc(text, len + strlen(t) + 2)) == NULL)
			fatal("failed to allocate memory");
		memcpy(text + len, t, strlen(t));
		len += strlen(t);
		text[len++] = '\n';
		text[len] = '\0';
		free(t);
	}
	if (first == NULL) {
		fprintf(stderr, "%s: -%c requires a script given with -s\n",
		    g_pname, g_sdtmode);
		return E_USAGE;
	}
	base = strrchr(first, '/') != NULL ? strrchr(first, '/') + 1 : first;
	dot = strrchr(base, '.');
	if (g_ofile != NULL)
		snprintf(out, sizeof(out), "%s", g_ofile);
	else if (dot != NULL && strcmp(dot, ".d") == 0)
		snprintf(out, sizeof(out), "%.*s.%c", (int)(dot - base), base,
		    g_sdtmode == 'h' ? 'h' : 'o');
	else if (g_sdtmode == 'G')
		snprintf(out, sizeof(out), "d.out");	/* as illumos names it */
	else
		snprintf(out, sizeof(out), "%s.h", base);
	if (g_sdtmode == 'h') {
		if ((fp = fopen(out, "w")) == NULL)
			fatal("failed to open output file '%s'", out);
		rc = dtrace_sdt_header(g_dtp, text, first, fp, err,
		    sizeof(err));
		if (fclose(fp) == EOF)
			rc = -1;
	} else
		rc = dtrace_sdt_object(g_dtp, text, first, out, err,
		    sizeof(err));
	free(text);
	if (rc == -1) {
		fprintf(stderr, "%s: failed to %s %s: %s\n", g_pname,
		    g_sdtmode == 'h' ? "create header file" : "link",
		    out, err);
		if (g_sdtmode == 'h')
			unlink(out);
		dtrace_close(g_dtp);
		return E_ERROR;
	}
	dtrace_close(g_dtp);
	return E_SUCCESS;
}

/*
 * -x core, illumos's aid for debugging dtrace(1) itself: however the
 * process exits once the option is seen, it leaves a core, whatever the
 * soft limit on core size said.
 */
static void
coredump(void)
{
	static const char msg[] = "dtrace: -x core: dumping core\n";
	struct sigaction sa;
	struct rlimit rl;

	(void)write(STDERR_FILENO, msg, sizeof(msg) - 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGABRT, &sa, NULL);
	if (getrlimit(RLIMIT_CORE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_CORE, &rl);
	}
	abort();
}

/* after -x and after each compile: a #pragma may set it too */
static void
core_arm(void)
{
	dtrace_optval_t v;

	if (!g_core && dtrace_getopt(g_dtp, "core", &v) == 0 &&
	    v != DTRACEOPT_UNSET && atexit(coredump) == 0)
		g_core = 1;
}

/* Output to -o's file or stdout. */
static void
oprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(g_ofp, fmt, ap) < 0)
		clearerr(g_ofp);
	va_end(ap);
}

static void
dcmd_add(int script, dtrace_probespec_t spec, char *arg)
{
	dtrace_cmd_t *dcp;

	if ((dcp = realloc(g_cmdv, (g_cmdc + 1) * sizeof(*dcp))) == NULL)
		fatal("failed to allocate memory");
	g_cmdv = dcp;
	dcp = &g_cmdv[g_cmdc++];
	memset(dcp, 0, sizeof(*dcp));
	dcp->dc_script = script;
	dcp->dc_spec = spec;
	dcp->dc_arg = arg;
}

static void
compile_str(dtrace_cmd_t *dcp)
{
	char *p;

	if ((dcp->dc_prog = dtrace_program_strcompile(g_dtp,
	    dcp->dc_idtext != NULL ? dcp->dc_idtext : dcp->dc_arg,
	    dcp->dc_spec, g_cflags | DTRACE_C_PSPEC, g_argc, g_argv)) == NULL)
		dfatal("invalid probe specifier %s", dcp->dc_arg);
	if ((dcp->dc_name = strdup(dcp->dc_arg)) == NULL)
		fatal("failed to allocate memory");
	if ((p = strpbrk(dcp->dc_name, "{/;")) != NULL)
		*p = '\0';	/* crop the name for reporting */
	dcp->dc_desc = "description";
}

static int
id_found(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd, void *arg)
{
	(void)dtp;
	*(dtrace_probedesc_t *)arg = *pd;
	return 0;
}

/*
 * -i ID[,ID...] [[predicate] action]: the probes by their IDs, as a
 * program on their full descriptions.  The text stays the name of the
 * enabling ("description '5' matched 1 probe").
 */
static void
id_to_desc(dtrace_cmd_t *dcp)
{
	const char *p = dcp->dc_arg, *rest;
	char *text = NULL, *end;
	size_t len = 0;
	unsigned long id;
	dtrace_probedesc_t pd;

	rest = p + strcspn(p, " \t\n/{");
	while (p < rest) {
		errno = 0;
		id = strtoul(p, &end, 10);
		if (end == p || errno != 0 || id > UINT32_MAX ||
		    (end < rest && *end != ',')) {
			fprintf(stderr, "%s: invalid probe specifier %s: "
			    "invalid probe identifier %.*s\n", g_pname,
			    dcp->dc_arg, (int)(rest - p), p);
			exit(E_ERROR);
		}
		memset(&pd, 0, sizeof(pd));
		pd.dtpd_id = (uint32_t)id;
		/* (ID 0 is no probe's, and to the iterator any probe) */
		if (id == 0 ||
		    dtrace_probe_iter(g_dtp, &pd, id_found, &pd) != 0) {
			fprintf(stderr, "%s: invalid probe specifier %s: "
			    "invalid probe identifier %lu: Unknown probe "
			    "identifier\n", g_pname, dcp->dc_arg, id);
			exit(E_ERROR);
		}
		if ((text = realloc(text, len + strlen(pd.dtpd_provider) +
		    strlen(pd.dtpd_mod) + strlen(pd.dtpd_func) +
		    strlen(pd.dtpd_name) + 5)) == NULL)
			fatal("failed to allocate memory");
		len += sprintf(text + len, "%s%s:%s:%s:%s", len ? "," : "",
		    pd.dtpd_provider, pd.dtpd_mod, pd.dtpd_func, pd.dtpd_name);
		p = end < rest ? end + 1 : end;
	}
	if (text == NULL) {
		fprintf(stderr, "%s: invalid probe specifier %s: invalid "
		    "probe identifier\n", g_pname, dcp->dc_arg);
		exit(E_ERROR);
	}
	if ((text = realloc(text, len + strlen(rest) + 2)) == NULL)
		fatal("failed to allocate memory");
	sprintf(text + len, " %s", rest);
	dcp->dc_idtext = text;
	dcp->dc_spec = DTRACE_PROBESPEC_NAME;
}

static void
compile_file(dtrace_cmd_t *dcp)
{
	FILE *fp;

	if ((fp = fopen(dcp->dc_arg, "r")) == NULL)
		fatal("failed to open %s", dcp->dc_arg);
	/* the script is $0 */
	g_argv[0] = dcp->dc_arg;
	dcp->dc_prog = dtrace_program_fcompile(g_dtp, fp, g_cflags, g_argc,
	    g_argv);
	fclose(fp);
	if (dcp->dc_prog == NULL)
		dfatal("failed to compile script %s", dcp->dc_arg);
	dcp->dc_name = dcp->dc_arg;
	dcp->dc_desc = "script";
}

static void
stab_print(const char *what, const dtrace_attribute_t *a)
{
	oprintf("\n\t%s\n", what);
	oprintf("\t\tIdentifier Names: %s\n",
	    dtrace_stability_name(a->dtat_name));
	oprintf("\t\tData Semantics:   %s\n",
	    dtrace_stability_name(a->dtat_data));
	oprintf("\t\tDependency Class: %s\n", dtrace_class_name(a->dtat_class));
}

/*
 * -v with a program: illumos's stability report.  The descriptions are
 * as stable as the fields they name; the statements as what they use.
 */
static void
stab_report(const dtrace_cmd_t *dcp)
{
	dtrace_attribute_t desc, stmt;

	dtrace_program_descattr(g_dtp, dcp->dc_prog, &desc);
	dtrace_program_stmtattr(g_dtp, dcp->dc_prog, &stmt);
	oprintf("\nStability attributes for %s %s:\n", dcp->dc_desc,
	    dcp->dc_name);
	stab_print("Minimum Probe Description Attributes", &desc);
	stab_print("Minimum Statement Attributes", &stmt);
	oprintf("\n");
}

static void
exec_prog(const dtrace_cmd_t *dcp)
{
	dtrace_proginfo_t dpi;
	int i;

	if (!g_exec) {
		dtrace_program_info(g_dtp, dcp->dc_prog, &dpi);
		if (g_verbose)
			stab_report(dcp);
		return;
	}
	if (dtrace_program_exec(g_dtp, dcp->dc_prog, &dpi) == -1) {
		/* the library names the description that matched nothing */
		if (dtrace_errno(g_dtp) == DTRACE_ENOPROBE)
			dfatal(NULL);
		dfatal("failed to enable '%s'", dcp->dc_name);
	}
	notice("%s '%s' matched %u probe%s\n", dcp->dc_desc, dcp->dc_name,
	    dpi.dpi_matches, dpi.dpi_matches == 1 ? "" : "s");
	if (g_verbose)
		stab_report(dcp);
	/* -v: how the daemon traces each target, once it has said */
	for (i = 0; g_verbose && i < g_targc; i++) {
		const char *b;

		if (g_targv[i].dt_told || g_targv[i].dt_pid <= 0 ||
		    (b = dtrace_proc_backend(g_dtp, g_targv[i].dt_pid)) == NULL)
			continue;
		g_targv[i].dt_told = 1;
		fprintf(stderr, "%s: pid %d: %s backend\n", g_pname,
		    (int)g_targv[i].dt_pid, b);
	}
}

/*
 * Split "[[[prov:]mod:]func:]name" into a description; which field a
 * shorter text names depends on the flag (-P -m -f -n).
 */
static int
parse_desc(const char *s, dtrace_probespec_t spec, dtrace_probedesc_t *pd)
{
	char *fields[4] = { pd->dtpd_provider, pd->dtpd_mod, pd->dtpd_func,
	    pd->dtpd_name };
	static const size_t sizes[4] = { sizeof(pd->dtpd_provider),
	    sizeof(pd->dtpd_mod), sizeof(pd->dtpd_func),
	    sizeof(pd->dtpd_name) };
	const char *parts[4], *p;
	size_t lens[4];
	int n = 0, i, last;

	memset(pd, 0, sizeof(*pd));
	for (p = s;; p++) {
		const char *q = strchr(p, ':');

		if (n == 4)
			return -1;
		parts[n] = p;
		lens[n++] = q != NULL ? (size_t)(q - p) : strlen(p);
		if (q == NULL)
			break;
		p = q;
	}
	last = spec == DTRACE_PROBESPEC_NONE ? DTRACE_PROBESPEC_NAME :
	    (int)spec;
	if (n > last + 1)
		return -1;
	for (i = 0; i < n; i++) {
		int f = last - (n - 1 - i);

		if (lens[i] >= sizes[f])
			return -1;
		memcpy(fields[f], parts[i], lens[i]);
		fields[f][lens[i]] = '\0';
	}
	return 0;
}

/* -lv: a probe's stability and argument types, as illumos prints them */
static void
print_probe_info(const dtrace_probeinfo_t *p)
{
	int i;

	oprintf("\n\tProbe Description Attributes\n");
	oprintf("\t\tIdentifier Names: %s\n",
	    dtrace_stability_name(p->dtp_attr.dtat_name));
	oprintf("\t\tData Semantics:   %s\n",
	    dtrace_stability_name(p->dtp_attr.dtat_data));
	oprintf("\t\tDependency Class: %s\n",
	    dtrace_class_name(p->dtp_attr.dtat_class));
	oprintf("\n\tArgument Attributes\n");
	oprintf("\t\tIdentifier Names: %s\n",
	    dtrace_stability_name(p->dtp_arga.dtat_name));
	oprintf("\t\tData Semantics:   %s\n",
	    dtrace_stability_name(p->dtp_arga.dtat_data));
	oprintf("\t\tDependency Class: %s\n",
	    dtrace_class_name(p->dtp_arga.dtat_class));
	oprintf("\n\tArgument Types\n");
	for (i = 0; i < p->dtp_argc; i++)
		oprintf("\t\targs[%d]: %s\n", i, p->dtp_argv[i]);
	if (p->dtp_argc == 0)
		oprintf("\t\tNone\n");
	oprintf("\n");
}

/* -l: a probe a line, in a table or, under oformat=json, as JSON */
static int
list_probe(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp, void *arg)
{
	dtrace_probeinfo_t p;

	if (g_json) {
		if (dtrace_probe_json(dtp, g_ofp, pdp, g_verbose &&
		    dtrace_probe_info(dtp, pdp, &p) == 0 ? &p : NULL) != 0)
			clearerr(g_ofp);
		return 0;
	}
	oprintf("%5d %10s %17s %33s %s\n", pdp->dtpd_id, pdp->dtpd_provider,
	    pdp->dtpd_mod, pdp->dtpd_func, pdp->dtpd_name);
	if (g_verbose && dtrace_probe_info(dtp, pdp, &p) == 0)
		print_probe_info(&p);
	return 0;
}

static void
list_desc(const dtrace_probedesc_t *pd)
{
	if (dtrace_probe_iter(g_dtp, pd, list_probe, NULL) == 0)
		return;
	if (dtrace_errno(g_dtp) != DTRACE_ENOPROBE)
		dfatal("failed to list probes");
	error("failed to match %s:%s:%s:%s: %s\n", pd->dtpd_provider,
	    pd->dtpd_mod, pd->dtpd_func, pd->dtpd_name,
	    dtrace_errmsg(g_dtp, dtrace_errno(g_dtp)));
	g_status = E_ERROR;
}

/* -l with -n/-P/-m/-f/-i: list what each description names. */
/* -l does not compile: expand "pid$target" in a provider by hand. */
static void
list_target(char *prov, size_t size)
{
	char buf[256], *p;

	if (g_targc == 0 || (p = strstr(prov, "$target")) == NULL)
		return;
	snprintf(buf, sizeof(buf), "%.*s%d%s", (int)(p - prov), prov,
	    (int)g_target, p + strlen("$target"));
	if (strlen(buf) < size)
		memcpy(prov, buf, strlen(buf) + 1);
}

static int
list_stmt(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd, void *arg)
{
	(void)dtp;
	(void)arg;
	list_desc(pd);
	return 0;
}

/* -l of a probe id where a description goes: as the compiler has it */
static void
list_id(const dtrace_cmd_t *dcp, const char *tok, int check)
{
	static const char *const names[] = { "providers", "modules",
	    "functions" };
	dtrace_probedesc_t pd;
	unsigned long long id = strtoull(tok, NULL, 10);

	if (dcp->dc_spec >= DTRACE_PROBESPEC_PROVIDER &&
	    dcp->dc_spec <= DTRACE_PROBESPEC_FUNC) {
		fprintf(stderr, "%s: invalid probe specifier %s: probe "
		    "identifier %llu not permitted when specifying %s\n",
		    g_pname, dcp->dc_arg, id, names[dcp->dc_spec]);
		exit(E_ERROR);
	}
	if (id == 0 || id > UINT32_MAX) {
		fprintf(stderr, "%s: invalid probe specifier %s: invalid "
		    "probe identifier %llu: Unknown probe identifier\n",
		    g_pname, dcp->dc_arg, id);
		exit(E_ERROR);
	}
	if (check)
		return;
	memset(&pd, 0, sizeof(pd));
	pd.dtpd_id = (uint32_t)id;
	list_desc(&pd);
}

/* List a command's probes; with check, only parse its descriptions. */
static void
list_cmd(dtrace_cmd_t *dcp, int check)
{
	dtrace_probedesc_t pd;
	char *text, *tok, *save, *p;

	if (dcp->dc_script && check)
		return;
	if (dcp->dc_script) {
		/* compiled (before the heading): what its clauses match */
		(void)dtrace_program_desc_iter(g_dtp, dcp->dc_prog,
		    list_stmt, NULL);
		return;
	}
	if (dcp->dc_spec == DTRACE_PROBESPEC_NONE) {	/* -i id */
		char *end;
		unsigned long id = strtoul(dcp->dc_arg, &end, 10);

		if (*end != '\0' || id == 0 || id > UINT32_MAX)
			fatal("invalid probe identifier %s\n", dcp->dc_arg);
		if (check)
			return;
		memset(&pd, 0, sizeof(pd));
		pd.dtpd_id = (uint32_t)id;
		list_desc(&pd);
		return;
	}
	if ((text = strdup(dcp->dc_arg)) == NULL)
		fatal("failed to allocate memory");
	if ((p = strpbrk(text, "{/;")) != NULL)
		*p = '\0';
	for (tok = strtok_r(text, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		char *end;

		while (*tok == ' ' || *tok == '\t' || *tok == '\n')
			tok++;
		end = tok + strlen(tok);
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t' ||
		    end[-1] == '\n'))
			*--end = '\0';
		if (*tok != '\0' && tok[strspn(tok, "0123456789")] == '\0') {
			/* a probe id, as the compiler takes one (-n 4) */
			list_id(dcp, tok, check);
			continue;
		}
		if (parse_desc(tok, dcp->dc_spec, &pd) != 0) {
			fprintf(stderr, "%s: invalid probe specifier %s: "
			    "invalid probe description \"%s\": Overspecified "
			    "probe description\n", g_pname, dcp->dc_arg, tok);
			exit(E_ERROR);
		}
		if (check)
			continue;
		list_target(pd.dtpd_provider, sizeof(pd.dtpd_provider));
		list_desc(&pd);
	}
	free(text);
}

/* setopt() in the program: follow the options we print by. */
static void
setopthandler(const char *name, dtrace_optval_t val, void *arg)
{
	(void)arg;
	if (strcmp(name, "quiet") == 0)
		g_quiet = val != DTRACEOPT_UNSET;
	else if (strcmp(name, "flowindent") == 0)
		g_flowindent = val != DTRACEOPT_UNSET;
}

/* Called at each probe firing: the CPU/ID/FUNCTION:NAME prefix. */
static int
chew(const dtrace_probedata_t *data, void *arg)
{
	const dtrace_probedesc_t *pd = data->dtpda_pdesc;
	static int heading;

	if (g_impatient) {
		g_newline = 0;
		return DTRACE_CONSUME_ABORT;
	}
	if (!g_quiet && !g_json) {
		char name[256 + 64 + 2];

		if (!heading && g_flowindent) {
			if (g_testing)
				oprintf("%-41s\n", "FUNCTION");
			else
				oprintf("%3s %-41s\n", "CPU", "FUNCTION");
			heading = 1;
		}
		if (!heading) {
			if (g_testing)
				oprintf("%32s\n", "FUNCTION:NAME");
			else
				oprintf("%3s %6s %32s\n", "CPU", "ID",
				    "FUNCTION:NAME");
			heading = 1;
		}
		if (g_flowindent) {
			/* -F: the function, indented by call depth */
			char fname[256 + 64 + 2 + 256];

			if (data->dtpda_flow == DTRACEFLOW_NONE)
				snprintf(fname, sizeof(fname), "%*s%s%s:%s",
				    data->dtpda_indent, "", data->dtpda_prefix,
				    pd->dtpd_func, pd->dtpd_name);
			else
				snprintf(fname, sizeof(fname), "%*s%s%s",
				    data->dtpda_indent, "", data->dtpda_prefix,
				    pd->dtpd_func);
			if (g_testing)
				oprintf("%-41s ", fname);
			else
				oprintf("%3d %-41s ", data->dtpda_cpu, fname);
			return DTRACE_CONSUME_THIS;
		}
		snprintf(name, sizeof(name), "%s:%s", pd->dtpd_func,
		    pd->dtpd_name);
		if (g_testing)
			oprintf("%32s ", name);
		else
			oprintf("%3d %6d %32s ", data->dtpda_cpu, pd->dtpd_id,
			    name);
	}
	return DTRACE_CONSUME_THIS;
}

/* Called for each record: exit()'s status; the newline after the last. */
static int
chewrec(const dtrace_probedata_t *data, const dtrace_recdesc_t *rec,
    void *arg)
{
	if (rec == NULL) {
		if (!g_quiet && !g_json)
			oprintf("\n");
		return DTRACE_CONSUME_NEXT;
	}
	if (rec->dtrd_action == DTRACEACT_EXIT) {
		int32_t status;

		memcpy(&status, data->dtpda_data, sizeof(status));
		g_status = status;
		return DTRACE_CONSUME_NEXT;
	}
	return DTRACE_CONSUME_THIS;
}

static void
intr(int signo)
{
	if (!g_intr)
		g_newline = 1;
	if (g_intr++)
		g_impatient = 1;
}

static void
target_add(int create, char *arg)
{
	dtrace_target_t *tv;

	if ((tv = realloc(g_targv, (g_targc + 1) * sizeof(*tv))) == NULL)
		fatal("failed to allocate memory");
	g_targv = tv;
	memset(&tv[g_targc], 0, sizeof(*tv));
	tv[g_targc].dt_create = create;
	tv[g_targc].dt_arg = arg;
	g_targc++;
}

/* A target exited: say how, as illumos does, and count it. */
static void
prochandler(pid_t pid, int status, void *arg)
{
	const char *sig, *why;

	(void)arg;
	if ((why = dtrace_proc_lost(g_dtp, pid)) != NULL) {
		/* not a notice: -q must not hide why tracing stopped */
		error("pid %d: %s; tracing stopped\n", (int)pid, why);
	} else if (WIFSIGNALED(status)) {
		sig = sigabbrev_np(WTERMSIG(status));
		if (sig != NULL)
			notice("pid %d terminated by SIG%s\n", (int)pid, sig);
		else
			notice("pid %d terminated by signal %d\n", (int)pid,
			    WTERMSIG(status));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		notice("pid %d exited with status %d\n", (int)pid,
		    WEXITSTATUS(status));
	} else {
		notice("pid %d has exited\n", (int)pid);
	}
	g_pslive--;
}

/* Start (-c) or grab (-p) every target, before anything is compiled. */
static void
targets_start(void)
{
	char *argv[256], *save, *tok, *cmd;
	long pid;
	char *end;
	int i, n;

	dtrace_handle_proc(g_dtp, prochandler, NULL);
	for (i = 0; i < g_targc; i++) {
		if (!g_targv[i].dt_create) {
			errno = 0;
			pid = strtol(g_targv[i].dt_arg, &end, 10);
			if (errno != 0 || *end != '\0' || end ==
			    g_targv[i].dt_arg || pid <= 0 || pid > INT_MAX)
				fatal("invalid process ID -- %s\n",
				    g_targv[i].dt_arg);
			if (dtrace_proc_grab(g_dtp, (pid_t)pid) == -1)
				dfatal("failed to grab pid %ld", pid);
			g_targv[i].dt_pid = (pid_t)pid;
			if (g_pslive++ == 0)
				g_target = (pid_t)pid;
			continue;
		}
		/* argv split on blanks, as illumos does */
		if ((cmd = strdup(g_targv[i].dt_arg)) == NULL)
			fatal("failed to allocate memory");
		n = 0;
		for (tok = strtok_r(cmd, " \t", &save); tok != NULL &&
		    n < 255; tok = strtok_r(NULL, " \t", &save))
			argv[n++] = tok;
		argv[n] = NULL;
		if (n == 0)
			fatal("invalid command -- '%s'\n", g_targv[i].dt_arg);
		if ((pid = dtrace_proc_create(g_dtp, argv[0], argv)) == -1)
			dfatal("failed to run command '%s'", g_targv[i].dt_arg);
		g_targv[i].dt_pid = (pid_t)pid;
		free(cmd);	/* the child has its own copy of argv */
		if (g_pslive++ == 0)
			g_target = (pid_t)pid;
	}
}

/* -x oformat=json (by -x or a script's pragma): is the output JSON? */
static int
json_output(void)
{
	dtrace_optval_t opt;

	return dtrace_getopt(g_dtp, "oformat", &opt) == 0 &&
	    opt == DTRACE_OFORMAT_JSON;
}

/* -a -l: one line per retained program the user may see. */
static int
list_retained(dtrace_hdl_t *dtp, const dtrace_retained_t *r, void *arg)
{
	static const char *states[] = { "inactive", "active", "draining",
	    "stopped" };
	char bs[32], as[32], tg[DTRACE_RETAINED_MAXTGT * 20 + 2];
	size_t off = 0;
	uint32_t i;

	(void)arg;
	if (g_json) {
		if (dtrace_retained_json(dtp, g_ofp, r) != 0)
			clearerr(g_ofp);
		return 0;
	}
	dtrace_sizestr(r->dtr_bufsize, bs, sizeof(bs));
	if (r->dtr_aggsize != 0)
		dtrace_sizestr(r->dtr_aggsize, as, sizeof(as));
	else
		snprintf(as, sizeof(as), "-");
	tg[0] = '\0';
	for (i = 0; i < r->dtr_ntargets; i++)
		off += snprintf(tg + off, sizeof(tg) - off, "%s%d%s",
		    i > 0 ? "," : "", (int)r->dtr_targets[i],
		    r->dtr_exited[i] ? "(exited)" : "");
	oprintf("%-20s %6u %-8s %-6s %7s %7s %10llu %s\n", r->dtr_name,
	    r->dtr_uid, r->dtr_state >= 0 && r->dtr_state <= 3 ?
	    states[r->dtr_state] : "?", r->dtr_policy, bs, as,
	    (unsigned long long)r->dtr_drops, tg[0] != '\0' ? tg : "-");
	return 0;
}

/*
 * -a [NAME]: take over a retained program instead of compiling one.
 * Its options (quiet, aggsortkey ...) come with it.
 */
static void
grab_retained(void)
{
	const char *name = NULL;

	if (g_cmdc > 0 || g_targc > 0) {
		fprintf(stderr, "%s: -a: Can't claim anonymous state and "
		    "enable probes\n", g_pname);
		dtrace_close(g_dtp);
		exit(E_ERROR);
	}
	if (g_argc > 2) {
		fprintf(stderr, "%s: -a claims one retained program: %s %s "
		    "...\n", g_pname, g_argv[1], g_argv[2]);
		dtrace_close(g_dtp);
		exit(E_USAGE);
	}
	if (g_argc == 2)
		name = g_argv[1];
	if (g_list) {
		g_json = json_output();
		if (!g_json)
			oprintf("%-20s %6s %-8s %-6s %7s %7s %10s %s\n",
			    "NAME", "UID", "STATE", "POLICY", "BUFSIZE",
			    "AGGSIZE", "DROPS", "TARGETS");
		if (dtrace_retained_iter(g_dtp, list_retained, NULL) != 0)
			dfatal("failed to list retained programs");
		fflush(g_ofp);
		dtrace_close(g_dtp);
		exit(E_SUCCESS);
	}
	if (dtrace_claim(g_dtp, name, g_grabsnap) != 0) {
		if (name != NULL)
			dfatal("failed to claim retained program %s", name);
		dfatal("failed to claim a retained program");
	}
}

/*
 * -A: keep an option the command line set, for the saved program.
 * Those that concern this command alone (where the daemon is, retaining
 * and claiming, the preprocessor that already ran) are not kept.
 */
static void
anon_keepopt(const char *name, const char *val)
{
	static const char *const skip[] = { "socket", "retain", "grab",
	    "cpp", "cpphdrs", "cpppath", "define", "undef", "incdir", NULL };
	char **v, *o;
	int i;

	for (i = 0; skip[i] != NULL; i++) {
		if (strcmp(name, skip[i]) == 0)
			return;
	}
	if ((v = realloc(g_anonopt, (g_nanonopt + 1) * sizeof(*v))) == NULL ||
	    (o = malloc(strlen(name) + (val != NULL ? strlen(val) : 0) + 2)) ==
	    NULL)
		fatal("failed to allocate memory");
	g_anonopt = v;
	sprintf(o, "%s%s%s", name, val != NULL ? "=" : "",
	    val != NULL ? val : "");
	g_anonopt[g_nanonopt++] = o;
}

static void
set_opt(const char *name, char *val, const char *what, const char *arg)
{
	if (dtrace_setopt(g_dtp, name, val) != 0)
		dfatal("failed to set %s %s", what, arg);
	anon_keepopt(name, val);
}

/*
 * -A, anonymous tracing: illumos saves the programs for the kernel to
 * enable at boot, and dtrace -a claims them.  Here they are saved as D
 * text in dtraced's configuration directory (or -o's file) as
 * anonymous.d, which dtraced retains under the name "anonymous" when
 * it starts (dtraced.8, RETAINED PROGRAMS), and dtrace -a claims.  The
 * options the command line set come first, as pragmas; descriptions
 * given by -P, -m, -f and -i are written out in full; each program is
 * saved as compiled, as illumos saves its DOF: through cpp under -C,
 * its macro arguments ($1, $$1, $0...) replaced by their values
 * (dtrace_program_text).  Without a program, -A removes the saved one.
 * The messages are illumos's.
 */
static void
anon_write_cmd(FILE *fp, const dtrace_cmd_t *dcp)
{
	const char *t = dcp->dc_idtext != NULL ? dcp->dc_idtext : dcp->dc_arg;
	char *text, *tok, *save, *body;
	int i, colons;

	if (dcp->dc_script) {
		text = read_text(dcp->dc_arg);
		t = text;
		if (strncmp(t, "#!", 2) == 0)
			t += strcspn(t, "\n");	/* no longer first */
		fprintf(fp, "%s%s", t, t[0] != '\0' &&
		    t[strlen(t) - 1] != '\n' ? "\n" : "");
		free(text);
		return;
	}
	if (dcp->dc_idtext != NULL || dcp->dc_spec == DTRACE_PROBESPEC_NAME) {
		fprintf(fp, "%s%s\n", t, strchr(t, '{') == NULL ? " {}" : "");
		return;
	}
	/* -P, -m, -f: each description to its name field */
	colons = dcp->dc_spec == DTRACE_PROBESPEC_PROVIDER ? 3 :
	    dcp->dc_spec == DTRACE_PROBESPEC_MOD ? 2 : 1;
	if ((text = strdup(t)) == NULL)
		fatal("failed to allocate memory");
	body = text + strcspn(text, "/{");
	for (i = 0, tok = strtok_r(text, ",", &save); tok != NULL &&
	    tok < body; tok = strtok_r(NULL, ",", &save), i++) {
		size_t n = strcspn(tok, "/{ \t\n");

		fprintf(fp, "%s%.*s%.*s", i > 0 ? ",\n" : "", (int)n, tok,
		    colons, ":::");
	}
	fprintf(fp, " %s\n", strchr(t, '{') == NULL ? "{}" : t +
	    strcspn(t, "/{"));
	free(text);
}

static int
anon_main(void)
{
	const char *path = g_ofile != NULL ? g_ofile :
	    SYSCONFDIR "/dtraced/anonymous.d";
	FILE *fp;
	int i;

	if (access(path, F_OK) == 0) {
		if (unlink(path) != 0)
			fatal("failed to remove %s", path);
		error("cleaned up old anonymous enabling in %s\n", path);
	}
	if (g_cmdc == 0) {
		dtrace_close(g_dtp);
		return g_status;
	}
	if ((fp = fopen(path, "w")) == NULL)
		fatal("failed to open output file '%s'", path);
	fprintf(fp, "/* saved by dtrace -A: dtraced retains it at start */\n");
	for (i = 0; i < g_nanonopt; i++)
		fprintf(fp, "#pragma D option %s\n", g_anonopt[i]);
	for (i = 0; i < g_cmdc; i++) {
		char *text = NULL, *saved;
		size_t len = 0;
		FILE *mp;

		/* as compiled: after cpp (-C), with $1... as they stood */
		if ((mp = open_memstream(&text, &len)) == NULL)
			fatal("failed to allocate memory");
		anon_write_cmd(mp, &g_cmdv[i]);
		if (fclose(mp) == EOF)
			fatal("failed to allocate memory");
		if (g_cmdv[i].dc_script)
			g_argv[0] = g_cmdv[i].dc_arg;
		if ((saved = dtrace_program_text(g_dtp, text, g_cflags, g_argc,
		    g_argv)) == NULL) {
			fclose(fp);
			(void)unlink(path);
			dfatal("failed to save %s", g_cmdv[i].dc_arg);
		}
		fputs(saved, fp);
		free(saved);
		free(text);
	}
	if (fclose(fp) == EOF)
		fatal("failed to close output file '%s'", path);
	/* error(), not notice(): a program's quiet pragma must not hide it */
	error("saved anonymous enabling in %s\n", path);
	error("restart dtraced(8) or reboot to enable changes\n");
	dtrace_close(g_dtp);
	return g_status;
}

/*
 * argv with argv[1] split at blanks (for #! lines); exits on no memory.
 * The new vector lives as long as the program (g_interpargv).
 */
static char **volatile g_interpargv;	/* volatile: kept, never read */

static char **
interp_args(int *argcp, char **argv)
{
	char **nargv, *copy, *w;
	int n = 0, i;

	if ((copy = strdup(argv[1])) == NULL ||
	    (nargv = calloc(*argcp + strlen(argv[1]) + 1, sizeof(char *))) ==
	    NULL)
		fatal("failed to allocate memory");
	nargv[n++] = argv[0];
	for (w = strtok(copy, " \t"); w != NULL; w = strtok(NULL, " \t"))
		nargv[n++] = w;
	for (i = 2; i < *argcp; i++)
		nargv[n++] = argv[i];
	nargv[n] = NULL;
	*argcp = n;
	g_interpargv = nargv;
	return nargv;
}

int
main(int argc, char *argv[])
{
	struct sigaction act;
	dtrace_optval_t opt;
	int c, err, i, done = 0;

	if ((g_pname = strrchr(argv[0], '/')) != NULL)
		g_pname++;
	else
		g_pname = argv[0];
	opterr = 0;
	g_ofp = stdout;
	g_testing = getenv("_DTRACE_TESTING") != NULL;
	if (argc == 1)
		return usage(stderr);
	/*
	 * An interpreter file, "#!/usr/sbin/dtrace -q -s": Linux passes all
	 * of the line's options as one argument; split it into words.
	 */
	if (argv[1][0] == '-' && strpbrk(argv[1], " \t") != NULL)
		argv = interp_args(&argc, argv);
	if ((g_argv = calloc(argc + 1, sizeof(char *))) == NULL) {
		perror(g_pname);
		return E_ERROR;
	}
	g_argv[g_argc++] = argv[0];
	if ((g_dtp = dtrace_open(DTRACE_VERSION, 0, &err)) == NULL) {
		fprintf(stderr, "%s: failed to initialize dtrace: %s\n",
		    g_pname, dtrace_errmsg(NULL, err));
		return E_ERROR;
	}

	/* options and operands may be mixed; operands are $1, $2 ... */
	for (optind = 1; optind < argc; optind++) {
		while ((c = getopt(argc, argv, DTRACE_OPTSTR)) != -1) {
			char *p;

			switch (c) {
			case '3':
				if (strcmp(optarg, "2") != 0)
					return usage(stderr);
				fprintf(stderr, "%s: -32 is not yet supported\n",
				    g_pname);
				return E_USAGE;
			case '6':
				/* 64-bit is the only data model: nothing to do */
				if (strcmp(optarg, "4") != 0)
					return usage(stderr);
				break;
			case 'b':
				set_opt("bufsize", optarg, "-b", optarg);
				break;
			case 'c':
				target_add(1, optarg);
				break;
			case 'p':
				target_add(0, optarg);
				break;
			case 'e':
				g_exec = 0;
				break;
			case 'f':
				dcmd_add(0, DTRACE_PROBESPEC_FUNC, optarg);
				break;
			case 'i':
				dcmd_add(0, DTRACE_PROBESPEC_NONE, optarg);
				break;
			case 'l':
				g_list = 1;
				break;
			case 'm':
				dcmd_add(0, DTRACE_PROBESPEC_MOD, optarg);
				break;
			case 'n':
				dcmd_add(0, DTRACE_PROBESPEC_NAME, optarg);
				break;
			case 'o':
				g_ofile = optarg;
				break;
			case 'P':
				dcmd_add(0, DTRACE_PROBESPEC_PROVIDER, optarg);
				break;
			case 'q':
				set_opt("quiet", NULL, "-q", "");
				break;
			case 'F':
				set_opt("flowindent", NULL, "-F", "");
				break;
			case 's':
				dcmd_add(1, DTRACE_PROBESPEC_NONE, optarg);
				break;
			case 'S':
				g_cflags |= DTRACE_C_DIFV;
				break;
			case 'V':
				g_vers = 1;
				break;
			case 'v':
				g_verbose = 1;
				break;
			case 'w':
				set_opt("destructive", NULL, "-w", "");
				break;
			case 'x':
				if ((p = strchr(optarg, '=')) != NULL)
					*p++ = '\0';
				if (dtrace_setopt(g_dtp, optarg, p) != 0)
					dfatal("failed to set -x %s", optarg);
				anon_keepopt(optarg, p);
				/* the library checked them */
				if (strcmp(optarg, "retain") == 0)
					g_retain = p;
				if (strcmp(optarg, "grab") == 0)
					g_grabsnap = strcmp(p, "snapshot") == 0;
				break;
			case 'Z':
				g_cflags |= DTRACE_C_ZDEFS;
				set_opt("zdefs", NULL, "-Z", "");
				break;
			case 'a':
				g_grabanon = 1;
				break;
			case 'C':
				set_opt("cpp", NULL, "-C", "");
				break;
			case 'D':
				set_opt("define", optarg, "-D", optarg);
				break;
			case 'H':
				set_opt("cpphdrs", NULL, "-H", "");
				break;
			case 'I':
				set_opt("incdir", optarg, "-I", optarg);
				break;
			case 'L':
				set_opt("libdir", optarg, "-L", optarg);
				break;
			case 'U':
				set_opt("undef", optarg, "-U", optarg);
				break;
			case 'X':
				set_opt("stdc", optarg, "-X", optarg);
				break;
			case 'G':
				g_sdtmode = 'G';
				g_nsdt++;
				break;
			case 'h':
				g_sdtmode = 'h';
				g_nsdt++;
				break;
			case 'A':
				g_anon = 1;
				break;
			case 'B':
				unsupported(c);
			default:
				if (strchr(DTRACE_OPTSTR, optopt) != NULL)
					fprintf(stderr, "%s: option requires an "
					    "argument -- %c\n", g_pname, optopt);
				else
					fprintf(stderr, "%s: illegal option -- "
					    "%c\n", g_pname, optopt);
				dtrace_close(g_dtp);
				return usage(stderr);
			}
		}
		/* after "--" every word is an operand, "-e" included */
		if (optind > 1 && optind <= argc &&
		    strcmp(argv[optind - 1], "--") == 0) {
			while (optind < argc)
				g_argv[g_argc++] = argv[optind++];
			break;
		}
		if (optind < argc)
			g_argv[g_argc++] = argv[optind];
	}

	/*
	 * -v reports stability with -l; with a program, which backend
	 * traces each target (its stability report is not done)
	 */
	if (g_list + g_vers + g_nsdt + g_anon > 1) {
		fprintf(stderr, "%s: only one of the [-GhlV] options can be "
		    "specified\n", g_pname);
		return E_USAGE;
	}
	core_arm();
	if (g_sdtmode != 0)
		return sdt_main();
	if (g_vers) {
		printf("%s: %s\n", g_pname, DTRACE_VERSSTR);
		dtrace_close(g_dtp);
		return E_SUCCESS;
	}
	/* (-A writes its program to -o's file itself) */
	if (g_ofile != NULL && !g_anon && (g_ofp = fopen(g_ofile, "a")) ==
	    NULL)
		fatal("failed to open output file '%s'", g_ofile);

	if (g_grabanon && g_retain != NULL) {
		fprintf(stderr, "%s: -a and -x retain cannot be combined\n",
		    g_pname);
		return E_USAGE;
	}
	if (g_grabanon) {
		grab_retained();
		done = 1;	/* the claim is read at once, and stops */
		goto consume;
	}
	if (g_anon && (g_targc > 0 || g_grabanon)) {
		fprintf(stderr, "%s: -A cannot be combined with -a, -c or -p\n",
		    g_pname);
		dtrace_close(g_dtp);
		return E_USAGE;
	}
	if (g_targc > 0)
		targets_start();

	if (g_list) {
		/* as illumos: a script's errors come before the heading */
		g_cflags |= DTRACE_C_ZDEFS;
		for (i = 0; i < g_cmdc; i++) {
			if (g_cmdv[i].dc_script)
				compile_file(&g_cmdv[i]);
			else
				list_cmd(&g_cmdv[i], 1);
		}
		/* the listing as JSON lines, without the heading */
		if (!(g_json = json_output()))
			oprintf("%5s %10s %17s %33s %s\n", "ID", "PROVIDER",
			    "MODULE", "FUNCTION", "NAME");
		for (i = 0; i < g_cmdc; i++)
			list_cmd(&g_cmdv[i], 0);
		if (g_cmdc == 0 &&
		    dtrace_probe_iter(g_dtp, NULL, list_probe, NULL) != 0 &&
		    dtrace_errno(g_dtp) != DTRACE_ENOPROBE)
			dfatal("failed to list probes");
		fflush(g_ofp);
		dtrace_close(g_dtp);
		return g_status;
	}

	if (g_cmdc == 0 && !g_anon) {
		dtrace_close(g_dtp);
		return usage(stderr);
	}
	for (i = 0; i < g_cmdc; i++) {
		if (g_cmdv[i].dc_spec == DTRACE_PROBESPEC_NONE &&
		    !g_cmdv[i].dc_script)
			id_to_desc(&g_cmdv[i]);
		if (g_cmdv[i].dc_script)
			compile_file(&g_cmdv[i]);
		else
			compile_str(&g_cmdv[i]);
	}
	core_arm();
	if (g_anon)
		return anon_main();	/* compiled: saved, not enabled */
	if (dtrace_getopt(g_dtp, "quiet", &opt) == 0 && opt != DTRACEOPT_UNSET)
		g_quiet = 1;
	if (!g_exec) {
		for (i = 0; g_verbose && i < g_cmdc; i++)
			exec_prog(&g_cmdv[i]);
		dtrace_close(g_dtp);
		return E_SUCCESS;
	}
	for (i = 0; i < g_cmdc; i++)
		exec_prog(&g_cmdv[i]);
	if (dtrace_getopt(g_dtp, "destructive", &opt) == 0 &&
	    opt != DTRACEOPT_UNSET)
		notice("allowing destructive actions\n");
consume:
	memset(&act, 0, sizeof(act));
	act.sa_handler = intr;
	sigemptyset(&act.sa_mask);
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	signal(SIGPIPE, SIG_IGN);

	(void)dtrace_handle_setopt(g_dtp, setopthandler, NULL);
	if (!g_grabanon && dtrace_go(g_dtp) == -1)
		dfatal("could not enable tracing");
	if (g_retain != NULL) {
		/* the daemon traces on without us */
		notice("program retained by dtraced as %s; claim it with "
		    "dtrace -a %s\n", g_retain, g_retain);
		dtrace_close(g_dtp);
		return E_SUCCESS;
	}
	/* a pragma may have set quiet */
	if (dtrace_getopt(g_dtp, "quiet", &opt) == 0 && opt != DTRACEOPT_UNSET)
		g_quiet = 1;
	if (dtrace_getopt(g_dtp, "flowindent", &opt) == 0 &&
	    opt != DTRACEOPT_UNSET)
		g_flowindent = 1;
	/* JSON lines only: no headings, no newlines of our own */
	g_json = json_output();
	if (g_grabanon)
		notice("%s retained program %s\n", g_grabsnap ?
		    "snapshot of" : "claimed", dtrace_claimed(g_dtp));

	do {
		/* (a target may have exited already, heard of in dtrace_go) */
		if (!g_intr && !done && !(g_targc > 0 && g_pslive == 0))
			dtrace_sleep(g_dtp);
		if (g_newline) {
			/* after ^C: end the line the terminal echoed it on */
			if (!g_json)
				oprintf("\n");
			g_newline = 0;
		}
		/* every target has exited: stop as exit() would */
		if (done || g_intr || (g_targc > 0 && g_pslive == 0)) {
			done = 1;
			if (dtrace_stop(g_dtp) == -1)
				dfatal("couldn't stop tracing");
		}
		switch (dtrace_work(g_dtp, g_ofp, chew, chewrec, NULL)) {
		case DTRACE_WORKSTATUS_DONE:
			done = 1;
			break;
		case DTRACE_WORKSTATUS_OKAY:
			break;
		default:
			if (dtrace_errno(g_dtp) == DTRACE_EDAEMON) {
				/*
				 * The daemon is gone: what came before is
				 * ours still, aggregations included, and is
				 * printed as at any end; the status says
				 * it was not a normal one.
				 */
				error("processing aborted: dtraced died (%s)\n",
				    dtrace_errmsg(g_dtp, dtrace_errno(g_dtp)));
				g_status = E_ERROR;
			} else if (!g_impatient &&
			    dtrace_errno(g_dtp) != EINTR) {
				dfatal("processing aborted");
			}
			done = 1;
			break;
		}
		if (fflush(g_ofp) == EOF)
			clearerr(g_ofp);
	} while (!done);

	if (!g_json)
		oprintf("\n");
	if (!g_impatient && dtrace_aggregate_print(g_dtp, g_ofp, NULL) == -1 &&
	    dtrace_errno(g_dtp) != EINTR)
		dfatal("failed to print aggregations");
	fflush(g_ofp);
	dtrace_close(g_dtp);
	return g_status;
}
