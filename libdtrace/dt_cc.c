/*
 * dt_cc.c: the compiler driver.  Parses a program, then compiles each
 * clause in program order: its probe descriptions, its predicate and its
 * statements become one dtp_stmt_t per description, each with its own
 * copy of the clause's DIF objects.  Also macro variables ($1, $$1,
 * $pid, $target) and the public compile entry points.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_grammar.h"

static unsigned int dt_cc_gen;	/* compile generations, never 0 */

/* The actions of the clause being compiled. */
typedef struct dt_cc_clause {
	dtp_action_t	*cc_act;
	uint32_t	cc_nact, cc_capact;
	dif_difo_t	*cc_pred;
} dt_cc_clause_t;

static void *
dt_cc_grow(dt_pcb_t *pcb, void *buf, uint32_t n, uint32_t *capp, size_t sz)
{
	uint32_t cap = *capp;

	if (n < cap)
		return buf;
	cap = cap ? cap * 2 : 8;
	if ((buf = realloc(buf, cap * sz)) == NULL) {
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	memset((char *)buf + *capp * sz, 0, (cap - *capp) * sz);
	*capp = cap;
	return buf;
}

/*
 * Lists grown with dt_cc_grow() keep their capacity implicit: round n up
 * to the next power of two >= 8 to recover it.
 */
static uint32_t
dt_cc_cap(uint32_t n)
{
	uint32_t cap = n ? 8 : 0;

	while (cap < n)
		cap *= 2;
	return cap;
}

static char *
dt_cc_strdup(dt_pcb_t *pcb, const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL) {
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	return p;
}

/*
 * Resolve macro variable name (without its '$'s).  want is DT_MACRO_STR
 * for $$N, DT_MACRO_PDESC in probe descriptions, DT_MACRO_INT for $N in
 * expressions.
 * Returns DT_MACRO_INT with *valp or DT_MACRO_STR with *strp.
 */
int
dt_cc_macro(dt_pcb_t *pcb, int line, const char *name, int want,
    char **strp, int64_t *valp)
{
	const char *dollar = want == DT_MACRO_STR ? "$$" : "$";
	/* -x defaultargs may also come from a #pragma already lexed */
	int defarg = (pcb->pcb_cflags & DTRACE_C_DEFARG) ||
	    (pcb->pcb_hdl->dt_copts & DT_COPT_DEFARGS);
	char buf[32], *end;
	int64_t v = 0;
	long n;

	if (want == DT_MACRO_PDESC)
		want = DT_MACRO_STR;

	if (isdigit((unsigned char)name[0])) {
		n = strtol(name, NULL, 10);
		if (n >= pcb->pcb_argc) {
			if (!defarg)
				dt_parser_error(pcb, line, D_MACRO_UNDEF,
				    "macro argument %s%s is not defined",
				    dollar, name);
			*strp = "";
			*valp = 0;
			return want;
		}
		pcb->pcb_argref[n] = 1;
		*strp = pcb->pcb_argv[n];
		if (want == DT_MACRO_STR)
			return DT_MACRO_STR;
		errno = 0;
		if (**strp == '-')
			v = strtoll(*strp, &end, 0);
		else
			v = (int64_t)strtoull(*strp, &end, 0);
		if (**strp != '\0' && *end == '\0' && errno == 0 &&
		    (isdigit((unsigned char)**strp) || **strp == '-')) {
			*valp = v;
			return DT_MACRO_INT;
		}
		/* a number too big for 64 bits: illumos's words */
		if (**strp != '\0' && *end == '\0' && errno == ERANGE)
			dt_parser_error(pcb, line, D_MACRO_OFLOW,
			    "macro argument %s%s constant %s results in "
			    "integer overflow", dollar, name, *strp);
		return DT_MACRO_STR;
	}

	if (strcmp(name, "pid") == 0)
		v = getpid();
	else if (strcmp(name, "ppid") == 0)
		v = getppid();
	else if (strcmp(name, "uid") == 0)
		v = getuid();
	else if (strcmp(name, "gid") == 0)
		v = getgid();
	else if (strcmp(name, "euid") == 0)
		v = geteuid();
	else if (strcmp(name, "egid") == 0)
		v = getegid();
	else if (strcmp(name, "sid") == 0)
		v = getsid(0);
	else if (strcmp(name, "pgid") == 0)
		v = getpgid(0);
	else if (strcmp(name, "target") == 0 &&
	    dt_proc_target(pcb->pcb_hdl) != 0)
		v = dt_proc_target(pcb->pcb_hdl);	/* the first -c/-p */
	else if (strcmp(name, "target") == 0 && defarg)
		v = 0;
	else
		dt_parser_error(pcb, line, D_MACRO_UNDEF,
		    "macro variable %s%s is not defined", dollar, name);
	if (want == DT_MACRO_STR) {
		snprintf(buf, sizeof(buf), "%" PRId64, v);
		*strp = dt_parser_strdup(pcb, buf);
		return DT_MACRO_STR;
	}
	*valp = v;
	return DT_MACRO_INT;
}

/* Expand the macro variables of a probe description. */
static char *
dt_cc_pdesc_expand(dt_pcb_t *pcb, dt_node_t *dnp)
{
	const char *s = dnp->dn_string, *q;
	char name[64], *val, *out;
	size_t len = 0, cap = strlen(s) + 1, vlen;
	int64_t v;

	if (strchr(s, '$') == NULL)
		return dnp->dn_string;
	out = dt_parser_alloc(pcb, cap);
	while (*s != '\0') {
		if (*s != '$') {
			out[len++] = *s++;
			continue;
		}
		q = ++s;
		if (isdigit((unsigned char)*s)) {
			while (isdigit((unsigned char)*s))
				s++;
		} else {
			while (isalnum((unsigned char)*s) || *s == '_')
				s++;
		}
		if (s == q || (size_t)(s - q) >= sizeof(name))
			dt_parser_error(pcb, dnp->dn_line, D_PDESC_INVAL,
			    "invalid probe description \"%s\": bad macro "
			    "variable reference", dnp->dn_string);
		memcpy(name, q, s - q);
		name[s - q] = '\0';
		dt_cc_macro(pcb, dnp->dn_line, name, DT_MACRO_PDESC, &val, &v);
		vlen = strlen(val);
		if (len + vlen + strlen(s) + 1 > cap) {
			char *nout;

			cap = len + vlen + strlen(s) + 1;
			nout = dt_parser_alloc(pcb, cap);
			memcpy(nout, out, len);
			out = nout;
		}
		memcpy(out + len, val, vlen);
		len += vlen;
	}
	out[len] = '\0';
	return out;
}

/* Mark the $N of a clause's probe descriptions referenced. */
static void
dt_cc_pdesc_argref(dt_pcb_t *pcb, const dt_node_t *cnp)
{
	const dt_node_t *dnp;
	const char *s;
	long n;

	for (dnp = cnp->dn_args; dnp != NULL; dnp = dnp->dn_list) {
		if (dnp->dn_string == NULL)
			continue;
		for (s = strchr(dnp->dn_string, '$'); s != NULL;
		    s = strchr(s, '$')) {
			s++;
			if (!isdigit((unsigned char)*s))
				continue;
			n = strtol(s, NULL, 10);
			if (n >= 0 && n < pcb->pcb_argc)
				pcb->pcb_argref[n] = 1;
		}
	}
}

/*
 * A probe description "p:m:f:n" with 1 to 4 fields; a shorter one names
 * the rightmost fields counting from the compile's probe spec (the name
 * for programs: "BEGIN" is ":::BEGIN").
 */
static void
dt_cc_pdesc(dt_pcb_t *pcb, dt_node_t *dnp, dtp_probedesc_t *pd)
{
	static const size_t sizes[4] = { DTRACE_PROVNAMELEN,
	    DTRACE_MODNAMELEN, DTRACE_FUNCNAMELEN, DTRACE_NAMELEN };
	char *fields[4] = { NULL };
	char *text = dt_cc_pdesc_expand(pcb, dnp);
	char *buf = dt_parser_strdup(pcb, text), *p = buf, *dst;
	int n = 0, last, first, i;

	for (;;) {
		if (n == 4)
			dt_parser_error(pcb, dnp->dn_line, D_PDESC_INVAL,
			    "invalid probe description \"%s\": Overspecified "
			    "probe description", text);
		fields[n++] = p;
		if ((p = strchr(p, ':')) == NULL)
			break;
		*p++ = '\0';
	}
	last = pcb->pcb_pspec == DTRACE_PROBESPEC_NONE ?
	    DTRACE_PROBESPEC_NAME : pcb->pcb_pspec;
	if ((first = last - (n - 1)) < 0)
		dt_parser_error(pcb, dnp->dn_line, D_PDESC_INVAL,
		    "invalid probe description \"%s\": Overspecified probe "
		    "description", text);
	memset(pd, 0, sizeof(*pd));
	for (i = 0; i < n; i++) {
		int f = first + i;

		dst = f == 0 ? pd->dpd_provider : f == 1 ? pd->dpd_mod :
		    f == 2 ? pd->dpd_func : pd->dpd_name;
		if (strlen(fields[i]) >= sizes[f])
			dt_parser_error(pcb, dnp->dn_line, D_PDESC_INVAL,
			    "invalid probe description \"%s\": field \"%s\" is "
			    "too long", text, fields[i]);
		strcpy(dst, fields[i]);
	}
}

static int
dt_cc_pdesc_one(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd, void *arg)
{
	(*(uint32_t *)arg)++;
	return 0;
}

/*
 * The checks illumos makes of a pid provider's description before it
 * looks for the process: "pidN" with N a valid pid, and for the function
 * "-" (an absolute address as the name) only the a.out module and one
 * address.
 */
static void
dt_cc_pdesc_pid(dt_pcb_t *pcb, dt_node_t *dnp, const dtp_probedesc_t *pd)
{
	const char *p = pd->dpd_provider + 3;
	char *end;
	unsigned long pid;

	if (strncmp(pd->dpd_provider, "pid", 3) != 0 ||
	    !isdigit((unsigned char)*p))
		return;
	errno = 0;
	pid = strtoul(p, &end, 10);
	if (*end != '\0')
		return;		/* another provider's name */
	if (errno != 0 || pid == 0 || pid > INT32_MAX)
		dt_parser_error(pcb, dnp->dn_line, D_PROC_BADPID,
		    "'%s' does not contain a valid pid", pd->dpd_provider);
	if (strcmp(pd->dpd_func, "-") != 0)
		return;
	if (pd->dpd_mod[0] != '\0' && strcmp(pd->dpd_mod, "a.out") != 0)
		dt_parser_error(pcb, dnp->dn_line, D_PROC_LIB,
		    "only the a.out module is valid with the '-' function");
	if (strpbrk(pd->dpd_name, "*?[") != NULL)
		dt_parser_error(pcb, dnp->dn_line, D_PROC_NAME,
		    "only individual addresses may be specified with the "
		    "'-' function");
}

/*
 * A description must name some probe unless -Z (zdefs) allows it: ask
 * the daemon, whose providers also create probes named on demand.
 */
static void
dt_cc_pdesc_match(dt_pcb_t *pcb, dt_node_t *dnp, const dtp_probedesc_t *pd)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtrace_probedesc_t d;
	uint32_t n = 0;

	dt_cc_pdesc_pid(pcb, dnp, pd);
	/*
	 * pid1234, myprov1234: grabbed first; under -Z one that cannot be
	 * is a description that matches nothing
	 */
	if (dt_proc_named(dtp, pd->dpd_provider) != 0 &&
	    !(pcb->pcb_cflags & DTRACE_C_ZDEFS) &&
	    !(dtp->dt_copts & DT_COPT_ZDEFS)) {
		char text[sizeof(dtp->dt_errmsg)];

		/* without its tag: the parser's error puts the line too */
		snprintf(text, sizeof(text), "%s", dtp->dt_errmsg +
		    ((dtp->dt_copts & DT_COPT_ERRTAGS) ?
		    strlen("[D_PROC_GRAB] ") : 0));
		dt_parser_error(pcb, dnp->dn_line, D_PROC_GRAB, "%s", text);
	}
	/* the handle's flag too: a #pragma D option zdefs sets it mid-compile */
	if ((pcb->pcb_cflags & DTRACE_C_ZDEFS) ||
	    (dtp->dt_copts & DT_COPT_ZDEFS))
		return;
	memset(&d, 0, sizeof(d));
	strcpy(d.dtpd_provider, pd->dpd_provider);
	strcpy(d.dtpd_mod, pd->dpd_mod);
	strcpy(d.dtpd_func, pd->dpd_func);
	strcpy(d.dtpd_name, pd->dpd_name);
	if (dtrace_probe_iter(dtp, &d, dt_cc_pdesc_one, &n) != 0 &&
	    dtrace_errno(dtp) != EDT_NOPROBE) {
		/* the daemon's error stands, with the tag of its code */
		if (dtrace_errno(dtp) == EDT_REMOTE &&
		    (dtp->dt_errcode == DT_ERR_PDESC_OFF ||
		    dtp->dt_errcode == DT_ERR_PDESC_ALIGN)) {
			char text[sizeof(dtp->dt_errmsg)];

			strcpy(text, dtp->dt_errmsg);
			dt_set_errmsg(dtp, dt_errtag(dtp->dt_errcode ==
			    DT_ERR_PDESC_OFF ? D_PROC_OFF : D_PROC_ALIGN),
			    "%s", text);
		}
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	if (n == 0)
		dt_parser_error(pcb, dnp->dn_line, D_PDESC_ZERO,
		    "probe description %s:%s:%s:%s does not match any probes",
		    pd->dpd_provider, pd->dpd_mod, pd->dpd_func, pd->dpd_name);
}

/* Assemble the code just generated; print it under -S. */
static dif_difo_t *
dt_cc_difo(dt_pcb_t *pcb, dt_node_t *dnp, const dif_type_t *rtype)
{
	dif_difo_t *dp;

	dt_cg(pcb, dnp);
	dp = dt_as(pcb, rtype);
	if (pcb->pcb_cflags & DTRACE_C_DIFV)
		dif_dis(dp, stderr);
	return dp;
}

static dtp_action_t *
dt_cc_newact(dt_pcb_t *pcb, dt_cc_clause_t *cc, uint32_t kind)
{
	dtp_action_t *ap;

	cc->cc_act = dt_cc_grow(pcb, cc->cc_act, cc->cc_nact, &cc->cc_capact,
	    sizeof(dtp_action_t));
	ap = &cc->cc_act[cc->cc_nact++];
	memset(ap, 0, sizeof(*ap));
	ap->da_kind = kind;
	return ap;
}

/* Attach n DIFO slots to an action (filled in by the caller). */
static void
dt_cc_actdifos(dt_pcb_t *pcb, dtp_action_t *ap, uint32_t n)
{
	if (n == 0)
		return;
	if ((ap->da_difo = calloc(n, sizeof(dif_difo_t *))) == NULL) {
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	ap->da_ndifo = n;
}

static int
dt_cc_nargs(const dt_node_t *args)
{
	int n = 0;

	for (; args != NULL; args = args->dn_list)
		n++;
	return n;
}

/* A recorded value: trace() and printf() arguments. */
static void
dt_cc_difexpr(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp,
    const char *func, int argn)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtp_action_t *ap;
	dif_type_t rt;

	if (dnp->dn_type->dt_kind == DT_TK_VOID)
		dt_parser_error(pcb, dnp->dn_line, D_TRACE_VOID,
		    "%s( ) argument #%d may not be of type void", func, argn);
	dt_decl_rtype(dtp, dnp->dn_type, &rt);
	ap = dt_cc_newact(pcb, cc, DTRACEACT_DIFEXPR);
	dt_cc_actdifos(pcb, ap, 1);
	ap->da_difo[0] = dt_cc_difo(pcb, dnp, &rt);
	/* a string: strsize characters and its NUL */
	ap->da_size = rt.dt_size + (dt_node_is_string(dnp) ? 1 : 0);
	/* strings, structs and arrays are bytes: copied, not aligned */
	ap->da_align = dt_node_is_string(dnp) ||
	    (rt.dt_flags & DIF_TF_BYREF) ? 1 : rt.dt_size;
}

/*
 * print(p), as dtrace-utils has it: p's value, marked for the consumer
 * with the type it points to, then the object (dt_dwarf_print).  An
 * array (which both illumos and dtrace-utils take where void * is
 * asked) or a float, double or long double is one record, its value,
 * printed as illumos's print() prints a value (dt_dwarf_printv).
 */
static void
dt_cc_act_print(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp)
{
	dt_node_t *arg = dt_node_cook(pcb, dnp->dn_args), *obj;
	const dt_type_t *t;
	uint32_t id;

	if (arg->dn_type->dt_kind == DT_TK_ARRAY ||
	    arg->dn_type->dt_kind == DT_TK_FLOAT) {
		t = arg->dn_type;
		if (t->dt_size == 0)
			dt_parser_error(pcb, arg->dn_line, D_PRINT_SIZE,
			    "print( ) argument #1 has type '%s' with size "
			    "0; cannot print( ) it.", t->dt_name);
		dt_dwarf_check(pcb, arg->dn_line, t, "print( ) argument #1");
		if (dt_dwarf_ptype(pcb->pcb_hdl, t, &id) != 0) {
			dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
			longjmp(pcb->pcb_jmpbuf, 1);
		}
		dt_cc_difexpr(pcb, cc, arg, "print", 1);
		cc->cc_act[cc->cc_nact - 1].da_arg =
		    (uint64_t)DT_PRINTV_MAGIC << 32 | id;
		return;
	}
	if (arg->dn_type->dt_kind != DT_TK_PTR)
		dt_parser_error(pcb, arg->dn_line, D_PROTO_ARG,
		    "print( ) argument #1 is incompatible with prototype:\n"
		    "\tprototype: void *\n\t argument: %s",
		    arg->dn_type->dt_name);
	t = arg->dn_type->dt_base != NULL ? arg->dn_type->dt_base :
	    &dt_type_void;
	if (t->dt_kind == DT_TK_VOID || t->dt_kind == DT_TK_FUNC ||
	    t->dt_kind == DT_TK_STRING || t->dt_size == 0 ||
	    ((t->dt_kind == DT_TK_STRUCT || t->dt_kind == DT_TK_UNION) &&
	    !t->dt_defined))
		dt_parser_error(pcb, arg->dn_line, D_PRINT_SIZE,
		    "print( ) argument #1 reference has type '%s' with size "
		    "0; cannot print( ) it.", t->dt_name);
	dt_dwarf_check(pcb, arg->dn_line, t, "print( ) argument #1");
	if (dt_dwarf_ptype(pcb->pcb_hdl, t, &id) != 0) {
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	obj = dt_node_print_obj(pcb, arg);
	dt_cc_difexpr(pcb, cc, arg, "print", 1);
	cc->cc_act[cc->cc_nact - 1].da_arg = (uint64_t)DT_PRINT_MAGIC << 32 |
	    id;
	dt_cc_difexpr(pcb, cc, obj, "print", 1);
}

/* "ret %r0": the value of printf() without arguments. */
static dif_difo_t *
dt_cc_difo_zero(dt_pcb_t *pcb)
{
	dif_difo_t *dp;

	if ((dp = calloc(1, sizeof(*dp))) == NULL ||
	    (dp->dd_buf = calloc(1, sizeof(dif_instr_t))) == NULL) {
		free(dp);
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	dp->dd_buf[0] = DIF_INSTR_RET(0);
	dp->dd_len = 1;
	dt_decl_rtype(pcb->pcb_hdl, &dt_type_int, &dp->dd_rtype);
	return dp;
}

/*
 * printf(), and system() and freopen(), which record like it: the
 * consumer formats the command and runs it (DTRACEACT_SYSTEM), or the
 * file name and sends its output there (DTRACEACT_FREOPEN).
 */
static int
dt_cc_isaction(dt_pcb_t *pcb, const dt_node_t *dnp)
{
	dt_ident_t *idp;

	if (dnp->dn_kind != DT_NODE_FUNC)
		return 0;
	idp = dt_idhash_lookup(pcb->pcb_hdl->dt_globals, dnp->dn_string);
	return idp != NULL && idp->di_kind == DT_IDENT_ACTFUNC;
}

static void
dt_cc_act_printf(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp,
    uint32_t kind)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtp_prog_t *pp = &pcb->pcb_prog->dp_prog;
	dt_node_t *fmt = dnp->dn_args, *arg;
	dif_type_t *types;
	const char **names;
	const char *tag = NULL;
	char msg[512];
	int n = dt_cc_nargs(dnp->dn_args) - 1, i;
	dtp_action_t *ap;
	uint32_t cap, first;

	if (fmt == NULL)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "%s( ) prototype mismatch: 0 args passed, at least 1 "
		    "expected", dnp->dn_string);
	/* as illumos: a string's type first, then its being a constant */
	if (fmt->dn_kind != DT_NODE_STRING) {
		fmt = dt_node_cook(pcb, fmt);
		dt_parser_error(pcb, dnp->dn_line,
		    fmt->dn_type->dt_kind == DT_TK_STRING ? D_PRINTF_ARG_FMT :
		    D_PROTO_ARG, "%s( ) argument #1 is incompatible with "
		    "prototype:\n\tprototype: %s\n\t argument: %s",
		    dnp->dn_string, fmt->dn_type->dt_kind == DT_TK_STRING ?
		    "string constant" : "string", fmt->dn_type->dt_name);
	}
	/* freopen(""): back to the original output */
	if (fmt->dn_string[0] == '\0' && kind != DTRACEACT_FREOPEN)
		dt_parser_error(pcb, dnp->dn_line, D_PRINTF_FMT_EMPTY,
		    "%s( ) format string is empty", dnp->dn_string);
	types = dt_parser_alloc(pcb, (n + 1) * sizeof(dif_type_t));
	names = dt_parser_alloc(pcb, (n + 1) * sizeof(char *));
	for (arg = fmt->dn_list, i = 0; arg != NULL; arg = arg->dn_list, i++) {
		/*
		 * An aggregation, or an action's void, is no value: the
		 * format check says so (a zeroed type matches no
		 * conversion), in illumos's words.
		 */
		if (arg->dn_kind == DT_NODE_AGG) {
			memset(&types[i], 0, sizeof(types[i]));
			names[i] = "aggregation";
			continue;
		}
		if (dt_cc_isaction(pcb, arg)) {
			memset(&types[i], 0, sizeof(types[i]));
			names[i] = "void";
			continue;
		}
		arg = dt_node_cook(pcb, arg);
		/* a char array prints as the string it holds, as in illumos */
		if (arg->dn_type->dt_kind == DT_TK_ARRAY &&
		    arg->dn_type->dt_base->dt_kind == DT_TK_INT &&
		    arg->dn_type->dt_base->dt_size == 1)
			dt_node_stringof(pcb, arg);
		names[i] = arg->dn_type->dt_name;
		if (arg->dn_type->dt_kind == DT_TK_VOID) {
			memset(&types[i], 0, sizeof(types[i]));
			continue;
		}
		dt_decl_rtype(dtp, arg->dn_type, &types[i]);
	}
	if (dt_printf_check(dtp, fmt->dn_string, n, types, names, &tag, msg,
	    sizeof(msg)) != 0)
		dt_parser_error_tag(pcb, dnp->dn_line,
		    tag != NULL ? tag : "D_PRINTF_FMT", "%s", msg);

	cap = dt_cc_cap(pp->dp_nfmt);
	pp->dp_fmt = dt_cc_grow(pcb, pp->dp_fmt, pp->dp_nfmt, &cap,
	    sizeof(char *));
	pp->dp_fmt[pp->dp_nfmt] = dt_cc_strdup(pcb, fmt->dn_string);

	/*
	 * As illumos numbers them: each argument is an action, the first
	 * one is the printf action itself (carrying the format); without
	 * arguments it records a dummy int from "ret %r0".
	 */
	first = cc->cc_nact;
	for (arg = fmt->dn_list, i = 0; arg != NULL; arg = arg->dn_list, i++)
		dt_cc_difexpr(pcb, cc, arg, "printf", i + 2);
	if (n == 0) {
		ap = dt_cc_newact(pcb, cc, DTRACEACT_DIFEXPR);
		dt_cc_actdifos(pcb, ap, 1);
		ap->da_difo[0] = dt_cc_difo_zero(pcb);
		ap->da_size = ap->da_align = ap->da_difo[0]->dd_rtype.dt_size;
	}
	ap = &cc->cc_act[first];
	ap->da_kind = kind;
	ap->da_arg = pp->dp_nfmt++;
	ap->da_nargs = n;
}

/*
 * tracemem(addr, n [, dynsize]): n bytes copied from addr, which must be
 * memory DIF may load (copyin(), alloca(), variables), as in illumos.
 * The address DIFO returns by reference an n-byte object, so the daemon
 * copies it like any other by-ref value.  A dynamic size is its own
 * action just before, recording the number of bytes to show (at most n).
 */
static void
dt_cc_act_tracemem(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dt_node_t *addr, *max, *size;
	dtp_action_t *ap;
	dif_type_t rt;
	int n = dt_cc_nargs(dnp->dn_args);

	if (n < 2)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "tracemem( ) prototype mismatch: %d arg%s passed, at "
		    "least 2 expected", n, n == 1 ? "" : "s");
	if (n > 3)
		dt_parser_error(pcb, dnp->dn_line, D_TRACEMEM_ARGS,
		    "tracemem ( ) prototype mismatch: expected at most 3 args");
	addr = dt_node_cook(pcb, dnp->dn_args);
	max = dt_node_cook(pcb, addr->dn_list);
	size = n == 3 ? dt_node_cook(pcb, max->dn_list) : NULL;
	if (!dt_node_is_int(addr) && addr->dn_type->dt_kind != DT_TK_PTR)
		dt_parser_error(pcb, addr->dn_line, D_TRACEMEM_ADDR,
		    "tracemem( ) argument #1 is incompatible with prototype:\n"
		    "\tprototype: pointer or integer\n\t argument: %s",
		    addr->dn_type->dt_name);
	/* the prototype's check (size_t) before tracemem()'s own */
	if (!dt_node_is_int(max))
		dt_parser_error(pcb, max->dn_line, D_PROTO_ARG,
		    "tracemem( ) argument #2 is incompatible with prototype:\n"
		    "\tprototype: size_t\n\t argument: %s",
		    max->dn_type->dt_name);
	if (max->dn_kind != DT_NODE_INT || (int64_t)max->dn_value <= 0 ||
	    max->dn_value > UINT32_MAX)
		dt_parser_error(pcb, max->dn_line, D_TRACEMEM_SIZE,
		    "tracemem( ) argument #2 must be a non-zero positive "
		    "integral constant expression");
	if (size != NULL) {
		if (!dt_node_is_int(size))
			dt_parser_error(pcb, size->dn_line, D_TRACEMEM_DYNSIZE,
			    "tracemem ( ) dynamic size (argument #3) must be "
			    "of scalar type");
		dt_decl_rtype(dtp, &dt_type_ullong, &rt);
		ap = dt_cc_newact(pcb, cc, DTRACEACT_TRACEMEM_DYNSIZE);
		dt_cc_actdifos(pcb, ap, 1);
		ap->da_difo[0] = dt_cc_difo(pcb, size, &rt);
		ap->da_size = ap->da_align = sizeof(uint64_t);
	}
	dt_decl_rtype(dtp, addr->dn_type, &rt);
	rt.dt_flags |= DIF_TF_BYREF;
	rt.dt_size = (uint32_t)max->dn_value;
	ap = dt_cc_newact(pcb, cc, DTRACEACT_TRACEMEM);
	dt_cc_actdifos(pcb, ap, 1);
	ap->da_difo[0] = dt_cc_difo(pcb, addr, &rt);
	ap->da_size = rt.dt_size;
	ap->da_align = 1;
}

/* Argument #i of stack() or ustack(), cooked: an integer (uint32_t). */
static dt_node_t *
dt_cc_stack_arg(dt_pcb_t *pcb, dt_node_t *ap, const char *name, int i)
{
	ap = dt_node_cook(pcb, ap);
	if (!dt_node_is_int(ap))
		dt_parser_error(pcb, ap->dn_line, D_PROTO_ARG,
		    "%s( ) argument #%d is incompatible with prototype:\n"
		    "\tprototype: uint32_t\n\t argument: %s", name, i,
		    ap->dn_type != NULL ? ap->dn_type->dt_name : "void");
	return ap;
}

/*
 * Argument #1 of stack(), ustack() or jstack(), the frame count,
 * checked: its type, then a non-zero positive integer constant no
 * larger than max, or the error tagged tag.  Its value.
 */
static uint64_t
dt_cc_stack_nframes(dt_pcb_t *pcb, dt_node_t *dnp, const char *name,
    int tag, uint64_t max)
{
	dt_node_t *ap = dt_cc_stack_arg(pcb, dnp->dn_args, name, 1);

	if (ap->dn_kind != DT_NODE_INT || (int64_t)ap->dn_value <= 0 ||
	    ap->dn_value > max)
		dt_parser_error(pcb, dnp->dn_line, tag,
		    "%s( ) argument #1 must be a non-zero positive integer "
		    "constant", name);
	return ap->dn_value;
}

/*
 * ustack([nframes [, strsize]]): both integer constants; nframes
 * defaults to the ustackframes option.  Its record: the pid, nframes
 * program counters, strsize bytes of (helper) strings.  The checks are
 * illumos's, in its order: the count, then each argument's type
 * against the prototype (uint32_t), then its value.  jstack() is the
 * same stack with the jstackframes and jstackstrsize defaults: its
 * strings are those a ustack helper (a JVM's) would give its frames,
 * and without a helper its frames print as ustack()'s.
 */
static void
dt_cc_ustack_args(dt_pcb_t *pcb, dt_node_t *dnp, uint32_t *nfp,
    uint32_t *ssp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	int j = strcmp(dnp->dn_string, "jstack") == 0;
	const char *name = j ? "jstack" : "ustack";
	dtrace_optval_t nf = dtp->dt_options[j ? DTRACEOPT_JSTACKFRAMES :
	    DTRACEOPT_USTACKFRAMES];
	dtrace_optval_t mf;
	dt_node_t *a0 = dnp->dn_args, *a1 = NULL;
	int64_t ss = 0;
	int n = dt_cc_nargs(dnp->dn_args);

	if (nf == DTRACEOPT_UNSET || nf <= 0)
		nf = j ? 50 : 20;
	if (j) {
		ss = dtp->dt_options[DTRACEOPT_JSTACKSTRSIZE];
		if (ss == DTRACEOPT_UNSET || ss < 0 || ss > 65536)
			ss = 512;
	}
	if (n > 2)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "%s( ) prototype mismatch: %d args passed, at most 2 "
		    "expected", name, n);
	if (a0 != NULL)
		a1 = a0->dn_list;
	if (a0 != NULL)
		nf = (dtrace_optval_t)dt_cc_stack_nframes(pcb, dnp, name,
		    D_USTACK_FRAMES, DTRACE_USTACK_MAXFRAMES);
	if (a1 != NULL) {
		a1 = dt_cc_stack_arg(pcb, a1, name, 2);
		if (a1->dn_kind != DT_NODE_INT || (int64_t)a1->dn_value < 0 ||
		    a1->dn_value > 65536)
			dt_parser_error(pcb, dnp->dn_line, D_USTACK_STRSIZE,
			    "%s( ) argument #2 must be a positive integer "
			    "constant", name);
		ss = (int64_t)a1->dn_value;
	}
	if (nf > DTRACE_USTACK_MAXFRAMES)
		nf = DTRACE_USTACK_MAXFRAMES;
	/* dtrace-utils' maxframes caps every stack, whatever it asks */
	mf = dtp->dt_options[DTRACEOPT_MAXFRAMES];
	if (mf != DTRACEOPT_UNSET && mf > 0 && nf > mf)
		nf = mf;
	*nfp = (uint32_t)nf;
	*ssp = (uint32_t)ss;
}

/*
 * stack([nframes]): the kernel's stack, nframes program counters
 * (default the stackframes option, 20), checked as illumos checks them:
 * the count, the argument's type, then its value.  dtrace-utils'
 * maxframes caps it, as it caps ustack().  The daemon records the
 * kernel's call chain where the hit has one (a profile sample taken in
 * the kernel); elsewhere the stack is empty.
 */
static uint32_t
dt_cc_stack_args(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtrace_optval_t nf = dtp->dt_options[DTRACEOPT_STACKFRAMES];
	dtrace_optval_t mf = dtp->dt_options[DTRACEOPT_MAXFRAMES];
	int n = dt_cc_nargs(dnp->dn_args);

	if (nf == DTRACEOPT_UNSET || nf <= 0)
		nf = 20;
	if (n > 1)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "stack( ) prototype mismatch: %d args passed, at most 1 "
		    "expected", n);
	/* more than DTRACE_STACK_MAXFRAMES is not refused: see below */
	if (dnp->dn_args != NULL)
		nf = (dtrace_optval_t)dt_cc_stack_nframes(pcb, dnp, "stack",
		    D_STACK_SIZE, INT64_MAX);
	if (nf > DTRACE_STACK_MAXFRAMES)
		nf = DTRACE_STACK_MAXFRAMES;
	if (mf != DTRACEOPT_UNSET && mf > 0 && nf > mf)
		nf = mf;
	return (uint32_t)nf;
}

static void
dt_cc_act_stack(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp)
{
	dtp_action_t *ap;
	uint32_t nf = dt_cc_stack_args(pcb, dnp);

	ap = dt_cc_newact(pcb, cc, DTRACEACT_STACK);
	ap->da_arg = nf;
	ap->da_size = nf * 8;
	ap->da_align = 8;
}

static void
dt_cc_act_ustack(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp)
{
	dtp_action_t *ap;
	uint32_t nf, ss;

	dt_cc_ustack_args(pcb, dnp, &nf, &ss);
	ap = dt_cc_newact(pcb, cc, DTRACEACT_USTACK);
	ap->da_arg = DTRACE_USTACK_ARG(nf, ss);
	ap->da_size = (nf + 1) * 8 + ss;
	ap->da_align = 8;
}

/* usym(), ufunc(), umod(), uaddr(): the argument, an address. */
static dt_node_t *
dt_cc_symmod_arg(dt_pcb_t *pcb, dt_node_t *dnp, const char *name)
{
	dt_node_t *arg;
	int n = dt_cc_nargs(dnp->dn_args);

	if (n != 1)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "%s( ) prototype mismatch: %d arg%s passed, 1 expected",
		    name, n, n == 1 ? "" : "s");
	arg = dt_node_cook(pcb, dnp->dn_args);
	if (!dt_node_is_int(arg) && arg->dn_type->dt_kind != DT_TK_PTR)
		dt_parser_error(pcb, arg->dn_line, D_PROTO_ARG,
		    "%s( ) argument #1 is incompatible with prototype:\n"
		    "\tprototype: uintptr_t\n\t argument: %s", name,
		    arg->dn_type->dt_name);
	return arg;
}

static uint32_t
dt_cc_symmod_kind(uint32_t id)
{
	switch (id) {
	case DT_ACT_UMOD:
		return DTRACEACT_UMOD;
	case DT_ACT_UADDR:
		return DTRACEACT_UADDR;
	case DT_ACT_SYM:
	case DT_ACT_FUNC:
		/* func() is sym(), as in illumos */
		return DTRACEACT_SYM;
	case DT_ACT_MOD:
		return DTRACEACT_MOD;
	default:
		/* ufunc() is usym(), as in illumos */
		return DTRACEACT_USYM;
	}
}

static void
dt_cc_act_symmod(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp,
    const dt_ident_t *idp)
{
	dt_node_t *arg = dt_cc_symmod_arg(pcb, dnp, idp->di_name);
	dtp_action_t *ap;
	dif_type_t rt;

	dt_decl_rtype(pcb->pcb_hdl, &dt_type_ullong, &rt);
	ap = dt_cc_newact(pcb, cc, dt_cc_symmod_kind(idp->di_id));
	dt_cc_actdifos(pcb, ap, 1);
	ap->da_difo[0] = dt_cc_difo(pcb, arg, &rt);
	ap->da_size = 16;	/* pid, address */
	ap->da_align = 8;
}

/*
 * Aggregation keys that are actions (ustack(), usym(), ...) have these
 * types, so that a key keeps its kind across clauses.
 */
#define	DT_CC_KEYTYPE(name) \
	{ .dt_name = (name), .dt_kind = DT_TK_INT, .dt_size = 8 }
static const dt_type_t dt_cc_type_ustack = DT_CC_KEYTYPE("stack");
static const dt_type_t dt_cc_type_stack = DT_CC_KEYTYPE("stack");
static const dt_type_t dt_cc_type_usym = DT_CC_KEYTYPE("_usymaddr_t");
static const dt_type_t dt_cc_type_umod = DT_CC_KEYTYPE("_umodaddr_t");
static const dt_type_t dt_cc_type_uaddr = DT_CC_KEYTYPE("_uaddr_t");
static const dt_type_t dt_cc_type_sym = DT_CC_KEYTYPE("_symaddr_t");
static const dt_type_t dt_cc_type_mod = DT_CC_KEYTYPE("_modaddr_t");

static int
dt_cc_type_isact(const dt_type_t *t)
{
	return t == &dt_cc_type_ustack || t == &dt_cc_type_stack ||
	    t == &dt_cc_type_usym ||
	    t == &dt_cc_type_umod || t == &dt_cc_type_uaddr ||
	    t == &dt_cc_type_sym || t == &dt_cc_type_mod;
}

/* Do two key types differ?  Action keys only match themselves. */
static int
dt_cc_keytype_differ(const dt_type_t *a, const dt_type_t *b)
{
	if (dt_cc_type_isact(a) || dt_cc_type_isact(b))
		return a != b;
	return a->dt_kind != b->dt_kind;
}

/*
 * Is key node k an action that makes a key of its own (ustack(),
 * stack(), usym(), ufunc(), umod(), uaddr(), sym(), func(), mod())?
 * Fills its key element and type, and in *argp the node computing its
 * address (NULL for the stacks).
 */
static int
dt_cc_keyact(dt_pcb_t *pcb, dt_node_t *k, dtp_aggkey_t *kp,
    const dt_type_t **tp, dt_node_t **argp)
{
	dt_ident_t *idp;
	uint32_t nf, ss;

	if (k->dn_kind != DT_NODE_FUNC || (idp = dt_idhash_lookup(
	    pcb->pcb_hdl->dt_globals, k->dn_string)) == NULL ||
	    idp->di_kind != DT_IDENT_ACTFUNC ||
	    (idp->di_flags & DT_IDFLG_UNSUP))
		return 0;
	switch (idp->di_id) {
	case DT_ACT_USTACK:
	case DT_ACT_JSTACK:
		dt_cc_ustack_args(pcb, k, &nf, &ss);
		kp->dk_kind = DTP_KEY_USTACK;
		kp->dk_size = (nf + 1) * 8;
		*tp = &dt_cc_type_ustack;
		*argp = NULL;
		return 1;
	case DT_ACT_STACK:
		kp->dk_kind = DTP_KEY_STACK;
		kp->dk_size = dt_cc_stack_args(pcb, k) * 8;
		*tp = &dt_cc_type_stack;
		*argp = NULL;
		return 1;
	case DT_ACT_USYM:
	case DT_ACT_UFUNC:
		kp->dk_kind = DTP_KEY_USYM;
		*tp = &dt_cc_type_usym;
		break;
	case DT_ACT_UMOD:
		kp->dk_kind = DTP_KEY_UMOD;
		*tp = &dt_cc_type_umod;
		break;
	case DT_ACT_SYM:
	case DT_ACT_FUNC:
		kp->dk_kind = DTP_KEY_SYM;
		*tp = &dt_cc_type_sym;
		break;
	case DT_ACT_MOD:
		kp->dk_kind = DTP_KEY_MOD;
		*tp = &dt_cc_type_mod;
		break;
	case DT_ACT_UADDR:
		kp->dk_kind = DTP_KEY_UADDR;
		*tp = &dt_cc_type_uaddr;
		break;
	default:
		return 0;
	}
	kp->dk_size = 16;
	*argp = dt_cc_symmod_arg(pcb, k, idp->di_name);
	return 1;
}

/*
 * What key expression k names, for dtraced to label an exported metric
 * with: a variable (self-> and this-> dropped), a function (ufunc,
 * strjoin), a member; "" when it names nothing.  Read before cooking, so
 * that it is the text the user wrote.
 */
static const char *
dt_cc_keyname(const dt_node_t *k)
{
	const char *s = "";

	switch (k->dn_kind) {
	case DT_NODE_IDENT:
		s = k->dn_string;
		if (k->dn_op == DT_TOK_PTR && strstr(s, "->") != NULL)
			s = strstr(s, "->") + 2;
		break;
	case DT_NODE_VAR:
		s = k->dn_ident->di_name;
		if (strstr(s, "->") != NULL)
			s = strstr(s, "->") + 2;
		break;
	case DT_NODE_FUNC:
		s = k->dn_string;
		break;
	case DT_NODE_OP2:
		if ((k->dn_op == DT_TOK_PTR || k->dn_op == DT_TOK_DOT) &&
		    k->dn_string != NULL)
			s = k->dn_string;
		break;
	}
	if (s == NULL || strlen(s) >= DT_PROTO_KEYNAMELEN)
		return "";
	return s;
}

/*
 * The description of aggregation id: in the program being compiled, or
 * in one compiled before on this handle.
 */
static dtp_agg_t *
dt_cc_aggdesc(dt_pcb_t *pcb, uint32_t id)
{
	dtp_prog_t *pp = &pcb->pcb_prog->dp_prog;
	struct dtrace_prog *pgp;
	uint32_t i;

	for (i = 0; i < pp->dp_nagg; i++) {
		if (pp->dp_agg[i].dg_id == id)
			return &pp->dp_agg[i];
	}
	for (pgp = pcb->pcb_hdl->dt_progs; pgp != NULL; pgp = pgp->dp_next) {
		for (i = 0; i < pgp->dp_prog.dp_nagg; i++) {
			if (pgp->dp_prog.dp_agg[i].dg_id == id)
				return &pgp->dp_prog.dp_agg[i];
		}
	}
	return NULL;
}

/*
 * lquantize(x, base, limit[, step[, incr]]): illumos's checks, in its
 * order and words.  params = { base, limit, step }.
 */
static void
dt_cc_lquantize(dt_pcb_t *pcb, dt_node_t *dnp, dt_node_t *arg1,
    const dtp_agg_t *prev, uint64_t *params)
{
	dt_node_t *arg2 = arg1->dn_list, *arg3 = arg2->dn_list;
	int64_t base, limit, step = 1, nlevels;

	if (arg1->dn_kind != DT_NODE_INT)
		dt_parser_error(pcb, arg1->dn_line, D_LQUANT_BASETYPE,
		    "lquantize( ) argument #1 must be an integer constant");
	base = (int64_t)arg1->dn_value;
	if (base < INT32_MIN || base > INT32_MAX)
		dt_parser_error(pcb, arg1->dn_line, D_LQUANT_BASEVAL,
		    "lquantize( ) argument #1 must be a 32-bit quantity");
	if (arg2->dn_kind != DT_NODE_INT)
		dt_parser_error(pcb, arg2->dn_line, D_LQUANT_LIMTYPE,
		    "lquantize( ) argument #2 must be an integer constant");
	limit = (int64_t)arg2->dn_value;
	if (limit < INT32_MIN || limit > INT32_MAX)
		dt_parser_error(pcb, arg2->dn_line, D_LQUANT_LIMVAL,
		    "lquantize( ) argument #2 must be a 32-bit quantity");
	if (limit <= base)
		dt_parser_error(pcb, dnp->dn_line, D_LQUANT_MISMATCH,
		    "lquantize( ) base (argument #1) must be less than limit "
		    "(argument #2)");
	if (arg3 != NULL) {
		if (arg3->dn_kind != DT_NODE_INT ||
		    (int64_t)arg3->dn_value <= 0)
			dt_parser_error(pcb, arg3->dn_line, D_LQUANT_STEPTYPE,
			    "lquantize( ) argument #3 must be a non-zero "
			    "positive integer constant");
		if ((step = (int64_t)arg3->dn_value) > UINT16_MAX)
			dt_parser_error(pcb, arg3->dn_line, D_LQUANT_STEPVAL,
			    "lquantize( ) argument #3 must be a 16-bit "
			    "quantity");
	}
	nlevels = (limit - base) / step;
	if (nlevels == 0)
		dt_parser_error(pcb, dnp->dn_line, D_LQUANT_STEPLARGE,
		    "lquantize( ) step (argument #3) too large: must have at "
		    "least one quantization level");
	if (nlevels > UINT16_MAX)
		dt_parser_error(pcb, dnp->dn_line, D_LQUANT_STEPSMALL,
		    "lquantize( ) step (argument #3) too small: number of "
		    "quantization levels must be a 16-bit quantity");
	params[0] = (uint64_t)base;
	/* illumos keeps the levels: the limit is what they reach */
	params[1] = (uint64_t)(base + nlevels * step);
	params[2] = (uint64_t)step;
	if (prev == NULL || memcmp(prev->dg_params, params,
	    3 * sizeof(uint64_t)) == 0)
		return;
	if ((int64_t)prev->dg_params[0] != base)
		dt_parser_error(pcb, dnp->dn_line, D_LQUANT_MATCHBASE,
		    "lquantize( ) base (argument #1) doesn't match previous "
		    "declaration: expected %d, found %d",
		    (int)prev->dg_params[0], (int)base);
	if (prev->dg_params[1] != params[1])
		dt_parser_error(pcb, dnp->dn_line, D_LQUANT_MATCHLIM,
		    "lquantize( ) limit (argument #2) doesn't match previous "
		    "declaration: expected %d, found %d",
		    (int)prev->dg_params[1], (int)params[1]);
	dt_parser_error(pcb, dnp->dn_line, D_LQUANT_MATCHSTEP,
	    "lquantize( ) step (argument #3) doesn't match previous "
	    "declaration: expected %d, found %d", (int)prev->dg_params[2],
	    (int)step);
}

/*
 * llquantize(x, factor, low, high, nsteps[, incr]): illumos's checks.
 * params = { factor, low, high, nsteps }.
 */
static void
dt_cc_llquantize(dt_pcb_t *pcb, dt_node_t *dnp, dt_node_t *arg,
    const dtp_agg_t *prev, uint64_t *params)
{
	static const struct {
		const char	*str;
		dt_errtag_t	badtype, badval, mismatch;
	} args[4] = {
		{ "factor", D_LLQUANT_FACTORTYPE, D_LLQUANT_FACTORVAL,
		    D_LLQUANT_FACTORMATCH },
		{ "low magnitude", D_LLQUANT_LOWTYPE, D_LLQUANT_LOWVAL,
		    D_LLQUANT_LOWMATCH },
		{ "high magnitude", D_LLQUANT_HIGHTYPE, D_LLQUANT_HIGHVAL,
		    D_LLQUANT_HIGHMATCH },
		{ "linear steps per magnitude", D_LLQUANT_NSTEPTYPE,
		    D_LLQUANT_NSTEPVAL, D_LLQUANT_NSTEPMATCH },
	};
	uint64_t v, order;
	int i;

	for (i = 0; i < 4; i++, arg = arg->dn_list) {
		if (arg->dn_kind != DT_NODE_INT)
			dt_parser_error(pcb, arg->dn_line, args[i].badtype,
			    "llquantize( ) argument #%d (%s) must be an "
			    "integer constant", i + 1, args[i].str);
		if (arg->dn_value > UINT16_MAX)
			dt_parser_error(pcb, arg->dn_line, args[i].badval,
			    "llquantize( ) argument #%d (%s) must be an "
			    "unsigned 16-bit quantity", i + 1, args[i].str);
		params[i] = arg->dn_value;
	}
	if (params[0] < 2)
		dt_parser_error(pcb, dnp->dn_line, D_LLQUANT_FACTORSMALL,
		    "llquantize( ) factor (argument #1) must be two or more");
	if (params[1] >= params[2])
		dt_parser_error(pcb, dnp->dn_line, D_LLQUANT_MAGRANGE,
		    "llquantize( ) high magnitude (argument #3) must be "
		    "greater than low magnitude (argument #2)");
	if (params[3] < params[0])
		dt_parser_error(pcb, dnp->dn_line, D_LLQUANT_FACTORNSTEPS,
		    "llquantize( ) factor (argument #1) must be less than or "
		    "equal to the number of linear steps per magnitude "
		    "(argument #4)");
	for (v = params[0]; v < params[3]; v *= params[0])
		continue;
	if (params[3] % params[0] != 0 || v % params[3] != 0)
		dt_parser_error(pcb, dnp->dn_line, D_LLQUANT_FACTOREVEN,
		    "llquantize( ) factor (argument #1) must evenly divide "
		    "the number of steps per magnitude (argument #4), and the "
		    "number of steps per magnitude must evenly divide a power "
		    "of the factor");
	/*
	 * illumos's rule, in its arithmetic: factor^high, computed in 64
	 * bits, must grow at every step.  The magnitudes past INT64_MAX are
	 * cut there (dt_proto_llq_mul).
	 */
	for (i = 0, order = 1; (uint64_t)i < params[2]; i++) {
		if (order * params[0] > order) {
			order *= params[0];
			continue;
		}
		dt_parser_error(pcb, dnp->dn_line, D_LLQUANT_MAGTOOBIG,
		    "llquantize( ) factor (%d) raised to power of high "
		    "magnitude (%d) overflows 64-bits", (int)params[0],
		    (int)params[2]);
	}
	if (prev == NULL)
		return;
	for (i = 0; i < 4; i++) {
		if (prev->dg_params[i] != params[i])
			dt_parser_error(pcb, dnp->dn_line, args[i].mismatch,
			    "llquantize( ) %s (argument #%d) doesn't match "
			    "previous declaration: expected %d, found %d",
			    args[i].str, i + 1, (int)prev->dg_params[i],
			    (int)params[i]);
	}
}

/* The type of a key as an aggregation key element. */
static void
dt_cc_aggkey(dtrace_hdl_t *dtp, const dt_type_t *t, dtp_aggkey_t *k)
{
	if (t->dt_kind == DT_TK_STRING) {
		k->dk_kind = DTP_KEY_STRING;
		/* strsize characters and the NUL */
		k->dk_size = dt_decl_strsize(dtp) + 1;
	} else {
		k->dk_kind = t->dt_signed ? DTP_KEY_INT : DTP_KEY_UINT;
		/* illumos records a key at its type's size: " %8d" for int */
		k->dk_size = t->dt_size == 1 || t->dt_size == 2 ||
		    t->dt_size == 4 ? t->dt_size : 8;
	}
}

/* @name[keys] = func(args) */
static void
dt_cc_act_agg(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtp_prog_t *pp = &pcb->pcb_prog->dp_prog;
	dt_node_t *ap_node = dnp->dn_left, *fn = dnp->dn_right, *k;
	dt_node_t *val, *incr = NULL;
	const char *name = ap_node->dn_string;
	int nkeys = dt_cc_nargs(ap_node->dn_args), nargs, i, argmax = 1;
	const dt_type_t **keys;
	dtp_aggkey_t *kacts;
	const char **knames;
	dt_node_t **kargs;
	dt_ident_t *fidp, *aidp;
	const dtp_agg_t *prev = NULL;
	uint64_t params[4] = { 0, 0, 0, 0 };
	dtp_action_t *ap;
	dtp_agg_t *gp;
	dif_type_t rt;
	uint32_t cap;

	fidp = fn->dn_kind == DT_NODE_FUNC ?
	    dt_idhash_lookup(dtp->dt_globals, fn->dn_string) : NULL;
	/* as illumos, which looks a called name up as it parses the call */
	if (fn->dn_kind == DT_NODE_FUNC && fidp == NULL)
		dt_parser_error(pcb, fn->dn_line, D_FUNC_UNDEF,
		    "undefined function name: %s", fn->dn_string);
	if (fidp == NULL || fidp->di_kind != DT_IDENT_AGGFUNC)
		dt_parser_error(pcb, dnp->dn_line, D_AGG_FUNC,
		    "@%s must be assigned the result of an aggregating "
		    "function", name);
	if (fidp->di_flags & DT_IDFLG_UNSUP)
		dt_parser_error(pcb, dnp->dn_line, D_AGG_FUNC,
		    "%s( ) is not supported yet", fidp->di_name);
	nargs = dt_cc_nargs(fn->dn_args);
	switch (fidp->di_id) {
	case DTRACEAGG_QUANTIZE:
		argmax = 2;
		break;
	case DTRACEAGG_LQUANTIZE:
		argmax = 5;
		break;
	case DTRACEAGG_LLQUANTIZE:
		argmax = 6;
		break;
	default:
		argmax = fidp->di_nargs;
		break;
	}
	if (nargs < fidp->di_nargs ||
	    (argmax == fidp->di_nargs && nargs > argmax))
		dt_parser_error(pcb, fn->dn_line, D_PROTO_LEN,
		    "%s( ) prototype mismatch: %d arg%s passed, %s%d expected",
		    fidp->di_name, nargs, nargs == 1 ? "" : "s",
		    argmax > fidp->di_nargs ? "at least " : "",
		    fidp->di_nargs);

	/* keys, then the function's arguments, in source order */
	keys = dt_parser_alloc(pcb, (nkeys + 1) * sizeof(*keys));
	kacts = dt_parser_alloc(pcb, (nkeys + 1) * sizeof(*kacts));
	kargs = dt_parser_alloc(pcb, (nkeys + 1) * sizeof(*kargs));
	memset(kacts, 0, (nkeys + 1) * sizeof(*kacts));
	knames = dt_parser_alloc(pcb, (nkeys + 1) * sizeof(*knames));
	for (k = ap_node->dn_args, i = 0; k != NULL; k = k->dn_list, i++)
		knames[i] = dt_cc_keyname(k);
	for (k = ap_node->dn_args, i = 0; k != NULL; k = k->dn_list, i++) {
		if (dt_cc_keyact(pcb, k, &kacts[i], &keys[i], &kargs[i]))
			continue;
		k = dt_node_cook(pcb, k);
		if (k->dn_type->dt_kind == DT_TK_VOID)
			dt_parser_error(pcb, k->dn_line, D_PROTO_ARG,
			    "@%s[ ] key #%d may not be of type void", name,
			    i + 1);
		/*
		 * A char array (curpsinfo->pr_fname): the string it holds,
		 * as D takes one for a string elsewhere (both are by
		 * reference: only the type changes, as stringof does)
		 */
		if (k->dn_type->dt_kind == DT_TK_ARRAY &&
		    k->dn_type->dt_base != NULL &&
		    k->dn_type->dt_base->dt_kind == DT_TK_INT &&
		    k->dn_type->dt_base->dt_size == 1)
			k->dn_type = &dt_type_string;
		if (!dt_node_is_scalar(k) && !dt_node_is_string(k))
			dt_parser_error(pcb, k->dn_line, D_KEY_TYPE,
			    "@%s[ ] key #%d may not be of type %s: keys are "
			    "integers, pointers or strings", name, i + 1,
			    k->dn_type->dt_name);
		keys[i] = k->dn_type;
	}
	for (k = fn->dn_args, i = 1; k != NULL; k = k->dn_list, i++) {
		k = dt_node_cook(pcb, k);
		/* the value: illumos's own check, not the prototype's */
		if (i == 1 && !dt_node_is_int(k))
			dt_parser_error(pcb, k->dn_line, D_AGG_SCALAR,
			    "%s( ) argument #1 must be of scalar type: "
			    "argument is %s", fidp->di_name,
			    k->dn_type->dt_name);
	}
	val = fn->dn_args;

	if ((aidp = dt_idhash_lookup(dtp->dt_aggs, name)) != NULL &&
	    aidp->di_aggfunc != 0) {
		if (aidp->di_aggfunc != fidp->di_id)
			dt_parser_error(pcb, dnp->dn_line, D_AGG_REDEF,
			    "aggregation redefined: @%s\n\t current: %s( )\n"
			    "\tprevious: %s( )", name, fidp->di_name,
			    dt_ident_aggfunc_name(aidp->di_aggfunc));
		if (aidp->di_nargs != nkeys)
			dt_parser_error(pcb, dnp->dn_line, D_AGG_MDIM,
			    "@%s used with %d key%s here, %d before", name,
			    nkeys, nkeys == 1 ? "" : "s", aidp->di_nargs);
		prev = dt_cc_aggdesc(pcb, aidp->di_id);
		for (i = 0; i < nkeys; i++) {
			if (dt_cc_keytype_differ(aidp->di_keys[i], keys[i]) ||
			    ((kacts[i].dk_kind == DTP_KEY_USTACK ||
			    kacts[i].dk_kind == DTP_KEY_STACK) &&
			    prev != NULL && (uint32_t)i < prev->dg_nkeys &&
			    prev->dg_keys[i].dk_size != kacts[i].dk_size))
				dt_parser_error(pcb, dnp->dn_line, D_AGG_MDIM,
				    "@%s[ ] key #%d is incompatible with its "
				    "previous use:\n\tprevious: %s\n\t current: "
				    "%s", name, i + 1,
				    aidp->di_keys[i]->dt_name, keys[i]->dt_name);
		}
	}

	/* the histograms' parameters, and their optional increment */
	switch (fidp->di_id) {
	case DTRACEAGG_QUANTIZE:
		incr = val->dn_list;
		break;
	case DTRACEAGG_LQUANTIZE:
		dt_cc_lquantize(pcb, dnp, val->dn_list, prev, params);
		incr = val->dn_list->dn_list->dn_list;
		if (incr != NULL)
			incr = incr->dn_list;
		break;
	case DTRACEAGG_LLQUANTIZE:
		dt_cc_llquantize(pcb, dnp, val->dn_list, prev, params);
		incr = val->dn_list->dn_list->dn_list->dn_list->dn_list;
		break;
	}
	if (incr != NULL) {
		if (!dt_node_is_int(incr))
			dt_parser_error(pcb, incr->dn_line, D_PROTO_ARG,
			    "%s( ) increment value (argument #%d) must be of "
			    "scalar type", fidp->di_name, argmax);
		if (incr->dn_list != NULL)
			dt_parser_error(pcb, incr->dn_line, D_PROTO_LEN,
			    "%s( ) prototype mismatch: %d args passed, at most "
			    "%d expected", fidp->di_name, nargs, argmax);
	}

	if (aidp == NULL || aidp->di_aggfunc == 0) {
		/* a first definition; printa() may have named it already */
		if (aidp == NULL) {
			aidp = dt_idhash_insert(dtp->dt_aggs, name,
			    DT_IDENT_AGG, 0, dtp->dt_nextagg, NULL);
			if (aidp == NULL) {
				dt_set_errno(dtp, EDT_NOMEM);
				longjmp(pcb->pcb_jmpbuf, 1);
			}
			aidp->di_gen = pcb->pcb_gen;
			dtp->dt_nextagg++;
		}
		if (nkeys > 0 && (aidp->di_keys = calloc(nkeys,
		    sizeof(*keys))) == NULL) {
			dt_set_errno(dtp, EDT_NOMEM);
			longjmp(pcb->pcb_jmpbuf, 1);
		}
		aidp->di_aggfunc = fidp->di_id;
		aidp->di_nargs = nkeys;
		for (i = 0; i < nkeys; i++)
			aidp->di_keys[i] = keys[i];

		cap = dt_cc_cap(pp->dp_nagg);
		pp->dp_agg = dt_cc_grow(pcb, pp->dp_agg, pp->dp_nagg, &cap,
		    sizeof(dtp_agg_t));
		gp = &pp->dp_agg[pp->dp_nagg++];
		gp->dg_id = aidp->di_id;
		gp->dg_kind = fidp->di_id;
		gp->dg_name = dt_cc_strdup(pcb, name);
		gp->dg_nkeys = nkeys;
		memcpy(gp->dg_params, params, sizeof(params));
		if (nkeys > 0 && (gp->dg_keys = calloc(nkeys,
		    sizeof(dtp_aggkey_t))) == NULL) {
			dt_set_errno(dtp, EDT_NOMEM);
			longjmp(pcb->pcb_jmpbuf, 1);
		}
		for (i = 0; i < nkeys; i++) {
			if (dt_cc_type_isact(keys[i]))
				gp->dg_keys[i] = kacts[i];
			else
				dt_cc_aggkey(dtp, keys[i], &gp->dg_keys[i]);
			gp->dg_keys[i].dk_name = dt_cc_strdup(pcb, knames[i]);
		}
	}

	/* DIFOs: the keys, the value (not for count()), the increment */
	ap = dt_cc_newact(pcb, cc, fidp->di_id);
	ap->da_arg = aidp->di_id;
	dt_cc_actdifos(pcb, ap, nkeys + (val != NULL) + (incr != NULL));
	i = 0;
	for (k = ap_node->dn_args; k != NULL; k = k->dn_list) {
		if (dt_cc_type_isact(keys[i])) {
			/* the address, or for the stacks nothing (0) */
			if (kargs[i] == NULL) {
				ap->da_difo[i] = dt_cc_difo_zero(pcb);
			} else {
				dt_decl_rtype(dtp, &dt_type_ullong, &rt);
				ap->da_difo[i] = dt_cc_difo(pcb, kargs[i], &rt);
			}
			i++;
			continue;
		}
		dt_decl_rtype(dtp, k->dn_type, &rt);
		ap->da_difo[i++] = dt_cc_difo(pcb, k, &rt);
	}
	if (val != NULL) {
		dt_decl_rtype(dtp, val->dn_type, &rt);
		rt.dt_size = 8;
		ap->da_difo[i++] = dt_cc_difo(pcb, val, &rt);
	}
	if (incr != NULL) {
		dt_decl_rtype(dtp, incr->dn_type, &rt);
		rt.dt_size = 8;
		ap->da_difo[i++] = dt_cc_difo(pcb, incr, &rt);
	}
}

/* Does any clause of the program assign @name? */
static int
dt_cc_agg_assigned(dt_pcb_t *pcb, const char *name)
{
	dt_node_t *cnp, *dnp;

	for (cnp = pcb->pcb_root; cnp != NULL; cnp = cnp->dn_list) {
		for (dnp = cnp->dn_acts; dnp != NULL; dnp = dnp->dn_list) {
			if (dnp->dn_kind == DT_NODE_OP2 &&
			    dnp->dn_op == DT_TOK_ASGN &&
			    dnp->dn_left->dn_kind == DT_NODE_AGG &&
			    strcmp(dnp->dn_left->dn_string, name) == 0)
				return 1;
		}
	}
	return 0;
}

/*
 * The aggregation an aggregation action names (argument #argn of func):
 * it must be a bare @name that the program assigns somewhere.  One
 * assigned only by a later clause gets its id now; its definition fills
 * it in.
 */
static dt_ident_t *
dt_cc_aggref(dt_pcb_t *pcb, dt_node_t *dnp, dt_node_t *anp, int argn,
    dt_errtag_t argtag, dt_errtag_t badtag)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	const char *func = dnp->dn_string;
	dt_ident_t *aidp;

	if (anp->dn_kind != DT_NODE_AGG || anp->dn_args != NULL) {
		dt_ident_t *fidp = anp->dn_kind == DT_NODE_FUNC ?
		    dt_idhash_lookup(dtp->dt_globals, anp->dn_string) : NULL;
		/* an aggregating function is no value to cook */
		const char *tn = anp->dn_kind == DT_NODE_AGG ?
		    "aggregation" : fidp != NULL &&
		    fidp->di_kind == DT_IDENT_AGGFUNC ? "aggregating function" :
		    dt_node_cook(pcb, anp)->dn_type->dt_name;

		dt_parser_error(pcb, dnp->dn_line, argtag,
		    "%s( ) argument #%d is incompatible with prototype:\n"
		    "\tprototype: aggregation\n\t argument: %s", func, argn,
		    anp->dn_args != NULL ? "aggregation element" : tn);
	}
	if ((aidp = dt_idhash_lookup(dtp->dt_aggs, anp->dn_string)) != NULL)
		return aidp;
	if (!dt_cc_agg_assigned(pcb, anp->dn_string))
		dt_parser_error(pcb, dnp->dn_line, badtag,
		    "undefined aggregation: @%s", anp->dn_string);
	aidp = dt_idhash_insert(dtp->dt_aggs, anp->dn_string, DT_IDENT_AGG,
	    0, dtp->dt_nextagg, NULL);
	if (aidp == NULL) {
		dt_set_errno(dtp, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	aidp->di_gen = pcb->pcb_gen;
	dtp->dt_nextagg++;
	return aidp;
}

/* Key signatures of two aggregations printed together must match. */
static void
dt_cc_printa_keys(dt_pcb_t *pcb, int line, const dt_ident_t *l,
    const dt_ident_t *r)
{
	int i;

	if (l->di_aggfunc == 0 || r->di_aggfunc == 0)
		return;	/* defined by a later clause: checked no further */
	if (l->di_nargs != r->di_nargs)
		dt_parser_error(pcb, line, D_PRINTA_AGGKEY,
		    "printa( ): @%s and @%s do not have matching key "
		    "signatures: @%s has %d key%s, @%s has %d key%s",
		    l->di_name, r->di_name, l->di_name, l->di_nargs,
		    l->di_nargs == 1 ? "" : "s", r->di_name, r->di_nargs,
		    r->di_nargs == 1 ? "" : "s");
	for (i = 0; i < l->di_nargs; i++) {
		if (!dt_cc_keytype_differ(l->di_keys[i], r->di_keys[i]))
			continue;
		dt_parser_error(pcb, line, D_PRINTA_AGGPROTO,
		    "printa( ): @%s[ ] key #%d is incompatible with @%s:\n"
		    "%9s key #%d: %s\n%9s key #%d: %s", r->di_name, i + 1,
		    l->di_name, l->di_name, i + 1, l->di_keys[i]->dt_name,
		    r->di_name, i + 1, r->di_keys[i]->dt_name);
	}
}

/* printa([format, ] @a[, @b ...]): one PRINTA action per aggregation. */
static void
dt_cc_act_printa(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtp_prog_t *pp = &pcb->pcb_prog->dp_prog;
	dt_node_t *anp = dnp->dn_args;
	dt_ident_t *first = NULL, *aidp;
	const char *fmt = NULL, *tag = NULL;
	uint64_t fmtid = 0;
	uint32_t cap, nagg = 0, firstact = cc->cc_nact;
	dtp_action_t *ap;
	char msg[512];
	int argn = 1;

	if (anp == NULL)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "printa( ) prototype mismatch: 0 args passed, at least 1 "
		    "expected");
	if (anp->dn_kind == DT_NODE_STRING) {
		fmt = anp->dn_string;
		anp = anp->dn_list;
		argn++;
		if (anp == NULL)
			dt_parser_error(pcb, dnp->dn_line, D_PRINTA_PROTO,
			    "printa( ) prototype mismatch: 1 args passed, 2 "
			    "expected");
	}
	for (; anp != NULL; anp = anp->dn_list, argn++) {
		aidp = dt_cc_aggref(pcb, dnp, anp, argn, D_PRINTA_AGGARG,
		    D_PRINTA_AGGBAD);
		if (first == NULL)
			first = aidp;
		else
			dt_cc_printa_keys(pcb, dnp->dn_line, first, aidp);
		ap = dt_cc_newact(pcb, cc, DTRACEACT_PRINTA);
		ap->da_arg = aidp->di_id;
		nagg++;
	}
	if (fmt != NULL) {
		dif_type_t *types;
		int i;

		/* the conversions take the keys of the (first) aggregation */
		types = dt_parser_alloc(pcb, (first->di_nargs + 1) *
		    sizeof(dif_type_t));
		for (i = 0; i < first->di_nargs; i++) {
			if (first->di_keys[i] == &dt_cc_type_ustack ||
			    first->di_keys[i] == &dt_cc_type_stack)
				dt_printf_stacktype(&types[i]);
			else
				dt_decl_rtype(dtp, first->di_keys[i],
				    &types[i]);
		}
		if (first->di_aggfunc != 0 && dt_printa_check(dtp, fmt,
		    first->di_nargs, types, first->di_aggfunc, &tag, msg,
		    sizeof(msg)) != 0)
			dt_parser_error_tag(pcb, dnp->dn_line,
			    tag != NULL ? tag : "D_PRINTF_FMT", "%s", msg);
		cap = dt_cc_cap(pp->dp_nfmt);
		pp->dp_fmt = dt_cc_grow(pcb, pp->dp_fmt, pp->dp_nfmt, &cap,
		    sizeof(char *));
		pp->dp_fmt[pp->dp_nfmt] = dt_cc_strdup(pcb, fmt);
		fmtid = (uint64_t)++pp->dp_nfmt << 32;
	}
	for (ap = &cc->cc_act[firstact]; ap < &cc->cc_act[cc->cc_nact]; ap++)
		ap->da_arg |= fmtid;
	cc->cc_act[firstact].da_nargs = nagg;
}

/*
 * clear(@a), denormalize(@a), trunc(@a[, n]), normalize(@a, n): a
 * LIBACT action for the consumer; trunc() and normalize() record n.
 */
static void
dt_cc_act_libact(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp,
    int act)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dt_node_t *anp = dnp->dn_args, *vnp;
	dt_errtag_t argtag, badtag, scalartag = D_TRUNC_SCALAR;
	dt_ident_t *aidp;
	dtp_action_t *ap;
	dif_type_t rt;
	uint64_t code;
	int n = dt_cc_nargs(dnp->dn_args);

	switch (act) {
	case DT_ACT_TRUNC:
		/* as illumos: none is the prototype's, too many trunc()'s */
		if (n < 1)
			dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
			    "%s( ) prototype mismatch: 0 args passed, at least "
			    "1 expected", dnp->dn_string);
		if (n > 2)
			dt_parser_error(pcb, dnp->dn_line, D_TRUNC_PROTO,
			    "%s( ) prototype mismatch: %d args passed, %s "
			    "expected", dnp->dn_string, n,
			    n < 1 ? "at least 1" : "no more than 2");
		argtag = D_TRUNC_AGGARG;
		badtag = D_TRUNC_AGGBAD;
		code = DTP_LIBACT_TRUNC;
		break;
	case DT_ACT_NORMALIZE:
		if (n != 2)
			dt_parser_error(pcb, dnp->dn_line, D_NORMALIZE_PROTO,
			    "%s( ) prototype mismatch: %d args passed, 2 "
			    "expected", dnp->dn_string, n);
		argtag = D_NORMALIZE_AGGARG;
		badtag = D_NORMALIZE_AGGBAD;
		scalartag = D_NORMALIZE_SCALAR;
		code = DTP_LIBACT_NORMALIZE;
		break;
	case DT_ACT_CLEAR:
		argtag = D_CLEAR_AGGARG;
		badtag = D_CLEAR_AGGBAD;
		code = DTP_LIBACT_CLEAR;
		break;
	default:
		/* illumos shares normalize()'s tags */
		argtag = D_NORMALIZE_AGGARG;
		badtag = D_NORMALIZE_AGGBAD;
		code = DTP_LIBACT_DENORMALIZE;
		break;
	}
	aidp = dt_cc_aggref(pcb, dnp, anp, 1, argtag, badtag);
	ap = dt_cc_newact(pcb, cc, DTRACEACT_LIBACT);
	ap->da_arg = aidp->di_id | code << 32;
	if ((vnp = anp->dn_list) == NULL)
		return;
	if (vnp->dn_kind == DT_NODE_AGG)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_ARG,
		    "%s( ) argument #2 is incompatible with prototype:\n"
		    "\tprototype: uint64_t\n\t argument: aggregation",
		    dnp->dn_string);
	vnp = dt_node_cook(pcb, vnp);
	if (!dt_node_is_int(vnp))
		dt_parser_error(pcb, dnp->dn_line, scalartag,
		    "%s( ) argument #2 must be of scalar type", dnp->dn_string);
	dt_decl_rtype(dtp, vnp->dn_type, &rt);
	rt.dt_size = 8;
	dt_cc_actdifos(pcb, ap, 1);
	ap->da_difo[0] = dt_cc_difo(pcb, vnp, &rt);
	ap->da_size = ap->da_align = 8;
}

/* exit(int), raise(int): an action computing its one int argument. */
static dtp_action_t *
dt_cc_act_int(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp,
    const char *name, uint32_t kind)
{
	dt_node_t *arg = dt_node_cook(pcb, dnp->dn_args);
	dtp_action_t *ap;
	dif_type_t rt;

	if (!dt_node_is_int(arg))
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_ARG,
		    "%s( ) argument #1 is incompatible with prototype:\n"
		    "\tprototype: int\n\t argument: %s", name,
		    arg->dn_type->dt_name);
	dt_decl_rtype(pcb->pcb_hdl, &dt_type_int, &rt);
	ap = dt_cc_newact(pcb, cc, kind);
	dt_cc_actdifos(pcb, ap, 1);
	ap->da_difo[0] = dt_cc_difo(pcb, arg, &rt);
	return ap;
}

/*
 * setopt(name[, value]): two LIBACT records, the option's name and its
 * value (none without one); the consumer sets the option where the
 * records lie in the buffer, as illumos's does.
 */
static void
dt_cc_act_setopt(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dt_node_t *anp = dnp->dn_args, *vnp, *next;
	dtp_action_t *ap;
	dif_type_t rt;
	int n = dt_cc_nargs(anp), i;

	if (n < 1 || n > 2)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "setopt( ) prototype mismatch: %d args passed, %s "
		    "expected", n, n < 1 ? "at least 1" : "no more than 2");
	for (i = 0, vnp = anp; i < 2; i++) {
		ap = dt_cc_newact(pcb, cc, DTRACEACT_LIBACT);
		ap->da_arg = (uint64_t)(i == 0 ? DTP_LIBACT_SETOPT :
		    DTP_LIBACT_SETOPTVAL) << 32;
		if (vnp == NULL)
			break;	/* no value: an empty SETOPTVAL */
		next = vnp->dn_list;
		vnp = dt_node_cook(pcb, vnp);
		if (!dt_node_is_string(vnp))
			dt_parser_error(pcb, dnp->dn_line, D_PROTO_ARG,
			    "setopt( ) argument #%d is incompatible with "
			    "prototype:\n\tprototype: char *\n\t argument: %s",
			    i + 1, vnp->dn_type->dt_name);
		dt_decl_rtype(dtp, vnp->dn_type, &rt);
		dt_cc_actdifos(pcb, ap, 1);
		ap->da_difo[0] = dt_cc_difo(pcb, vnp, &rt);
		ap->da_size = rt.dt_size + 1;	/* and the NUL */
		ap->da_align = 1;
		vnp = next;
	}
}

/*
 * What a clause has done so far, for the rules of speculative tracing:
 * DT_CC_SPEC speculate(), DT_CC_COMM commit(), DT_CC_DISC discard(),
 * DT_CC_DREC an action that recorded data in the principal buffer.
 */
#define DT_CC_SPEC	0x1
#define DT_CC_COMM	0x2
#define DT_CC_DREC	0x4
#define DT_CC_DISC	0x8

static int
dt_cc_spec_flags(const dt_cc_clause_t *cc)
{
	uint32_t i, k;
	int fl = 0;

	for (i = 0; i < cc->cc_nact; i++) {
		k = cc->cc_act[i].da_kind;
		if (k == DTRACEACT_SPECULATE)
			fl |= DT_CC_SPEC;
		else if (k == DTRACEACT_COMMIT)
			fl |= DT_CC_COMM;
		else if (k == DTRACEACT_DISCARD)
			fl |= DT_CC_DISC;
		else if (!DTRACEACT_ISAGG(k) && (k != DTRACEACT_DIFEXPR ||
		    cc->cc_act[i].da_size > 0))
			fl |= DT_CC_DREC;
	}
	return fl;
}

/*
 * The order speculative tracing needs within one clause, as illumos
 * enforces it: a speculation takes the whole record of a clause, so
 * speculate() comes before any data and at most once, and neither
 * aggregations (not buffered), exit() nor destructive actions (not
 * undoable) may follow it; nothing recorded may follow commit() (its
 * record would land among the committed data), while discard() drops
 * only the speculative buffer: data may follow it.  commit() and
 * discard() may be repeated, on one speculation or on several.
 */
static void
dt_cc_spec_order(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp,
    const dt_ident_t *idp)
{
	int fl = dt_cc_spec_flags(cc);
	const char *name = idp != NULL ? idp->di_name : "";

	if (idp == NULL) {
		/* an aggregation */
		if (fl & DT_CC_SPEC)
			dt_parser_error(pcb, dnp->dn_line, D_AGG_SPEC,
			    "aggregating actions may not follow "
			    "speculate( )");
		if (fl & DT_CC_COMM)
			dt_parser_error(pcb, dnp->dn_line, D_AGG_COMM,
			    "aggregating actions may not follow commit( )");
		return;
	}
	switch (idp->di_id) {
	case DT_ACT_SPECULATE:
		if (fl & DT_CC_SPEC)
			dt_parser_error(pcb, dnp->dn_line, D_SPEC_SPEC,
			    "speculate( ) may not follow speculate( )");
		if (fl & DT_CC_COMM)
			dt_parser_error(pcb, dnp->dn_line, D_SPEC_COMM,
			    "speculate( ) may not follow commit( )");
		if (fl & DT_CC_DREC)
			dt_parser_error(pcb, dnp->dn_line, D_SPEC_DREC,
			    "speculate( ) may not follow data-recording "
			    "actions");
		return;
	case DT_ACT_COMMIT:
	case DT_ACT_DISCARD:
		if (fl & DT_CC_SPEC)
			dt_parser_error(pcb, dnp->dn_line, D_SPEC_COMM,
			    "%s( ) may not follow speculate( )", name);
		if (fl & DT_CC_DREC)
			dt_parser_error(pcb, dnp->dn_line, D_COMM_DREC,
			    "%s( ) may not follow data-recording actions",
			    name);
		return;
	case DT_ACT_EXIT:
		if (fl & DT_CC_SPEC)
			dt_parser_error(pcb, dnp->dn_line, D_EXIT_SPEC,
			    "exit( ) may not follow speculate( )");
		break;
	case DT_ACT_STOP:
	case DT_ACT_RAISE:
	case DT_ACT_SYSTEM:
	case DT_ACT_FREOPEN:
	case DT_ACT_CHILL:
		if (fl & DT_CC_SPEC)
			dt_parser_error(pcb, dnp->dn_line, D_ACT_SPEC,
			    "destructive actions may not follow speculate( )");
		break;
	default:
		break;
	}
	if (fl & DT_CC_COMM)
		dt_parser_error(pcb, dnp->dn_line, D_DREC_COMM,
		    "data-recording actions may not follow commit( )");
}

/* speculate(id), commit(id), discard(id): an integer id, no record. */
static void
dt_cc_act_spec(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp,
    const dt_ident_t *idp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtp_action_t *ap;
	dt_node_t *arg;
	dif_type_t rt;

	arg = dt_node_cook(pcb, dnp->dn_args);
	if (!dt_node_is_int(arg))
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_ARG,
		    "%s( ) argument #1 is incompatible with prototype:\n"
		    "\tprototype: int\n\t argument: %s", idp->di_name,
		    arg->dn_type->dt_name);
	dt_decl_rtype(dtp, &dt_type_int, &rt);
	ap = dt_cc_newact(pcb, cc, idp->di_id == DT_ACT_SPECULATE ?
	    DTRACEACT_SPECULATE : idp->di_id == DT_ACT_COMMIT ?
	    DTRACEACT_COMMIT : DTRACEACT_DISCARD);
	dt_cc_actdifos(pcb, ap, 1);
	ap->da_difo[0] = dt_cc_difo(pcb, arg, &rt);
}

/* One statement of a clause body. */
static void
dt_cc_statement(dt_pcb_t *pcb, dt_cc_clause_t *cc, dt_node_t *dnp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dt_ident_t *idp = NULL;
	dtp_action_t *ap;
	dt_node_t *arg;
	dif_type_t rt;
	int n;

	if (dnp->dn_kind == DT_NODE_OP2 && dnp->dn_op == DT_TOK_ASGN &&
	    dnp->dn_left->dn_kind == DT_NODE_AGG) {
		dt_cc_spec_order(pcb, cc, dnp, NULL);
		dt_cc_act_agg(pcb, cc, dnp);
		return;
	}
	/* "@a;": illumos names the aggregation, known or not */
	if (dnp->dn_kind == DT_NODE_AGG && dnp->dn_args == NULL) {
		if (dt_idhash_lookup(dtp->dt_aggs, dnp->dn_string) == NULL &&
		    !dt_cc_agg_assigned(pcb, dnp->dn_string))
			dt_parser_error(pcb, dnp->dn_line, D_IDENT_UNDEF,
			    "failed to resolve @%s: Unknown variable name",
			    dnp->dn_string);
		dt_parser_error(pcb, dnp->dn_line, D_AGG_NULL,
		    "expression has null effect: @%s", dnp->dn_string);
	}
	if (dnp->dn_kind == DT_NODE_FUNC)
		idp = dt_idhash_lookup(dtp->dt_globals, dnp->dn_string);
	/* the destructive subroutines and chill() cannot be undone either */
	if (idp != NULL && ((idp->di_kind == DT_IDENT_FUNC &&
	    (idp->di_id == DIF_SUBR_COPYOUT ||
	    idp->di_id == DIF_SUBR_COPYOUTSTR)) ||
	    (idp->di_kind == DT_IDENT_ACTFUNC &&
	    strcmp(idp->di_name, "chill") == 0)) &&
	    (dt_cc_spec_flags(cc) & DT_CC_SPEC))
		dt_parser_error(pcb, dnp->dn_line, D_ACT_SPEC,
		    "destructive actions may not follow speculate( )");
	if (idp == NULL || idp->di_kind != DT_IDENT_ACTFUNC ||
	    (idp->di_flags & DT_IDFLG_UNSUP)) {
		/* an expression evaluated for its effect: no record */
		dnp = dt_node_cook(pcb, dnp);
		memset(&rt, 0, sizeof(rt));
		rt.dt_ckind = DIF_CKIND_INTEGER;
		ap = dt_cc_newact(pcb, cc, DTRACEACT_DIFEXPR);
		dt_cc_actdifos(pcb, ap, 1);
		ap->da_difo[0] = dt_cc_difo(pcb, dnp, &rt);
		return;
	}

	n = dt_cc_nargs(dnp->dn_args);
	if (idp->di_nargs >= 0 && n != idp->di_nargs)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "%s( ) prototype mismatch: %d arg%s passed, %d expected",
		    idp->di_name, n, n == 1 ? "" : "s", idp->di_nargs);
	dt_cc_spec_order(pcb, cc, dnp, idp);
	switch (idp->di_id) {
	case DT_ACT_SPECULATE:
	case DT_ACT_COMMIT:
	case DT_ACT_DISCARD:
		dt_cc_act_spec(pcb, cc, dnp, idp);
		break;
	case DT_ACT_TRACE:
		/* an aggregation's value has no type until printed */
		if (dnp->dn_args->dn_kind == DT_NODE_AGG)
			dt_parser_error(pcb, dnp->dn_line, D_TRACE_DYN,
			    "trace( ) may not be applied to a dynamic "
			    "expression");
		arg = dt_node_cook(pcb, dnp->dn_args);
		dt_cc_difexpr(pcb, cc, arg, "trace", 1);
		break;
	case DT_ACT_PRINTF:
		dt_cc_act_printf(pcb, cc, dnp, DTRACEACT_PRINTF);
		break;
	case DT_ACT_PRINT:
		dt_cc_act_print(pcb, cc, dnp);
		break;
	case DT_ACT_SYSTEM:
		dt_cc_act_printf(pcb, cc, dnp, DTRACEACT_SYSTEM);
		break;
	case DT_ACT_FREOPEN:
		dt_cc_act_printf(pcb, cc, dnp, DTRACEACT_FREOPEN);
		break;
	case DT_ACT_SETOPT:
		dt_cc_act_setopt(pcb, cc, dnp);
		break;
	case DT_ACT_STOP:
		(void)dt_cc_newact(pcb, cc, DTRACEACT_STOP);
		break;
	case DT_ACT_FTRUNCATE:
		/* as illumos's: the consumer truncates its output */
		ap = dt_cc_newact(pcb, cc, DTRACEACT_LIBACT);
		ap->da_arg = (uint64_t)DTP_LIBACT_FTRUNCATE << 32;
		break;
	case DT_ACT_RAISE:
		(void)dt_cc_act_int(pcb, cc, dnp, "raise", DTRACEACT_RAISE);
		break;
	case DT_ACT_CHILL:
		(void)dt_cc_act_int(pcb, cc, dnp, "chill", DTRACEACT_CHILL);
		break;
	case DT_ACT_TRACEMEM:
		dt_cc_act_tracemem(pcb, cc, dnp);
		break;
	case DT_ACT_USTACK:
	case DT_ACT_JSTACK:
		dt_cc_act_ustack(pcb, cc, dnp);
		break;
	case DT_ACT_STACK:
		dt_cc_act_stack(pcb, cc, dnp);
		break;
	case DT_ACT_USYM:
	case DT_ACT_UFUNC:
	case DT_ACT_UMOD:
	case DT_ACT_UADDR:
	case DT_ACT_SYM:
	case DT_ACT_FUNC:
	case DT_ACT_MOD:
		dt_cc_act_symmod(pcb, cc, dnp, idp);
		break;
	case DT_ACT_PRINTA:
		dt_cc_act_printa(pcb, cc, dnp);
		break;
	case DT_ACT_CLEAR:
	case DT_ACT_TRUNC:
	case DT_ACT_NORMALIZE:
	case DT_ACT_DENORMALIZE:
		dt_cc_act_libact(pcb, cc, dnp, idp->di_id);
		break;
	case DT_ACT_EXIT:
		ap = dt_cc_act_int(pcb, cc, dnp, "exit", DTRACEACT_EXIT);
		ap->da_size = ap->da_align = sizeof(int32_t);
		break;
	}
}

static void
dt_cc_clause_free(dt_cc_clause_t *cc)
{
	uint32_t i, j;

	dif_difo_free(cc->cc_pred);
	for (i = 0; i < cc->cc_nact; i++) {
		for (j = 0; j < cc->cc_act[i].da_ndifo; j++)
			dif_difo_free(cc->cc_act[i].da_difo[j]);
		free(cc->cc_act[i].da_difo);
	}
	free(cc->cc_act);
	memset(cc, 0, sizeof(*cc));
}

/* A copy of the clause's predicate and actions for one statement. */
static int
dt_cc_stmt_fill(dtp_stmt_t *sp, const dt_cc_clause_t *cc)
{
	uint32_t i, j;

	if (cc->cc_pred != NULL &&
	    (sp->ds_pred = dt_as_difo_dup(cc->cc_pred)) == NULL)
		return -1;
	if (cc->cc_nact == 0)
		return 0;
	if ((sp->ds_act = calloc(cc->cc_nact, sizeof(dtp_action_t))) == NULL)
		return -1;
	sp->ds_nact = cc->cc_nact;
	for (i = 0; i < cc->cc_nact; i++) {
		dtp_action_t *ap = &sp->ds_act[i];

		*ap = cc->cc_act[i];
		ap->da_difo = NULL;
		ap->da_ndifo = 0;
		if (cc->cc_act[i].da_ndifo == 0)
			continue;
		if ((ap->da_difo = calloc(cc->cc_act[i].da_ndifo,
		    sizeof(dif_difo_t *))) == NULL)
			return -1;
		ap->da_ndifo = cc->cc_act[i].da_ndifo;
		for (j = 0; j < ap->da_ndifo; j++) {
			if ((ap->da_difo[j] = dt_as_difo_dup(
			    cc->cc_act[i].da_difo[j])) == NULL)
				return -1;
		}
	}
	return 0;
}

/*
 * Does an uncooked tree read a variable nothing has declared yet?  Not
 * counting thread-locals, which a predicate declares itself, nor what
 * "=", "+=" or "++" declare before the read, in evaluation order
 * (/++n == 100/, /c ? v = 1 : v/): dc_name[] holds those names.
 */
#define DT_CC_NDECL	16

typedef struct dt_cc_decls {
	const char	*dc_name[DT_CC_NDECL];
	int		dc_n;		/* past DT_CC_NDECL: assume declared */
} dt_cc_decls_t;

static int
dt_cc_has_undef(dtrace_hdl_t *dtp, const dt_node_t *dnp, dt_cc_decls_t *dc)
{
	const dt_node_t *ap, *lp;
	int i;

	if (dnp == NULL)
		return 0;
	if (dnp->dn_kind == DT_NODE_IDENT && dnp->dn_string != NULL &&
	    !(dnp->dn_op == DT_TOK_PTR &&
	    dnp->dn_value == DIFV_SCOPE_THREAD) &&
	    dt_idhash_lookup(dtp->dt_globals, dnp->dn_string) == NULL) {
		for (i = 0; i < dc->dc_n && i < DT_CC_NDECL; i++) {
			if (strcmp(dc->dc_name[i], dnp->dn_string) == 0)
				return 0;
		}
		return dc->dc_n <= DT_CC_NDECL;
	}
	for (ap = dnp->dn_args; ap != NULL; ap = ap->dn_list) {
		if (dt_cc_has_undef(dtp, ap, dc))
			return 1;
	}
	lp = dnp->dn_left;
	if (lp != NULL && lp->dn_kind == DT_NODE_IDENT &&
	    ((dnp->dn_kind == DT_NODE_OP1 && (dnp->dn_op == DT_TOK_PREINC ||
	    dnp->dn_op == DT_TOK_POSTINC || dnp->dn_op == DT_TOK_PREDEC ||
	    dnp->dn_op == DT_TOK_POSTDEC)) || (dnp->dn_kind == DT_NODE_OP2 &&
	    dnp->dn_op >= DT_TOK_ASGN && dnp->dn_op <= DT_TOK_RSH_EQ))) {
		if (dt_cc_has_undef(dtp, dnp->dn_right, dc))
			return 1;
		if (dc->dc_n < DT_CC_NDECL)
			dc->dc_name[dc->dc_n] = lp->dn_string;
		dc->dc_n++;
		return 0;
	}
	return dt_cc_has_undef(dtp, dnp->dn_expr, dc) ||
	    dt_cc_has_undef(dtp, lp, dc) ||
	    dt_cc_has_undef(dtp, dnp->dn_right, dc);
}

static void
dt_cc_clause_pred(dt_pcb_t *pcb, dt_node_t *cnp, dt_cc_clause_t *cc)
{
	dt_node_t *pred;
	dif_type_t rt;

	pcb->pcb_inpred = 1;
	pred = cnp->dn_expr = dt_node_cook(pcb, cnp->dn_expr);
	pcb->pcb_inpred = 0;
	/* as illumos: at the line where the clause ends */
	if (!dt_node_is_scalar(pred))
		dt_parser_error(pcb, cnp->dn_value != 0 ?
		    (int)cnp->dn_value : pred->dn_line, D_PRED_SCALAR,
		    "predicate result must be of scalar type");
	dt_decl_rtype(pcb->pcb_hdl, pred->dn_type, &rt);
	cc->cc_pred = dt_cc_difo(pcb, pred, &rt);
}

/*
 * dtrace -v: fold into sa the identifiers the parsed expression dnp
 * names, as illumos's cooking gives each node the least attributes of
 * its identifiers and operands (a constant has the greatest).  Members
 * and self->, this-> variables are the program's own, Stable.
 */
static void
dt_cc_attr(dtrace_hdl_t *dtp, const dt_node_t *dnp, dt_stmtattr_t *sa)
{
	const dt_node_t *ap;

	if (dnp == NULL)
		return;
	if ((dnp->dn_kind == DT_NODE_IDENT && dnp->dn_op != DT_TOK_PTR) ||
	    dnp->dn_kind == DT_NODE_FUNC)
		dt_ident_attr(dtp, dnp->dn_string, &sa->sa_attr, &sa->sa_mask);
	dt_cc_attr(dtp, dnp->dn_left, sa);
	dt_cc_attr(dtp, dnp->dn_right, sa);
	dt_cc_attr(dtp, dnp->dn_expr, sa);
	for (ap = dnp->dn_args; ap != NULL; ap = ap->dn_list)
		dt_cc_attr(dtp, ap, sa);
}

/*
 * The attributes of a clause's statements: those of its predicate and
 * actions, before cooking rewrites them; a clause without actions has
 * D's default, Stable (illumos's dt_compile_one_clause).
 */
static void
dt_cc_clause_attr(dtrace_hdl_t *dtp, const dt_node_t *cnp, dt_stmtattr_t *sa)
{
	static const dtrace_attribute_t max = { DTRACE_STABILITY_MAX,
	    DTRACE_STABILITY_MAX, DTRACE_CLASS_MAX };
	static const dtrace_attribute_t def = { DTRACE_STABILITY_STABLE,
	    DTRACE_STABILITY_STABLE, DTRACE_CLASS_COMMON };
	const dt_node_t *dnp;

	sa->sa_mask = 0;
	if (cnp->dn_acts == NULL) {
		sa->sa_attr = def;
		return;
	}
	sa->sa_attr = max;
	dt_cc_attr(dtp, cnp->dn_expr, sa);
	for (dnp = cnp->dn_acts; dnp != NULL; dnp = dnp->dn_list)
		dt_cc_attr(dtp, dnp, sa);
}

static void
dt_cc_clause(dt_pcb_t *pcb, dt_node_t *cnp, dt_cc_clause_t *cc)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtp_prog_t *pp = &pcb->pcb_prog->dp_prog;
	dt_node_t *dnp;
	uint32_t off = 0, i, cap;
	dtp_stmt_t *sp;
	dt_cc_decls_t dc;
	dt_stmtattr_t sa, *sap;
	int pred_last;

	dt_cc_clause_attr(dtp, cnp, &sa);

	/* descriptions first: their errors come before the body's */
	pcb->pcb_cstmt = pp->dp_nstmt;
	pcb->pcb_ncstmt = 0;
	for (dnp = cnp->dn_args; dnp != NULL; dnp = dnp->dn_list) {
		dtp_probedesc_t pd;

		dt_cc_pdesc(pcb, dnp, &pd);
		dt_cc_pdesc_match(pcb, dnp, &pd);
		cap = dt_cc_cap(pp->dp_nstmt);
		pp->dp_stmt = dt_cc_grow(pcb, pp->dp_stmt, pp->dp_nstmt, &cap,
		    sizeof(dtp_stmt_t));
		sp = &pp->dp_stmt[pp->dp_nstmt++];
		memset(sp, 0, sizeof(*sp));
		sp->ds_desc = pd;
		pcb->pcb_ncstmt++;	/* args[] types: dt_dwarf_argtype */
	}

	/*
	 * The predicate first, unless it names a variable not declared yet:
	 * then the actions, which may declare it (/x == 0/ { x++; }), as
	 * illumos retries a predicate after its clause's actions.
	 */
	dc.dc_n = 0;
	pred_last = cnp->dn_expr != NULL &&
	    dt_cc_has_undef(dtp, cnp->dn_expr, &dc);
	if (cnp->dn_expr != NULL && !pred_last)
		dt_cc_clause_pred(pcb, cnp, cc);
	for (dnp = cnp->dn_acts; dnp != NULL; dnp = dnp->dn_list)
		dt_cc_statement(pcb, cc, dnp);
	if (pred_last)
		dt_cc_clause_pred(pcb, cnp, cc);
	pcb->pcb_ncstmt = 0;	/* args[] outside a clause: untyped */

	/* record layout: each recording action at its aligned offset */
	for (i = 0; i < cc->cc_nact; i++) {
		dtp_action_t *ap = &cc->cc_act[i];

		if (ap->da_size == 0)
			continue;
		if (ap->da_align > 1)
			off = (off + ap->da_align - 1) & ~(ap->da_align - 1);
		ap->da_offset = off;
		off += ap->da_size;
	}
	off = (uint32_t)DTRACE_RECROUND(off);	/* see dt_proto.h */

	for (i = pp->dp_nstmt - dt_cc_nargs(cnp->dn_args); i < pp->dp_nstmt;
	    i++) {
		sp = &pp->dp_stmt[i];
		sp->ds_size = off;
		if (dt_cc_stmt_fill(sp, cc) != 0) {
			dt_set_errno(dtp, EDT_NOMEM);
			longjmp(pcb->pcb_jmpbuf, 1);
		}
	}
	if ((sap = realloc(pcb->pcb_prog->dp_sattr, pp->dp_nstmt *
	    sizeof(*sap))) == NULL) {
		dt_set_errno(dtp, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	pcb->pcb_prog->dp_sattr = sap;
	for (i = pcb->pcb_prog->dp_nsattr; i < pp->dp_nstmt; i++)
		sap[i] = sa;
	pcb->pcb_prog->dp_nsattr = pp->dp_nstmt;
	dt_cc_clause_free(cc);
}

/* Free a program (not on the handle's list: the caller unlinks it). */
void
dt_cc_prog_free(dtrace_prog_t *pgp)
{
	if (pgp == NULL)
		return;
	dt_proto_prog_fini(&pgp->dp_prog);
	free(pgp->dp_sattr);
	free(pgp);
}

/* Free the compiler's state on the handle (dtrace_close()). */
void
dt_cc_destroy(dtrace_hdl_t *dtp)
{
	dt_idhash_destroy(dtp->dt_globals);
	dt_idhash_destroy(dtp->dt_aggs);
	dtp->dt_globals = NULL;
	dtp->dt_aggs = NULL;
	dt_decl_destroy(dtp);
	dt_cpp_fini(dtp);
	dt_parser_fini(dtp);
	dt_lib_fini(dtp);
}

/* Take a program off the handle's list and free it. */
void
dt_cc_prog_drop(dtrace_hdl_t *dtp, dtrace_prog_t *pgp)
{
	dtrace_prog_t **pp;

	for (pp = &dtp->dt_progs; *pp != NULL; pp = &(*pp)->dp_next) {
		if (*pp == pgp) {
			*pp = pgp->dp_next;
			break;
		}
	}
	dt_cc_prog_free(pgp);
}

static dtrace_prog_t *
dt_cc_compile1(dtrace_hdl_t *dtp, const char *str, FILE *fp,
    dtrace_probespec_t spec, unsigned int cflags, int argc,
    char *const argv[])
{
	dt_pcb_t pcb;
	dt_cc_clause_t cc;
	uint32_t nextvar, nextagg;
	dtrace_prog_t *pgp;
	dt_node_t *cnp;
	int i;

	if (dt_ident_init(dtp) != 0)
		return NULL;
	memset(&pcb, 0, sizeof(pcb));
	memset(&cc, 0, sizeof(cc));
	pcb.pcb_hdl = dtp;
	pcb.pcb_cflags = cflags;
	pcb.pcb_pspec = spec;
	pcb.pcb_argc = argv != NULL ? argc : 0;
	pcb.pcb_argv = argv;
	pcb.pcb_fileptr = fp;
	pcb.pcb_lib = dtp->dt_libcur;
	/* a program's own translators go before the libraries' */
	pcb.pcb_xlators = dtp->dt_libxlators;
	if (++dt_cc_gen == 0)
		dt_cc_gen = 1;
	pcb.pcb_gen = dt_cc_gen;
	dt_as_init(&pcb.pcb_ir);
	nextvar = dtp->dt_nextvar;
	nextagg = dtp->dt_nextagg;
	dtp->dt_errtag = NULL;
	dtp->dt_errmsg[0] = '\0';
	if (dtp->dt_copts & DT_COPT_ERRTAGS)
		pcb.pcb_cflags |= DTRACE_C_ETAGS;
	if (dtp->dt_copts & DT_COPT_DEFARGS)
		pcb.pcb_cflags |= DTRACE_C_DEFARG;
	if (dtp->dt_copts & DT_COPT_ZDEFS)
		pcb.pcb_cflags |= DTRACE_C_ZDEFS;

	if ((pcb.pcb_argref = calloc(pcb.pcb_argc + 1, 1)) == NULL ||
	    (pcb.pcb_prog = calloc(1, sizeof(*pcb.pcb_prog))) == NULL) {
		free(pcb.pcb_argref);
		dt_set_errno(dtp, EDT_NOMEM);
		return NULL;
	}
	if (setjmp(pcb.pcb_jmpbuf) != 0) {
		dt_idhash_rollback(dtp->dt_globals, pcb.pcb_gen);
		dt_idhash_rollback(dtp->dt_aggs, pcb.pcb_gen);
		dt_decl_rollback(dtp, pcb.pcb_gen);
		dtp->dt_nextvar = nextvar;
		dtp->dt_nextagg = nextagg;
		dt_cc_clause_free(&cc);
		dt_cc_prog_free(pcb.pcb_prog);
		dt_lex_fini(&pcb);
		dt_parser_free(&pcb);
		dt_as_fini(&pcb.pcb_ir);
		free(pcb.pcb_argref);
		return NULL;
	}
	if (dt_lex_init(&pcb, str, fp) != 0) {
		dt_set_errno(dtp, EDT_NOMEM);
		longjmp(pcb.pcb_jmpbuf, 1);
	}
	dt_grammar_parse(&pcb);
	if (pcb.pcb_root == NULL && !(cflags & DTRACE_C_EMPTY))
		dt_parser_error(&pcb, dt_lex_lineno(&pcb), D_EMPTY,
		    "empty D program translation unit");
	/*
	 * As illumos, an argument no $N names is refused before any probe
	 * is matched: "dtrace -n read '{...}'" is a missing -n, not a
	 * probe "read" that matches nothing.
	 */
	if (!(cflags & DTRACE_C_ARGREF) &&
	    !(dtp->dt_copts & DT_COPT_ARGREF)) {
		for (cnp = pcb.pcb_root; cnp != NULL; cnp = cnp->dn_list)
			dt_cc_pdesc_argref(&pcb, cnp);
		for (i = 1; i < pcb.pcb_argc; i++) {
			if (!pcb.pcb_argref[i])
				dt_parser_error(&pcb, 0, D_MACRO_UNUSED,
				    "extraneous argument '%s' ($%d is not "
				    "referenced)", argv[i], i);
		}
	}
	for (cnp = pcb.pcb_root; cnp != NULL; cnp = cnp->dn_list)
		dt_cc_clause(&pcb, cnp, &cc);

	/*
	 * inlines are parse trees of this compile: they go with it, but
	 * for a D library's, which the handle keeps for later programs
	 */
	if (pcb.pcb_lib != NULL) {
		dt_idhash_keep_gen(dtp->dt_globals, pcb.pcb_gen);
		dt_parser_keep(&pcb);
		dtp->dt_libxlators = pcb.pcb_xlators;
	}
	dt_idhash_drop_kind(dtp->dt_globals, DT_IDENT_INLINE);
	pgp = pcb.pcb_prog;
	pgp->dp_next = dtp->dt_progs;
	dtp->dt_progs = pgp;
	dt_lex_fini(&pcb);
	dt_parser_free(&pcb);
	dt_as_fini(&pcb.pcb_ir);
	free(pcb.pcb_argref);
	return pgp;
}

/* Compile str or fp; under -C, what cpp makes of it. */
static dtrace_prog_t *
dt_cc_compile(dtrace_hdl_t *dtp, const char *str, FILE *fp,
    dtrace_probespec_t spec, unsigned int cflags, int argc,
    char *const argv[])
{
	dtrace_prog_t *pgp;
	FILE *cppout;

	if (dtp->dt_libcur == NULL && dt_lib_load(dtp) == -1)
		return NULL;
	if (!(dtp->dt_copts & DT_COPT_CPP) && !(cflags & DTRACE_C_CPP))
		return dt_cc_compile1(dtp, str, fp, spec, cflags, argc, argv);
	if ((cppout = dt_cpp_run(dtp, str, fp)) == NULL)
		return NULL;
	pgp = dt_cc_compile1(dtp, NULL, cppout, spec, cflags, argc, argv);
	fclose(cppout);
	return pgp;
}

/*
 * dtrace -A: the program as this compile takes it in, to save as D that
 * compiles alike with no arguments and no -C, as illumos's -A saves the
 * compiled program: through cpp under -C, and each macro variable ($1,
 * $$1, $0, $pid...) replaced by what it stands for, as the lexer would
 * take it: a number (in parentheses when negative), an identifier, or a
 * string literal; in a probe description, the argument's text.  Their
 * context is told apart as the lexer does: outside braces and a
 * predicate and before an '=', a probe description.  Comments, strings
 * and character constants are left as they are, and so are lines that
 * start with '#' (pragmas, cpp's line markers).  A malloc'd string, or
 * NULL with the error set (a macro variable the compile would refuse).
 */
/* s as a D string literal */
static void
dt_cc_text_quote(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void
dt_cc_text_macros(dt_pcb_t *pcb, const char *p, FILE *out)
{
	int depth = 0, pred = 0, assign = 0, line = 1, bol = 1;
	char name[64], *s;
	const char *q;
	int64_t v;
	size_t n;
	int str, want, pdesc;

	while (*p != '\0') {
		if (bol && *p == '#') {
			n = strcspn(p, "\n");
			fwrite(p, 1, n, out);
			p += n;
			continue;
		}
		bol = 0;
		if (*p == '\n') {
			line++;
			bol = 1;
			fputc(*p++, out);
			continue;
		}
		if (p[0] == '/' && (p[1] == '*' || p[1] == '/')) {
			q = p[1] == '*' ? strstr(p + 2, "*/") : strchr(p, '\n');
			n = q == NULL ? strlen(p) : (size_t)(q - p) +
			    (p[1] == '*' ? 2 : 0);
			for (q = p; q < p + n; q++)
				line += *q == '\n';
			fwrite(p, 1, n, out);
			p += n;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			for (q = p + 1; *q != '\0' && *q != *p; q++) {
				if (*q == '\\' && q[1] != '\0')
					q++;
				line += *q == '\n';
			}
			n = (size_t)(q - p) + (*q != '\0');
			fwrite(p, 1, n, out);
			p += n;
			continue;
		}
		if (*p != '$' || !(isalnum((unsigned char)p[1]) || p[1] == '_' ||
		    (p[1] == '$' && isdigit((unsigned char)p[2])))) {
			switch (*p) {
			case '{':
				depth++;
				pred = assign = 0;
				break;
			case '}':
				depth--;
				assign = 0;
				break;
			case ';':
				assign = 0;
				break;
			case '=':
				assign |= depth == 0;
				break;
			case '/':
				if (depth != 0)
					break;
				if (!pred) {
					pred = 1;
					break;
				}
				/* the predicate's end: a { follows */
				for (q = p + 1; isspace((unsigned char)*q); q++)
					;
				if (*q == '{')
					pred = 0;
				break;
			}
			fputc(*p++, out);
			continue;
		}
		str = p[1] == '$';
		p += str ? 2 : 1;
		for (n = 0; (isalnum((unsigned char)*p) || *p == '_') &&
		    n < sizeof(name) - 1; n++)
			name[n] = *p++;
		name[n] = '\0';
		pdesc = depth == 0 && !pred && !assign;
		want = pdesc ? DT_MACRO_PDESC : str ? DT_MACRO_STR :
		    DT_MACRO_INT;
		s = NULL;
		v = 0;
		if (dt_cc_macro(pcb, line, name, want, &s, &v) ==
		    DT_MACRO_INT) {
			fprintf(out, v < 0 ? "(%" PRId64 ")" : "%" PRId64, v);
			continue;
		}
		if (pdesc) {
			fputs(s, out);
			continue;
		}
		for (q = s; *q == '_' || isalnum((unsigned char)*q); q++)
			;
		if (!str && *q == '\0' && (isalpha((unsigned char)s[0]) ||
		    s[0] == '_')) {
			fputs(s, out);
			continue;
		}
		/* a string: as the lexer, without the quotes it may have */
		n = strlen(s);
		if (!str && n >= 2 && s[0] == '"' && s[n - 1] == '"') {
			s = dt_parser_strdup(pcb, s + 1);
			s[n - 2] = '\0';
		}
		dt_cc_text_quote(out, s);
	}
}

char *
dtrace_program_text(dtrace_hdl_t *dtp, const char *str, unsigned int cflags,
    int argc, char *const argv[])
{
	char *text = NULL, *res = NULL;
	const char *volatile src = str;
	FILE *cpp, *volatile out;
	size_t len = 0, n;
	dt_pcb_t pcb;

	if ((dtp->dt_copts & DT_COPT_CPP) || (cflags & DTRACE_C_CPP)) {
		if ((cpp = dt_cpp_run(dtp, str, NULL)) == NULL)
			return NULL;
		if ((out = open_memstream(&text, &len)) == NULL) {
			fclose(cpp);
			dt_set_errno(dtp, EDT_NOMEM);
			return NULL;
		}
		while ((n = fread(dtp->dt_errmsg, 1, sizeof(dtp->dt_errmsg),
		    cpp)) > 0)
			fwrite(dtp->dt_errmsg, 1, n, out);
		dtp->dt_errmsg[0] = '\0';
		fclose(cpp);
		if (fclose(out) != 0) {
			free(text);
			dt_set_errno(dtp, EDT_NOMEM);
			return NULL;
		}
		src = text;
	}
	memset(&pcb, 0, sizeof(pcb));
	pcb.pcb_hdl = dtp;
	pcb.pcb_cflags = cflags;
	pcb.pcb_argc = argv != NULL ? argc : 0;
	pcb.pcb_argv = argv;
	if (dtp->dt_copts & DT_COPT_ERRTAGS)
		pcb.pcb_cflags |= DTRACE_C_ETAGS;
	if (dtp->dt_copts & DT_COPT_DEFARGS)
		pcb.pcb_cflags |= DTRACE_C_DEFARG;
	dtp->dt_errtag = NULL;
	if ((pcb.pcb_argref = calloc(pcb.pcb_argc + 1, 1)) == NULL ||
	    (out = open_memstream(&res, &len)) == NULL) {
		free(pcb.pcb_argref);
		free(text);
		dt_set_errno(dtp, EDT_NOMEM);
		return NULL;
	}
	if (setjmp(pcb.pcb_jmpbuf) != 0) {
		fclose(out);
		free(res);
		res = NULL;
	} else {
		dt_cc_text_macros(&pcb, src, out);
		if (fclose(out) != 0) {
			free(res);
			res = NULL;
			dt_set_errno(dtp, EDT_NOMEM);
		}
	}
	dt_parser_free(&pcb);
	free(pcb.pcb_argref);
	free(text);
	return res;
}

/*
 * A D library (dt_lib.c): declarations, and clauses that are dropped.
 * Never through cpp: -C is the programs' (as illumos passes it with each
 * program's compile), and a library is D as written.
 */
dtrace_prog_t *
dt_cc_compile_lib(dtrace_hdl_t *dtp, FILE *fp)
{
	return dt_cc_compile1(dtp, NULL, fp, DTRACE_PROBESPEC_NAME,
	    DTRACE_C_EMPTY, 0, NULL);
}

dtrace_prog_t *
dtrace_program_strcompile(dtrace_hdl_t *dtp, const char *s,
    dtrace_probespec_t spec, unsigned int cflags, int argc,
    char *const argv[])
{
	return dt_cc_compile(dtp, s, NULL, spec, cflags, argc, argv);
}

dtrace_prog_t *
dtrace_program_fcompile(dtrace_hdl_t *dtp, FILE *fp, unsigned int cflags,
    int argc, char *const argv[])
{
	return dt_cc_compile(dtp, NULL, fp, DTRACE_PROBESPEC_NAME, cflags,
	    argc, argv);
}

/*
 * Call func with the probe description of each of the program's
 * statements, in order (dtrace -l -s lists what they match).
 */
int
dtrace_program_desc_iter(dtrace_hdl_t *dtp, dtrace_prog_t *pgp,
    int (*func)(dtrace_hdl_t *, const dtrace_probedesc_t *, void *),
    void *arg)
{
	const dtp_prog_t *pp = &pgp->dp_prog;
	dtrace_probedesc_t pd;
	uint32_t i;
	int rv;

	for (i = 0; i < pp->dp_nstmt; i++) {
		const dtp_probedesc_t *dp = &pp->dp_stmt[i].ds_desc;

		memset(&pd, 0, sizeof(pd));
		memcpy(pd.dtpd_provider, dp->dpd_provider,
		    sizeof(pd.dtpd_provider));
		memcpy(pd.dtpd_mod, dp->dpd_mod, sizeof(pd.dtpd_mod));
		memcpy(pd.dtpd_func, dp->dpd_func, sizeof(pd.dtpd_func));
		memcpy(pd.dtpd_name, dp->dpd_name, sizeof(pd.dtpd_name));
		if ((rv = func(dtp, &pd, arg)) != 0)
			return rv;
	}
	return 0;
}

/*
 * dtrace -v: the least attributes of the program's probe descriptions,
 * each as illumos's dt_probe_info gives it (dtrace_probe_info): its
 * provider's attributes for the provider and for each other field it
 * names.  A field left empty or a glob matches whatever is there and
 * depends on no name, so it lowers nothing; an open provider is
 * Unstable.  dtrace:::BEGIN is as stable as the dtrace provider and
 * its probe names, not Unstable for its empty module and function.
 */
static int
dt_cc_descattr(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd, void *arg)
{
	dtrace_probeinfo_t pi;

	if (dtrace_probe_info(dtp, pd, &pi) == 0)
		dt_ident_attrmin(arg, &pi.dtp_attr);
	return 0;
}

void
dtrace_program_descattr(dtrace_hdl_t *dtp, dtrace_prog_t *pgp,
    dtrace_attribute_t *ap)
{
	ap->dtat_name = ap->dtat_data = DTRACE_STABILITY_MAX;
	ap->dtat_class = DTRACE_CLASS_MAX;
	(void)dtrace_program_desc_iter(dtp, pgp, dt_cc_descattr, ap);
}

/*
 * dtrace -v: the least attributes of the program's statements, each
 * with the attributes its probe's provider gives the parts of the
 * description it names (dt_ident_attr), as illumos's dt_setcontext
 * resets probeprov ... args[] for each description.
 */
void
dtrace_program_stmtattr(dtrace_hdl_t *dtp, dtrace_prog_t *pgp,
    dtrace_attribute_t *ap)
{
	static const uint32_t part[5] = { DT_ATTR_PPROV, DT_ATTR_PMOD,
	    DT_ATTR_PFUNC, DT_ATTR_PNAME, DT_ATTR_PARGS };
	const dtp_prog_t *pp = &pgp->dp_prog;
	dtrace_attribute_t pa[5];
	dtrace_probedesc_t pd;
	uint32_t i, j;

	ap->dtat_name = ap->dtat_data = DTRACE_STABILITY_MAX;
	ap->dtat_class = DTRACE_CLASS_MAX;
	for (i = 0; i < pp->dp_nstmt && i < pgp->dp_nsattr; i++) {
		const dtp_probedesc_t *dp = &pp->dp_stmt[i].ds_desc;
		const dt_stmtattr_t *sa = &pgp->dp_sattr[i];

		dt_ident_attrmin(ap, &sa->sa_attr);
		if (sa->sa_mask == 0)
			continue;
		memset(&pd, 0, sizeof(pd));
		memcpy(pd.dtpd_provider, dp->dpd_provider,
		    sizeof(pd.dtpd_provider));
		memcpy(pd.dtpd_mod, dp->dpd_mod, sizeof(pd.dtpd_mod));
		memcpy(pd.dtpd_func, dp->dpd_func, sizeof(pd.dtpd_func));
		memcpy(pd.dtpd_name, dp->dpd_name, sizeof(pd.dtpd_name));
		(void)dt_probe_provattr(dtp, &pd, pa);
		for (j = 0; j < 5; j++) {
			if (sa->sa_mask & part[j])
				dt_ident_attrmin(ap, &pa[j]);
		}
	}
}

void
dtrace_program_info(dtrace_hdl_t *dtp, dtrace_prog_t *pgp,
    dtrace_proginfo_t *pip)
{
	const dtp_prog_t *pp = &pgp->dp_prog;
	uint32_t i, j;

	memset(pip, 0, sizeof(*pip));
	pip->dpi_descs = pp->dp_nstmt;
	for (i = 0; i < pp->dp_nstmt; i++) {
		const dtp_stmt_t *sp = &pp->dp_stmt[i];

		for (j = 0; j < sp->ds_nact; j++) {
			const dtp_action_t *ap = &sp->ds_act[j];

			if (DTRACEACT_ISAGG(ap->da_kind))
				pip->dpi_aggregates++;
			else if (ap->da_kind == DTRACEACT_PRINTF ||
			    ap->da_kind == DTRACEACT_SYSTEM ||
			    ap->da_kind == DTRACEACT_FREOPEN) {
				pip->dpi_recgens++;
				j += ap->da_nargs;	/* its arguments */
			} else if (ap->da_size != 0)
				pip->dpi_recgens++;
		}
	}
}
