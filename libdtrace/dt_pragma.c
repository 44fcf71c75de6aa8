/*
 * dt_pragma.c: control lines.  "#pragma D option name[=value]" sets an
 * option through dtrace_setopt() as the line is lexed, so it applies to
 * the whole program; cpp line markers ("# 12 \"file\"", "#line 12")
 * reset the line number.  Other #pragma lines (ident, non-D) are ignored.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define DT_PRAGMA_MAXTOK	16

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
		if (dtrace_setopt(dtp, name, val) != 0) {
			dt_parser_error(pcb, line, D_PRAGMA_OPTSET,
			    "failed to set option '%s'%s%s%s: %s", name,
			    val ? " to '" : "", val ? val : "", val ? "'" : "",
			    dtrace_errmsg(dtp, dtrace_errno(dtp)));
		}
	}
}

void
dt_pragma(dt_pcb_t *pcb, int line, const char *text)
{
	char *buf = dt_parser_strdup(pcb, text), *p = buf, *tokv[DT_PRAGMA_MAXTOK];
	int tokc;

	while (isspace((unsigned char)*p))
		p++;
	p++;	/* '#' */
	tokc = dt_pragma_split(p, tokv, DT_PRAGMA_MAXTOK);
	if (tokc == 0)
		return;		/* a lone "#" is a null directive */

	/* # 12 "file" and #line 12: the next line is line 12 */
	if (isdigit((unsigned char)tokv[0][0]) ||
	    (strcmp(tokv[0], "line") == 0 && tokc > 1 &&
	    isdigit((unsigned char)tokv[1][0]))) {
		dt_lex_setline(pcb, atoi(tokv[isdigit((unsigned char)
		    tokv[0][0]) ? 0 : 1]) - 1);
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
	dt_parser_error(pcb, line, D_PRAGMA_INVAL,
	    "invalid control directive: #pragma D %s", tokv[2]);
}
