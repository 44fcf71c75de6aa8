/*
 * dt_ident.c: identifier hash tables and the built-in identifiers.
 *
 * The handle owns two tables shared by every program compiled on it:
 * dt_globals (built-in variables, functions, user globals) and dt_aggs
 * (aggregations).  User global and aggregation ids are consumer-wide.
 * Each compile stamps what it creates with a generation so that a
 * failed compile can take its identifiers back.
 */
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

static uint32_t
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
		if (strcmp(idp->di_name, name) == 0)
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
#define BI_UNACT(n)		{ n, DT_IDENT_ACTFUNC, DT_IDFLG_UNSUP, 0, NULL, 0 }
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
	BI_KVAR("curlwpsinfo", 0),
	{ "zonename", DT_IDENT_SCALAR, DT_IDFLG_BUILTIN | DT_IDFLG_UNSUP,
	    DIF_VAR_ZONENAME, NULL, 0 },
	{ "curpsinfo", DT_IDENT_SCALAR, DT_IDFLG_BUILTIN | DT_IDFLG_UNSUP,
	    0, NULL, 0 },
	{ "args", DT_IDENT_ARRAY, DT_IDFLG_BUILTIN | DT_IDFLG_UNSUP,
	    DIF_VAR_ARGS, NULL, 0 },
	{ "uregs", DT_IDENT_ARRAY, DT_IDFLG_BUILTIN | DT_IDFLG_UNSUP,
	    DIF_VAR_UREGS, NULL, 0 },

	BI_ACT("trace", DT_ACT_TRACE, 1),
	BI_ACT("printf", DT_ACT_PRINTF, -1),
	BI_ACT("exit", DT_ACT_EXIT, 1),
	BI_ACT("printa", DT_ACT_PRINTA, -1),
	BI_UNACT("print"), BI_ACT("tracemem", DT_ACT_TRACEMEM, -1),
	BI_UNACT("stack"), BI_UNACT("ustack"), BI_UNACT("jstack"),
	BI_UNACT("usym"), BI_UNACT("ufunc"), BI_UNACT("umod"),
	BI_UNACT("uaddr"), BI_UNACT("sym"), BI_UNACT("func"),
	BI_UNACT("mod"), BI_UNACT("stop"), BI_UNACT("raise"),
	BI_UNACT("system"), BI_UNACT("freopen"), BI_UNACT("ftruncate"),
	BI_UNACT("copyout"), BI_UNACT("copyoutstr"), BI_UNACT("chill"),
	BI_UNACT("breakpoint"), BI_UNACT("panic"), BI_UNACT("speculation"),
	BI_UNACT("speculate"), BI_UNACT("commit"), BI_UNACT("discard"),
	BI_ACT("clear", DT_ACT_CLEAR, 1), BI_ACT("trunc", DT_ACT_TRUNC, -1),
	BI_ACT("normalize", DT_ACT_NORMALIZE, 2),
	BI_ACT("denormalize", DT_ACT_DENORMALIZE, 1), BI_UNACT("setopt"),
	BI_UNACT("copyin"), BI_UNACT("copyinstr"), BI_UNACT("copyinto"),
	BI_UNACT("alloca"), BI_UNACT("bcopy"), BI_UNACT("strlen"),
	BI_UNACT("strjoin"), BI_UNACT("substr"), BI_UNACT("index"),
	BI_UNACT("rindex"), BI_UNACT("strchr"), BI_UNACT("strrchr"),
	BI_UNACT("strstr"), BI_UNACT("strtok"), BI_UNACT("basename"),
	BI_UNACT("dirname"), BI_UNACT("cleanpath"), BI_UNACT("lltostr"),
	BI_UNACT("htons"), BI_UNACT("htonl"), BI_UNACT("htonll"),
	BI_UNACT("ntohs"), BI_UNACT("ntohl"), BI_UNACT("ntohll"),
	BI_UNACT("inet_ntop"), BI_UNACT("inet_ntoa"), BI_UNACT("inet_ntoa6"),
	BI_UNACT("rand"), BI_UNACT("progenyof"), BI_UNACT("stringof"),
	BI_UNACT("toupper"), BI_UNACT("tolower"), BI_UNACT("strtoll"),

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

/* Create the handle's identifier tables on first use. */
int
dt_ident_init(dtrace_hdl_t *dtp)
{
	const dt_ident_builtin_t *bp;
	const dt_type_t *t;
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

	for (i = 0; i < sizeof(dt_ident_builtins) / sizeof(dt_ident_builtins[0]);
	    i++) {
		bp = &dt_ident_builtins[i];
		t = NULL;
		if (bp->bi_type != NULL) {
			t = strcmp(bp->bi_type, "string") == 0 ?
			    &dt_type_string : strcmp(bp->bi_type, "int") == 0 ?
			    &dt_type_int : dt_decl_lookup(bp->bi_type);
		}
		idp = dt_idhash_insert(dtp->dt_globals, bp->bi_name,
		    bp->bi_kind, bp->bi_flags, bp->bi_id, t);
		if (idp == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		idp->di_nargs = bp->bi_nargs;
	}
	return 0;
}
