/*
 * dt_ident.c: identifier hash tables and the built-in identifiers.
 *
 * The handle owns two tables shared by every program compiled on it:
 * dt_globals (built-in variables, functions, user globals) and dt_aggs
 * (aggregations).  User global and aggregation ids are consumer-wide.
 * Each compile stamps what it creates with a generation so that a
 * failed compile can take its identifiers back.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

dt_idhash_t *
dt_idhash_create(uint32_t nbuckets)
{
	dt_idhash_t *dhp;

	if ((dhp = calloc(1, sizeof(*dhp))) == NULL)
		return NULL;
	if ((dhp->dh_hash = calloc(nbuckets, sizeof(dt_ident_t *))) == NULL) {
		free(dhp);
		return NULL;
	}
	dhp->dh_nbuckets = nbuckets;
	return dhp;
}

static void
dt_ident_free(dt_ident_t *idp)
{
	free(idp->di_name);
	free(idp->di_keys);
	free(idp);
}

void
dt_idhash_destroy(dt_idhash_t *dhp)
{
	dt_ident_t *idp, *next;
	uint32_t i;

	if (dhp == NULL)
		return;
	for (i = 0; i < dhp->dh_nbuckets; i++) {
		for (idp = dhp->dh_hash[i]; idp != NULL; idp = next) {
			next = idp->di_next;
			dt_ident_free(idp);
		}
	}
	free(dhp->dh_hash);
	free(dhp);
}

/* FNV-1a: the hash of a name, for this table and dt_dwarf.c's. */
uint32_t
dt_idhash_hashstr(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

dt_ident_t *
dt_idhash_lookup(dt_idhash_t *dhp, const char *name)
{
	dt_ident_t *idp;

	idp = dhp->dh_hash[dt_idhash_hashstr(name) % dhp->dh_nbuckets];
	for (; idp != NULL; idp = idp->di_next) {
		/* newer than the program's D version: not there for it */
		if (dhp->dh_vmax != 0 && idp->di_vers > dhp->dh_vmax)
			continue;
		if (strcmp(idp->di_name, name) == 0)
			return idp;
	}
	return NULL;
}

/*
 * The built-in subroutine name, whatever the program's D version and its
 * own identifiers: the compiler's rewrites call subroutines by name
 * (dt_parser.c), which a program's version or declarations may hide.
 */
dt_ident_t *
dt_idhash_lookup_subr(dt_idhash_t *dhp, const char *name)
{
	dt_ident_t *idp;

	idp = dhp->dh_hash[dt_idhash_hashstr(name) % dhp->dh_nbuckets];
	for (; idp != NULL; idp = idp->di_next) {
		if (idp->di_kind == DT_IDENT_FUNC && idp->di_gen == 0 &&
		    strcmp(idp->di_name, name) == 0)
			return idp;
	}
	return NULL;
}

dt_ident_t *
dt_idhash_insert(dt_idhash_t *dhp, const char *name, int kind,
    uint32_t flags, uint32_t id, const dt_type_t *type)
{
	uint32_t h = dt_idhash_hashstr(name) % dhp->dh_nbuckets;
	dt_ident_t *idp;

	if ((idp = calloc(1, sizeof(*idp))) == NULL)
		return NULL;
	if ((idp->di_name = strdup(name)) == NULL) {
		free(idp);
		return NULL;
	}
	idp->di_kind = kind;
	idp->di_flags = flags;
	idp->di_id = id;
	idp->di_type = type;
	idp->di_next = dhp->dh_hash[h];
	dhp->dh_hash[h] = idp;
	dhp->dh_nelems++;
	return idp;
}

/* Remove every identifier created by compile generation gen. */
void
dt_idhash_rollback(dt_idhash_t *dhp, unsigned int gen)
{
	dt_ident_t **pp, *idp;
	uint32_t i;

	for (i = 0; i < dhp->dh_nbuckets; i++) {
		for (pp = &dhp->dh_hash[i]; (idp = *pp) != NULL;) {
			if (idp->di_gen == gen && gen != 0) {
				*pp = idp->di_next;
				dt_ident_free(idp);
				dhp->dh_nelems--;
			} else
				pp = &idp->di_next;
		}
	}
}

/* Remove every identifier of a kind (inlines, at the end of a compile). */
void
dt_idhash_drop_kind(dt_idhash_t *dhp, int kind)
{
	dt_ident_t **pp, *idp;
	uint32_t i;

	for (i = 0; i < dhp->dh_nbuckets; i++) {
		for (pp = &dhp->dh_hash[i]; (idp = *pp) != NULL;) {
			if (idp->di_kind == kind &&
			    !(idp->di_flags & DT_IDFLG_LIB)) {
				*pp = idp->di_next;
				dt_ident_free(idp);
				dhp->dh_nelems--;
			} else
				pp = &idp->di_next;
		}
	}
}

/* Mark what a D library's compile (generation gen) made as kept. */
void
dt_idhash_keep_gen(dt_idhash_t *dhp, unsigned int gen)
{
	dt_ident_t *idp;
	uint32_t i;

	for (i = 0; i < dhp->dh_nbuckets; i++) {
		for (idp = dhp->dh_hash[i]; idp != NULL; idp = idp->di_next) {
			if (idp->di_gen == gen)
				idp->di_flags |= DT_IDFLG_LIB;
		}
	}
}

typedef struct dt_ident_builtin {
	const char	*bi_name;
	int		bi_kind;
	uint32_t	bi_flags;
	uint32_t	bi_id;
	const char	*bi_type;	/* type name, or NULL */
	int		bi_nargs;	/* functions: -1 = variadic */
} dt_ident_builtin_t;

#define BI_VAR(n, id, t)	{ n, DT_IDENT_SCALAR, DT_IDFLG_BUILTIN, id, t, 0 }
#define BI_KVAR(n, id)		{ n, DT_IDENT_SCALAR, \
	DT_IDFLG_BUILTIN | DT_IDFLG_KERNEL, id, NULL, 0 }
#define BI_ACT(n, id, na)	{ n, DT_IDENT_ACTFUNC, 0, id, NULL, na }
#define BI_UNACT(n)		{ n, DT_IDENT_ACTFUNC, DT_IDFLG_UNSUP, 0, NULL, -1 }
/* refused, after illumos's check of the number of arguments */
#define BI_UNACTN(n, id, na)	{ n, DT_IDENT_ACTFUNC, DT_IDFLG_UNSUP, id, \
	NULL, na }
#define BI_AGG(n, id, na)	{ n, DT_IDENT_AGGFUNC, 0, id, NULL, na }
#define BI_UNAGG(n, id)		{ n, DT_IDENT_AGGFUNC, DT_IDFLG_UNSUP, id, NULL, 0 }

static const dt_ident_builtin_t dt_ident_builtins[] = {
	BI_VAR("arg0", DIF_VAR_ARG0, "int64_t"),
	BI_VAR("arg1", DIF_VAR_ARG1, "int64_t"),
	BI_VAR("arg2", DIF_VAR_ARG2, "int64_t"),
	BI_VAR("arg3", DIF_VAR_ARG3, "int64_t"),
	BI_VAR("arg4", DIF_VAR_ARG4, "int64_t"),
	BI_VAR("arg5", DIF_VAR_ARG5, "int64_t"),
	BI_VAR("arg6", DIF_VAR_ARG6, "int64_t"),
	BI_VAR("arg7", DIF_VAR_ARG7, "int64_t"),
	BI_VAR("arg8", DIF_VAR_ARG8, "int64_t"),
	BI_VAR("arg9", DIF_VAR_ARG9, "int64_t"),
	BI_VAR("timestamp", DIF_VAR_TIMESTAMP, "uint64_t"),
	BI_VAR("vtimestamp", DIF_VAR_VTIMESTAMP, "uint64_t"),
	BI_VAR("walltimestamp", DIF_VAR_WALLTIMESTAMP, "uint64_t"),
	BI_VAR("epid", DIF_VAR_EPID, "uint_t"),
	BI_VAR("id", DIF_VAR_ID, "uint_t"),
	BI_VAR("probeprov", DIF_VAR_PROBEPROV, "string"),
	BI_VAR("probemod", DIF_VAR_PROBEMOD, "string"),
	BI_VAR("probefunc", DIF_VAR_PROBEFUNC, "string"),
	BI_VAR("probename", DIF_VAR_PROBENAME, "string"),
	BI_VAR("execname", DIF_VAR_EXECNAME, "string"),
	BI_VAR("pid", DIF_VAR_PID, "pid_t"),
	BI_VAR("tid", DIF_VAR_TID, "id_t"),
	BI_VAR("ppid", DIF_VAR_PPID, "pid_t"),
	BI_VAR("uid", DIF_VAR_UID, "uid_t"),
	BI_VAR("gid", DIF_VAR_GID, "gid_t"),
	BI_VAR("cpu", DIF_VAR_CPU, "processorid_t"),
	BI_VAR("errno", DIF_VAR_ERRNO, "int"),
	BI_VAR("ucaller", DIF_VAR_UCALLER, "uint64_t"),
	BI_VAR("ustackdepth", DIF_VAR_USTACKDEPTH, "uint32_t"),
	BI_KVAR("curthread", DIF_VAR_CURTHREAD),
	BI_KVAR("stackdepth", DIF_VAR_STACKDEPTH),
	BI_KVAR("caller", DIF_VAR_CALLER),
	BI_KVAR("ipl", DIF_VAR_IPL),
	BI_KVAR("regs", DIF_VAR_REGS),
	BI_KVAR("curcpu", 0),
	{ "zonename", DT_IDENT_SCALAR, DT_IDFLG_BUILTIN | DT_IDFLG_UNSUP,
	    DIF_VAR_ZONENAME, NULL, 0 },
	{ "args", DT_IDENT_ARRAY, DT_IDFLG_BUILTIN, DIF_VAR_ARGS, "int64_t", 0 },
	{ "uregs", DT_IDENT_ARRAY, DT_IDFLG_BUILTIN, DIF_VAR_UREGS, "uint64_t",
	    0 },
	/*
	 * procfs.d's source for curpsinfo and curlwpsinfo (dif.h); the
	 * strings among them are addresses, which it makes strings of
	 */
	{ "__psinfo", DT_IDENT_ARRAY, DT_IDFLG_BUILTIN, DIF_VAR_PSINFO,
	    "int64_t", 0 },

	BI_ACT("trace", DT_ACT_TRACE, 1),
	BI_ACT("printf", DT_ACT_PRINTF, -1),
	BI_ACT("exit", DT_ACT_EXIT, 1),
	BI_ACT("printa", DT_ACT_PRINTA, -1),
	BI_ACT("print", DT_ACT_PRINT, 1),
	BI_ACT("tracemem", DT_ACT_TRACEMEM, -1),
	BI_ACT("stack", DT_ACT_STACK, -1),
	BI_ACT("ustack", DT_ACT_USTACK, -1),
	BI_ACT("jstack", DT_ACT_JSTACK, -1),
	BI_ACT("usym", DT_ACT_USYM, 1), BI_ACT("ufunc", DT_ACT_UFUNC, 1),
	BI_ACT("umod", DT_ACT_UMOD, 1), BI_ACT("uaddr", DT_ACT_UADDR, 1),
	BI_ACT("sym", DT_ACT_SYM, 1), BI_ACT("func", DT_ACT_FUNC, 1),
	BI_ACT("mod", DT_ACT_MOD, 1), BI_ACT("stop", DT_ACT_STOP, 0),
	BI_ACT("raise", DT_ACT_RAISE, 1), BI_ACT("system", DT_ACT_SYSTEM, -1),
	BI_ACT("freopen", DT_ACT_FREOPEN, -1),
	BI_ACT("ftruncate", DT_ACT_FTRUNCATE, 0),
	BI_ACT("chill", DT_ACT_CHILL, 1),
	BI_UNACTN("breakpoint", 0, 0), BI_UNACTN("panic", 0, 0),
	/* illumos's kernel subroutines: their arguments counted, refused */
	BI_UNACTN("mutex_owned", 0, 1), BI_UNACTN("mutex_owner", 0, 1),
	BI_UNACTN("mutex_type_adaptive", 0, 1),
	BI_UNACTN("mutex_type_spin", 0, 1), BI_UNACTN("rw_read_held", 0, 1),
	BI_UNACTN("rw_write_held", 0, 1), BI_UNACTN("rw_iswriter", 0, 1),
	BI_UNACTN("getmajor", 0, 1), BI_UNACTN("getminor", 0, 1),
	BI_UNACTN("ddi_pathname", 0, 2), BI_UNACTN("msgsize", 0, 1),
	BI_UNACTN("msgdsize", 0, 1),
	BI_ACT("speculate", DT_ACT_SPECULATE, 1),
	BI_ACT("commit", DT_ACT_COMMIT, 1), BI_ACT("discard", DT_ACT_DISCARD, 1),
	BI_ACT("clear", DT_ACT_CLEAR, 1), BI_ACT("trunc", DT_ACT_TRUNC, -1),
	BI_ACT("normalize", DT_ACT_NORMALIZE, 2),
	BI_ACT("denormalize", DT_ACT_DENORMALIZE, 1),
	BI_ACT("setopt", DT_ACT_SETOPT, -1),

	BI_AGG("count", DTRACEAGG_COUNT, 0),
	BI_AGG("sum", DTRACEAGG_SUM, 1),
	BI_AGG("avg", DTRACEAGG_AVG, 1),
	BI_AGG("min", DTRACEAGG_MIN, 1),
	BI_AGG("max", DTRACEAGG_MAX, 1),
	BI_AGG("stddev", DTRACEAGG_STDDEV, 1),
	/* the histograms: at least this many, dt_cc.c checks the rest */
	BI_AGG("quantize", DTRACEAGG_QUANTIZE, 1),
	BI_AGG("lquantize", DTRACEAGG_LQUANTIZE, 3),
	BI_AGG("llquantize", DTRACEAGG_LLQUANTIZE, 5),
};

/*
 * The D subroutines, with illumos's prototypes: "[type]" is an optional
 * argument.  Their names are what compile errors print, so a parameter
 * illumos declares "const char *" is spelt so here, though the only
 * value it accepts in our D is a string (or the constant 0 for NULL).
 * speculation() is the daemon's (dtd_spec.c, via dh_speculation).
 */
static const struct {
	const char	*ds_name;
	uint32_t	ds_subr;
	const char	*ds_proto;
} dt_ident_subrs[] = {
	{ "copyin", DIF_SUBR_COPYIN, "void *(uintptr_t, size_t)" },
	/* destructive: the daemon allows them only under -w, for root */
	{ "copyout", DIF_SUBR_COPYOUT, "void(void *, uintptr_t, size_t)" },
	{ "copyoutstr", DIF_SUBR_COPYOUTSTR,
	    "void(const char *, uintptr_t, size_t)" },
	{ "copyinstr", DIF_SUBR_COPYINSTR, "string(uintptr_t, [size_t])" },
	{ "copyinto", DIF_SUBR_COPYINTO, "void(uintptr_t, size_t, void *)" },
	{ "alloca", DIF_SUBR_ALLOCA, "void *(size_t)" },
	{ "bcopy", DIF_SUBR_BCOPY, "void(void *, void *, size_t)" },
	{ "strlen", DIF_SUBR_STRLEN, "size_t(const char *)" },
	{ "strjoin", DIF_SUBR_STRJOIN, "string(const char *, const char *)" },
	{ "substr", DIF_SUBR_SUBSTR, "string(const char *, int, [int])" },
	{ "index", DIF_SUBR_INDEX, "int(const char *, const char *, [int])" },
	{ "rindex", DIF_SUBR_RINDEX,
	    "int(const char *, const char *, [int])" },
	{ "strchr", DIF_SUBR_STRCHR, "string(const char *, char)" },
	{ "strrchr", DIF_SUBR_STRRCHR, "string(const char *, char)" },
	{ "strstr", DIF_SUBR_STRSTR, "string(const char *, const char *)" },
	{ "strtok", DIF_SUBR_STRTOK, "string(const char *, const char *)" },
	{ "basename", DIF_SUBR_BASENAME, "string(const char *)" },
	{ "dirname", DIF_SUBR_DIRNAME, "string(const char *)" },
	{ "cleanpath", DIF_SUBR_CLEANPATH, "string(const char *)" },
	{ "lltostr", DIF_SUBR_LLTOSTR, "string(int64_t, [int])" },
	{ "toupper", DIF_SUBR_TOUPPER, "string(const char *)" },
	{ "tolower", DIF_SUBR_TOLOWER, "string(const char *)" },
	{ "strtoll", DIF_SUBR_STRTOLL, "int64_t(const char *, [int])" },
	{ "json", DIF_SUBR_JSON, "string(const char *, const char *)" },
	{ "htons", DIF_SUBR_HTONS, "uint16_t(uint16_t)" },
	{ "htonl", DIF_SUBR_HTONL, "uint32_t(uint32_t)" },
	{ "htonll", DIF_SUBR_HTONLL, "uint64_t(uint64_t)" },
	{ "ntohs", DIF_SUBR_NTOHS, "uint16_t(uint16_t)" },
	{ "ntohl", DIF_SUBR_NTOHL, "uint32_t(uint32_t)" },
	{ "ntohll", DIF_SUBR_NTOHLL, "uint64_t(uint64_t)" },
	{ "inet_ntoa", DIF_SUBR_INET_NTOA, "string(ipaddr_t *)" },
	/* dtrace-utils' second argument, "strict": a constant (dt_parser.c) */
	{ "inet_ntoa6", DIF_SUBR_INET_NTOA6, "string(in6_addr_t *, [int])" },
	{ "inet_ntop", DIF_SUBR_INET_NTOP, "string(int, void *)" },
	{ "rand", DIF_SUBR_RAND, "int()" },
	{ "speculation", DIF_SUBR_SPECULATION, "int()" },
	{ "progenyof", DIF_SUBR_PROGENYOF, "int(pid_t)" },
};

/*
 * The uregs[] indices, with illumos's amd64 names: the daemon presents
 * the registers as Linux's struct user_regs_struct, an array of 64-bit
 * words in ptrace order (daemon/dtd_target.c), so the names map to that
 * order.  The 32-bit names alias the 64-bit registers, as illumos's
 * amd64 dtrace_getreg() maps them.  R_TRAPNO and R_ERR have no
 * counterpart there: Linux keeps a thread's trap number and error code
 * out of its user registers, and uregs[] of them reads 0 (DT_UREGS_NONE
 * and up, dt_parser.c).
 */
static const struct {
	const char	*rn_name;
	int		rn_index;
} dt_ident_regs[] = {
	{ "R_R15", 0 }, { "R_R14", 1 }, { "R_R13", 2 }, { "R_R12", 3 },
	{ "R_RBP", 4 }, { "R_RBX", 5 }, { "R_R11", 6 }, { "R_R10", 7 },
	{ "R_R9", 8 }, { "R_R8", 9 }, { "R_RAX", 10 }, { "R_RCX", 11 },
	{ "R_RDX", 12 }, { "R_RSI", 13 }, { "R_RDI", 14 }, { "R_RIP", 16 },
	{ "R_CS", 17 }, { "R_RFL", 18 }, { "R_RSP", 19 }, { "R_SS", 20 },
	{ "R_FSBASE", 21 }, { "R_GSBASE", 22 }, { "R_DS", 23 }, { "R_ES", 24 },
	{ "R_FS", 25 }, { "R_GS", 26 },
	/* the machine-independent names */
	{ "R_PC", 16 }, { "R_SP", 19 }, { "R_FP", 4 }, { "R_PS", 18 },
	{ "R_R0", 10 }, { "R_R1", 5 },
	/* the i386 names */
	{ "R_EDI", 14 }, { "R_ESI", 13 }, { "R_EBP", 4 }, { "R_ESP", 19 },
	{ "R_EBX", 5 }, { "R_EDX", 12 }, { "R_ECX", 11 }, { "R_EAX", 10 },
	{ "R_EIP", 16 }, { "R_EFL", 18 }, { "R_UESP", 19 },
	{ "R_TRAPNO", DT_UREGS_NONE }, { "R_ERR", DT_UREGS_NONE + 1 },
};

/*
 * The signals' names, as illumos's signal.d library gives them to D
 * (raise(SIGINT)), with this system's numbers.
 */
static const struct {
	const char	*sn_name;
	int		sn_value;
} dt_ident_sigs[] = {
	{ "SIGHUP", SIGHUP }, { "SIGINT", SIGINT }, { "SIGQUIT", SIGQUIT },
	{ "SIGILL", SIGILL }, { "SIGTRAP", SIGTRAP }, { "SIGABRT", SIGABRT },
	{ "SIGIOT", SIGIOT }, { "SIGBUS", SIGBUS }, { "SIGFPE", SIGFPE },
	{ "SIGKILL", SIGKILL }, { "SIGUSR1", SIGUSR1 },
	{ "SIGSEGV", SIGSEGV }, { "SIGUSR2", SIGUSR2 },
	{ "SIGPIPE", SIGPIPE }, { "SIGALRM", SIGALRM },
	{ "SIGTERM", SIGTERM }, { "SIGSTKFLT", SIGSTKFLT },
	{ "SIGCHLD", SIGCHLD }, { "SIGCLD", SIGCHLD },
	{ "SIGCONT", SIGCONT }, { "SIGSTOP", SIGSTOP },
	{ "SIGTSTP", SIGTSTP }, { "SIGTTIN", SIGTTIN },
	{ "SIGTTOU", SIGTTOU }, { "SIGURG", SIGURG }, { "SIGXCPU", SIGXCPU },
	{ "SIGXFSZ", SIGXFSZ }, { "SIGVTALRM", SIGVTALRM },
	{ "SIGPROF", SIGPROF }, { "SIGWINCH", SIGWINCH }, { "SIGIO", SIGIO },
	{ "SIGPOLL", SIGPOLL }, { "SIGPWR", SIGPWR }, { "SIGSYS", SIGSYS },
};

/* Types that only appear in subroutine prototypes. */
static const dt_type_t dt_ident_cstr = { .dt_name = "const char *",
    .dt_kind = DT_TK_STRING };
#define DT_IDENT_PTR(n, b)	{ .dt_name = n, .dt_kind = DT_TK_PTR, \
	.dt_size = 8, .dt_rank = 4, .dt_base = b }
static const dt_type_t dt_ident_ptrs[] = {
	DT_IDENT_PTR("void *", &dt_type_void),
	DT_IDENT_PTR("ipaddr_t *", NULL),
	DT_IDENT_PTR("in6_addr_t *", NULL),
};

/* A type name of a prototype, len bytes at s; NULL if unknown. */
static const dt_type_t *
dt_ident_proto_type(const char *s, size_t len)
{
	char name[32];
	size_t i;

	while (len > 0 && (*s == ' ' || *s == '['))
		s++, len--;
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == ']'))
		len--;
	if (len == 0 || len >= sizeof(name))
		return NULL;
	memcpy(name, s, len);
	name[len] = '\0';
	if (strcmp(name, "string") == 0)
		return &dt_type_string;
	if (strcmp(name, "const char *") == 0)
		return &dt_ident_cstr;
	if (strcmp(name, "void") == 0)
		return &dt_type_void;
	if (strcmp(name, "char") == 0)
		return &dt_type_char;
	if (strcmp(name, "int") == 0)
		return &dt_type_int;
	for (i = 0; i < sizeof(dt_ident_ptrs) / sizeof(dt_ident_ptrs[0]); i++) {
		if (strcmp(name, dt_ident_ptrs[i].dt_name) == 0)
			return &dt_ident_ptrs[i];
	}
	return dt_decl_lookup(name);
}

/* A subroutine's prototype, parsed: the same for every handle. */
typedef struct dt_ident_sproto {
	int		sp_ok;		/* parsed (-1: malformed) */
	const dt_type_t	*sp_type;
	const dt_type_t	*sp_params[DIF_DTR_NREGS];
	int		sp_n;
	int		sp_min;
} dt_ident_sproto_t;

/* Parse a prototype such as "string(string, int, [int])" into sp. */
static int
dt_ident_proto_parse(dt_ident_sproto_t *sp, const char *proto)
{
	const char *p = strchr(proto, '('), *q;
	const dt_type_t *t;
	int n = 0, opt = -1;

	sp->sp_ok = -1;
	if (p == NULL || (sp->sp_type = dt_ident_proto_type(proto,
	    (size_t)(p - proto))) == NULL)
		return -1;
	for (p++; *p != ')' && *p != '\0'; p = *q == ',' ? q + 1 : q) {
		for (q = p; *q != ',' && *q != ')' && *q != '\0'; q++)
			;
		if ((t = dt_ident_proto_type(p, (size_t)(q - p))) == NULL ||
		    t->dt_kind == DT_TK_VOID || n == DIF_DTR_NREGS)
			return -1;
		if (memchr(p, '[', (size_t)(q - p)) != NULL && opt < 0)
			opt = n;
		sp->sp_params[n++] = t;
	}
	sp->sp_n = n;
	sp->sp_min = opt < 0 ? n : opt;
	sp->sp_ok = 1;
	return 0;
}

/*
 * Give a subroutine identifier its prototype: the return type in
 * di_type, the parameter types in di_keys, di_minargs required and
 * di_nargs at most.  Returns -1 if the prototype is malformed.
 */
static int
dt_ident_proto(dt_ident_t *idp, const dt_ident_sproto_t *sp)
{
	if (sp->sp_ok != 1)
		return -1;
	idp->di_type = sp->sp_type;
	if (sp->sp_n != 0) {
		if ((idp->di_keys = calloc(sp->sp_n,
		    sizeof(*idp->di_keys))) == NULL)
			return -1;
		memcpy(idp->di_keys, sp->sp_params,
		    sp->sp_n * sizeof(*sp->sp_params));
	}
	idp->di_nargs = sp->sp_n;
	idp->di_minargs = sp->sp_min;
	return 0;
}

const char *
dt_ident_aggfunc_name(uint32_t kind)
{
	size_t i;

	for (i = 0; i < sizeof(dt_ident_builtins) / sizeof(dt_ident_builtins[0]);
	    i++) {
		if (dt_ident_builtins[i].bi_kind == DT_IDENT_AGGFUNC &&
		    dt_ident_builtins[i].bi_id == kind)
			return dt_ident_builtins[i].bi_name;
	}
	return "?";
}

/*
 * D language versions (illumos's, up to the one dtrace -V reports) and
 * the built-in identifiers added after D 1.0: a program that asks for
 * an older version (-x version) does not see them, and may use their
 * names for its own variables.
 */
#define DT_VERS(M, m, u)	\
	((uint32_t)(M) << 24 | (uint32_t)(m) << 12 | (u))
static const uint32_t dt_ident_versions[] = {
	DT_VERS(1, 0, 0), DT_VERS(1, 1, 0), DT_VERS(1, 2, 0),
	DT_VERS(1, 2, 1), DT_VERS(1, 2, 2), DT_VERS(1, 3, 0),
	DT_VERS(1, 4, 0), DT_VERS(1, 4, 1), DT_VERS(1, 5, 0),
	DT_VERS(1, 6, 0), DT_VERS(1, 6, 1), DT_VERS(1, 6, 2),
	DT_VERS(1, 6, 3), DT_VERS(1, 7, 0), DT_VERS(1, 7, 1),
	DT_VERS(1, 8, 0), DT_VERS(1, 8, 1), DT_VERS(1, 9, 0),
	DT_VERS(1, 9, 1), DT_VERS(1, 10, 0), DT_VERS(1, 11, 0),
	DT_VERS(1, 12, 0), DT_VERS(1, 12, 1), DT_VERS(1, 13, 0),
};

/*
 * The built-in identifiers that illumos added after D 1.0, with the
 * version that brought each (its dt_open.c); the others are of 1.0, or
 * are not illumos's and so are there in every version.
 */
static const struct {
	const char	*dv_name;
	uint32_t	dv_vers;
} dt_ident_vers[] = {
	{ "strstr", DT_VERS(1, 1, 0) }, { "strchr", DT_VERS(1, 1, 0) },
	{ "strrchr", DT_VERS(1, 1, 0) }, { "strtok", DT_VERS(1, 1, 0) },
	{ "substr", DT_VERS(1, 1, 0) }, { "index", DT_VERS(1, 1, 0) },
	{ "rindex", DT_VERS(1, 1, 0) }, { "freopen", DT_VERS(1, 1, 0) },
	{ "usym", DT_VERS(1, 2, 0) }, { "ufunc", DT_VERS(1, 2, 0) },
	{ "umod", DT_VERS(1, 2, 0) }, { "uaddr", DT_VERS(1, 2, 0) },
	{ "sym", DT_VERS(1, 2, 0) }, { "func", DT_VERS(1, 2, 0) },
	{ "mod", DT_VERS(1, 2, 0) }, { "setopt", DT_VERS(1, 2, 0) },
	{ "ucaller", DT_VERS(1, 2, 0) }, { "ustackdepth", DT_VERS(1, 2, 0) },
	{ "htons", DT_VERS(1, 3, 0) }, { "htonl", DT_VERS(1, 3, 0) },
	{ "htonll", DT_VERS(1, 3, 0) }, { "ntohs", DT_VERS(1, 3, 0) },
	{ "ntohl", DT_VERS(1, 3, 0) }, { "ntohll", DT_VERS(1, 3, 0) },
	{ "inet_ntoa", DT_VERS(1, 5, 0) }, { "inet_ntoa6", DT_VERS(1, 5, 0) },
	{ "inet_ntop", DT_VERS(1, 5, 0) },
	{ "stddev", DT_VERS(1, 6, 0) },
	{ "llquantize", DT_VERS(1, 7, 0) },
	{ "toupper", DT_VERS(1, 8, 0) }, { "tolower", DT_VERS(1, 8, 0) },
	{ "print", DT_VERS(1, 9, 0) },
	{ "strtoll", DT_VERS(1, 11, 0) }, { "json", DT_VERS(1, 11, 0) },
};

/* Stamp the built-ins of later versions with theirs (dt_idhash_lookup). */
static void
dt_ident_stamp(dtrace_hdl_t *dtp)
{
	dt_idhash_t *dhp = dtp->dt_globals;
	dt_ident_t *idp;
	size_t i;

	for (i = 0; i < sizeof(dt_ident_vers) / sizeof(dt_ident_vers[0]);
	    i++) {
		idp = dhp->dh_hash[dt_idhash_hashstr(dt_ident_vers[i].dv_name) %
		    dhp->dh_nbuckets];
		for (; idp != NULL; idp = idp->di_next) {
			if (idp->di_gen == 0 && strcmp(idp->di_name,
			    dt_ident_vers[i].dv_name) == 0)
				idp->di_vers = dt_ident_vers[i].dv_vers;
		}
	}
	dhp->dh_vmax = dtp->dt_libcur != NULL ? 0 : dtp->dt_vmax;
}

/*
 * -x version=M.m[.u]: compile for that D version, one of illumos's; a
 * version can only be lowered.  The identifiers of later versions are
 * hidden from the program, as if undefined, and their names are free for
 * its own; not from the D libraries (dt_lib.c), which are the system's.
 */
int
dt_ident_version(dtrace_hdl_t *dtp, const char *arg)
{
	unsigned long f[3] = { 0, 0, 0 };
	const char *p = arg;
	char *end;
	uint32_t v;
	size_t i;
	int n = 0;

	if (arg == NULL)
		return dt_set_errno(dtp, EDT_VERSINVAL);
	for (;;) {
		if (!isdigit((unsigned char)*p))
			return dt_set_errno(dtp, EDT_VERSINVAL);
		errno = 0;
		f[n++] = strtoul(p, &end, 10);
		if (errno != 0 || f[n - 1] > (n == 1 ? 0xff : 0xfff))
			return dt_set_errno(dtp, EDT_VERSINVAL);
		if (*end == '\0')
			break;
		if (*end != '.' || n == 3)
			return dt_set_errno(dtp, EDT_VERSINVAL);
		p = end + 1;
	}
	if (n < 2)
		return dt_set_errno(dtp, EDT_VERSINVAL);
	v = DT_VERS(f[0], f[1], f[2]);
	for (i = 0; i < sizeof(dt_ident_versions) / sizeof(uint32_t); i++) {
		if (dt_ident_versions[i] == v)
			break;
	}
	if (i == sizeof(dt_ident_versions) / sizeof(uint32_t))
		return dt_set_errno(dtp, EDT_VERSUNDEF);
	if (dtp->dt_vmax != 0 && v > dtp->dt_vmax)
		return dt_set_errno(dtp, EDT_VERSREDUCED);
	dtp->dt_vmax = v;
	if (dtp->dt_globals != NULL && dtp->dt_libcur == NULL)
		dtp->dt_globals->dh_vmax = v;
	return 0;
}

/*
 * Stability (dtrace -v): illumos's attributes of its built-ins that are
 * not Stable/Stable/Common; the program's own identifiers, the libraries'
 * and the other built-ins are.
 */
#define DT_ATTR(n, d, c)	{ DTRACE_STABILITY_##n, DTRACE_STABILITY_##d, \
	DTRACE_CLASS_##c }
#define DT_EVOLCMN	DT_ATTR(EVOLVING, EVOLVING, COMMON)
static const struct {
	const char		*da_name;
	dtrace_attribute_t	da_attr;
} dt_ident_attrs[] = {
	{ "curthread", DT_ATTR(STABLE, PRIVATE, COMMON) },
	{ "htons", DT_EVOLCMN }, { "htonl", DT_EVOLCMN },
	{ "htonll", DT_EVOLCMN }, { "ntohs", DT_EVOLCMN },
	{ "ntohl", DT_EVOLCMN }, { "ntohll", DT_EVOLCMN },
	{ "mutex_owned", DT_EVOLCMN }, { "mutex_owner", DT_EVOLCMN },
	{ "mutex_type_adaptive", DT_EVOLCMN },
	{ "mutex_type_spin", DT_EVOLCMN }, { "rw_read_held", DT_EVOLCMN },
	{ "rw_write_held", DT_EVOLCMN }, { "rw_iswriter", DT_EVOLCMN },
	{ "getmajor", DT_EVOLCMN }, { "getminor", DT_EVOLCMN },
	{ "ddi_pathname", DT_EVOLCMN },
};

/*
 * The attributes of the identifier name as a program uses it, folded
 * into *ap.  probeprov, probemod, probefunc, probename and args[] have
 * those of the probe's provider, for the part each names: they go into
 * *maskp (DT_ATTR_P*), for dtrace_program_stmtattr to resolve.
 */
void
dt_ident_attr(dtrace_hdl_t *dtp, const char *name, dtrace_attribute_t *ap,
    uint32_t *maskp)
{
	static const dtrace_attribute_t stab = DT_ATTR(STABLE, STABLE, COMMON);
	const dtrace_attribute_t *a = &stab;
	const dt_ident_t *idp;
	size_t i;

	idp = dtp->dt_globals != NULL ?
	    dt_idhash_lookup(dtp->dt_globals, name) : NULL;
	if (idp != NULL && idp->di_gen == 0) {
		/* (DIF_VAR_ARGS is 0: a function's id matches no case) */
		switch (idp->di_kind == DT_IDENT_SCALAR ||
		    idp->di_kind == DT_IDENT_ARRAY ? idp->di_id : UINT32_MAX) {
		case DIF_VAR_PROBEPROV:
			*maskp |= DT_ATTR_PPROV;
			return;
		case DIF_VAR_PROBEMOD:
			*maskp |= DT_ATTR_PMOD;
			return;
		case DIF_VAR_PROBEFUNC:
			*maskp |= DT_ATTR_PFUNC;
			return;
		case DIF_VAR_PROBENAME:
			*maskp |= DT_ATTR_PNAME;
			return;
		case DIF_VAR_ARGS:
			*maskp |= DT_ATTR_PARGS;
			return;
		}
		for (i = 0; i < sizeof(dt_ident_attrs) /
		    sizeof(dt_ident_attrs[0]); i++) {
			if (strcmp(dt_ident_attrs[i].da_name, name) == 0)
				a = &dt_ident_attrs[i].da_attr;
		}
	}
	dt_ident_attrmin(ap, a);
}

/* *ap = the least of *ap and *bp, each attribute on its own */
void
dt_ident_attrmin(dtrace_attribute_t *ap, const dtrace_attribute_t *bp)
{
	if (bp->dtat_name < ap->dtat_name)
		ap->dtat_name = bp->dtat_name;
	if (bp->dtat_data < ap->dtat_data)
		ap->dtat_data = bp->dtat_data;
	if (bp->dtat_class < ap->dtat_class)
		ap->dtat_class = bp->dtat_class;
}

#define	DT_IDENT_NBUILTINS	\
	(sizeof(dt_ident_builtins) / sizeof(dt_ident_builtins[0]))
#define	DT_IDENT_NSUBRS	(sizeof(dt_ident_subrs) / sizeof(dt_ident_subrs[0]))

/*
 * The types of the built-in variables and the subroutines' prototypes,
 * resolved by name once for the process: they name only built-in types,
 * which no handle changes, and every handle (a fuzzer opens one per
 * input) would look up the same names again.
 */
static const dt_type_t	*dt_ident_bitype[DT_IDENT_NBUILTINS];
static dt_ident_sproto_t dt_ident_sprotos[DT_IDENT_NSUBRS];
static int		dt_ident_resolved;

static void
dt_ident_resolve(void)
{
	const dt_ident_builtin_t *bp;
	size_t i;

	if (dt_ident_resolved)
		return;
	for (i = 0; i < DT_IDENT_NBUILTINS; i++) {
		bp = &dt_ident_builtins[i];
		if (bp->bi_type != NULL)
			dt_ident_bitype[i] = strcmp(bp->bi_type, "string") == 0 ?
			    &dt_type_string : strcmp(bp->bi_type, "int") == 0 ?
			    &dt_type_int : dt_decl_lookup(bp->bi_type);
	}
	for (i = 0; i < DT_IDENT_NSUBRS; i++)
		(void)dt_ident_proto_parse(&dt_ident_sprotos[i],
		    dt_ident_subrs[i].ds_proto);
	dt_ident_resolved = 1;
}

/* Create the handle's identifier tables on first use. */
int
dt_ident_init(dtrace_hdl_t *dtp)
{
	const dt_ident_builtin_t *bp;
	dt_ident_t *idp;
	size_t i;

	if (dtp->dt_nextvar < DIF_VAR_OTHER_UBASE)
		dtp->dt_nextvar = DIF_VAR_OTHER_UBASE;
	if (dtp->dt_nexttls < DIF_VAR_OTHER_UBASE)
		dtp->dt_nexttls = DIF_VAR_OTHER_UBASE;
	if (dtp->dt_nextlocal < DIF_VAR_OTHER_UBASE)
		dtp->dt_nextlocal = DIF_VAR_OTHER_UBASE;
	if (dtp->dt_nextagg < 1)
		dtp->dt_nextagg = 1;
	if (dtp->dt_aggs == NULL &&
	    (dtp->dt_aggs = dt_idhash_create(211)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	if (dtp->dt_globals != NULL)
		return 0;
	if ((dtp->dt_globals = dt_idhash_create(521)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);

	dt_ident_resolve();
	for (i = 0; i < DT_IDENT_NBUILTINS; i++) {
		bp = &dt_ident_builtins[i];
		idp = dt_idhash_insert(dtp->dt_globals, bp->bi_name,
		    bp->bi_kind, bp->bi_flags, bp->bi_id, dt_ident_bitype[i]);
		if (idp == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		idp->di_nargs = bp->bi_nargs;
	}
	for (i = 0; i < sizeof(dt_ident_regs) / sizeof(dt_ident_regs[0]);
	    i++) {
		idp = dt_idhash_insert(dtp->dt_globals, dt_ident_regs[i].rn_name,
		    DT_IDENT_ENUMR, DT_IDFLG_BUILTIN, 0, &dt_type_int);
		if (idp == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		idp->di_value = dt_ident_regs[i].rn_index;
	}
	for (i = 0; i < sizeof(dt_ident_sigs) / sizeof(dt_ident_sigs[0]);
	    i++) {
		idp = dt_idhash_insert(dtp->dt_globals, dt_ident_sigs[i].sn_name,
		    DT_IDENT_ENUMR, DT_IDFLG_BUILTIN, 0, &dt_type_int);
		if (idp == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		idp->di_value = dt_ident_sigs[i].sn_value;
	}
	/*
	 * NULL: the integer constant 0, as in illumos (sizeof (NULL) is 4);
	 * a constant 0 is compatible with every pointer, and a string.
	 */
	if ((idp = dt_idhash_insert(dtp->dt_globals, "NULL", DT_IDENT_ENUMR,
	    DT_IDFLG_BUILTIN, 0, &dt_type_int)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	for (i = 0; i < DT_IDENT_NSUBRS; i++) {
		idp = dt_idhash_insert(dtp->dt_globals,
		    dt_ident_subrs[i].ds_name, DT_IDENT_FUNC, 0,
		    dt_ident_subrs[i].ds_subr, NULL);
		if (idp == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		if (dt_ident_proto(idp, &dt_ident_sprotos[i]) != 0)
			return dt_set_errno(dtp, EDT_HARDWIRE);
	}
	dt_ident_stamp(dtp);
	return 0;
}
