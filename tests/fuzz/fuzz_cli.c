/*
 * fuzz_cli.c: libFuzzer target for dtrace(1)'s command line.  The input
 * is an argument vector, words separated by NUL bytes; dtrace's own main()
 * (client/dtrace.c, compiled in here whole) parses it: options and their
 * values (-x, -b, -D, -X ...), macro arguments after "--", probe
 * descriptions and programs on the line (compiled), script names, the
 * "#!" line splitting, -c and -p operands.  Any vector must end in an
 * exit status and a message, never a crash, a hang or a leak.
 *
 * The handle is opened without a daemon (DTRACE_O_NODEV): everything
 * that would reach one (listing, grabbing, running a command, enabling)
 * fails as it does when no dtraced can be started, so no input can run a
 * program or trace anything.  -o's file is always /dev/null, for
 * -h's header and -G's object too, and no file is removed.  exit()
 * from dtrace's fatal paths returns here, and what main() left behind is
 * freed, as process exit would have.  What a fatal path holds at exit()
 * is the process's to drop, not a leak, so this target runs without leak
 * detection (tests/fuzz/run.sh); the library's leaks are fuzz_cc's.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtrace.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static jmp_buf		fuzz_cli_jmp;
static int		fuzz_cli_status;
static dtrace_hdl_t	*fuzz_cli_open;	/* the handle main() has not closed */

static void __attribute__((noreturn))
fuzz_cli_exit(int status)
{
	fuzz_cli_status = status;
	longjmp(fuzz_cli_jmp, 1);
}

static dtrace_hdl_t *
fuzz_cli_dtopen(int version, int flags, int *errp)
{
	fuzz_cli_open = dtrace_open(version, flags | DTRACE_O_NODEV, errp);
	return fuzz_cli_open;
}

static void
fuzz_cli_close(dtrace_hdl_t *dtp)
{
	if (dtp == fuzz_cli_open)
		fuzz_cli_open = NULL;
	dtrace_close(dtp);
}

static FILE *
fuzz_cli_fopen(const char *path, const char *mode)
{
	/* -o: never a file the input names (this runs as root) */
	if (strchr(mode, 'r') == NULL)
		path = "/dev/null";
	return fopen(path, mode);
}

/* -h: a header that could not be made is removed: never a named file */
static int
fuzz_cli_unlink(const char *path)
{
	(void)path;
	return 0;
}

/* -G: the object cc makes goes to /dev/null, whatever -o names */
static int
fuzz_cli_sdtobject(dtrace_hdl_t *dtp, const char *text, const char *file,
    const char *out, char *err, size_t errlen)
{
	(void)out;
	return dtrace_sdt_object(dtp, text, file, "/dev/null", err, errlen);
}

/* -x core: nothing to dump at the fuzzer's exit */
static int
fuzz_cli_atexit(void (*func)(void))
{
	(void)func;
	return 0;
}

#define main		fuzz_cli_main
#define atexit		fuzz_cli_atexit
#define exit		fuzz_cli_exit
#define dtrace_open	fuzz_cli_dtopen
#define dtrace_close	fuzz_cli_close
#define fopen		fuzz_cli_fopen
#define unlink		fuzz_cli_unlink
#define dtrace_sdt_object fuzz_cli_sdtobject
#include "../../client/dtrace.c"
#undef main
#undef atexit
#undef exit
#undef dtrace_open
#undef dtrace_close
#undef fopen
#undef unlink
#undef dtrace_sdt_object

/* dtrace.c's globals as a fresh process has them */
static void
fuzz_cli_reset(void)
{
	char *dummy[] = { "dtrace", NULL };
	int i;

	if (fuzz_cli_open != NULL)
		fuzz_cli_close(fuzz_cli_open);
	if (g_ofp != NULL && g_ofp != stdout)
		fclose(g_ofp);
	for (i = 0; i < g_cmdc; i++) {
		if (g_cmdv[i].dc_name != g_cmdv[i].dc_arg)	/* -s */
			free(g_cmdv[i].dc_name);
		free(g_cmdv[i].dc_idtext);
	}
	free(g_cmdv);
	free(g_argv);
	free(g_targv);
	if (g_interpargv != NULL) {
		free(g_interpargv[1]);	/* the split copy's first word */
		free(g_interpargv);
	}
	g_pname = "dtrace";
	g_dtp = NULL;
	g_ofp = NULL;
	g_ofile = NULL;
	g_sdtmode = g_nsdt = 0;
	g_cmdv = NULL;
	g_cmdc = 0;
	g_argv = NULL;
	g_argc = 0;
	g_cflags = 0;
	g_exec = 1;
	g_list = g_vers = g_verbose = 0;
	g_quiet = g_testing = 0;
	g_status = E_SUCCESS;
	g_json = g_flowindent = g_grabanon = g_grabsnap = g_core = 0;
	for (i = 0; i < g_nanonopt; i++)
		free(g_anonopt[i]);
	free(g_anonopt);
	g_anonopt = NULL;
	g_anon = g_nanonopt = 0;
	g_retain = NULL;
	g_intr = g_newline = g_impatient = 0;
	g_targv = NULL;
	g_targc = g_pslive = 0;
	g_target = 0;
	g_interpargv = NULL;
	/*
	 * getopt's own state: optind 0 starts it afresh, and the string
	 * of that first call sets its ordering for good ("+": no
	 * permuting), as main()'s first call does in a process
	 */
	optind = 0;
	(void)getopt(1, dummy, DTRACE_OPTSTR);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, **argv, *p, *end;
	int argc, n;

	if (size > 8192)
		return 0;	/* longer lines find nothing shorter ones cannot */
	if ((buf = malloc(size + 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (n = 1, p = buf; p < buf + size; p++)
		n += *p == '\0';
	if ((argv = calloc(n + 2, sizeof(char *))) == NULL) {
		free(buf);
		return 0;
	}
	argv[0] = "dtrace";
	argc = 1;
	for (p = buf, end = buf + size; p <= end && size > 0;
	    p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	fuzz_cli_status = -1;
	if (setjmp(fuzz_cli_jmp) == 0)
		fuzz_cli_status = fuzz_cli_main(argc, argv);
	/* dtrace(1)'s statuses: 0, 1 and 2, or exit()'s own */
	if (fuzz_cli_status < 0 || fuzz_cli_status > 255)
		abort();
	fuzz_cli_reset();
	free(argv);
	free(buf);
	return 0;
}
