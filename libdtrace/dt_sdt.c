/*
 * dt_sdt.c: dtrace -h and -G, for programs that declare their probes in
 * a D provider definition:
 *
 *	provider test_prov { probe go(); probe args(int, char *); };
 *
 * The probes are built with systemtap's <sys/sdt.h> (systemtap-sdt-dev;
 * on Debian by its multiarch path, which no -I directory of a program
 * with a sys/sdt.h of its own, such as illumos's, can hide),
 * whose notes the daemon's USDT provider reads: -h writes a header whose
 * PROVIDER_PROBE(args) macros expand to its STAP_PROBEn and whose
 * PROVIDER_PROBE_ENABLED() tests the probe's is-enabled semaphore; -G
 * writes the object that defines those semaphores (compiled with the
 * system's C compiler, $CC or cc), to be linked with the program.  The
 * program's own objects need no change: the notes are in them already.
 *
 * Only provider definitions are read (with comments and # lines
 * skipped); other declarations are passed over.  A probe's arguments
 * are counted, their types not kept (<sys/sdt.h> records none).  A
 * double underscore in a probe's name is a dash in the probe and an
 * underscore in the macro, as illumos names them.
 */
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"

#define DT_SDT_MAXARGS	12	/* STAP_PROBE12 is the last */
#define DT_SDT_NAMELEN	128

extern char **environ;

typedef struct dt_sdt_probe {
	char	sp_prov[DT_SDT_NAMELEN];
	char	sp_name[DT_SDT_NAMELEN];
	int	sp_nargs;
} dt_sdt_probe_t;

typedef struct dt_sdt_defs {
	dt_sdt_probe_t	*sd_probes;
	size_t		sd_n;
	const char	*sd_s;		/* the cursor */
	int		sd_line;
} dt_sdt_defs_t;

/* Skip blanks, comments and # lines (cpp's and pragmas). */
static void
dt_sdt_skip(dt_sdt_defs_t *d)
{
	const char *s = d->sd_s;

	for (;;) {
		if (*s == '\n') {
			d->sd_line++;
			s++;
		} else if (isspace((unsigned char)*s)) {
			s++;
		} else if (s[0] == '/' && s[1] == '*') {
			for (s += 2; *s != '\0' && !(s[0] == '*' && s[1] == '/');
			    s++)
				if (*s == '\n')
					d->sd_line++;
			if (*s != '\0')
				s += 2;
		} else if ((s[0] == '/' && s[1] == '/') || *s == '#') {
			while (*s != '\0' && *s != '\n')
				s++;
		} else
			break;
	}
	d->sd_s = s;
}

/* An identifier into buf; 0, or -1 if there is none there. */
static int
dt_sdt_ident(dt_sdt_defs_t *d, char *buf, size_t len)
{
	const char *s;
	size_t n;

	dt_sdt_skip(d);
	s = d->sd_s;
	if (!isalpha((unsigned char)*s) && *s != '_')
		return -1;
	for (n = 0; isalnum((unsigned char)s[n]) || s[n] == '_'; n++)
		;
	if (n >= len)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	d->sd_s = s + n;
	return 0;
}

static int
dt_sdt_punct(dt_sdt_defs_t *d, char c)
{
	dt_sdt_skip(d);
	if (*d->sd_s != c)
		return -1;
	d->sd_s++;
	return 0;
}

/* "( ... )": the number of arguments; -1 if unbalanced. */
static int
dt_sdt_args(dt_sdt_defs_t *d)
{
	const char *s, *start;
	int depth = 0, n = 0, words = 0;

	if (dt_sdt_punct(d, '(') == -1)
		return -1;
	start = s = d->sd_s;
	for (; *s != '\0'; s++) {
		if (*s == '\n')
			d->sd_line++;
		if (*s == '(')
			depth++;
		else if (*s == ')' && depth-- == 0)
			break;
		else if (*s == ',' && depth == 0)
			n++;
		else if (!isspace((unsigned char)*s))
			words = 1;
	}
	if (*s != ')')
		return -1;
	d->sd_s = s + 1;
	/* () and (void) have none */
	while (start < s && isspace((unsigned char)*start))
		start++;
	if (!words || (s - start >= 4 && strncmp(start, "void", 4) == 0 &&
	    strspn(start + 4, " \t\n") == (size_t)(s - start - 4)))
		return 0;
	return n + 1;
}

/* Read every provider definition of src; -1 with err. */
static int
dt_sdt_parse(const char *src, dt_sdt_defs_t *d, char *err, size_t errlen)
{
	char prov[DT_SDT_NAMELEN], word[DT_SDT_NAMELEN];
	dt_sdt_probe_t *np;
	int n;

	memset(d, 0, sizeof(*d));
	d->sd_s = src;
	d->sd_line = 1;
	for (;;) {
		dt_sdt_skip(d);
		if (*d->sd_s == '\0')
			return 0;
		if (dt_sdt_ident(d, word, sizeof(word)) == -1 ||
		    strcmp(word, "provider") != 0) {
			/* not a provider: pass over to the next ';' */
			while (*d->sd_s != '\0' && *d->sd_s != ';') {
				if (*d->sd_s == '\n')
					d->sd_line++;
				d->sd_s++;
			}
			if (*d->sd_s == ';')
				d->sd_s++;
			continue;
		}
		if (dt_sdt_ident(d, prov, sizeof(prov)) == -1 ||
		    dt_sdt_punct(d, '{') == -1)
			goto syntax;
		for (;;) {
			if (dt_sdt_punct(d, '}') == 0)
				break;
			if (dt_sdt_ident(d, word, sizeof(word)) == -1 ||
			    strcmp(word, "probe") != 0 ||
			    dt_sdt_ident(d, word, sizeof(word)) == -1 ||
			    (n = dt_sdt_args(d)) == -1)
				goto syntax;
			/* a translated form, "probe p(int) : (long)" */
			if (dt_sdt_punct(d, ':') == 0 && dt_sdt_args(d) == -1)
				goto syntax;
			if (dt_sdt_punct(d, ';') == -1)
				goto syntax;
			if (n > DT_SDT_MAXARGS) {
				snprintf(err, errlen, "line %d: probe %s:::%s "
				    "has %d arguments; at most %d", d->sd_line,
				    prov, word, n, DT_SDT_MAXARGS);
				return -1;
			}
			if ((np = reallocarray(d->sd_probes, d->sd_n + 1,
			    sizeof(*np))) == NULL) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			d->sd_probes = np;
			np = &np[d->sd_n++];
			snprintf(np->sp_prov, sizeof(np->sp_prov), "%s", prov);
			snprintf(np->sp_name, sizeof(np->sp_name), "%s", word);
			np->sp_nargs = n;
		}
		(void)dt_sdt_punct(d, ';');
	}
syntax:
	snprintf(err, errlen, "line %d: syntax error in a provider "
	    "definition", d->sd_line);
	return -1;
}

/* The macro name: PROVIDER_PROBE, "__" as "_". */
static void
dt_sdt_macro(const dt_sdt_probe_t *p, char *buf, size_t len)
{
	const char *s;
	size_t i = 0;

	for (s = p->sp_prov; *s != '\0' && i + 1 < len; s++)
		buf[i++] = (char)toupper((unsigned char)*s);
	if (i + 1 < len)
		buf[i++] = '_';
	for (s = p->sp_name; *s != '\0' && i + 1 < len; s++) {
		if (s[0] == '_' && s[1] == '_')
			s++;
		buf[i++] = (char)toupper((unsigned char)*s);
	}
	buf[i] = '\0';
}

/*
 * dtrace -h: the header of the providers defined in src (the text of
 * file), to out.  0, or -1 with err.
 */
int
dtrace_sdt_header(dtrace_hdl_t *dtp, const char *src, const char *file,
    FILE *out, char *err, size_t errlen)
{
	dt_sdt_defs_t d;
	char guard[DT_SDT_NAMELEN], mac[2 * DT_SDT_NAMELEN];
	const char *base = strrchr(file, '/');
	size_t i;
	int k, j;

	(void)dtp;
	if (dt_sdt_parse(src, &d, err, errlen) == -1) {
		free(d.sd_probes);
		return -1;
	}
	base = base != NULL ? base + 1 : file;
	for (i = j = 0; base[i] != '\0' && j + 2 < (int)sizeof(guard); i++)
		guard[j++] = isalnum((unsigned char)base[i]) ?
		    (char)toupper((unsigned char)base[i]) : '_';
	guard[j] = '\0';
	fprintf(out, "/*\n * Generated by dtrace(1) -h from %s: probes "
	    "of <sys/sdt.h>.\n */\n\n#ifndef _DTRACE_SDT_%s\n"
	    "#define _DTRACE_SDT_%s\n\n#ifndef _SDT_HAS_SEMAPHORES\n"
	    "#define _SDT_HAS_SEMAPHORES 1\n#endif\n"
	    "/* systemtap's, even where -I has another sys/sdt.h first */\n"
	    "#if defined(__has_include) && defined(__x86_64__)\n"
	    "#if __has_include(<x86_64-linux-gnu/sys/sdt.h>)\n"
	    "#include <x86_64-linux-gnu/sys/sdt.h>\n#else\n"
	    "#include <sys/sdt.h>\n#endif\n#else\n"
	    "#include <sys/sdt.h>\n#endif\n\n"
	    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", base, guard,
	    guard);
	for (i = 0; i < d.sd_n; i++) {
		const dt_sdt_probe_t *p = &d.sd_probes[i];

		dt_sdt_macro(p, mac, sizeof(mac));
		fprintf(out, "extern unsigned short %s_%s_semaphore "
		    "__attribute__((unused, section(\".probes\")));\n",
		    p->sp_prov, p->sp_name);
		fprintf(out, "#define\t%s(", mac);
		for (k = 0; k < p->sp_nargs; k++)
			fprintf(out, "%sarg%d", k > 0 ? ", " : "", k);
		if (p->sp_nargs == 0)
			fprintf(out, ") \\\n\tSTAP_PROBE(%s, %s)\n",
			    p->sp_prov, p->sp_name);
		else
			fprintf(out, ") \\\n\tSTAP_PROBE%d(%s, %s", p->sp_nargs,
			    p->sp_prov, p->sp_name);
		for (k = 0; k < p->sp_nargs; k++)
			fprintf(out, ", arg%d%s", k,
			    k + 1 == p->sp_nargs ? ")\n" : "");
		fprintf(out, "#define\t%s_ENABLED() \\\n"
		    "\t__builtin_expect(%s_%s_semaphore != 0, 0)\n\n", mac,
		    p->sp_prov, p->sp_name);
	}
	fprintf(out, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
	free(d.sd_probes);
	if (fflush(out) == EOF || ferror(out)) {
		snprintf(err, errlen, "failed to write the header: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * dtrace -G: the object that defines the semaphores of the providers
 * in src, written to obj by the C compiler.  0, or -1 with err.
 */
int
dtrace_sdt_object(dtrace_hdl_t *dtp, const char *src, const char *file,
    const char *obj, char *err, size_t errlen)
{
	char cfile[] = "/tmp/dtrace-G.XXXXXX.c";
	const char *cc = getenv("CC");
	char *argv[8];
	dt_sdt_defs_t d;
	pid_t pid;
	FILE *fp;
	size_t i;
	int fd, st, rc = -1;

	(void)dtp;
	if (dt_sdt_parse(src, &d, err, errlen) == -1) {
		free(d.sd_probes);
		return -1;
	}
	if ((fd = mkstemps(cfile, 2)) == -1 || (fp = fdopen(fd, "w")) ==
	    NULL) {
		snprintf(err, errlen, "failed to create %s: %s", cfile,
		    strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(cfile);
		}
		free(d.sd_probes);
		return -1;
	}
	fprintf(fp, "/* dtrace -G from %s */\n", file);
	for (i = 0; i < d.sd_n; i++)
		fprintf(fp, "unsigned short %s_%s_semaphore "
		    "__attribute__((used, section(\".probes\")));\n",
		    d.sd_probes[i].sp_prov, d.sd_probes[i].sp_name);
	free(d.sd_probes);
	if (fclose(fp) == EOF) {
		snprintf(err, errlen, "failed to write %s", cfile);
		goto out;
	}
	argv[0] = (char *)(cc != NULL && *cc != '\0' ? cc : "cc");
	argv[1] = "-c";
	argv[2] = "-fPIC";
	argv[3] = "-o";
	argv[4] = (char *)obj;
	argv[5] = cfile;
	argv[6] = NULL;
	if ((errno = posix_spawnp(&pid, argv[0], NULL, NULL, argv,
	    environ)) != 0) {
		snprintf(err, errlen, "failed to run %s: %s", argv[0],
		    strerror(errno));
		goto out;
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(err, errlen, "%s failed to compile the semaphores",
		    argv[0]);
		goto out;
	}
	rc = 0;
out:
	unlink(cfile);
	return rc;
}
