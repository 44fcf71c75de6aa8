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

#include <spawn.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"

extern char **environ;

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

/*
 * Copy the program into a file cpp reads, blanking a "#!" first line.
 * It ends at a NUL byte, as it does for the lexer without cpp: a file
 * of them (/dev/zero, /dev/full) is read no further.
 */
static FILE *
dt_cpp_input(const char *str, FILE *fp)
{
	FILE *in;
	int c, first = 1, skip = 0;
	size_t n = 0;

	if ((in = tmpfile()) == NULL)
		return NULL;
	for (;;) {
		c = str != NULL ? (unsigned char)str[n] : getc(fp);
		if (c == '\0' || (str == NULL && c == EOF))
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
 * What the system's headers declare (<stdint.h>, <time.h>,
 * <sys/types.h>, <endian.h> ...) is C that D cannot all express:
 * function prototypes and inline definitions, extern variables, GNU
 * attributes and asm labels, compiler built-in types.  From the lines cpp
 * marks as coming from a system header (flag 3 of a line marker), keep
 * the declarations D can take (typedefs, struct, union and enum
 * definitions without parentheses or compiler built-ins) and skip the
 * rest; the program's own lines pass untouched, and the line markers
 * keep its line numbers.
 */
static const char *const dt_cpp_gnuwords[] = {
	"__extension__", "__restrict", "__inline", "__const", "__volatile__",
};

/* Remove GNU words and __attribute__ ((...)) / __asm__ (...) from s. */
static void
dt_cpp_degnu(char *s)
{
	static const char *const paren[] = { "__attribute__", "__asm__",
	    "__asm", "__attribute" };
	char *p;
	size_t i, n;
	int depth;

	for (i = 0; i < sizeof(paren) / sizeof(paren[0]); i++) {
		while ((p = strstr(s, paren[i])) != NULL) {
			char *q = p + strlen(paren[i]);

			while (*q == ' ' || *q == '\t' || *q == '\n')
				q++;
			if (*q != '(') {
				memset(p, ' ', q - p);
				continue;
			}
			for (depth = 0; *q != '\0'; q++) {
				if (*q == '(')
					depth++;
				else if (*q == ')' && --depth == 0) {
					q++;
					break;
				}
			}
			memset(p, ' ', q - p);
		}
	}
	for (i = 0; i < sizeof(dt_cpp_gnuwords) / sizeof(char *); i++) {
		n = strlen(dt_cpp_gnuwords[i]);
		for (p = strstr(s, dt_cpp_gnuwords[i]); p != NULL;
		    p = strstr(p, dt_cpp_gnuwords[i])) {
			if (isalnum((unsigned char)p[n]) || p[n] == '_') {
				p += n;
				continue;
			}
			memset(p, ' ', n);
		}
	}
}

/* The names of the typedefs skipped so far: what uses them goes too. */
typedef struct dt_cpp_skip {
	char	**cs_names;
	size_t	cs_n;
} dt_cpp_skip_t;

/* Whether word w (of len bytes) occurs as a whole word in s. */
static int
dt_cpp_hasword(const char *s, const char *w, size_t len)
{
	const char *p;

	for (p = strstr(s, w); p != NULL; p = strstr(p + 1, w)) {
		if ((p == s || (!isalnum((unsigned char)p[-1]) &&
		    p[-1] != '_')) && !isalnum((unsigned char)p[len]) &&
		    p[len] != '_')
			return 1;
	}
	return 0;
}

/*
 * The name a typedef declares: its last word (before any [size]), or
 * for a pointer to a function, the word after "(*".
 */
static size_t
dt_cpp_tdname(const char *p, char *name, size_t size)
{
	const char *e = p + strlen(p), *b;
	int depth = 0;

	if ((b = strstr(p, "(*")) != NULL) {
		for (b += 2; *b == ' ' || *b == '*'; b++)
			;
		for (e = b; isalnum((unsigned char)*e) || *e == '_'; e++)
			;
		if (e == b || (size_t)(e - b) >= size)
			return 0;
		memcpy(name, b, e - b);
		name[e - b] = '\0';
		return (size_t)(e - b);
	}

	while (e > p) {
		if (e[-1] == ']')
			depth++;
		else if (e[-1] == '[')
			depth--;
		else if (depth == 0 && (isalnum((unsigned char)e[-1]) ||
		    e[-1] == '_'))
			break;
		e--;
	}
	for (b = e; b > p && (isalnum((unsigned char)b[-1]) || b[-1] == '_');
	    b--)
		;
	if (e == b || (size_t)(e - b) >= size)
		return 0;
	memcpy(name, b, e - b);
	name[e - b] = '\0';
	return (size_t)(e - b);
}

/* Whether D can take one complete declaration of a system header. */
static int
dt_cpp_keep(char *decl, dt_cpp_skip_t *sk)
{
	char *p = decl, *q, name[128], **nn;
	size_t i, len;
	int depth = 0, ok = 1, td, braces;

	dt_cpp_degnu(decl);
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	td = strncmp(p, "typedef", 7) == 0;
	if (!td && strncmp(p, "struct", 6) != 0 &&
	    strncmp(p, "union", 5) != 0 && strncmp(p, "enum", 4) != 0)
		return 0;
	/* parentheses only in array sizes: no function or its pointer */
	for (q = p, braces = 0; *q != '\0'; q++) {
		/* nor an unnamed struct or union member (C11) */
		if (*q == '{')
			braces++;
		else if (*q == '}' && --braces > 0 &&
		    q[1 + strspn(q + 1, " \t\n")] == ';')
			ok = 0;
		if (*q == '[') {
			/* nor a flexible array member, x[] */
			if (q[1 + strspn(q + 1, " \t\n")] == ']')
				ok = 0;
			depth++;
		}
		else if (*q == ']')
			depth--;
		else if (*q == '(' && depth == 0)
			ok = 0;
	}
	if (strstr(p, "__builtin") != NULL || strstr(p, "_Float") != NULL ||
	    strstr(p, "__int128") != NULL || strstr(p, "_Bool") != NULL ||
	    strstr(p, "_Atomic") != NULL)
		ok = 0;
	for (i = 0; ok && i < sk->cs_n; i++) {
		if (dt_cpp_hasword(p, sk->cs_names[i],
		    strlen(sk->cs_names[i])))
			ok = 0;
	}
	if (!td || (len = dt_cpp_tdname(p, name, sizeof(name))) == 0)
		return ok;
	/* a typedef D has built in (int8_t, size_t ...) stays D's */
	if (dt_decl_lookup(name) != NULL)
		return 0;
	if (!ok && (nn = realloc(sk->cs_names, (sk->cs_n + 1) *
	    sizeof(char *))) != NULL) {
		sk->cs_names = nn;
		if ((nn[sk->cs_n] = strdup(name)) != NULL)
			sk->cs_n++;
	}
	return ok;
}

/* Copy cpp's output in to out, skipping what D cannot take (above). */
static int
dt_cpp_filter(FILE *in, FILE *out)
{
	char *line = NULL, *decl = NULL;
	size_t cap = 0, dlen = 0, dcap = 0;
	ssize_t n;
	int sys = 0, depth = 0, body = 0, sawparen = 0;
	dt_cpp_skip_t sk = { NULL, 0 };
	char *p;

	while ((n = getline(&line, &cap, in)) != -1) {
		if (line[0] == '#') {
			/* # LINE "FILE" FLAGS: flag 3 is a system header */
			char *q = strrchr(line, '"');

			sys = q != NULL && strstr(q, " 3") != NULL;
			fputs(line, out);
			continue;
		}
		if (!sys && dlen == 0) {
			fputs(line, out);
			continue;
		}
		for (p = line; *p != '\0'; p++) {
			if (dlen + 2 > dcap) {
				char *nd = realloc(decl, dcap ? dcap * 2 : 256);

				if (nd == NULL) {
					dlen = 0;
					sys = -1;
					break;
				}
				decl = nd;
				dcap = dcap ? dcap * 2 : 256;
			}
			decl[dlen++] = *p;
			if (*p == '(' || *p == '[')
				depth++;
			else if (*p == ')' || *p == ']')
				depth--;
			if (*p == ')' && depth == 0 && body == 0)
				sawparen = 1;
			if (*p == '{') {
				/* a function's body: up to its closing brace */
				if (body == 0 && sawparen)
					body = -1;
				body += body < 0 ? -1 : 1;
			} else if (*p == '}') {
				body += body < 0 ? 1 : -1;
				if (body == -1) {	/* the function ends */
					body = 0;
					dlen = 0;
					sawparen = 0;
				}
			} else if (*p == ';' && body == 0 && depth == 0) {
				decl[dlen] = '\0';
				if (dt_cpp_keep(decl, &sk))
					fprintf(out, "%s\n", decl);
				dlen = 0;
				sawparen = 0;
			}
		}
		if (sys < 0)
			break;
		/* a declaration goes on; the line count does not matter */
		if (!sys && dlen != 0 && body == 0 && depth == 0) {
			/* back in the program mid-declaration: give it back */
			decl[dlen] = '\0';
			fputs(decl, out);
			dlen = 0;
		}
	}
	while (sk.cs_n > 0)
		free(sk.cs_names[--sk.cs_n]);
	free(sk.cs_names);
	free(decl);
	free(line);
	return ferror(out) || sys < 0 ? -1 : 0;
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
	posix_spawn_file_actions_t fa;
	char **argv;
	FILE *in, *out, *filtered;
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
	/*
	 * Spawned, not forked: a fork copies the page tables of the whole
	 * process (a big one for a sanitized fuzzer, whose inputs run cpp
	 * thousands of times) only for exec to throw them away.
	 */
	if ((err = posix_spawn_file_actions_init(&fa)) == 0) {
		if ((err = posix_spawn_file_actions_adddup2(&fa, fileno(in),
		    0)) == 0 && (err = posix_spawn_file_actions_adddup2(&fa,
		    fileno(out), 1)) == 0)
			err = posix_spawnp(&pid, path, &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
	}
	free(argv);
	if (err != 0) {
		fclose(in);
		fclose(out);
		dt_set_errno(dtp, err == ENOENT ? EDT_CPPENT : err == EAGAIN ||
		    err == ENOMEM ? EDT_CPPFORK : EDT_CPPEXEC);
		return NULL;
	}
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
	/* skip what D cannot take of the system's headers */
	if ((filtered = tmpfile()) == NULL ||
	    dt_cpp_filter(out, filtered) != 0) {
		if (filtered != NULL)
			fclose(filtered);
		fclose(out);
		dt_set_errno(dtp, EDT_NOMEM);
		return NULL;
	}
	fclose(out);
	rewind(filtered);
	return filtered;
}
