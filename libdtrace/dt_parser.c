/*
 * dt_parser.c: the parse tree.  Constructors called by the grammar,
 * compile-error reporting, and cooking: resolving identifiers, giving
 * every node its D type, checking operand types and folding integer
 * constant expressions.
 *
 * Everything a compile allocates hangs off its pcb and is freed at the
 * end of the compile; errors longjmp back to dt_cc.c, so no constructor
 * or cooking function ever returns failure.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_grammar.h"

typedef struct dt_pmem {
	struct dt_pmem	*pm_next;
	max_align_t	pm_data[];
} dt_pmem_t;

static void __attribute__((noreturn))
dt_parser_verror(dt_pcb_t *pcb, int line, const char *tag, const char *fmt,
    va_list ap)
{
	char msg[sizeof(pcb->pcb_hdl->dt_errmsg)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* as illumos: a line number only for programs read from a file */
	if (line > 0 && pcb->pcb_lib != NULL)
		dt_set_errmsg(pcb->pcb_hdl, tag, "\"%s\", line %d: %s",
		    pcb->pcb_lib, line, msg);
	else if (line > 0 && pcb->pcb_fileptr != NULL)
		dt_set_errmsg(pcb->pcb_hdl, tag, "line %d: %s", line, msg);
	else
		dt_set_errmsg(pcb->pcb_hdl, tag, "%s", msg);
	longjmp(pcb->pcb_jmpbuf, 1);
}

/* Report a compile error at a source line and abandon the compile. */
void
dt_parser_error(dt_pcb_t *pcb, int line, dt_errtag_t tag, const char *fmt,
    ...)
{
	va_list ap;

	va_start(ap, fmt);
	dt_parser_verror(pcb, line, dt_errtag(tag), fmt, ap);
}

/* The same with a tag given by name (from dt_printf_check()). */
void
dt_parser_error_tag(dt_pcb_t *pcb, int line, const char *tag,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dt_parser_verror(pcb, line, tag, fmt, ap);
}

/* Zeroed memory that lives until the end of the compile. */
void *
dt_parser_alloc(dt_pcb_t *pcb, size_t size)
{
	dt_pmem_t *pm;

	if ((pm = calloc(1, sizeof(*pm) + size)) == NULL) {
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	pm->pm_next = pcb->pcb_mem;
	pcb->pcb_mem = pm;
	return pm->pm_data;
}

char *
dt_parser_strdup(dt_pcb_t *pcb, const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(dt_parser_alloc(pcb, len), s, len);
}

void
dt_parser_free(dt_pcb_t *pcb)
{
	dt_pmem_t *pm, *next;

	for (pm = pcb->pcb_mem; pm != NULL; pm = next) {
		next = pm->pm_next;
		free(pm);
	}
	pcb->pcb_mem = NULL;
	pcb->pcb_nodes = NULL;
	pcb->pcb_root = NULL;
}

/*
 * Keep what a D library's compile allocated (its inlines' parse trees)
 * on the handle, for the programs compiled after it.
 */
void
dt_parser_keep(dt_pcb_t *pcb)
{
	dt_pmem_t *pm;

	if ((pm = pcb->pcb_mem) != NULL) {
		while (pm->pm_next != NULL)
			pm = pm->pm_next;
		pm->pm_next = pcb->pcb_hdl->dt_libmem;
		pcb->pcb_hdl->dt_libmem = pcb->pcb_mem;
	}
	pcb->pcb_mem = NULL;
	pcb->pcb_nodes = NULL;
	pcb->pcb_root = NULL;
}

void
dt_parser_fini(dtrace_hdl_t *dtp)
{
	dt_pmem_t *pm, *next;

	for (pm = dtp->dt_libmem; pm != NULL; pm = next) {
		next = pm->pm_next;
		free(pm);
	}
	dtp->dt_libmem = NULL;
	dtp->dt_libxlators = NULL;	/* they were in dt_libmem */
}

static dt_node_t *
dt_node_alloc(dt_pcb_t *pcb, int kind)
{
	dt_node_t *dnp = dt_parser_alloc(pcb, sizeof(*dnp));

	dnp->dn_kind = kind;
	dnp->dn_reg = -1;
	dnp->dn_line = pcb->pcb_scanner != NULL ? dt_lex_lineno(pcb) : 0;
	dnp->dn_link = pcb->pcb_nodes;
	pcb->pcb_nodes = dnp;
	return dnp;
}

/* Truncate and sign- or zero-extend v to an integer type. */
static uint64_t
dt_node_normalize(uint64_t v, const dt_type_t *t)
{
	int bits = t->dt_size * 8;

	if (bits == 0 || bits >= 64)
		return v;
	v &= (UINT64_C(1) << bits) - 1;
	if (t->dt_signed && (v & (UINT64_C(1) << (bits - 1))))
		v |= ~((UINT64_C(1) << bits) - 1);
	return v;
}

static int
dt_node_fits(uint64_t v, const dt_type_t *t)
{
	if (t->dt_size == 8)
		return t->dt_signed ? v <= INT64_MAX : 1;
	if (t->dt_signed)
		return v < (UINT64_C(1) << (t->dt_size * 8 - 1));
	return v < (UINT64_C(1) << (t->dt_size * 8));
}

/*
 * An integer constant takes the first type of its list that can hold it,
 * as in C: decimal constants stay signed, octal and hexadecimal ones may
 * become unsigned, and the u and l suffixes restrict the list.
 */
dt_node_t *
dt_node_int(dt_pcb_t *pcb, uint64_t v, int flags)
{
	static const dt_type_t *const dec[] = { &dt_type_int, &dt_type_long,
	    &dt_type_llong, &dt_type_ullong, NULL };
	static const dt_type_t *const ndec[] = { &dt_type_int, &dt_type_uint,
	    &dt_type_long, &dt_type_ulong, &dt_type_llong, &dt_type_ullong,
	    NULL };
	static const dt_type_t *const uns[] = { &dt_type_uint, &dt_type_ulong,
	    &dt_type_ullong, NULL };
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_INT);
	const dt_type_t *const *tp;
	int rank;

	dnp->dn_value = v;
	if (flags & DT_INTF_NEG) {
		dnp->dn_type = (int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX ?
		    &dt_type_int : &dt_type_long;
		return dnp;
	}
	tp = (flags & DT_INTF_U) ? uns : (flags & DT_INTF_NDEC) ? ndec : dec;
	rank = (flags & DT_INTF_LL) ? 5 : (flags & DT_INTF_L) ? 4 : 0;
	for (; *tp != NULL; tp++) {
		if ((*tp)->dt_rank >= rank && dt_node_fits(v, *tp))
			break;
	}
	dnp->dn_type = *tp != NULL ? *tp : &dt_type_ullong;
	return dnp;
}

dt_node_t *
dt_node_string(dt_pcb_t *pcb, char *s)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_STRING);

	dnp->dn_string = s;
	dnp->dn_type = &dt_type_string;
	return dnp;
}

dt_node_t *
dt_node_ident(dt_pcb_t *pcb, char *name)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_IDENT);

	dnp->dn_string = name;
	return dnp;
}

dt_node_t *
dt_node_agg(dt_pcb_t *pcb, char *name)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_AGG);

	dnp->dn_string = name;
	return dnp;
}

/*
 * self->name or this->name.  The identifier tables key it by its full
 * spelling, so a thread-local x, a clause-local x and a global x are
 * three variables; dn_op marks the node and dn_value keeps the scope.
 */
dt_node_t *
dt_node_dvar(dt_pcb_t *pcb, int scope, char *name)
{
	const char *pfx = scope == DIFV_SCOPE_THREAD ? "self->" : "this->";
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_IDENT);
	size_t len = strlen(pfx) + strlen(name) + 1;

	dnp->dn_string = dt_parser_alloc(pcb, len);
	snprintf(dnp->dn_string, len, "%s%s", pfx, name);
	dnp->dn_op = DT_TOK_PTR;
	dnp->dn_value = (uint64_t)scope;
	return dnp;
}

dt_node_t *
dt_node_type(dt_pcb_t *pcb, const dt_typespec_t *ts)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_TYPE);
	const char *why;
	int tag;

	if ((dnp->dn_type = dt_decl_type(ts, &why, &tag)) == NULL)
		dt_parser_error(pcb, dnp->dn_line, (dt_errtag_t)tag, "%s",
		    why);
	return dnp;
}

/* A type name already resolved (a declarator applied). */
dt_node_t *
dt_node_typename(dt_pcb_t *pcb, const dt_type_t *t)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_TYPE);

	dnp->dn_type = t;
	return dnp;
}

/* p->name (op DT_TOK_PTR) and s.name (DT_TOK_DOT) */
dt_node_t *
dt_node_member(dt_pcb_t *pcb, int op, dt_node_t *left, char *name)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_OP2);

	dnp->dn_op = op;
	dnp->dn_left = left;
	dnp->dn_string = name;
	return dnp;
}

/* offsetof(type, member) */
dt_node_t *
dt_node_offsetof(dt_pcb_t *pcb, dt_node_t *type, char *name)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_OP1);

	dnp->dn_op = DT_TOK_OFFSETOF;
	dnp->dn_left = type;
	dnp->dn_string = name;
	return dnp;
}

/*
 * The value of an integer constant expression the declarations need
 * (array dimensions, bit-field widths, enumerators); tag if it is not.
 */
int64_t
dt_node_intconst(dt_pcb_t *pcb, dt_node_t *dnp, const char *what, int tag)
{
	int line = dnp->dn_line;

	dnp = dt_node_cook(pcb, dnp);
	/* an array dimension: a positive constant, in illumos's words */
	if (tag == D_DECL_ARRSUB && (dnp->dn_kind != DT_NODE_INT ||
	    !dt_node_is_int(dnp) || dnp->dn_value == 0 ||
	    (dnp->dn_type->dt_signed && (int64_t)dnp->dn_value < 0)))
		dt_parser_error(pcb, line, D_DECL_ARRSUB,
		    "positive integral constant expression or tuple "
		    "signature expected as array declaration subscript");
	if (dnp->dn_kind != DT_NODE_INT || !dt_node_is_int(dnp))
		dt_parser_error(pcb, line, (dt_errtag_t)tag,
		    "%s must be an integer constant expression", what);
	if (dnp->dn_type->dt_signed)
		return (int64_t)dnp->dn_value;
	if (dnp->dn_value > INT64_MAX)
		dt_parser_error(pcb, line, (dt_errtag_t)tag,
		    "%s is too large", what);
	return (int64_t)dnp->dn_value;
}

dt_node_t *
dt_node_func(dt_pcb_t *pcb, dt_node_t *callee, dt_node_t *args)
{
	dt_node_t *dnp;

	if (callee->dn_kind != DT_NODE_IDENT)
		dt_parser_error(pcb, callee->dn_line, D_FUNC_IDENT,
		    "function designator is not of function type");
	dnp = dt_node_alloc(pcb, DT_NODE_FUNC);
	dnp->dn_line = callee->dn_line;
	dnp->dn_string = callee->dn_string;
	dnp->dn_args = args;
	return dnp;
}

/*
 * A call the compiler writes into a program: the built-in subroutine
 * name, which neither the program's D version nor its own declarations
 * can hide (dt_node_cook_func).
 */
static dt_node_t *
dt_node_subr(dt_pcb_t *pcb, const char *name, dt_node_t *args)
{
	dt_node_t *dnp;

	dnp = dt_node_func(pcb, dt_node_ident(pcb, dt_parser_strdup(pcb,
	    name)), args);
	dnp->dn_flags |= DT_NF_SUBR;
	return dnp;
}

dt_node_t *
dt_node_index(dt_pcb_t *pcb, dt_node_t *base, dt_node_t *args)
{
	if (base->dn_kind == DT_NODE_AGG && base->dn_args == NULL) {
		base->dn_args = args;
		return base;
	}
	return dt_node_op2(pcb, DT_TOK_LBRAC, base, args);
}

dt_node_t *
dt_node_op1(dt_pcb_t *pcb, int op, dt_node_t *child)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_OP1);

	dnp->dn_op = op;
	dnp->dn_left = child;
	return dnp;
}

dt_node_t *
dt_node_op2(dt_pcb_t *pcb, int op, dt_node_t *l, dt_node_t *r)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_OP2);

	dnp->dn_op = op;
	dnp->dn_left = l;
	dnp->dn_right = r;
	return dnp;
}

dt_node_t *
dt_node_op3(dt_pcb_t *pcb, dt_node_t *c, dt_node_t *l, dt_node_t *r)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_OP3);

	dnp->dn_op = DT_TOK_QUESTION;
	dnp->dn_expr = c;
	dnp->dn_left = l;
	dnp->dn_right = r;
	return dnp;
}

dt_node_t *
dt_node_sizeof(dt_pcb_t *pcb, dt_node_t *x)
{
	return dt_node_op1(pcb, DT_TOK_SIZEOF, x);
}

dt_node_t *
dt_node_pdesc(dt_pcb_t *pcb, char *text)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_PDESC);

	dnp->dn_string = text;
	return dnp;
}

static int
dt_node_pdesc_found(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd,
    void *arg)
{
	(void)dtp;
	*(dtrace_probedesc_t *)arg = *pd;
	return 0;
}

/*
 * A probe given by its id (an integer where a description goes, as in
 * dtrace -n 4), as illumos's dt_node_pdesc_by_id takes it: only where
 * a description names probes (not under -P, -m or -f), and a probe
 * that exists; it becomes that probe's full description.
 */
dt_node_t *
dt_node_pdesc_id(dt_pcb_t *pcb, dt_node_t *inp)
{
	static const char *const names[] = { "providers", "modules",
	    "functions" };
	uint64_t id = inp->dn_value;
	dtrace_probedesc_t pd;
	size_t len;
	char *text;

	if (id > UINT32_MAX)
		dt_parser_error(pcb, inp->dn_line, D_PDESC_INVAL,
		    "identifier %llu exceeds maximum probe id",
		    (unsigned long long)id);
	if (pcb->pcb_pspec >= DTRACE_PROBESPEC_PROVIDER &&
	    pcb->pcb_pspec <= DTRACE_PROBESPEC_FUNC)
		dt_parser_error(pcb, inp->dn_line, D_PDESC_INVAL,
		    "probe identifier %llu not permitted when specifying %s",
		    (unsigned long long)id, names[pcb->pcb_pspec -
		    DTRACE_PROBESPEC_PROVIDER]);
	memset(&pd, 0, sizeof(pd));
	pd.dtpd_id = (uint32_t)id;
	/* (ID 0 is no probe's, and to the iterator any probe) */
	if (id == 0 || dtrace_probe_iter(pcb->pcb_hdl, &pd,
	    dt_node_pdesc_found, &pd) != 0)
		dt_parser_error(pcb, inp->dn_line, D_PDESC_INVAL,
		    "invalid probe identifier %llu: Unknown probe identifier",
		    (unsigned long long)id);
	len = strlen(pd.dtpd_provider) + strlen(pd.dtpd_mod) +
	    strlen(pd.dtpd_func) + strlen(pd.dtpd_name) + 4;
	text = dt_parser_alloc(pcb, len);
	snprintf(text, len, "%s:%s:%s:%s", pd.dtpd_provider, pd.dtpd_mod,
	    pd.dtpd_func, pd.dtpd_name);
	inp = dt_node_pdesc(pcb, text);
	return inp;
}

dt_node_t *
dt_node_clause(dt_pcb_t *pcb, dt_node_t *pdescs, dt_node_t *pred,
    dt_node_t *acts)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_CLAUSE);

	dnp->dn_line = pdescs->dn_line;
	dnp->dn_value = (uint64_t)dt_lex_lineno(pcb);	/* where it ends */
	dnp->dn_args = pdescs;
	dnp->dn_expr = pred;
	dnp->dn_acts = acts;
	return dnp;
}

/* Append list r to list l; either may be NULL (an empty statement). */
dt_node_t *
dt_node_link(dt_node_t *l, dt_node_t *r)
{
	dt_node_t *dnp;

	if (l == NULL)
		return r;
	if (r == NULL)
		return l;
	for (dnp = l; dnp->dn_list != NULL; dnp = dnp->dn_list)
		continue;
	dnp->dn_list = r;
	return l;
}

void
dt_node_program(dt_pcb_t *pcb, dt_node_t *clauses)
{
	pcb->pcb_root = clauses;
}

const char *
dt_node_opname(int op)
{
	switch (op) {
	case DT_TOK_COMMA: return ",";
	case DT_TOK_ASGN: return "=";
	case DT_TOK_ADD_EQ: return "+=";
	case DT_TOK_SUB_EQ: return "-=";
	case DT_TOK_MUL_EQ: return "*=";
	case DT_TOK_DIV_EQ: return "/=";
	case DT_TOK_MOD_EQ: return "%=";
	case DT_TOK_AND_EQ: return "&=";
	case DT_TOK_XOR_EQ: return "^=";
	case DT_TOK_OR_EQ: return "|=";
	case DT_TOK_LSH_EQ: return "<<=";
	case DT_TOK_RSH_EQ: return ">>=";
	case DT_TOK_QUESTION: return "?:";
	case DT_TOK_LOR: return "||";
	case DT_TOK_LXOR: return "^^";
	case DT_TOK_LAND: return "&&";
	case DT_TOK_BOR: return "|";
	case DT_TOK_XOR: return "^";
	case DT_TOK_BAND: return "&";
	case DT_TOK_EQU: return "==";
	case DT_TOK_NEQ: return "!=";
	case DT_TOK_LT: return "<";
	case DT_TOK_LE: return "<=";
	case DT_TOK_GT: return ">";
	case DT_TOK_GE: return ">=";
	case DT_TOK_LSH: return "<<";
	case DT_TOK_RSH: return ">>";
	case DT_TOK_ADD: case DT_TOK_IPOS: return "+";
	case DT_TOK_SUB: case DT_TOK_INEG: return "-";
	case DT_TOK_MUL: return "*";
	case DT_TOK_DIV: return "/";
	case DT_TOK_MOD: return "%";
	case DT_TOK_LNEG: return "!";
	case DT_TOK_BNEG: return "~";
	case DT_TOK_PREINC: case DT_TOK_POSTINC: case DT_TOK_INC: return "++";
	case DT_TOK_PREDEC: case DT_TOK_POSTDEC: case DT_TOK_DEC: return "--";
	case DT_TOK_SIZEOF: return "sizeof";
	case DT_TOK_STRINGOF: return "stringof";
	case DT_TOK_OFFSETOF: return "offsetof";
	case DT_TOK_DEREF: return "*";
	case DT_TOK_ADDROF: return "&";
	case DT_TOK_DOT: return ".";
	case DT_TOK_XLATE: return "xlate";
	case DT_TOK_CAST: return "(cast)";
	case DT_TOK_LBRAC: return "[]";
	case DT_TOK_PTR: return "->";
	default: return "?";
	}
}

/* An integer or an enum. */
int
dt_node_is_int(const dt_node_t *dnp)
{
	return dt_decl_is_integral(dnp->dn_type);
}

/* An integer, an enum or a pointer: what a condition may test. */
int
dt_node_is_scalar(const dt_node_t *dnp)
{
	return dt_decl_is_scalar(dnp->dn_type);
}

/* A pointer, or an array (which stands for the address of its first element). */
int
dt_node_is_ptr(const dt_node_t *dnp)
{
	return dnp->dn_type != NULL && (dnp->dn_type->dt_kind == DT_TK_PTR ||
	    dnp->dn_type->dt_kind == DT_TK_ARRAY);
}

/* A string, or what D takes for one: a char pointer or char array. */
static int
dt_node_is_strcompat(const dt_node_t *dnp)
{
	const dt_type_t *b;

	if (dt_node_is_string(dnp))
		return 1;
	/*
	 * NULL, the constant 0, is the string that is not there: s = NULL,
	 * s == NULL.
	 */
	if (dnp->dn_kind == DT_NODE_INT && dnp->dn_value == 0)
		return 1;
	if (!dt_node_is_ptr(dnp) || (b = dnp->dn_type->dt_base) == NULL)
		return 0;
	return b->dt_kind == DT_TK_INT && b->dt_size == 1;
}

int
dt_node_is_string(const dt_node_t *dnp)
{
	return dnp->dn_type != NULL && dnp->dn_type->dt_kind == DT_TK_STRING;
}

/* The plain operator of a compound assignment. */
static int
dt_node_asgn_op(int op)
{
	switch (op) {
	case DT_TOK_ADD_EQ: return DT_TOK_ADD;
	case DT_TOK_SUB_EQ: return DT_TOK_SUB;
	case DT_TOK_MUL_EQ: return DT_TOK_MUL;
	case DT_TOK_DIV_EQ: return DT_TOK_DIV;
	case DT_TOK_MOD_EQ: return DT_TOK_MOD;
	case DT_TOK_AND_EQ: return DT_TOK_BAND;
	case DT_TOK_XOR_EQ: return DT_TOK_XOR;
	case DT_TOK_OR_EQ: return DT_TOK_BOR;
	case DT_TOK_LSH_EQ: return DT_TOK_LSH;
	case DT_TOK_RSH_EQ: return DT_TOK_RSH;
	default: return 0;
	}
}

/* Turn dnp into an integer constant of type t (folding). */
static dt_node_t *
dt_node_setint(dt_node_t *dnp, uint64_t v, const dt_type_t *t)
{
	dnp->dn_kind = DT_NODE_INT;
	dnp->dn_type = t;
	dnp->dn_value = dt_node_normalize(v, t);
	dnp->dn_left = dnp->dn_right = dnp->dn_expr = NULL;
	dnp->dn_flags = DT_NF_COOKED;
	return dnp;
}

static uint64_t
dt_node_fold2(int op, uint64_t l, uint64_t r, const dt_type_t *ot)
{
	int sg = ot->dt_signed;

	switch (op) {
	case DT_TOK_ADD: return l + r;
	case DT_TOK_SUB: return l - r;
	case DT_TOK_MUL: return l * r;
	case DT_TOK_DIV:
		if (sg && (int64_t)r == -1)
			return -l;
		return sg ? (uint64_t)((int64_t)l / (int64_t)r) : l / r;
	case DT_TOK_MOD:
		if (sg && (int64_t)r == -1)
			return 0;
		return sg ? (uint64_t)((int64_t)l % (int64_t)r) : l % r;
	case DT_TOK_BAND: return l & r;
	case DT_TOK_BOR: return l | r;
	case DT_TOK_XOR: return l ^ r;
	case DT_TOK_LSH: return l << (r & 63);
	case DT_TOK_RSH:
		return sg ? (uint64_t)((int64_t)l >> (r & 63)) : l >> (r & 63);
	case DT_TOK_EQU: return l == r;
	case DT_TOK_NEQ: return l != r;
	case DT_TOK_LT: return sg ? (int64_t)l < (int64_t)r : l < r;
	case DT_TOK_LE: return sg ? (int64_t)l <= (int64_t)r : l <= r;
	case DT_TOK_GT: return sg ? (int64_t)l > (int64_t)r : l > r;
	case DT_TOK_GE: return sg ? (int64_t)l >= (int64_t)r : l >= r;
	case DT_TOK_LAND: return l != 0 && r != 0;
	case DT_TOK_LOR: return l != 0 || r != 0;
	case DT_TOK_LXOR: return (l != 0) != (r != 0);
	default: return 0;
	}
}


/* The type a pointer or array points to (void for void *). */
static const dt_type_t *
dt_node_pointee(const dt_node_t *dnp)
{
	return dnp->dn_type->dt_base != NULL ? dnp->dn_type->dt_base :
	    &dt_type_void;
}

/* *p and p[i] of a struct, union or enum only declared: no object. */
static void
dt_node_complete(dt_pcb_t *pcb, const dt_node_t *dnp, const dt_type_t *t)
{
	if ((t->dt_kind == DT_TK_STRUCT || t->dt_kind == DT_TK_UNION ||
	    t->dt_kind == DT_TK_ENUM) && !t->dt_defined)
		dt_parser_error(pcb, dnp->dn_line, D_DECL_INCOMPLETE,
		    "cannot dereference pointer to incomplete type %s",
		    t->dt_name);
	dt_dwarf_check(pcb, dnp->dn_line, t, "the object pointed to");
}

/* *p, p[i], p->m and s.m are lvalues in memory, writable as illumos has it. */
static dt_node_t *
dt_node_setmem(dt_node_t *dnp, const dt_type_t *t)
{
	dnp->dn_type = t;
	dnp->dn_flags |= DT_NF_LVALUE | DT_NF_WRITABLE | DT_NF_MEMORY;
	return dnp;
}

static dt_node_t *dt_node_copy(dt_pcb_t *, const dt_node_t *);
static dt_node_t *dt_node_become(dt_node_t *, const dt_node_t *);
static int dt_node_is_userptr(const dt_node_t *);
static dt_node_t *dt_node_user_deref(dt_pcb_t *, dt_node_t *, dt_node_t *,
    dt_node_t *);

/* args[i] and uregs[i]: a built-in array, loaded by the host */
/*
 * args[N] past the arguments of one of the clause's probes, as illumos's
 * dt_idcook_args refuses it, naming the first such description as it
 * was written.  The dtrace and profile providers give their probes no
 * typed arguments (illumos's kernel answers their argument queries with
 * none), so any args[N] of theirs is out of range; a description that
 * names no provider is judged by the probes it matches.  The pid
 * provider's arguments are argN as their function's parameters make
 * them (dt_dwarf.c), and USDT probes are not judged here.
 */
static int
dt_node_args_noargs(const char *prov)
{
	return strcmp(prov, "dtrace") == 0 || strcmp(prov, "profile") == 0;
}

static int
dt_node_args_probe(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd,
    void *arg)
{
	int *typed = arg;

	(void)dtp;
	if (!dt_node_args_noargs(pd->dtpd_provider))
		*typed = 1;
	return 0;
}

/*
 * The most arguments the probes a description matches have, when the
 * daemon knows each one's (USDT: its note's); else -1.
 */
static int
dt_node_args_count(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd,
    void *arg)
{
	int *np = arg;

	(void)dtp;
	if (pd->dtpd_nargs < 0 || *np == -1)
		*np = -1;
	else if (pd->dtpd_nargs > *np)
		*np = pd->dtpd_nargs;
	return 0;
}

/*
 * args[N], N a constant: out of range for a provider whose probes have
 * no arguments, or past the arguments every probe the description
 * matches has (illumos's check against the probe's own count).
 */
static void
dt_node_args_check(dt_pcb_t *pcb, const dt_node_t *kp)
{
	dtp_prog_t *pp = &pcb->pcb_prog->dp_prog;
	dtrace_probedesc_t d;
	uint32_t i;
	int typed, n;

	for (i = pcb->pcb_cstmt; i < pcb->pcb_cstmt + pcb->pcb_ncstmt &&
	    i < pp->dp_nstmt; i++) {
		const dtp_probedesc_t *pd = &pp->dp_stmt[i].ds_desc;

		typed = 0;
		memset(&d, 0, sizeof(d));
		strcpy(d.dtpd_provider, pd->dpd_provider);
		strcpy(d.dtpd_mod, pd->dpd_mod);
		strcpy(d.dtpd_func, pd->dpd_func);
		strcpy(d.dtpd_name, pd->dpd_name);
		if (pd->dpd_provider[0] == '\0' ||
		    strpbrk(pd->dpd_provider, "*?[") != NULL) {
			/* no match (-Z), or no daemon: nothing to judge */
			if (dtrace_probe_iter(pcb->pcb_hdl, &d,
			    dt_node_args_probe, &typed) != 0)
				typed = 1;
		} else if (!dt_node_args_noargs(pd->dpd_provider))
			typed = 1;
		n = -2;		/* none seen yet */
		/* a pid provider's counts are not known: spare the list */
		if (typed && strncmp(pd->dpd_provider, "pid", 3) == 0 &&
		    isdigit((unsigned char)pd->dpd_provider[3]))
			continue;
		if (typed && (dtrace_probe_iter(pcb->pcb_hdl, &d,
		    dt_node_args_count, &n) != 0 || n < 0 ||
		    kp->dn_value < (uint64_t)n))
			continue;
		dt_parser_error(pcb, kp->dn_line, D_ARGS_IDX,
		    "index %lld is out of range for %s:%s:%s:%s args[ ]",
		    (long long)kp->dn_value, pd->dpd_provider, pd->dpd_mod,
		    pd->dpd_func, pd->dpd_name);
	}
}

/*
 * args[argno] (dnp) in a clause whose probes are all proc probes that
 * give it one type: dnp becomes the value of that type (a cast, a
 * stringof, or an xlate of the task).  0 if it is no such clause.
 */
static int
dt_node_args_proc(dt_pcb_t *pcb, dt_node_t *dnp, int argno)
{
	dtp_prog_t *pp = &pcb->pcb_prog->dp_prog;
	const char *type = NULL;
	const dt_type_t *tt, *task;
	char base[32];
	dt_node_t *v;
	uint32_t i;

	for (i = pcb->pcb_cstmt; i < pcb->pcb_cstmt + pcb->pcb_ncstmt &&
	    i < pp->dp_nstmt; i++) {
		const dtp_probedesc_t *pd = &pp->dp_stmt[i].ds_desc;

		if (strcmp(pd->dpd_provider, "proc") != 0 ||
		    dt_probe_proc_globtype(pd->dpd_name, argno, &type) != 0)
			return 0;
	}
	if (type == NULL || *type == '\0')
		return 0;
	v = dt_node_copy(pcb, dnp);
	if (strcmp(type, "int") == 0) {
		dt_node_become(dnp, dt_node_cook(pcb, dt_node_op2(pcb,
		    DT_TOK_CAST, dt_node_typename(pcb, &dt_type_int),
		    v)));
		return 1;
	}
	if (strcmp(type, "string") == 0) {
		dt_node_become(dnp, dt_node_cook(pcb, dt_node_op1(pcb,
		    DT_TOK_STRINGOF, dt_node_op2(pcb, DT_TOK_CAST,
		    dt_node_typename(pcb, dt_decl_ptr(pcb,
		    &dt_type_char)), v))));
		return 1;
	}
	/* "psinfo_t *", "lwpsinfo_t *": procfs.d's, of the task */
	snprintf(base, sizeof(base), "%.*s", (int)(strlen(type) - 2), type);
	if ((tt = dt_decl_lookup_any(pcb->pcb_hdl, base)) == NULL)
		dt_parser_error(pcb, dnp->dn_line, D_TYPE_ERR,
		    "%s is not defined (the D library procfs.d is not "
		    "loaded)", base);
	task = dt_decl_ptr(pcb, dt_decl_sou_ref(pcb, DT_TK_STRUCT,
	    "task_struct", dnp->dn_line));
	dt_node_become(dnp, dt_node_cook(pcb, dt_node_op2(pcb, DT_TOK_XLATE,
	    dt_node_typename(pcb, dt_decl_ptr(pcb, tt)), dt_node_op2(pcb,
	    DT_TOK_CAST, dt_node_typename(pcb, task), v))));
	return 1;
}

static dt_node_t *
dt_node_cook_builtin_array(dt_pcb_t *pcb, dt_node_t *dnp, dt_ident_t *idp)
{
	dt_node_t *kp = dnp->dn_right;

	if (kp == NULL || kp->dn_list != NULL)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "%s[ ] prototype mismatch: it takes one index",
		    idp->di_name);
	kp = dnp->dn_right = dt_node_cook(pcb, kp);
	if (!dt_node_is_int(kp))
		dt_parser_error(pcb, kp->dn_line, D_PROTO_ARG,
		    "%s[ ] argument #1 is incompatible with prototype:\n"
		    "\tprototype: int\n\t argument: %s", idp->di_name,
		    kp->dn_type->dt_name);
	/* as illumos: a register is named by a constant */
	if (idp->di_id == DIF_VAR_UREGS && kp->dn_kind != DT_NODE_INT)
		dt_parser_error(pcb, kp->dn_line, D_PROTO_ARG,
		    "%s[ ] argument #1 is incompatible with prototype:\n"
		    "\tprototype: integer constant\n\t argument: %s",
		    idp->di_name, kp->dn_type->dt_name);
	if (idp->di_id == DIF_VAR_UREGS && kp->dn_type->dt_signed &&
	    (int64_t)kp->dn_value < 0)
		dt_parser_error(pcb, kp->dn_line, D_REGS_IDX,
		    "index %lld is out of range for array %s",
		    (long long)kp->dn_value, idp->di_name);
	if (idp->di_id == DIF_VAR_UREGS && kp->dn_value >= DT_UREGS_NONE &&
	    kp->dn_value < DT_UREGS_NONE + 2)
		return dt_node_setint(dnp, 0, idp->di_type);
	if (kp->dn_kind == DT_NODE_INT && idp->di_id == DIF_VAR_ARGS)
		dt_node_args_check(pcb, kp);
	if (kp->dn_kind == DT_NODE_INT && idp->di_id == DIF_VAR_ARGS &&
	    kp->dn_value >= 10)
		dt_parser_error(pcb, kp->dn_line, D_PROTO_ARG,
		    "index %lld is out of range for args[ ]",
		    (long long)kp->dn_value);
	dnp->dn_kind = DT_NODE_VAR;
	dnp->dn_op = 0;
	dnp->dn_ident = idp;
	dnp->dn_args = kp;
	dnp->dn_left = dnp->dn_right = NULL;
	dnp->dn_type = idp->di_type;
	dnp->dn_flags |= DT_NF_LVALUE;
	idp->di_flags |= DT_IDFLG_REF;
	/* args[N] of proc probes: their types (dt_node_args_proc) */
	if (idp->di_id == DIF_VAR_ARGS && kp->dn_kind == DT_NODE_INT &&
	    dt_node_args_proc(pcb, dnp, (int)kp->dn_value))
		return dnp;
	/*
	 * args[N] of pid probes whose function has DWARF: the value as its
	 * parameter's C type (the return value's, args[1] of a return
	 * probe), as a cast of the register makes it (dt_dwarf.c).
	 */
	if (idp->di_id == DIF_VAR_ARGS && kp->dn_kind == DT_NODE_INT) {
		const dt_type_t *t;
		char why[256], what[32];

		if ((t = dt_dwarf_argtype(pcb, (int)kp->dn_value, why,
		    sizeof(why))) != NULL) {
			snprintf(what, sizeof(what), "args[%d]",
			    (int)kp->dn_value);
			dt_dwarf_check(pcb, dnp->dn_line, t, what);
			dt_node_become(dnp, dt_node_cook(pcb, dt_node_op2(pcb,
			    DT_TOK_CAST, dt_node_typename(pcb, t),
			    dt_node_copy(pcb, dnp))));
		}
	}
	return dnp;
}

/* p[i] on a pointer or an array */
static dt_node_t *
dt_node_cook_index(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *bp, *ip;

	bp = dnp->dn_left = dt_node_cook(pcb, dnp->dn_left);
	if (!dt_node_is_ptr(bp))
		dt_parser_error(pcb, dnp->dn_line, D_IDENT_BADREF,
		    "operator [ ] may not be applied to operand of type "
		    "\"%s\"", bp->dn_type->dt_name);
	/* x[1, 2] on a D variable that is no associative array */
	if (bp->dn_kind == DT_NODE_VAR && dnp->dn_right != NULL &&
	    dnp->dn_right->dn_list != NULL)
		dt_parser_error(pcb, dnp->dn_line, D_ARR_BADREF,
		    "cannot access scalar %s as an associative array",
		    bp->dn_ident->di_name);
	if (dnp->dn_right == NULL || dnp->dn_right->dn_list != NULL)
		dt_parser_error(pcb, dnp->dn_line, D_IDENT_BADREF,
		    "operator [ ] on a pointer or array takes one index");
	ip = dnp->dn_right = dt_node_cook(pcb, dnp->dn_right);
	if (!dt_node_is_int(ip))
		dt_parser_error(pcb, dnp->dn_line, D_OP_INT,
		    "operator [ ] requires an index of integral type");
	/* a constant index of an array: within its bounds, as illumos */
	if (bp->dn_type->dt_kind == DT_TK_ARRAY && ip->dn_kind == DT_NODE_INT &&
	    ((bp->dn_type->dt_nelems != 0 &&	/* 0: a flexible array */
	    ip->dn_value >= bp->dn_type->dt_nelems) ||
	    (ip->dn_type->dt_signed && (int64_t)ip->dn_value < 0)))
		dt_parser_error(pcb, dnp->dn_line, D_ARR_BOUNDS,
		    "index outside array bounds: %lld, max is %llu",
		    (long long)ip->dn_value,
		    (unsigned long long)bp->dn_type->dt_nelems);
	if (dt_node_pointee(bp)->dt_kind == DT_TK_VOID)
		dt_parser_error(pcb, dnp->dn_line, D_DEREF_VOID,
		    "cannot dereference pointer to void");
	if (dt_node_pointee(bp)->dt_kind == DT_TK_FUNC)
		dt_parser_error(pcb, dnp->dn_line, D_DEREF_FUNC,
		    "cannot dereference pointer to function: %s",
		    bp->dn_type->dt_name);
	dt_node_complete(pcb, dnp, dt_node_pointee(bp));
	if (dt_node_is_userptr(bp))
		return dt_node_user_deref(pcb, dnp, bp, ip);
	dt_node_setmem(dnp, dt_node_pointee(bp));
	/*
	 * An element of an array is written in place where the array is:
	 * a D variable's (global, clause-local, thread-local or an
	 * associative array's element, whose storage the VM lends), or a
	 * writable object's; not an inline's value.
	 */
	if (bp->dn_type->dt_kind == DT_TK_ARRAY &&
	    !(bp->dn_flags & DT_NF_WRITABLE))
		dnp->dn_flags &= ~DT_NF_WRITABLE;
	return dnp;
}


/*
 * Pointers into the traced process (DT_TU_PTR: the target's types,
 * dt_dwarf.c).  D reads what they point to by copying it in, as a
 * program would write it by hand: p->m becomes
 * ((S *)((uintptr_t)copyin((uintptr_t)p + off, sizeof (m)) - off))->m,
 * so that only the member is copied and bit-fields stay as they are;
 * *p and p[i] become *(T *)copyin((uintptr_t)(p + i), sizeof (T)), and
 * stringof(p) copyinstr(p).
 */
/* dn_value of a cast to a pointer: to D's memory, whatever it points to */
#define DT_CAST_DMEM	1

static int
dt_node_is_userptr(const dt_node_t *dnp)
{
	return dnp->dn_type != NULL && dnp->dn_type->dt_kind == DT_TK_PTR &&
	    dnp->dn_type->dt_user == DT_TU_PTR;
}

static dt_node_t *
dt_node_user_uintptr(dt_pcb_t *pcb, dt_node_t *dnp)
{
	return dt_node_op2(pcb, DT_TOK_CAST, dt_node_typename(pcb,
	    dt_decl_lookup("uintptr_t")), dnp);
}

static dt_node_t *
dt_node_user_copyin(dt_pcb_t *pcb, dt_node_t *addr, uint32_t size)
{
	return dt_node_subr(pcb, "copyin", dt_node_link(addr,
	    dt_node_int(pcb, size, 0)));
}

/* p->m, p a pointer into the target */
static dt_node_t *
dt_node_user_member(dt_pcb_t *pcb, dt_node_t *dnp, dt_node_t *lp,
    const dt_type_t *st, const dt_member_t *m)
{
	const dt_type_t *mt = m->dm_type;
	dt_node_t *e;

	lp->dn_flags |= DT_NF_DONE;
	e = dt_node_op2(pcb, DT_TOK_ADD, dt_node_user_uintptr(pcb, lp),
	    dt_node_int(pcb, m->dm_off, 0));
	if (mt->dt_kind == DT_TK_ARRAY && mt->dt_nelems == 0) {
		/* a flexible array: a pointer into the target */
		e = dt_node_op2(pcb, DT_TOK_CAST, dt_node_typename(pcb,
		    dt_dwarf_userptr(pcb->pcb_hdl, mt->dt_base)), e);
		return dt_node_become(dnp, dt_node_cook(pcb, e));
	}
	e = dt_node_user_copyin(pcb, e, mt->dt_size);
	e = dt_node_op2(pcb, DT_TOK_SUB, dt_node_op2(pcb, DT_TOK_CAST,
	    dt_node_typename(pcb, dt_decl_lookup("uintptr_t")), e),
	    dt_node_int(pcb, m->dm_off, 0));
	e = dt_node_op2(pcb, DT_TOK_CAST, dt_node_typename(pcb,
	    dt_decl_ptr(pcb, st)), e);
	e->dn_value = DT_CAST_DMEM;
	e = dt_node_member(pcb, DT_TOK_PTR, e, m->dm_name);
	return dt_node_become(dnp, dt_node_cook(pcb, e));
}

/* *p (ip NULL) and p[i], p a pointer into the target */
static dt_node_t *
dt_node_user_deref(dt_pcb_t *pcb, dt_node_t *dnp, dt_node_t *bp,
    dt_node_t *ip)
{
	const dt_type_t *t = dt_node_pointee(bp);
	dt_node_t *e = bp;

	bp->dn_flags |= DT_NF_DONE;
	if (ip != NULL) {
		ip->dn_flags |= DT_NF_DONE;
		e = dt_node_op2(pcb, DT_TOK_ADD, bp, ip);
	}
	e = dt_node_user_copyin(pcb, dt_node_user_uintptr(pcb, e),
	    t->dt_size);
	e = dt_node_op2(pcb, DT_TOK_CAST, dt_node_typename(pcb,
	    dt_decl_ptr(pcb, t)), e);
	e->dn_value = DT_CAST_DMEM;
	e = dt_node_op1(pcb, DT_TOK_DEREF, e);
	return dt_node_become(dnp, dt_node_cook(pcb, e));
}

/*
 * print(p): the object p points to, as a value of its own (a copy of
 * the cooked p, dereferenced: copied in if p points into the target).
 */
dt_node_t *
dt_node_print_obj(dt_pcb_t *pcb, dt_node_t *p)
{
	dt_node_t *cp = dt_node_copy(pcb, p);

	cp->dn_flags |= DT_NF_DONE;
	return dt_node_cook(pcb, dt_node_op1(pcb, DT_TOK_DEREF, cp));
}

/* p->m and s.m */
static dt_node_t *dt_node_cook_xlate(dt_pcb_t *, dt_node_t *);

static dt_node_t *
dt_node_cook_member(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *lp;
	dt_ident_t *idp;

	/*
	 * curpsinfo->pr_pid: a member of an inline's xlate is that one
	 * member's translation, so that a clause computes only what it
	 * uses (procfs.d's members each read /proc)
	 */
	if (dnp->dn_left->dn_kind == DT_NODE_IDENT &&
	    (idp = dt_idhash_lookup(pcb->pcb_hdl->dt_globals,
	    dnp->dn_left->dn_string)) != NULL &&
	    idp->di_kind == DT_IDENT_INLINE &&
	    (idp->di_flags & DT_IDFLG_XLATE)) {
		idp->di_flags |= DT_IDFLG_REF;
		dnp->dn_left = dt_node_copy(pcb, idp->di_inline);
	}
	if (dnp->dn_left->dn_kind == DT_NODE_OP2 &&
	    dnp->dn_left->dn_op == DT_TOK_XLATE)
		return dt_node_cook_xlate(pcb, dnp);
	lp = dnp->dn_left = dt_node_cook(pcb, dnp->dn_left);
	const char *op = dt_node_opname(dnp->dn_op);
	const dt_type_t *st = lp->dn_type;
	const dt_member_t *m;

	if (dnp->dn_op == DT_TOK_PTR) {
		if (!dt_node_is_ptr(lp) && lp->dn_kind == DT_NODE_VAR &&
		    lp->dn_ident->di_id == DIF_VAR_ARGS &&
		    lp->dn_args != NULL && lp->dn_args->dn_kind ==
		    DT_NODE_INT) {
			char why[256];

			(void)dt_dwarf_argtype(pcb, (int)lp->dn_args->dn_value,
			    why, sizeof(why));
			dt_parser_error(pcb, dnp->dn_line, D_OP_PTR,
			    "operator %s cannot be applied to args[%d]: it "
			    "has no C type (%s); cast argN to a pointer type "
			    "instead", op, (int)lp->dn_args->dn_value, why);
		}
		if (!dt_node_is_ptr(lp))
			dt_parser_error(pcb, dnp->dn_line, D_OP_PTR,
			    "operator %s must be applied to a pointer", op);
		st = dt_node_pointee(lp);
	}
	if (st->dt_kind == DT_TK_OPAQUE)
		dt_dwarf_check(pcb, dnp->dn_line, st, lp->dn_type->dt_name);
	if (st->dt_kind != DT_TK_STRUCT && st->dt_kind != DT_TK_UNION)
		dt_parser_error(pcb, dnp->dn_line, D_OP_SOU,
		    "operator %s cannot be applied to type \"%s\"; must be "
		    "applied to a struct or union", op, lp->dn_type->dt_name);
	if (!st->dt_defined)
		dt_parser_error(pcb, dnp->dn_line, D_OP_SOU,
		    "operator %s cannot be applied to a forward declaration: "
		    "no %s definition is available", op, st->dt_name);
	if ((m = dt_decl_member_lookup(st, dnp->dn_string)) == NULL)
		dt_parser_error(pcb, dnp->dn_line, D_TYPE_MEMBER,
		    "%s is not a member of %s", dnp->dn_string, st->dt_name);
	if (m->dm_type->dt_kind == DT_TK_OPAQUE) {
		char what[512];

		snprintf(what, sizeof(what), "member %s of %s", m->dm_name,
		    st->dt_name);
		dt_dwarf_check(pcb, dnp->dn_line, m->dm_type, what);
	}
	if (dnp->dn_op == DT_TOK_PTR && dt_node_is_userptr(lp))
		return dt_node_user_member(pcb, dnp, lp, st, m);
	dnp->dn_member = m;
	dt_node_setmem(dnp, m->dm_type);
	if (m->dm_bits != 0)
		dnp->dn_flags |= DT_NF_BITFIELD;
	/*
	 * s.m of a struct in a D variable is written in place, as illumos
	 * allows: a global's or a clause-local's storage, or a
	 * thread-local's or an associative array element's, which the VM
	 * lends (dt_cg.c allocates it first); or of a writable object in
	 * memory.  An inline's or a cast's value is not an object.
	 */
	if (dnp->dn_op == DT_TOK_DOT && !(lp->dn_flags & DT_NF_WRITABLE &&
	    (lp->dn_flags & DT_NF_MEMORY || lp->dn_kind == DT_NODE_VAR)))
		dnp->dn_flags &= ~DT_NF_WRITABLE;
	return dnp;
}

/*
 * May a value (node r) be assigned to an object of type lt, as illumos
 * has it: integers to integers, strings to strings (or char arrays and
 * pointers, which are copied as strings), compatible pointers (or the
 * constant 0), the same struct, union or array type.
 */
static int
dt_node_asgn_compat(const dt_type_t *lt, const dt_node_t *r)
{
	const dt_type_t *rt = r->dn_type;

	switch (lt->dt_kind) {
	case DT_TK_INT:
	case DT_TK_ENUM:
		return dt_decl_is_integral(rt);
	case DT_TK_STRING:
		return dt_node_is_strcompat(r);
	case DT_TK_PTR:
		if (r->dn_kind == DT_NODE_INT && r->dn_value == 0)
			return 1;
		return dt_decl_ptrcompat(lt, rt);
	default:
		return lt == rt;
	}
}

/* An inline used in an expression: a copy of its cooked tree. */
static dt_node_t *
dt_node_copy(dt_pcb_t *pcb, const dt_node_t *src)
{
	dt_node_t *dnp, *link, **app;
	const dt_node_t *ap;

	if (src == NULL)
		return NULL;
	dnp = dt_node_alloc(pcb, src->dn_kind);
	link = dnp->dn_link;
	*dnp = *src;
	dnp->dn_link = link;
	dnp->dn_list = NULL;
	dnp->dn_reg = -1;
	dnp->dn_left = dt_node_copy(pcb, src->dn_left);
	dnp->dn_right = dt_node_copy(pcb, src->dn_right);
	dnp->dn_expr = dt_node_copy(pcb, src->dn_expr);
	dnp->dn_args = NULL;
	for (ap = src->dn_args, app = &dnp->dn_args; ap != NULL;
	    ap = ap->dn_list, app = &(*app)->dn_list)
		*app = dt_node_copy(pcb, ap);
	/* the right operand list of [ ] before cooking: keep the shape */
	if (src->dn_right != NULL && src->dn_right->dn_list != NULL) {
		dt_node_t **rp = &dnp->dn_right->dn_list;

		for (ap = src->dn_right->dn_list; ap != NULL;
		    ap = ap->dn_list, rp = &(*rp)->dn_list)
			*rp = dt_node_copy(pcb, ap);
	}
	return dnp;
}

/*
 * Make dnp the node src (cooking happens in place: callers keep their
 * pointers to the nodes they cook), keeping its place in lists.
 */
static dt_node_t *
dt_node_become(dt_node_t *dnp, const dt_node_t *src)
{
	dt_node_t *list = dnp->dn_list, *link = dnp->dn_link;
	int line = dnp->dn_line;

	*dnp = *src;
	dnp->dn_list = list;
	dnp->dn_link = link;
	dnp->dn_line = line;
	return dnp;
}

static dt_node_t *
dt_node_inline(dt_pcb_t *pcb, dt_node_t *dnp, dt_ident_t *idp)
{
	idp->di_flags |= DT_IDFLG_REF;
	if (idp->di_flags & DT_IDFLG_XLATE)
		dt_node_become(dnp, dt_node_cook(pcb,
		    dt_node_copy(pcb, idp->di_inline)));
	else
		dt_node_become(dnp, dt_node_copy(pcb, idp->di_inline));
	/* a value, not an lvalue: an inline cannot be assigned */
	dnp->dn_flags &= ~DT_NF_WRITABLE;
	return dnp;
}


static void dt_node_subst(dt_pcb_t *, dt_node_t *, const char *,
    const dt_node_t *);

/*
 * name[a, b] of an inline with parameters: its expression with each
 * parameter replaced by its argument converted to the parameter's type,
 * then converted to the inline's type, as a cast would.
 */
static dt_node_t *
dt_node_inline_call(dt_pcb_t *pcb, dt_node_t *dnp, dt_ident_t *idp)
{
	dt_node_t *e, *ap, *pp, *arg;
	int n = 0, m = 0;

	for (pp = idp->di_iparams; pp != NULL; pp = pp->dn_list)
		n++;
	for (ap = dnp->dn_right; ap != NULL; ap = ap->dn_list)
		m++;
	if (m != n)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "%s[ ] prototype mismatch: %d arg%s passed, %d expected",
		    idp->di_name, m, m == 1 ? "" : "s", n);
	idp->di_flags |= DT_IDFLG_REF;
	e = dt_node_copy(pcb, idp->di_inline);
	for (pp = idp->di_iparams, ap = dnp->dn_right; pp != NULL;
	    pp = pp->dn_list, ap = ap->dn_list) {
		arg = dt_node_copy(pcb, ap);
		if (dt_decl_is_scalar(pp->dn_type))
			arg = dt_node_op2(pcb, DT_TOK_CAST,
			    dt_node_typename(pcb, pp->dn_type), arg);
		dt_node_subst(pcb, e, pp->dn_string, arg);
	}
	e = dt_node_cook(pcb, e);
	if (!dt_node_asgn_compat(idp->di_type, e))
		dt_parser_error(pcb, dnp->dn_line, D_OP_INCOMPAT,
		    "inline %s definition uses incompatible types: "
		    "\"%s\" = \"%s\"", idp->di_name, idp->di_type->dt_name,
		    e->dn_type->dt_name);
	if (dt_decl_is_scalar(idp->di_type) && e->dn_type != idp->di_type)
		e = dt_node_cook(pcb, dt_node_op2(pcb, DT_TOK_CAST,
		    dt_node_typename(pcb, idp->di_type), e));
	dt_node_become(dnp, e);
	dnp->dn_flags &= ~DT_NF_WRITABLE;
	return dnp;
}

/* Replace every use of the identifier name in a parse tree by arg. */
static void
dt_node_subst(dt_pcb_t *pcb, dt_node_t *dnp, const char *name,
    const dt_node_t *arg)
{
	dt_node_t *ap, *cp, *list, *link;

	if (dnp == NULL)
		return;
	if (dnp->dn_kind == DT_NODE_IDENT && dnp->dn_op != DT_TOK_PTR &&
	    strcmp(dnp->dn_string, name) == 0) {
		cp = dt_node_copy(pcb, arg);
		list = dnp->dn_list;
		link = dnp->dn_link;
		*dnp = *cp;
		dnp->dn_list = list;
		dnp->dn_link = link;
		return;
	}
	dt_node_subst(pcb, dnp->dn_left, name, arg);
	dt_node_subst(pcb, dnp->dn_expr, name, arg);
	for (ap = dnp->dn_right; ap != NULL; ap = ap->dn_list)
		dt_node_subst(pcb, ap, name, arg);
	for (ap = dnp->dn_args; ap != NULL; ap = ap->dn_list)
		dt_node_subst(pcb, ap, name, arg);
}

/* "inline type name = expression;" */
void
dt_node_inline_decl(dt_pcb_t *pcb, const dt_typespec_t *ts, dt_declr_t *dd,
    dt_node_t *expr)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	const dt_type_t *t;
	dt_node_t *e, *params = NULL, *pp, *raw;
	dt_ident_t *idp;
	dt_dop_t **opp;

	if (ts->ts_class != DT_DCLASS_NONE)
		dt_parser_error(pcb, dd->dd_line, D_DECL_CLASS,
		    "inline %s may not have a storage class", dd->dd_name);
	/*
	 * "inline int sum[int a, int b] = a + b;": an inline with
	 * parameters, used as sum[1, 2], each parameter a named type
	 */
	for (opp = &dd->dd_ops; *opp != NULL; opp = &(*opp)->do_next) {
		if ((*opp)->do_next == NULL &&
		    (*opp)->do_kind == DT_DOP_ASSOC) {
			params = (*opp)->do_keys;
			*opp = NULL;
			break;
		}
	}
	for (pp = params; pp != NULL; pp = pp->dn_list) {
		if (pp->dn_string == NULL)
			dt_parser_error(pcb, dd->dd_line, D_SYNTAX,
			    "inline %s[ ] parameter must be named",
			    dd->dd_name);
	}
	t = dt_decl_derive(pcb, dt_decl_spec(pcb, ts, dd->dd_line), dd);
	if ((idp = dt_idhash_lookup(dtp->dt_globals, dd->dd_name)) != NULL) {
		/* illumos's report: what the name was before */
		static const char *const kinds[] = {
			[DT_IDENT_SCALAR] = "scalar",
			[DT_IDENT_ARRAY] = "array",
			[DT_IDENT_ACTFUNC] = "tracing function",
			[DT_IDENT_AGGFUNC] = "aggregating function",
			[DT_IDENT_AGG] = "aggregation",
			[DT_IDENT_ASSOC] = "associative array",
			[DT_IDENT_FUNC] = "function",
			[DT_IDENT_ENUMR] = "enumerator",
			[DT_IDENT_INLINE] = "inline",
		};
		const char *kind = (unsigned)idp->di_kind <
		    sizeof(kinds) / sizeof(kinds[0]) &&
		    kinds[idp->di_kind] != NULL ? kinds[idp->di_kind] : "";

		dt_parser_error(pcb, dd->dd_line, D_DECL_IDRED,
		    "identifier redefined: %s\n\t current: inline "
		    "definition\n\tprevious: %s %s", dd->dd_name, kind,
		    idp->di_kind != DT_IDENT_FUNC && idp->di_type != NULL ?
		    idp->di_type->dt_name : "");
	}
	if (dt_decl_lookup_any(dtp, dd->dd_name) != NULL)
		dt_parser_error(pcb, dd->dd_line, D_DECL_IDRED,
		    "identifier redeclared: %s", dd->dd_name);
	if (t->dt_kind == DT_TK_VOID || (dt_decl_is_byref(t) &&
	    t->dt_kind != DT_TK_STRUCT && t->dt_kind != DT_TK_UNION))
		dt_parser_error(pcb, dd->dd_line, D_DECL_VOIDOBJ,
		    "inline %s may not be of type %s", dd->dd_name,
		    t->dt_name);
	if (params != NULL) {
		/* cooked where used, with the arguments in place */
		idp = dt_idhash_insert(dtp->dt_globals, dd->dd_name,
		    DT_IDENT_INLINE, DT_IDFLG_BUILTIN, 0, t);
		if (idp == NULL) {
			dt_set_errno(dtp, EDT_NOMEM);
			longjmp(pcb->pcb_jmpbuf, 1);
		}
		idp->di_inline = expr;
		idp->di_iparams = params;
		idp->di_gen = pcb->pcb_gen;
		return;
	}
	/* kept as written too: a member of it translates that member */
	raw = expr->dn_kind == DT_NODE_OP2 && expr->dn_op == DT_TOK_XLATE ?
	    dt_node_copy(pcb, expr) : NULL;
	e = dt_node_cook(pcb, expr);
	/* a struct or union inline: a value of that very type (xlate) */
	if (dt_decl_is_byref(t) && e->dn_type != t)
		dt_parser_error(pcb, dd->dd_line, D_OP_INCOMPAT,
		    "inline %s definition uses incompatible types: "
		    "\"%s\" = \"%s\"", dd->dd_name, t->dt_name,
		    e->dn_type->dt_name);
	if (!dt_node_asgn_compat(t, e))
		dt_parser_error(pcb, dd->dd_line, D_OP_INCOMPAT,
		    "inline %s definition uses incompatible types: "
		    "\"%s\" = \"%s\"", dd->dd_name, t->dt_name,
		    e->dn_type->dt_name);
	if (dt_decl_is_scalar(t) && e->dn_type != t)
		e = dt_node_cook(pcb, dt_node_op2(pcb, DT_TOK_CAST,
		    dt_node_typename(pcb, t), e));
	idp = dt_idhash_insert(dtp->dt_globals, dd->dd_name, DT_IDENT_INLINE,
	    DT_IDFLG_BUILTIN, 0, t);
	if (idp == NULL) {
		dt_set_errno(dtp, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	idp->di_inline = e;
	if (raw != NULL && e->dn_type == t) {
		idp->di_inline = raw;
		idp->di_flags |= DT_IDFLG_XLATE;
	}
	idp->di_gen = pcb->pcb_gen;
}

dt_node_t *
dt_node_xlator_member(dt_pcb_t *pcb, char *name, dt_node_t *expr)
{
	dt_node_t *dnp = dt_node_alloc(pcb, DT_NODE_XLMEMB);

	dnp->dn_string = name;
	dnp->dn_left = expr;
	return dnp;
}

/* "translator T < U *P > { member = expression; ... };" */
void
dt_node_xlator_decl(dt_pcb_t *pcb, dt_node_t *to, dt_node_t *from,
    char *param, dt_node_t *members)
{
	const dt_type_t *t = to->dn_type;
	dt_xlator_t *dx;
	dt_node_t *mp;

	/* as illumos, these two at the line where the declaration ends */
	if ((t->dt_kind != DT_TK_STRUCT && t->dt_kind != DT_TK_UNION) ||
	    !t->dt_defined)
		dt_parser_error(pcb, dt_lex_lineno(pcb), D_XLATE_SOU,
		    "translator output type must be a struct or union");
	for (dx = pcb->pcb_xlators; dx != NULL; dx = dx->dx_next) {
		if (dx->dx_to == t && dx->dx_from == from->dn_type)
			dt_parser_error(pcb, dt_lex_lineno(pcb),
			    D_XLATE_REDECL,
			    "translator from %s to %s has already been "
			    "declared", from->dn_type->dt_name, t->dt_name);
	}
	for (mp = members; mp != NULL; mp = mp->dn_list) {
		if (dt_decl_member_lookup(t, mp->dn_string) == NULL)
			dt_parser_error(pcb, mp->dn_line, D_XLATE_MEMB,
			    "translator member %s is not a member of %s",
			    mp->dn_string, t->dt_name);
		/* as illumos, a member defined twice is not refused */
	}
	dx = dt_parser_alloc(pcb, sizeof(*dx));
	dx->dx_to = t;
	dx->dx_from = from->dn_type;
	dx->dx_param = param;
	dx->dx_members = members;
	dx->dx_next = pcb->pcb_xlators;
	pcb->pcb_xlators = dx;
}

/*
 * The translator for xlate <t>(arg) (op DT_TOK_PTR: t is a pointer, the
 * result is used as one), or a compile error.  *argp may become what the
 * translator's parameter takes (xlate <T>(*p) with a translator of p).
 */
static dt_xlator_t *
dt_node_xlate_find(dt_pcb_t *pcb, int line, int op, const dt_type_t *t,
    dt_node_t **argp, const dt_type_t **stp)
{
	dt_node_t *arg = *argp;
	const dt_type_t *st, *at = arg->dn_type;
	dt_xlator_t *dx;

	if (op == DT_TOK_PTR) {
		if (t->dt_kind != DT_TK_PTR)
			dt_parser_error(pcb, line, D_OP_PTR,
			    "operator -> must be applied to a pointer");
		st = t->dt_base;
	} else
		st = t;
	for (dx = pcb->pcb_xlators; dx != NULL; dx = dx->dx_next) {
		if (dx->dx_to != st)
			continue;
		if (op == DT_TOK_PTR && ((dt_node_is_ptr(arg) &&
		    dt_decl_ptrcompat(dx->dx_from, at)) || dx->dx_from == at ||
		    (dt_decl_is_integral(at) &&
		    dt_decl_is_integral(dx->dx_from))))
			break;
		if (op == DT_TOK_DOT) {
			if (dx->dx_from->dt_kind == DT_TK_PTR &&
			    dx->dx_from->dt_base == at) {
				/* xlate <T>(*p): the translator takes p */
				arg = arg->dn_kind == DT_NODE_OP1 &&
				    arg->dn_op == DT_TOK_DEREF ? arg->dn_left :
				    dt_node_cook(pcb, dt_node_op1(pcb,
				    DT_TOK_ADDROF, arg));
				break;
			}
			if (dx->dx_from == at || (dt_decl_is_integral(at) &&
			    dt_decl_is_integral(dx->dx_from)))
				break;
		}
	}
	if (dx == NULL)
		dt_parser_error(pcb, line, D_XLATE_NONE,
		    "no translator available to translate %s to %s",
		    at->dt_name, t->dt_name);
	*argp = arg;
	*stp = st;
	return dx;
}

/*
 * A translator member's expression with its parameter replaced by arg,
 * cooked and converted to the member's type.
 */
static dt_node_t *
dt_node_xlate_member(dt_pcb_t *pcb, int line, const dt_xlator_t *dx,
    const dt_node_t *mp, const dt_member_t *m, const dt_node_t *arg)
{
	dt_node_t *e = dt_node_copy(pcb, mp->dn_left);

	dt_node_subst(pcb, e, dx->dx_param, arg);
	e = dt_node_cook(pcb, e);
	/*
	 * As illumos's translators take any string for a char array
	 * member: procfs.d's pr_psargs = stringof(...)
	 */
	if (m->dm_type->dt_kind == DT_TK_ARRAY &&
	    m->dm_type->dt_base->dt_kind == DT_TK_INT &&
	    m->dm_type->dt_base->dt_size == 1 && dt_node_is_strcompat(e))
		return e;
	if (!dt_node_asgn_compat(m->dm_type, e))
		dt_parser_error(pcb, line, D_XLATE_INCOMPAT,
		    "translator member %s of type %s is defined by an "
		    "expression of type %s", m->dm_name, m->dm_type->dt_name,
		    e->dn_type->dt_name);
	if (dt_decl_is_scalar(m->dm_type) && e->dn_type != m->dm_type)
		e = dt_node_cook(pcb, dt_node_op2(pcb, DT_TOK_CAST,
		    dt_node_typename(pcb, m->dm_type), e));
	return e;
}

/*
 * xlate <T *>(p)->m and xlate <T>(*p).m: the translator's expression for
 * m, with its parameter replaced by the operand, converted to m's type.
 */
static dt_node_t *
dt_node_cook_xlate(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *xp = dnp->dn_left, *arg, *mp, *e;
	const dt_type_t *t = xp->dn_left->dn_type, *st;
	const dt_member_t *m;
	dt_xlator_t *dx;

	arg = xp->dn_right = dt_node_cook(pcb, xp->dn_right);
	dx = dt_node_xlate_find(pcb, dnp->dn_line, dnp->dn_op, t, &arg, &st);
	for (mp = dx->dx_members; mp != NULL; mp = mp->dn_list) {
		if (strcmp(mp->dn_string, dnp->dn_string) == 0)
			break;
	}
	m = dt_decl_member_lookup(st, dnp->dn_string);
	if (m == NULL)
		dt_parser_error(pcb, dnp->dn_line, D_XLATE_MEMB,
		    "%s is not a member of the translator from %s to %s",
		    dnp->dn_string, dx->dx_from->dt_name, st->dt_name);
	/*
	 * A member of the type the translator leaves out, as illumos's
	 * procfs.d leaves out what its kernel has no value for
	 */
	if (mp == NULL)
		dt_parser_error(pcb, dnp->dn_line, D_XLATE_NOCONV,
		    "translator does not define conversion for member: %s",
		    dnp->dn_string);
	e = dt_node_xlate_member(pcb, dnp->dn_line, dx, mp, m, arg);
	dt_node_become(dnp, e);
	dnp->dn_flags &= ~DT_NF_WRITABLE;
	return dnp;
}

/*
 * A bare xlate <T>(x): the translated struct, built in scratch space
 * (zeroed, so members the translator leaves out are 0), member by member
 * in the translator's order; xlate <T *>(p) is a pointer to it.  As D:
 * (this->tmp = (T *)alloca(sizeof (T)), this->tmp->m = e, ..., *this->tmp)
 * with a clause-local variable no program can name.
 */
static dt_node_t *
dt_node_cook_xlate_all(dt_pcb_t *pcb, dt_node_t *dnp)
{
	const dt_type_t *t = dnp->dn_left->dn_type, *st;
	int op = t->dt_kind == DT_TK_PTR ? DT_TOK_PTR : DT_TOK_DOT;
	dt_node_t *arg, *mp, *e, *val;
	const dt_member_t *m;
	dt_xlator_t *dx;
	char name[300];
	int xlstr;

	arg = dnp->dn_right = dt_node_cook(pcb, dnp->dn_right);
	dx = dt_node_xlate_find(pcb, dnp->dn_line, op, t, &arg, &st);
	snprintf(name, sizeof(name), "%%xlate<%s>", st->dt_name);
	val = dt_node_subr(pcb, "alloca", dt_node_int(pcb, st->dt_size,
	    DT_INTF_U));
	e = dt_node_op2(pcb, DT_TOK_ASGN, dt_node_dvar(pcb, DIFV_SCOPE_LOCAL,
	    dt_parser_strdup(pcb, name)), dt_node_op2(pcb, DT_TOK_CAST,
	    dt_node_typename(pcb, dt_decl_ptr(pcb, st)), val));
	for (mp = dx->dx_members; mp != NULL; mp = mp->dn_list) {
		m = dt_decl_member_lookup(st, mp->dn_string);
		val = dt_node_xlate_member(pcb, dnp->dn_line, dx, mp, m, arg);
		/* a char array (pr_fname): copied as the string it holds */
		if (m->dm_type->dt_kind == DT_TK_ARRAY &&
		    val->dn_type->dt_kind == DT_TK_ARRAY &&
		    dt_node_is_strcompat(val))
			val = dt_node_cook(pcb, dt_node_op1(pcb, DT_TOK_STRINGOF,
			    val));
		xlstr = m->dm_type->dt_kind == DT_TK_ARRAY &&
		    dt_node_is_string(val);
		if (xlstr) {
			/* at most the member's size, with its NUL */
			val->dn_list = dt_node_int(pcb, 0, 0);
			val->dn_list->dn_list = dt_node_int(pcb,
			    m->dm_type->dt_size - 1, 0);
			val = dt_node_subr(pcb, "substr", val);
		}
		val = dt_node_op2(pcb, DT_TOK_ASGN, dt_node_member(pcb,
		    DT_TOK_PTR, dt_node_dvar(pcb, DIFV_SCOPE_LOCAL,
		    dt_parser_strdup(pcb, name)), mp->dn_string), val);
		if (xlstr)
			val->dn_flags |= DT_NF_XLSTR;
		e = dt_node_op2(pcb, DT_TOK_COMMA, e, val);
	}
	val = dt_node_dvar(pcb, DIFV_SCOPE_LOCAL, dt_parser_strdup(pcb, name));
	if (op == DT_TOK_DOT)
		val = dt_node_op1(pcb, DT_TOK_DEREF, val);
	e = dt_node_cook(pcb, dt_node_op2(pcb, DT_TOK_COMMA, e, val));
	dt_node_become(dnp, e);
	dnp->dn_flags &= ~DT_NF_WRITABLE;
	return dnp;
}

/* Resolve an identifier used as a value. */
static dt_node_t *
dt_node_cook_ident(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dt_ident_t *idp = dt_idhash_lookup(dtp->dt_globals, dnp->dn_string);

	/*
	 * A predicate may test a thread-local no clause has assigned yet
	 * (/self->ts/ before the clause that sets it): it is an int, 0
	 * until assigned.  Elsewhere, as illumos: self-> and this-> must
	 * be assigned before a read.
	 */
	if (idp == NULL && dnp->dn_op == DT_TOK_PTR && pcb->pcb_inpred &&
	    dnp->dn_value == DIFV_SCOPE_THREAD)
		idp = dt_node_declare(pcb, dnp->dn_line, dnp->dn_string,
		    DT_IDENT_SCALAR, DIFV_SCOPE_THREAD, &dt_type_int);
	if (idp == NULL && dnp->dn_op == DT_TOK_PTR)
		dt_parser_error(pcb, dnp->dn_line, D_VAR_UNDEF,
		    "%s has not yet been declared or assigned",
		    dnp->dn_string);
	if (idp == NULL) {
		const dt_type_t *et;
		int64_t v;

		/* an enumerator of the target's (dt_dwarf.c) */
		if (dt_dwarf_enumerator(dtp, dnp->dn_string, &v, &et) == 0)
			return dt_node_setint(dnp, (uint64_t)v, et);
		dt_parser_error(pcb, dnp->dn_line, D_IDENT_UNDEF,
		    "failed to resolve %s: Unknown variable name",
		    dnp->dn_string);
	}
	if (idp->di_kind == DT_IDENT_ENUMR) {
		idp->di_flags |= DT_IDFLG_REF;
		return dt_node_setint(dnp, (uint64_t)idp->di_value,
		    idp->di_type);
	}
	if (idp->di_kind == DT_IDENT_INLINE && idp->di_iparams != NULL)
		dt_parser_error(pcb, dnp->dn_line, D_IDENT_BADREF,
		    "inline %s has parameters and must be indexed: %s[ ]",
		    idp->di_name, idp->di_name);
	if (idp->di_kind == DT_IDENT_INLINE)
		return dt_node_inline(pcb, dnp, idp);
	if (idp->di_kind == DT_IDENT_ASSOC)
		dt_parser_error(pcb, dnp->dn_line, D_IDENT_BADREF,
		    "%s is an associative array and must be indexed: "
		    "%s[ ]", idp->di_name, idp->di_name);
	if (idp->di_kind == DT_IDENT_ACTFUNC ||
	    idp->di_kind == DT_IDENT_AGGFUNC || idp->di_kind == DT_IDENT_FUNC)
		dt_parser_error(pcb, dnp->dn_line, D_IDENT_BADREF,
		    "%s( ) is a function and may not be used as a variable",
		    idp->di_name);
	if (idp->di_flags & DT_IDFLG_KERNEL)
		dt_parser_error(pcb, dnp->dn_line, D_VAR_UNSUP,
		    "variable %s is kernel-only: it is not available when "
		    "tracing user processes", idp->di_name);
	if (idp->di_flags & DT_IDFLG_UNSUP)
		dt_parser_error(pcb, dnp->dn_line, D_VAR_UNSUP,
		    "variable %s is not supported yet", idp->di_name);
	if (idp->di_kind == DT_IDENT_ARRAY)
		dt_parser_error(pcb, dnp->dn_line, D_IDENT_BADREF,
		    "%s is an array and must be indexed: %s[ ]",
		    idp->di_name, idp->di_name);
	dnp->dn_kind = DT_NODE_VAR;
	dnp->dn_ident = idp;
	dnp->dn_type = idp->di_type;
	dnp->dn_flags |= DT_NF_LVALUE;
	if (!(idp->di_flags & DT_IDFLG_BUILTIN))
		dnp->dn_flags |= DT_NF_WRITABLE;
	idp->di_flags |= DT_IDFLG_REF;
	return dnp;
}

static void
dt_node_check_lvalue(dt_pcb_t *pcb, dt_node_t *dnp, int op)
{
	if (!(dnp->dn_flags & DT_NF_LVALUE))
		dt_parser_error(pcb, dnp->dn_line, D_OP_LVAL,
		    "operator %s requires modifiable lvalue as an operand",
		    dt_node_opname(op));
	if (!(dnp->dn_flags & DT_NF_WRITABLE))
		dt_parser_error(pcb, dnp->dn_line, D_OP_WRITE,
		    "operator %s can only be applied to a writable variable",
		    dt_node_opname(op));
}

static void
dt_node_check_int(dt_pcb_t *pcb, dt_node_t *dnp, int op, int binary)
{
	int arith = op == DT_TOK_ADD || op == DT_TOK_SUB || op == DT_TOK_MUL ||
	    op == DT_TOK_DIV || op == DT_TOK_IPOS || op == DT_TOK_INEG;

	if (dt_node_is_int(dnp))
		return;
	dt_parser_error(pcb, dnp->dn_line, arith ? D_OP_ARITH : D_OP_INT,
	    "operator %s requires %s of %s type", dt_node_opname(op),
	    binary ? "operands" : "an operand", arith ? "arithmetic" : "integral");
}

/*
 * Declare a user variable implicitly.  Globals (scalars and associative
 * arrays), thread-locals and clause-locals have an id space each, all
 * from DIF_VAR_OTHER_UBASE, as in illumos.
 */
dt_ident_t *
dt_node_declare(dt_pcb_t *pcb, int line, const char *name, int kind,
    int scope, const dt_type_t *t)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	uint32_t *nextp = scope == DIFV_SCOPE_THREAD ? &dtp->dt_nexttls :
	    scope == DIFV_SCOPE_LOCAL ? &dtp->dt_nextlocal : &dtp->dt_nextvar;
	dt_ident_t *idp;

	if (*nextp > DIF_VAR_OTHER_MAX)
		dt_parser_error(pcb, line, D_IDENT_UNDEF,
		    "cannot declare %s: too many variables", name);
	/*
	 * A clause-local's slot is strsize bytes; a dynamic variable (an
	 * associative array element, a thread-local) is as large as its
	 * type, as illumos sizes its chunks, up to what DIF carries.
	 */
	if (scope == DIFV_SCOPE_LOCAL && dt_decl_is_byref(t) &&
	    t->dt_size > dt_decl_strsize(dtp))
		dt_parser_error(pcb, line, D_DECL_DYNOBJ,
		    "%s of type %s is %u bytes: a clause-local variable holds "
		    "at most strsize (%u) bytes", name, t->dt_name,
		    t->dt_size, dt_decl_strsize(dtp));
	if ((scope != DIFV_SCOPE_GLOBAL || kind == DT_IDENT_ASSOC) &&
	    dt_decl_is_byref(t) && t->dt_size > DIF_MAXSTRSIZE)
		dt_parser_error(pcb, line, D_DECL_DYNOBJ,
		    "%s of type %s is %u bytes: a dynamic variable holds at "
		    "most %u bytes", name, t->dt_name, t->dt_size,
		    (unsigned int)DIF_MAXSTRSIZE);
	idp = dt_idhash_insert(dtp->dt_globals, name, kind, 0, *nextp, t);
	if (idp == NULL) {
		dt_set_errno(dtp, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	(*nextp)++;
	idp->di_scope = (uint8_t)scope;
	idp->di_gen = pcb->pcb_gen;
	return idp;
}

/*
 * a[k1, k2] and self->a[k]: the keys' count and types are fixed by the
 * first use, as illumos does; later uses must match it.  create says an
 * assignment may declare the array, with values of type rt.  The node
 * becomes a DT_NODE_VAR whose dn_args are the cooked keys.
 */
static dt_node_t *
dt_node_cook_array(dt_pcb_t *pcb, dt_node_t *dnp, int create,
    const dt_type_t *rt)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dt_node_t *bp = dnp->dn_left, *kp;
	const dt_type_t **keys;
	dt_ident_t *idp;
	int scope, n, i;

	if (bp->dn_kind == DT_NODE_IDENT && bp->dn_op != DT_TOK_PTR &&
	    (idp = dt_idhash_lookup(dtp->dt_globals, bp->dn_string)) !=
	    NULL && idp->di_kind == DT_IDENT_INLINE && idp->di_iparams != NULL)
		return dt_node_inline_call(pcb, dnp, idp);
	/* p[i] and a[i] on a pointer or an array: memory */
	if (bp->dn_kind != DT_NODE_IDENT || ((idp = dt_idhash_lookup(
	    dtp->dt_globals, bp->dn_string)) != NULL &&
	    (idp->di_kind == DT_IDENT_SCALAR ||
	    idp->di_kind == DT_IDENT_INLINE)))
		return dt_node_cook_index(pcb, dnp);
	scope = bp->dn_op == DT_TOK_PTR ? (int)bp->dn_value :
	    DIFV_SCOPE_GLOBAL;
	if (scope == DIFV_SCOPE_LOCAL)
		dt_parser_error(pcb, dnp->dn_line, D_DECL_LOCASSC,
		    "associative arrays may not be clause-local: %s[ ]",
		    bp->dn_string);
	idp = dt_idhash_lookup(dtp->dt_globals, bp->dn_string);
	if (idp != NULL && idp->di_kind == DT_IDENT_ARRAY)
		return dt_node_cook_builtin_array(pcb, dnp, idp);
	if (idp != NULL && idp->di_kind != DT_IDENT_ASSOC)
		dt_parser_error(pcb, dnp->dn_line, D_IDENT_BADREF,
		    "%s is not an associative array and may not be indexed",
		    idp->di_name);

	n = 0;
	for (kp = dnp->dn_right; kp != NULL; kp = kp->dn_list) {
		if (dt_node_cook(pcb, kp) != kp)
			dt_parser_error(pcb, kp->dn_line, D_SYNTAX,
			    "key #%d of %s[ ] cannot be cooked", n + 1,
			    bp->dn_string);
		n++;
		if (!dt_node_is_scalar(kp) && !dt_node_is_string(kp) &&
		    !dt_decl_is_sou_key(kp->dn_type))
			dt_parser_error(pcb, kp->dn_line, D_KEY_TYPE,
			    "%s expression may not be used as an associative "
			    "array index: key #%d", kp->dn_type != NULL ?
			    kp->dn_type->dt_name : "void", n);
	}
	if (n > DIF_DTR_NREGS - (scope == DIFV_SCOPE_THREAD))
		dt_parser_error(pcb, dnp->dn_line, D_KEY_TYPE,
		    "%s[ ] has too many keys: %d, at most %d", bp->dn_string,
		    n, DIF_DTR_NREGS - (scope == DIFV_SCOPE_THREAD));

	if (idp == NULL) {
		if (!create)
			dt_parser_error(pcb, dnp->dn_line, D_VAR_UNDEF,
			    "%s has not yet been declared or assigned",
			    bp->dn_string);
		if ((keys = calloc(n, sizeof(*keys))) == NULL) {
			dt_set_errno(dtp, EDT_NOMEM);
			longjmp(pcb->pcb_jmpbuf, 1);
		}
		for (kp = dnp->dn_right, i = 0; kp != NULL;
		    kp = kp->dn_list, i++)
			keys[i] = kp->dn_type;
		idp = dt_node_declare(pcb, dnp->dn_line, bp->dn_string,
		    DT_IDENT_ASSOC, scope, rt);
		idp->di_keys = keys;
		idp->di_nargs = n;
	} else {
		if (n != idp->di_nargs)
			dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
			    "%s[ ] prototype mismatch: %d arg%s passed, %d "
			    "expected", idp->di_name, n, n == 1 ? "" : "s",
			    idp->di_nargs);
		for (kp = dnp->dn_right, i = 0; kp != NULL;
		    kp = kp->dn_list, i++) {
			/* a struct or union key: that very type */
			if (kp->dn_type->dt_kind == idp->di_keys[i]->dt_kind &&
			    (!dt_decl_is_sou_key(kp->dn_type) ||
			    kp->dn_type == idp->di_keys[i]))
				continue;
			dt_parser_error(pcb, kp->dn_line, D_PROTO_ARG,
			    "%s[ ] key #%d is incompatible with "
			    "prototype:\n\tprototype: %s\n\t      key: %s",
			    idp->di_name, i + 1, idp->di_keys[i]->dt_name,
			    kp->dn_type->dt_name);
		}
	}
	dnp->dn_kind = DT_NODE_VAR;
	dnp->dn_op = 0;
	dnp->dn_ident = idp;
	dnp->dn_args = dnp->dn_right;
	dnp->dn_left = dnp->dn_right = NULL;
	dnp->dn_type = idp->di_type;
	dnp->dn_flags |= DT_NF_LVALUE | DT_NF_WRITABLE;
	idp->di_flags |= DT_IDFLG_REF;
	return dnp;
}

/*
 * The left side of "=" (and of "+=", "++"...): an existing variable, or a
 * new user variable implicitly declared with type rt.
 */
static dt_node_t *
dt_node_cook_asgn_lhs(dt_pcb_t *pcb, dt_node_t *lp, const dt_type_t *rt)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;

	if (lp->dn_kind == DT_NODE_OP2 && lp->dn_op == DT_TOK_LBRAC)
		return dt_node_cook_array(pcb, lp, 1, rt);
	if (lp->dn_kind == DT_NODE_IDENT &&
	    dt_idhash_lookup(dtp->dt_globals, lp->dn_string) == NULL)
		(void)dt_node_declare(pcb, lp->dn_line, lp->dn_string,
		    DT_IDENT_SCALAR, lp->dn_op == DT_TOK_PTR ?
		    (int)lp->dn_value : DIFV_SCOPE_GLOBAL, rt);
	return dt_node_cook(pcb, lp);
}

/*
 * self->v = 0 and a[k] = 0 free a dynamic variable whatever its type (a
 * string, a struct): the idiom scripts use to release what a thread-local
 * or an associative array element holds.
 */
static int
dt_node_is_dvar_delete(const dt_node_t *lp, const dt_node_t *rp)
{
	const dt_ident_t *idp;

	if (lp->dn_kind != DT_NODE_VAR || rp->dn_kind != DT_NODE_INT ||
	    rp->dn_value != 0)
		return 0;
	idp = lp->dn_ident;
	return idp->di_kind == DT_IDENT_ASSOC ||
	    idp->di_scope == DIFV_SCOPE_THREAD;
}

/* What a store into memory (*p = v, p->m = v) may not do. */
static void
dt_node_check_memstore(dt_pcb_t *pcb, dt_node_t *lp, int op)
{
	if (!(lp->dn_flags & DT_NF_MEMORY))
		return;
	/* a struct, union or array in memory is copied whole by "=" only */
	if (dt_decl_is_byref(lp->dn_type) && op != DT_TOK_ASGN)
		dt_parser_error(pcb, lp->dn_line, D_OP_WRITE,
		    "operator %s cannot be applied to a %s",
		    dt_node_opname(op), lp->dn_type->dt_name);
}

/* Make a cooked node the string at its address, as stringof() does. */
void
dt_node_stringof(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *cp = dt_node_alloc(pcb, dnp->dn_kind);
	dt_node_t *link = cp->dn_link;

	*cp = *dnp;
	cp->dn_link = link;
	cp->dn_list = NULL;
	dnp->dn_kind = DT_NODE_OP1;
	dnp->dn_op = DT_TOK_STRINGOF;
	dnp->dn_left = cp;
	dnp->dn_right = dnp->dn_expr = dnp->dn_args = NULL;
	dnp->dn_type = &dt_type_string;
	dnp->dn_flags = DT_NF_COOKED;
}

/* sizeof: of a type, or of an expression's type (not evaluated) */
static dt_node_t *
dt_node_cook_sizeof(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *cp = dnp->dn_left;
	const dt_type_t *t;

	if (cp->dn_kind != DT_NODE_TYPE)
		cp = dt_node_cook(pcb, cp);
	t = cp->dn_type;
	if (t == NULL || t->dt_kind == DT_TK_VOID)
		dt_parser_error(pcb, dnp->dn_line, D_SIZEOF_TYPE,
		    "cannot apply sizeof to an operand of unknown size");
	if (cp->dn_flags & DT_NF_BITFIELD)
		dt_parser_error(pcb, dnp->dn_line, D_SIZEOF_BITFIELD,
		    "cannot apply sizeof to a bit-field");
	if (t->dt_kind == DT_TK_FUNC)
		dt_parser_error(pcb, dnp->dn_line, D_SIZEOF_TYPE,
		    "cannot apply sizeof to an expression of function type: "
		    "%s", t->dt_name);
	if ((t->dt_kind == DT_TK_STRUCT || t->dt_kind == DT_TK_UNION ||
	    t->dt_kind == DT_TK_ENUM) && !t->dt_defined)
		dt_parser_error(pcb, dnp->dn_line, D_SIZEOF_TYPE,
		    "cannot apply sizeof to an incomplete type: %s",
		    t->dt_name);
	return dt_node_setint(dnp, t->dt_kind == DT_TK_STRING ?
	    dt_decl_strsize(pcb->pcb_hdl) : t->dt_size,
	    dt_decl_lookup("size_t"));
}

static dt_node_t *
dt_node_cook_offsetof(dt_pcb_t *pcb, dt_node_t *dnp)
{
	const dt_type_t *t = dnp->dn_left->dn_type;
	const dt_member_t *m;

	if ((t->dt_kind != DT_TK_STRUCT && t->dt_kind != DT_TK_UNION) ||
	    !t->dt_defined)
		dt_parser_error(pcb, dnp->dn_line, D_OFFSETOF_TYPE,
		    "offsetof operand must be a struct or union type");
	if ((m = dt_decl_member_lookup(t, dnp->dn_string)) == NULL)
		dt_parser_error(pcb, dnp->dn_line, D_UNKNOWN,
		    "failed to determine offset of %s: %s is not a member "
		    "of %s", dnp->dn_string, dnp->dn_string, t->dt_name);
	if (m->dm_bits != 0)
		dt_parser_error(pcb, dnp->dn_line, D_OFFSETOF_BITFIELD,
		    "cannot take offset of a bit-field: %s", dnp->dn_string);
	return dt_node_setint(dnp, m->dm_off, dt_decl_lookup("size_t"));
}

/*
 * An action called where a value is wanted, as illumos sees it: a
 * function of type void, whose arguments are still checked.  Returns the
 * action's identifier, or NULL when dnp is not an action call.
 */
static const dt_ident_t *
dt_node_actcall(dt_pcb_t *pcb, const dt_node_t *dnp)
{
	const dt_ident_t *idp;
	const dt_node_t *ap;
	int n = 0;

	if (dnp->dn_kind != DT_NODE_FUNC || (idp = dt_idhash_lookup(
	    pcb->pcb_hdl->dt_globals, dnp->dn_string)) == NULL ||
	    idp->di_kind != DT_IDENT_ACTFUNC ||
	    (idp->di_flags & DT_IDFLG_UNSUP))
		return NULL;
	for (ap = dnp->dn_args; ap != NULL; ap = ap->dn_list)
		n++;
	if (idp->di_nargs >= 0 && n != idp->di_nargs)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "%s( ) prototype mismatch: %d arg%s passed, %d expected",
		    idp->di_name, n, n == 1 ? "" : "s", idp->di_nargs);
	return idp;
}

static dt_node_t *
dt_node_cook_op1(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *cp;
	const dt_type_t *t;
	int op = dnp->dn_op;

	if (op == DT_TOK_SIZEOF)
		return dt_node_cook_sizeof(pcb, dnp);
	if (op == DT_TOK_OFFSETOF)
		return dt_node_cook_offsetof(pcb, dnp);
	/* &p->m, p into the target: the member's address there */
	if (op == DT_TOK_ADDROF && dnp->dn_left->dn_kind == DT_NODE_OP2 &&
	    dnp->dn_left->dn_op == DT_TOK_PTR &&
	    !(dnp->dn_left->dn_left->dn_kind == DT_NODE_OP2 &&
	    dnp->dn_left->dn_left->dn_op == DT_TOK_XLATE)) {
		dt_node_t *lp = dt_node_cook(pcb, dnp->dn_left->dn_left);
		const dt_member_t *m;

		dnp->dn_left->dn_left = lp;
		if (dt_node_is_userptr(lp) && lp->dn_type->dt_base != NULL &&
		    (m = dt_decl_member_lookup(lp->dn_type->dt_base,
		    dnp->dn_left->dn_string)) != NULL && m->dm_bits == 0) {
			lp->dn_flags |= DT_NF_DONE;
			return dt_node_become(dnp, dt_node_cook(pcb,
			    dt_node_op2(pcb, DT_TOK_CAST, dt_node_typename(pcb,
			    dt_dwarf_userptr(pcb->pcb_hdl, m->dm_type)),
			    dt_node_op2(pcb, DT_TOK_ADD,
			    dt_node_user_uintptr(pcb, lp),
			    dt_node_int(pcb, m->dm_off, 0)))));
		}
	}

	/* ++ and -- declare a new global as "=" does: an int starting at 0 */
	if (op == DT_TOK_PREINC || op == DT_TOK_PREDEC ||
	    op == DT_TOK_POSTINC || op == DT_TOK_POSTDEC)
		cp = dt_node_cook_asgn_lhs(pcb, dnp->dn_left, &dt_type_int);
	else if (op == DT_TOK_ADDROF && dnp->dn_left->dn_kind == DT_NODE_AGG)
		dt_parser_error(pcb, dnp->dn_line, D_ADDROF_VAR,
		    "cannot take address of dynamic variable");
	else if ((op == DT_TOK_IPOS || op == DT_TOK_INEG ||
	    op == DT_TOK_BNEG) && dt_node_actcall(pcb, dnp->dn_left) != NULL)
		dt_parser_error(pcb, dnp->dn_line, op == DT_TOK_BNEG ?
		    D_OP_INT : D_OP_ARITH, "operator %s requires an operand "
		    "of %s type", dt_node_opname(op), op == DT_TOK_BNEG ?
		    "integral" : "arithmetic");
	else
		cp = dt_node_cook(pcb, dnp->dn_left);
	dnp->dn_left = cp;
	switch (op) {
	case DT_TOK_IPOS:
	case DT_TOK_INEG:
	case DT_TOK_BNEG:
		dt_node_check_int(pcb, cp, op, 0);
		t = dt_decl_promote(cp->dn_type);
		if (cp->dn_kind == DT_NODE_INT) {
			uint64_t v = cp->dn_value;

			return dt_node_setint(dnp, op == DT_TOK_IPOS ? v :
			    op == DT_TOK_INEG ? -v : ~v, t);
		}
		dnp->dn_type = t;
		break;
	case DT_TOK_LNEG:
		if (!dt_node_is_scalar(cp))
			dt_parser_error(pcb, dnp->dn_line, D_OP_SCALAR,
			    "operator ! requires an operand of scalar type");
		if (cp->dn_kind == DT_NODE_INT)
			return dt_node_setint(dnp, cp->dn_value == 0,
			    &dt_type_int);
		dnp->dn_type = &dt_type_int;
		break;
	case DT_TOK_DEREF:
		if (!dt_node_is_ptr(cp))
			dt_parser_error(pcb, dnp->dn_line, D_DEREF_NONPTR,
			    "cannot dereference non-pointer type");
		if (dt_node_pointee(cp)->dt_kind == DT_TK_VOID)
			dt_parser_error(pcb, dnp->dn_line, D_DEREF_VOID,
			    "cannot dereference pointer to void");
		if (dt_node_pointee(cp)->dt_kind == DT_TK_FUNC)
			dt_parser_error(pcb, dnp->dn_line, D_DEREF_FUNC,
			    "cannot dereference pointer to function: %s",
			    cp->dn_type->dt_name);
		dt_node_complete(pcb, dnp, dt_node_pointee(cp));
		if (dt_node_is_userptr(cp))
			return dt_node_user_deref(pcb, dnp, cp, NULL);
		dt_node_setmem(dnp, dt_node_pointee(cp));
		break;
	case DT_TOK_ADDROF:
		if (cp->dn_flags & DT_NF_BITFIELD)
			dt_parser_error(pcb, dnp->dn_line, D_ADDROF_BITFIELD,
			    "cannot take address of bit-field");
		/* as illumos: no D variable has an address, a struct's neither */
		if (cp->dn_kind == DT_NODE_VAR)
			dt_parser_error(pcb, dnp->dn_line, D_ADDROF_VAR,
			    "cannot take address of dynamic variable");
		if (!(cp->dn_flags & DT_NF_MEMORY) && cp->dn_kind != DT_NODE_VAR)
			dt_parser_error(pcb, dnp->dn_line, D_ADDROF_LVAL,
			    "unacceptable operand for unary & operator");
		dnp->dn_type = dt_decl_ptr(pcb, cp->dn_type);
		break;
	case DT_TOK_STRINGOF:
		if (!dt_node_is_scalar(cp) && !dt_node_is_ptr(cp) &&
		    !dt_node_is_string(cp))
			dt_parser_error(pcb, dnp->dn_line, D_STRINGOF_TYPE,
			    "stringof( ) operand must be a string, a pointer, "
			    "an array or an integer: not \"%s\"",
			    cp->dn_type->dt_name);
		if (dt_node_is_userptr(cp) && (cp->dn_flags |= DT_NF_DONE))
			return dt_node_become(dnp, dt_node_cook(pcb,
			    dt_node_subr(pcb, "copyinstr",
			    dt_node_user_uintptr(pcb, cp))));
		dnp->dn_type = &dt_type_string;
		break;
	case DT_TOK_PREINC:
	case DT_TOK_PREDEC:
	case DT_TOK_POSTINC:
	case DT_TOK_POSTDEC:
		dt_node_check_lvalue(pcb, cp, op);
		if (!dt_node_is_scalar(cp) || cp->dn_type->dt_kind ==
		    DT_TK_ARRAY)
			dt_parser_error(pcb, dnp->dn_line, D_OP_SCALAR,
			    "operator %s requires operand of scalar type",
			    dt_node_opname(op));
		if (cp->dn_kind == DT_NODE_VAR)
			cp->dn_ident->di_flags |= DT_IDFLG_MOD;
		dnp->dn_type = cp->dn_type;
		break;
	default:
		dt_parser_error(pcb, dnp->dn_line, D_SYNTAX,
		    "unsupported operator %s", dt_node_opname(op));
	}
	return dnp;
}

static dt_node_t *
dt_node_cook_op2(dt_pcb_t *pcb, dt_node_t *dnp)
{
	int op = dnp->dn_op, bop;
	dt_node_t *lp, *rp;
	const dt_type_t *t;

	switch (op) {
	case DT_TOK_ASGN:
		rp = dnp->dn_right = dt_node_cook(pcb, dnp->dn_right);
		if (dnp->dn_left->dn_kind == DT_NODE_AGG)
			dt_parser_error(pcb, dnp->dn_line, D_AGG_SCALAR,
			    "aggregation assignment may only be used as a "
			    "statement");
		if (rp->dn_type->dt_kind == DT_TK_VOID)
			dt_parser_error(pcb, dnp->dn_line, D_DECL_VOIDOBJ,
			    "cannot assign a void expression");
		lp = dnp->dn_left = dt_node_cook_asgn_lhs(pcb, dnp->dn_left,
		    rp->dn_type);
		/*
		 * an array is not assigned whole, as in C, but by a bare
		 * xlate, whose translator may make a char array member of
		 * a string (cut to the member's size, dt_cg.c copies it)
		 */
		if ((dnp->dn_flags & DT_NF_XLSTR) &&
		    lp->dn_type->dt_kind == DT_TK_ARRAY &&
		    dt_node_is_string(rp)) {
			lp->dn_flags |= DT_NF_XLSTR;
			dnp->dn_type = lp->dn_type;
			return dnp;
		}
		if (lp->dn_type->dt_kind == DT_TK_ARRAY ||
		    lp->dn_type->dt_kind == DT_TK_FUNC)
			dt_parser_error(pcb, dnp->dn_line, D_OP_ARRFUN,
			    "operator %s may not be applied to operand of "
			    "type \"%s\"", dt_node_opname(op),
			    lp->dn_type->dt_name);
		dt_node_check_lvalue(pcb, lp, op);
		if (!dt_node_asgn_compat(lp->dn_type, rp) &&
		    !dt_node_is_dvar_delete(lp, rp))
			dt_parser_error(pcb, dnp->dn_line, D_OP_INCOMPAT,
			    "operands have incompatible types: \"%s\" = \"%s\"",
			    lp->dn_type->dt_name, rp->dn_type->dt_name);
		dt_node_check_memstore(pcb, lp, op);
		if (lp->dn_kind == DT_NODE_VAR)
			lp->dn_ident->di_flags |= DT_IDFLG_MOD;
		dnp->dn_type = lp->dn_type;
		return dnp;

	case DT_TOK_COMMA:
		dnp->dn_left = dt_node_cook(pcb, dnp->dn_left);
		rp = dnp->dn_right = dt_node_cook(pcb, dnp->dn_right);
		dnp->dn_type = rp->dn_type;
		return dnp;

	case DT_TOK_CAST:
		lp = dnp->dn_left;
		rp = dnp->dn_right = dt_node_cook(pcb, dnp->dn_right);
		t = lp->dn_type;
		/* to its own type (a struct too): the value, not an lvalue */
		if (t == rp->dn_type && !dt_decl_is_scalar(t)) {
			rp->dn_flags &= ~(DT_NF_LVALUE | DT_NF_WRITABLE);
			return rp;
		}
		/*
		 * illumos's D adds casts of scalars and pointers to string:
		 * (string)p is the string at p, stringof(p).
		 */
		if (t->dt_kind == DT_TK_STRING && !dt_node_is_string(rp) &&
		    (dt_node_is_scalar(rp) || dt_node_is_ptr(rp))) {
			dnp->dn_kind = DT_NODE_OP1;
			dnp->dn_op = DT_TOK_STRINGOF;
			dnp->dn_left = rp;
			dnp->dn_right = NULL;
			return dt_node_cook(pcb, dnp);
		}
		if ((!dt_decl_is_scalar(t) && t->dt_kind != DT_TK_VOID) ||
		    (!dt_node_is_scalar(rp) && !dt_node_is_ptr(rp)) ||
		    (t->dt_kind == DT_TK_VOID && rp->dn_kind == DT_NODE_INT))
			dt_parser_error(pcb, dnp->dn_line, D_CAST_INVAL,
			    "invalid cast expression: \"%s\" to \"%s\"",
			    rp->dn_type->dt_name, t->dt_name);
		/*
		 * (struct req *)arg0, a target's type: a pointer into the
		 * target, unless it converts what copyin() or alloca()
		 * returned, which is D's memory already
		 */
		if (t->dt_kind == DT_TK_PTR && t->dt_user != DT_TU_PTR &&
		    dnp->dn_value != DT_CAST_DMEM &&
		    t->dt_base != NULL && t->dt_base->dt_user == DT_TU_TYPE &&
		    !(rp->dn_kind == DT_NODE_FUNC && rp->dn_string != NULL &&
		    (strcmp(rp->dn_string, "copyin") == 0 ||
		    strcmp(rp->dn_string, "alloca") == 0)) &&
		    !(rp->dn_type->dt_kind == DT_TK_PTR &&
		    rp->dn_type->dt_user != DT_TU_PTR && !dt_node_is_int(rp)))
			t = dt_dwarf_userptr(pcb->pcb_hdl, t->dt_base);
		if (rp->dn_kind == DT_NODE_INT && t->dt_kind != DT_TK_VOID)
			return dt_node_setint(dnp, rp->dn_value, t);
		dnp->dn_type = t;
		return dnp;

	case DT_TOK_PTR:
	case DT_TOK_DOT:
		return dt_node_cook_member(pcb, dnp);

	case DT_TOK_XLATE:
		return dt_node_cook_xlate_all(pcb, dnp);

	case DT_TOK_LBRAC:
		return dt_node_cook_array(pcb, dnp, 0, NULL);
	}

	if ((bop = dt_node_asgn_op(op)) != 0) {
		/*
		 * As illumos: E1 op= E2 reads E1 before E2 is looked at, so
		 * a variable no earlier statement assigned is refused first.
		 */
		lp = dnp->dn_left;
		if (lp->dn_kind == DT_NODE_IDENT && dt_idhash_lookup(
		    pcb->pcb_hdl->dt_globals, lp->dn_string) == NULL)
			dt_parser_error(pcb, lp->dn_line, D_VAR_UNDEF,
			    "%s has not yet been declared or assigned",
			    lp->dn_string);
		rp = dnp->dn_right = dt_node_cook(pcb, dnp->dn_right);
		lp = dnp->dn_left = dt_node_cook_asgn_lhs(pcb, dnp->dn_left,
		    dt_node_is_int(rp) ? dt_decl_promote(rp->dn_type) :
		    rp->dn_type);
		dt_node_check_lvalue(pcb, lp, op);
		/* p += n and p -= n step over n objects */
		if (!(lp->dn_type->dt_kind == DT_TK_PTR &&
		    (bop == DT_TOK_ADD || bop == DT_TOK_SUB)))
			dt_node_check_int(pcb, lp, bop, 1);
		/* an integer variable and a value of another kind: illumos */
		if (!dt_node_is_int(rp))
			dt_parser_error(pcb, dnp->dn_line, D_OP_INCOMPAT,
			    "operands have incompatible types: \"%s\" %s \"%s\"",
			    lp->dn_type->dt_name, dt_node_opname(op),
			    rp->dn_type->dt_name);
		dt_node_check_memstore(pcb, lp, op);
		if ((bop == DT_TOK_DIV || bop == DT_TOK_MOD) &&
		    rp->dn_kind == DT_NODE_INT && rp->dn_value == 0)
			dt_parser_error(pcb, dnp->dn_line, D_DIV_ZERO,
			    "expression contains division by zero");
		if (lp->dn_kind == DT_NODE_VAR)
			lp->dn_ident->di_flags |= DT_IDFLG_MOD;
		dnp->dn_type = lp->dn_type;
		return dnp;
	}

	/*
	 * An aggregation in a sum, a difference or a comparison: illumos
	 * gives it no type a value can have, so its operands mismatch.
	 */
	if ((dnp->dn_left->dn_kind == DT_NODE_AGG) !=
	    (dnp->dn_right->dn_kind == DT_NODE_AGG) && (op == DT_TOK_ADD ||
	    op == DT_TOK_SUB || op == DT_TOK_EQU || op == DT_TOK_NEQ ||
	    op == DT_TOK_LT || op == DT_TOK_LE || op == DT_TOK_GT ||
	    op == DT_TOK_GE)) {
		int agl = dnp->dn_left->dn_kind == DT_NODE_AGG;
		const char *other = dt_node_cook(pcb, agl ? dnp->dn_right :
		    dnp->dn_left)->dn_type->dt_name;

		dt_parser_error(pcb, dnp->dn_line, D_OP_INCOMPAT,
		    "operands have incompatible types: \"%s\" %s \"%s\"",
		    agl ? "aggregation" : other, dt_node_opname(op),
		    agl ? other : "aggregation");
	}
	lp = dnp->dn_left = dt_node_cook(pcb, dnp->dn_left);
	rp = dnp->dn_right = dt_node_cook(pcb, dnp->dn_right);

	switch (op) {
	case DT_TOK_EQU:
	case DT_TOK_NEQ:
	case DT_TOK_LT:
	case DT_TOK_LE:
	case DT_TOK_GT:
	case DT_TOK_GE:
		if (dt_node_is_strcompat(lp) && dt_node_is_strcompat(rp) &&
		    (dt_node_is_string(lp) || dt_node_is_string(rp))) {
			dnp->dn_type = &dt_type_int;
			return dnp;
		}
		/* pointers: with each other, or with an integer (NULL) */
		if ((dt_node_is_ptr(lp) && (dt_node_is_int(rp) ||
		    dt_decl_ptrcompat(lp->dn_type, rp->dn_type))) ||
		    (dt_node_is_ptr(rp) && dt_node_is_int(lp))) {
			dnp->dn_type = &dt_type_int;
			return dnp;
		}
		if (!dt_node_is_int(lp) || !dt_node_is_int(rp))
			dt_parser_error(pcb, dnp->dn_line, D_OP_INCOMPAT,
			    "operands have incompatible types: \"%s\" %s \"%s\"",
			    lp->dn_type->dt_name, dt_node_opname(op),
			    rp->dn_type->dt_name);
		t = dt_decl_arith(lp->dn_type, rp->dn_type);
		/* int-wide constants compare whole, as illumos folds them */
		if (lp->dn_kind == DT_NODE_INT && rp->dn_kind == DT_NODE_INT) {
			uint64_t l = lp->dn_value, r = rp->dn_value;

			if (t->dt_size < 4) {
				l = dt_node_normalize(l, t);
				r = dt_node_normalize(r, t);
			}
			return dt_node_setint(dnp, dt_node_fold2(op, l, r, t),
			    &dt_type_int);
		}
		dnp->dn_type = &dt_type_int;
		return dnp;

	case DT_TOK_LAND:
	case DT_TOK_LOR:
	case DT_TOK_LXOR:
		if (!dt_node_is_scalar(lp) || !dt_node_is_scalar(rp))
			dt_parser_error(pcb, dnp->dn_line, D_OP_SCALAR,
			    "operator %s requires operands of scalar type",
			    dt_node_opname(op));
		if (lp->dn_kind == DT_NODE_INT && rp->dn_kind == DT_NODE_INT)
			return dt_node_setint(dnp, dt_node_fold2(op,
			    lp->dn_value, rp->dn_value, &dt_type_int),
			    &dt_type_int);
		dnp->dn_type = &dt_type_int;
		return dnp;

	case DT_TOK_LSH:
	case DT_TOK_RSH:
		dt_node_check_int(pcb, lp, op, 1);
		dt_node_check_int(pcb, rp, op, 1);
		t = dt_decl_promote(lp->dn_type);
		break;

	case DT_TOK_ADD:
	case DT_TOK_SUB:
		/* pointer arithmetic, scaled by the size of the pointee */
		if ((dt_node_is_ptr(lp) && dt_node_pointee(lp)->dt_kind ==
		    DT_TK_VOID) || (dt_node_is_ptr(rp) &&
		    dt_node_pointee(rp)->dt_kind == DT_TK_VOID))
			/* no arithmetic on void *: illumos's words */
			dt_parser_error(pcb, dnp->dn_line, D_OP_INCOMPAT,
			    "operands have incompatible types: \"%s\" %s "
			    "\"%s\"", lp->dn_type->dt_name, dt_node_opname(op),
			    rp->dn_type->dt_name);
		if (dt_node_is_ptr(lp) && dt_node_is_int(rp)) {
			dnp->dn_type = lp->dn_type->dt_kind == DT_TK_ARRAY ?
			    dt_decl_ptr(pcb, lp->dn_type->dt_base) :
			    lp->dn_type;
			return dnp;
		}
		if (op == DT_TOK_ADD && dt_node_is_int(lp) &&
		    dt_node_is_ptr(rp)) {
			dnp->dn_type = rp->dn_type->dt_kind == DT_TK_ARRAY ?
			    dt_decl_ptr(pcb, rp->dn_type->dt_base) :
			    rp->dn_type;
			return dnp;
		}
		if (op == DT_TOK_SUB && dt_node_is_ptr(lp) &&
		    dt_node_is_ptr(rp)) {
			if (dt_decl_pointee_size(lp->dn_type) !=
			    dt_decl_pointee_size(rp->dn_type) ||
			    !dt_decl_ptrcompat(lp->dn_type, rp->dn_type))
				dt_parser_error(pcb, dnp->dn_line,
				    D_OP_INCOMPAT, "operands have "
				    "incompatible types: \"%s\" - \"%s\"",
				    lp->dn_type->dt_name,
				    rp->dn_type->dt_name);
			dnp->dn_type = &dt_type_long;
			return dnp;
		}
		/* FALLTHROUGH */
	default:	/* + - * / % & | ^ */
		dt_node_check_int(pcb, lp, op, 1);
		dt_node_check_int(pcb, rp, op, 1);
		if ((op == DT_TOK_DIV || op == DT_TOK_MOD) &&
		    rp->dn_kind == DT_NODE_INT && rp->dn_value == 0)
			dt_parser_error(pcb, dnp->dn_line, D_DIV_ZERO,
			    "expression contains division by zero");
		t = dt_decl_result(lp->dn_type, rp->dn_type);
		break;
	}
	if (lp->dn_kind == DT_NODE_INT && rp->dn_kind == DT_NODE_INT) {
		uint64_t l = lp->dn_value, r = rp->dn_value, v;

		/*
		 * An int-wide operand is taken whole, as illumos folds it:
		 * (1 << 63) - 1 is INT64_MAX, not the int's -1.
		 */
		if (t->dt_size < 4) {
			l = dt_node_normalize(l, t);
			if (op != DT_TOK_LSH && op != DT_TOK_RSH)
				r = dt_node_normalize(r, t);
		}
		v = dt_node_fold2(op, l, r, t);
		if (t->dt_size < 4)
			return dt_node_setint(dnp, v, t);
		/*
		 * As illumos folds constants: the 64-bit result, typed as
		 * the operands make it, so that 1075064400 * 1000000000 is
		 * a time in nanoseconds wherever 64 bits of it are used (an
		 * aggregation, a comparison, a wider cast); a record of the
		 * type's size keeps the low bytes.  Its operands are such
		 * results as they are: (1 << 63) - 1 is INT64_MAX.
		 */
		dt_node_setint(dnp, 0, t);
		dnp->dn_value = v;
		return dnp;
	}
	dnp->dn_type = t;
	return dnp;
}

static dt_node_t *
dt_node_cook_op3(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *cp, *lp, *rp;
	int lact, ract;

	cp = dnp->dn_expr = dt_node_cook(pcb, dnp->dn_expr);
	lact = dt_node_actcall(pcb, dnp->dn_left) != NULL;
	ract = dt_node_actcall(pcb, dnp->dn_right) != NULL;
	if (lact || ract)
		dt_parser_error(pcb, dnp->dn_line, D_OP_ACT,
		    "action cannot be used in a conditional context");
	lp = dnp->dn_left = dt_node_cook(pcb, dnp->dn_left);
	rp = dnp->dn_right = dt_node_cook(pcb, dnp->dn_right);
	if (!dt_node_is_scalar(cp))
		dt_parser_error(pcb, dnp->dn_line, D_OP_SCALAR,
		    "operator ?: expression must be of scalar type");
	if (dt_node_is_int(lp) && dt_node_is_int(rp))
		dnp->dn_type = dt_decl_result(lp->dn_type, rp->dn_type);
	else if (dt_node_is_string(lp) && dt_node_is_string(rp))
		dnp->dn_type = &dt_type_string;
	else if (dt_decl_is_byref(lp->dn_type) && lp->dn_type == rp->dn_type)
		dnp->dn_type = lp->dn_type;	/* the same struct: by address */
	else if (lp->dn_type->dt_kind == DT_TK_PTR &&
	    dt_node_asgn_compat(lp->dn_type, rp))
		dnp->dn_type = lp->dn_type;
	else if (rp->dn_type->dt_kind == DT_TK_PTR &&
	    dt_node_asgn_compat(rp->dn_type, lp))
		dnp->dn_type = rp->dn_type;
	else
		dt_parser_error(pcb, dnp->dn_line, D_OP_INCOMPAT,
		    "operator ?: operands must have compatible types: "
		    "\"%s\" and \"%s\"", lp->dn_type->dt_name,
		    rp->dn_type->dt_name);
	return dnp;
}

/*
 * An argument a subroutine accepts for a parameter of type pt, as
 * illumos decides it: integers for integers, strings for strings, and
 * pointers for pointers, where the constant 0 is also a NULL pointer
 * (or string: strtok(NULL, ...)).  A string is an array of char to
 * illumos, so a void * takes it too (bcopy(probename, buf, n)).
 */
static int
dt_node_argcompat(const dt_type_t *pt, const dt_node_t *ap)
{
	int null = ap->dn_kind == DT_NODE_INT && ap->dn_value == 0;

	switch (pt->dt_kind) {
	case DT_TK_INT:
		return dt_node_is_int(ap);
	case DT_TK_STRING:
		return dt_node_is_strcompat(ap) || null;
	case DT_TK_PTR:
		/* a prototype's pointer has a name, not a base type */
		if (dt_node_is_string(ap))
			return strcmp(pt->dt_name, "void *") == 0;
		return dt_node_is_ptr(ap) || null;
	default:
		return 0;
	}
}

/*
 * A call of a D subroutine: its arguments are cooked and checked against
 * the prototype (dt_ident.c); the call has the prototype's return type.
 */
static dt_node_t *
dt_node_cook_subr(dt_pcb_t *pcb, dt_node_t *dnp, dt_ident_t *idp)
{
	dt_node_t **app, *ap, *next;
	dt_ident_t *aidp;
	int n = 0, i;

	for (ap = dnp->dn_args; ap != NULL; ap = ap->dn_list)
		n++;
	if (n < idp->di_minargs || n > idp->di_nargs)
		dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
		    "%s( ) prototype mismatch: %d arg%s passed, %s%d expected",
		    idp->di_name, n, n == 1 ? "" : "s",
		    idp->di_minargs == idp->di_nargs ? "" :
		    n < idp->di_minargs ? "at least " : "at most ",
		    n < idp->di_minargs ? idp->di_minargs : idp->di_nargs);
	for (app = &dnp->dn_args, i = 0; *app != NULL;
	    app = &(*app)->dn_list, i++) {
		next = (*app)->dn_list;
		/* an action as an argument: illumos's actions are void */
		if ((*app)->dn_kind == DT_NODE_FUNC &&
		    (aidp = dt_idhash_lookup(pcb->pcb_hdl->dt_globals,
		    (*app)->dn_string)) != NULL &&
		    aidp->di_kind == DT_IDENT_ACTFUNC)
			dt_parser_error(pcb, (*app)->dn_line, D_PROTO_ARG,
			    "%s( ) argument #%d is incompatible with "
			    "prototype:\n\tprototype: %s\n\t argument: void",
			    idp->di_name, i + 1, idp->di_keys[i]->dt_name);
		ap = *app = dt_node_cook(pcb, *app);
		ap->dn_list = next;
		if (!dt_node_argcompat(idp->di_keys[i], ap))
			dt_parser_error(pcb, ap->dn_line, D_PROTO_ARG,
			    "%s( ) argument #%d is incompatible with "
			    "prototype:\n\tprototype: %s\n\t argument: %s",
			    idp->di_name, i + 1, idp->di_keys[i]->dt_name,
			    ap->dn_type != NULL ? ap->dn_type->dt_name :
			    "void");
		/* inet_ntoa6()'s "strict" flag chooses a form when compiling */
		if (idp->di_id == DIF_SUBR_INET_NTOA6 && i == 1 &&
		    ap->dn_kind != DT_NODE_INT)
			dt_parser_error(pcb, ap->dn_line, D_PROTO_ARG,
			    "%s( ) argument #%d must be an integer constant",
			    idp->di_name, i + 1);
	}
	dnp->dn_ident = idp;
	dnp->dn_type = idp->di_type;
	dnp->dn_flags |= DT_NF_COOKED;
	idp->di_flags |= DT_IDFLG_REF;
	return dnp;
}

/* A function call in an expression: only D subroutines belong here. */
static dt_node_t *
dt_node_cook_func(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_idhash_t *dhp = pcb->pcb_hdl->dt_globals;
	dt_ident_t *idp = dnp->dn_flags & DT_NF_SUBR ?
	    dt_idhash_lookup_subr(dhp, dnp->dn_string) :
	    dt_idhash_lookup(dhp, dnp->dn_string);
	dt_node_t *ap;

	if (idp == NULL)
		dt_parser_error(pcb, dnp->dn_line, D_FUNC_UNDEF,
		    "undefined function name: %s", dnp->dn_string);
	if (idp->di_kind == DT_IDENT_FUNC)
		return dt_node_cook_subr(pcb, dnp, idp);
	if (idp->di_kind != DT_IDENT_ACTFUNC &&
	    idp->di_kind != DT_IDENT_AGGFUNC)
		dt_parser_error(pcb, dnp->dn_line, D_FUNC_IDENT,
		    "variable %s may not be referenced as a function",
		    dnp->dn_string);
	if ((idp->di_flags & DT_IDFLG_UNSUP) &&
	    idp->di_kind == DT_IDENT_ACTFUNC && idp->di_nargs >= 0) {
		int n = 0;

		for (ap = dnp->dn_args; ap != NULL; ap = ap->dn_list)
			n++;
		if (n != idp->di_nargs)
			dt_parser_error(pcb, dnp->dn_line, D_PROTO_LEN,
			    "%s( ) prototype mismatch: %d arg%s passed, "
			    "%d expected", idp->di_name, n, n == 1 ? "" : "s",
			    idp->di_nargs);
	}
	if (idp->di_flags & DT_IDFLG_UNSUP)
		dt_parser_error(pcb, dnp->dn_line,
		    idp->di_kind == DT_IDENT_AGGFUNC ? D_AGG_FUNC :
		    D_FUNC_UNSUP, "%s( ) is not supported yet", idp->di_name);
	if (idp->di_kind == DT_IDENT_AGGFUNC)
		dt_parser_error(pcb, dnp->dn_line, D_AGG_FUNC,
		    "%s( ) may only be used as the value of an aggregation",
		    idp->di_name);
	dt_parser_error(pcb, dnp->dn_line, D_ACT_EXPR,
	    "%s( ) is an action and may not be used in an expression",
	    idp->di_name);
}

dt_node_t *
dt_node_cook(dt_pcb_t *pcb, dt_node_t *dnp)
{
	if (dnp->dn_flags & DT_NF_DONE)
		return dnp;
	switch (dnp->dn_kind) {
	case DT_NODE_INT:
	case DT_NODE_STRING:
	case DT_NODE_VAR:
		return dnp;
	case DT_NODE_IDENT:
		return dt_node_cook_ident(pcb, dnp);
	case DT_NODE_AGG:
		dt_parser_error(pcb, dnp->dn_line, D_AGG_SCALAR,
		    "aggregation @%s may not be used as an operand: "
		    "aggregations can only be assigned", dnp->dn_string);
	case DT_NODE_FUNC:
		return dt_node_cook_func(pcb, dnp);
	case DT_NODE_OP1:
		return dt_node_cook_op1(pcb, dnp);
	case DT_NODE_OP2:
		return dt_node_cook_op2(pcb, dnp);
	case DT_NODE_OP3:
		return dt_node_cook_op3(pcb, dnp);
	case DT_NODE_TYPE:
		dt_parser_error(pcb, dnp->dn_line, D_SYNTAX,
		    "type name %s used as a value", dnp->dn_type->dt_name);
	default:
		dt_parser_error(pcb, dnp->dn_line, D_SYNTAX,
		    "unexpected node kind %d", dnp->dn_kind);
	}
}
