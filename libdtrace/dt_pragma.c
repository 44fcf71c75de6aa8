/*
 * dt_pragma.c: control lines.  "#pragma D option name[=value]" sets an
 * option through dtrace_setopt() as the line is lexed, so it applies to
 * the whole program; cpp line markers ("# 12 \"file\"", "#line 12")
 * and "#pragma D line 12" reset the line number; "#pragma D error" stops
 * the compile with its message; "#pragma D depends_on" requires a
 * provider; "#pragma D attributes" and "#pragma D binding" are checked
 * for form (this DTrace reports no stability attributes and has one D
 * version).  An interpreter line ("#!...") on line 1 is skipped.  Other
 * #pragma lines (ident, non-D) are ignored.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define DT_PRAGMA_MAXTOK	16
/* a directive's line number: with a gigabyte of lines after it, an int */
#define DT_PRAGMA_MAXLINE	1000000000ULL

/* Split s into whitespace-separated words (quotes kept). */
static int
dt_pragma_split(char *s, char **tokv, int max)
{
	int n = 0;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0' || n == max)
			return n;
		tokv[n++] = s;
		while (*s != '\0' && !isspace((unsigned char)*s))
			s++;
		if (*s != '\0')
			*s++ = '\0';
	}
}

static void
dt_pragma_option(dt_pcb_t *pcb, int line, char **tokv, int tokc)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	char *name, *val;
	int i;

	if (tokc == 0)
		dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
		    "malformed #pragma D option");
	for (i = 0; i < tokc; i++) {
		name = tokv[i];
		if ((val = strchr(name, '=')) != NULL)
			*val++ = '\0';
		if (*name == '\0' || (val != NULL && *val == '\0'))
			dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
			    "malformed #pragma D option");
		/* the preprocessor has run already: its options are argv's */
		if (strncmp(name, "cpp", 3) == 0 ||
		    strcmp(name, "define") == 0 || strcmp(name, "undef") == 0 ||
		    strcmp(name, "incdir") == 0)
			dt_parser_error(pcb, line, D_PRAGMA_OPTSET,
			    "failed to set option '%s': %s", name,
			    dtrace_errmsg(dtp, EDT_BADOPTCTX));
		if (dtrace_setopt(dtp, name, val) != 0) {
			dt_parser_error(pcb, line, D_PRAGMA_OPTSET,
			    "failed to set option '%s'%s%s%s: %s", name,
			    val ? " to '" : "", val ? val : "", val ? "'" : "",
			    dtrace_errmsg(dtp, dtrace_errno(dtp)));
		}
	}
}

/* "Evolving/Evolving/Common": name/data stability and dependency class */
static int
dt_pragma_attr_ok(const char *s)
{
	static const char *const stab[] = { "Internal", "Private", "Obsolete",
	    "External", "Unstable", "Evolving", "Stable", "Standard", NULL };
	static const char *const class[] = { "Unknown", "CPU", "Platform",
	    "Group", "ISA", "Common", NULL };
	const char *const *tab;
	char buf[128], *w, *save = NULL;
	int n = 0, i, found;

	if (strlen(s) >= sizeof(buf))
		return 0;
	strcpy(buf, s);
	for (w = strtok_r(buf, "/", &save); w != NULL;
	    w = strtok_r(NULL, "/", &save), n++) {
		tab = n < 2 ? stab : class;
		for (i = 0, found = 0; tab[i] != NULL; i++)
			found |= strcmp(tab[i], w) == 0;
		if (!found || n > 2)
			return 0;
	}
	return n == 3;
}

/* #pragma D binding "1.0" name: a D version this implementation has */
static int
dt_pragma_version_ok(const char *s)
{
	char *end;
	unsigned long major, minor = 0, micro = 0;
	size_t len = strlen(s);

	if (len < 3 || s[0] != '"' || s[len - 1] != '"')
		return 0;
	major = strtoul(s + 1, &end, 10);
	if (*end == '.')
		minor = strtoul(end + 1, &end, 10);
	if (*end == '.')
		micro = strtoul(end + 1, &end, 10);
	if (*end != '"')
		return 0;
	/* the D language of illumos's last version, 1.13 */
	return major == 1 && (minor < 13 || (minor == 13 && micro == 0));
}

/* Strip the quotes of "text", in place. */
static char *
dt_pragma_unquote(char *s)
{
	size_t len = strlen(s);

	if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
		s[len - 1] = '\0';
		return s + 1;
	}
	return s;
}

static void
dt_pragma_depends(dt_pcb_t *pcb, int line, char **tokv, int tokc)
{
	static const char *const provs[] = { "dtrace", "pid", "profile",
	    NULL };
	int i;

	if (tokc != 2)
		dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
		    "malformed #pragma D depends_on");
	if (strcmp(tokv[0], "provider") == 0) {
		for (i = 0; provs[i] != NULL; i++) {
			if (strcmp(provs[i], tokv[1]) == 0)
				return;
		}
		dt_parser_error(pcb, line, D_PRAGMA_DEPEND,
		    "program requires provider %s", tokv[1]);
	}
	/*
	 * as illumos: only a D library may name another (a program, no);
	 * the libraries are compiled in the order their dependencies make
	 * (dt_lib.c), so what it names has been compiled by now
	 */
	if (strcmp(tokv[0], "library") == 0 && pcb->pcb_lib == NULL)
		dt_parser_error(pcb, line, D_PRAGMA_DEPEND,
		    "main program may not explicitly depend on a library");
	if (strcmp(tokv[0], "library") == 0) {
		if (!dt_lib_loaded(pcb->pcb_hdl, tokv[1]))
			dt_parser_error(pcb, line, D_PRAGMA_DEPEND,
			    "program requires library \"%s\" which failed "
			    "to load", tokv[1]);
		return;
	}
	if (strcmp(tokv[0], "module") == 0)
		dt_parser_error(pcb, line, D_PRAGMA_DEPEND,
		    "program requires %s %s", tokv[0], tokv[1]);
	dt_parser_error(pcb, line, D_PRAGMA_INVAL,
	    "invalid class %s specified by #pragma D depends_on", tokv[0]);
}

void
dt_pragma(dt_pcb_t *pcb, int line, const char *text)
{
	char *buf = dt_parser_strdup(pcb, text), *p = buf, *tokv[DT_PRAGMA_MAXTOK];
	int tokc;

	while (isspace((unsigned char)*p))
		p++;
	p++;	/* '#' */
	/* "#!/usr/sbin/dtrace -s": an interpreter file's first line */
	if (*p == '!' && line == 1)
		return;
	tokc = dt_pragma_split(p, tokv, DT_PRAGMA_MAXTOK);
	if (tokc == 0)
		return;		/* a lone "#" is a null directive */

	/*
	 * # 12 "file" and #line 12: the next line is line 12.  A number
	 * the line count could not go on from (fuzz_cc: #2147483648) is
	 * refused, as no cpp writes one.
	 */
	if (isdigit((unsigned char)tokv[0][0]) ||
	    (strcmp(tokv[0], "line") == 0 && tokc > 1 &&
	    isdigit((unsigned char)tokv[1][0]))) {
		const char *num = tokv[isdigit((unsigned char)tokv[0][0]) ?
		    0 : 1];
		unsigned long long n;

		errno = 0;
		n = strtoull(num, NULL, 10);
		if (errno != 0 || n > DT_PRAGMA_MAXLINE)
			dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
			    "invalid line number in control directive: %s",
			    num);
		dt_lex_setline(pcb, (int)n - 1);
		return;
	}
	if (strcmp(tokv[0], "pragma") != 0)
		dt_parser_error(pcb, line, D_PRAGCTL_INVAL,
		    "invalid control directive: #%s", tokv[0]);
	if (tokc < 2 || strcmp(tokv[1], "D") != 0)
		return;
	if (tokc < 3)
		dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
		    "malformed #pragma D directive");
	if (strcmp(tokv[2], "option") == 0) {
		dt_pragma_option(pcb, line, tokv + 3, tokc - 3);
		return;
	}
	if (strcmp(tokv[2], "error") == 0) {
		const char *msg = strstr(text, "error") + strlen("error");

		while (isspace((unsigned char)*msg))
			msg++;
		dt_parser_error(pcb, line, D_PRAGERR, "#pragma error: %s", msg);
	}
	if (strcmp(tokv[2], "line") == 0) {
		if (tokc < 4 || tokc > 5 || !isdigit((unsigned char)tokv[3][0]))
			dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
			    "malformed #pragma D line");
		dt_lex_setline(pcb, atoi(tokv[3]) - 1);
		return;
	}
	if (strcmp(tokv[2], "depends_on") == 0) {
		dt_pragma_depends(pcb, line, tokv + 3, tokc - 3);
		return;
	}
	if (strcmp(tokv[2], "attributes") == 0) {
		const dt_ident_t *idp;

		if (tokc < 5 || !dt_pragma_attr_ok(dt_pragma_unquote(tokv[3])))
			dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
			    "malformed #pragma D attributes");
		/* "provider NAME PART": a provider's stability */
		if (strcmp(tokv[4], "provider") == 0 && tokc == 7)
			return;
		if (tokc != 5)
			dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
			    "malformed #pragma D attributes");
		/*
		 * As illumos: the name is an identifier the program has
		 * declared; anything else leaves the pragma unused
		 */
		idp = dt_idhash_lookup(pcb->pcb_hdl->dt_globals, tokv[4]);
		if (idp == NULL)
			dt_parser_error(pcb, line, D_PRAGMA_UNUSED,
			    "unused #pragma attributes");
		if (idp->di_flags & DT_IDFLG_BUILTIN &&
		    idp->di_kind != DT_IDENT_INLINE)
			dt_parser_error(pcb, line, D_PRAGMA_SCOPE,
			    "#pragma attributes cannot modify entity defined "
			    "outside program scope");
		return;
	}
	if (strcmp(tokv[2], "binding") == 0) {
		if (tokc != 5)
			dt_parser_error(pcb, line, D_PRAGMA_MALFORM,
			    "malformed #pragma D binding");
		if (!dt_pragma_version_ok(tokv[3]))
			dt_parser_error(pcb, line, D_PRAGMA_INVAL,
			    "invalid version string specified by #pragma D "
			    "binding: %s", tokv[3]);
		return;
	}
	dt_parser_error(pcb, line, D_PRAGMA_INVAL,
	    "invalid control directive: #pragma D %s", tokv[2]);
}
