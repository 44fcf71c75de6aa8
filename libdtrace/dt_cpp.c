/*
 * dt_cpp.c: the C preprocessor for dtrace -C.  The program text goes
 * through the system's cpp (Debian's cpp package; -x cpppath=PATH
 * chooses another) with the -D, -U and -I options in the order they were
 * given, and -H to list included files; the compiler then reads cpp's
 * output, whose line markers keep error line numbers right.
 *
 * cpp runs with -undef, so that words such as "linux" and "unix" in a D
 * program stay themselves; it gets instead the few macros illumos
 * defines for D (__SUNW_D, __SUNW_D_64) and the ones naming this machine.
 * An interpreter line ("#!/usr/sbin/dtrace -s") is blanked first, as cpp
 * would reject it; the line count is kept.
 */
#include <sys/wait.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"

static const char *const dt_cpp_defs[] = {
	"-D__SUNW_D=1", "-D__SUNW_D_64", "-D__linux", "-D__linux__",
	"-D__unix", "-D__unix__", "-D__x86_64", "-D__x86_64__", "-D__amd64",
	"-D__amd64__", "-D_LP64", "-D__LP64__", "-D__ELF__",
};

/* Add one cpp argument: opt is "-D", "-U" or "-I", arg its operand. */
int
dt_cpp_add_arg(dtrace_hdl_t *dtp, const char *opt, const char *arg)
{
	char **argv, *s;
	size_t len;

	if (arg == NULL || *arg == '\0')
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	len = strlen(opt) + strlen(arg) + 1;
	if ((s = malloc(len)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	snprintf(s, len, "%s%s", opt, arg);
	if ((argv = realloc(dtp->dt_cpp_argv, (dtp->dt_cpp_argc + 1) *
	    sizeof(char *))) == NULL) {
		free(s);
		return dt_set_errno(dtp, EDT_NOMEM);
	}
	argv[dtp->dt_cpp_argc++] = s;
	dtp->dt_cpp_argv = argv;
	return 0;
}

int
dt_cpp_set_path(dtrace_hdl_t *dtp, const char *path)
{
	char *s;

	if (path == NULL || *path == '\0')
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	if ((s = strdup(path)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	free(dtp->dt_cpp_path);
	dtp->dt_cpp_path = s;
	return 0;
}

void
dt_cpp_fini(dtrace_hdl_t *dtp)
{
	int i;

	for (i = 0; i < dtp->dt_cpp_argc; i++)
		free(dtp->dt_cpp_argv[i]);
	free(dtp->dt_cpp_argv);
	free(dtp->dt_cpp_path);
	dtp->dt_cpp_argv = NULL;
	dtp->dt_cpp_argc = 0;
	dtp->dt_cpp_path = NULL;
}

/* Copy the program into a file cpp reads, blanking a "#!" first line. */
static FILE *
dt_cpp_input(const char *str, FILE *fp)
{
	FILE *in;
	int c, first = 1, skip = 0, n = 0;

	if ((in = tmpfile()) == NULL)
		return NULL;
	for (;;) {
		c = str != NULL ? (unsigned char)str[n] : getc(fp);
		if (str != NULL && c == '\0')
			break;
		if (str == NULL && c == EOF)
			break;
		n++;
		if (first && n == 1 && c == '#') {
			int c2 = str != NULL ? (unsigned char)str[n] : getc(fp);

			if (c2 == '!')
				skip = 1;
			else if (str == NULL && c2 != EOF)
				ungetc(c2, fp);
			if (skip)
				n++;
			else
				putc(c, in);
			continue;
		}
		if (c == '\n')
			first = skip = 0;
		if (!skip)
			putc(c, in);
	}
	if (fflush(in) != 0 || ferror(in)) {
		fclose(in);
		return NULL;
	}
	rewind(in);
	return in;
}

/*
 * Run cpp over the program (str, or the file fp) and return its output,
 * to compile in its place; NULL with dt_errno set if cpp cannot run or
 * fails (cpp has then printed why on stderr).
 */
FILE *
dt_cpp_run(dtrace_hdl_t *dtp, const char *str, FILE *fp)
{
	const char *path = dtp->dt_cpp_path != NULL ? dtp->dt_cpp_path : "cpp";
	size_t ndefs = sizeof(dt_cpp_defs) / sizeof(dt_cpp_defs[0]), i;
	char **argv;
	FILE *in, *out;
	int argc = 0, status, err;
	pid_t pid;

	if ((argv = calloc(ndefs + dtp->dt_cpp_argc + 8, sizeof(char *))) ==
	    NULL) {
		dt_set_errno(dtp, EDT_NOMEM);
		return NULL;
	}
	argv[argc++] = (char *)path;
	argv[argc++] = "-undef";
	for (i = 0; i < ndefs; i++)
		argv[argc++] = (char *)dt_cpp_defs[i];
	for (i = 0; i < (size_t)dtp->dt_cpp_argc; i++)
		argv[argc++] = dtp->dt_cpp_argv[i];
	if (dtp->dt_copts & DT_COPT_CPPHDRS)
		argv[argc++] = "-H";
	if (dtp->dt_stdc == 's')
		argv[argc++] = "-traditional-cpp";
	/*
	 * cpp's messages name the program as dtrace(1)'s do,
	 * "/dev/stdin:17: error: ...": by the file cpp reads, with no
	 * column nor source line (GNU cpp's defaults add them; another
	 * cpp is left alone).
	 */
	if (dtp->dt_cpp_path == NULL) {
		argv[argc++] = "-fno-show-column";
		argv[argc++] = "-fno-diagnostics-show-caret";
	}
	argv[argc++] = "/dev/stdin";
	argv[argc] = NULL;

	if ((in = dt_cpp_input(str, fp)) == NULL ||
	    (out = tmpfile()) == NULL) {
		err = errno;
		if (in != NULL)
			fclose(in);
		free(argv);
		dt_set_errno(dtp, err == ENOMEM ? EDT_NOMEM : EDT_CPPFORK);
		return NULL;
	}
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1) {
		fclose(in);
		fclose(out);
		free(argv);
		dt_set_errno(dtp, EDT_CPPFORK);
		return NULL;
	}
	if (pid == 0) {
		if (dup2(fileno(in), 0) == -1 || dup2(fileno(out), 1) == -1)
			_exit(126);
		execvp(path, argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	free(argv);
	fclose(in);
	while (waitpid(pid, &status, 0) == -1) {
		if (errno != EINTR) {
			fclose(out);
			dt_set_errno(dtp, EDT_CPPERR);
			return NULL;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fclose(out);
		dt_set_errno(dtp, WIFEXITED(status) &&
		    WEXITSTATUS(status) == 127 ? EDT_CPPENT :
		    WIFEXITED(status) && WEXITSTATUS(status) == 126 ?
		    EDT_CPPEXEC : EDT_CPPERR);
		return NULL;
	}
	rewind(out);
	return out;
}
