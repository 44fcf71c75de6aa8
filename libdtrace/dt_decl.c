/*
 * dt_decl.c: the D type system.  The C integer types (LP64), float and
 * double (declarable and traceable, no arithmetic), the D string type,
 * void, the typedefs illumos DTrace predefines, and what programs declare:
 * struct, union and enum types with their members and enumerators,
 * typedefs, pointers, arrays and function types (for pointers to
 * functions), and variables declared with a type.  Derived types are
 * named as C spells them in a cast: "int (*)[3]", "int (*)(int, char *)".
 *
 * Declared and derived types live on the handle (dt_types, dt_tdefs) so
 * that a later compile on the same handle sees them; a failed compile
 * takes back what it created (dt_decl_rollback).  Layout follows the
 * System V x86-64 ABI: natural alignment, bit-fields packed in storage
 * units of their declared type.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define DT_INT(n, sz, sg, rk)	{ .dt_name = n, .dt_kind = DT_TK_INT, \
	.dt_size = sz, .dt_signed = sg, .dt_rank = rk }

const dt_type_t dt_type_void = { .dt_name = "void", .dt_kind = DT_TK_VOID };
const dt_type_t dt_type_char = DT_INT("char", 1, 1, 1);
const dt_type_t dt_type_schar = DT_INT("signed char", 1, 1, 1);
const dt_type_t dt_type_uchar = DT_INT("unsigned char", 1, 0, 1);
const dt_type_t dt_type_short = DT_INT("short", 2, 1, 2);
const dt_type_t dt_type_ushort = DT_INT("unsigned short", 2, 0, 2);
const dt_type_t dt_type_int = DT_INT("int", 4, 1, 3);
const dt_type_t dt_type_uint = DT_INT("unsigned int", 4, 0, 3);
const dt_type_t dt_type_long = DT_INT("long", 8, 1, 4);
const dt_type_t dt_type_ulong = DT_INT("unsigned long", 8, 0, 4);
const dt_type_t dt_type_llong = DT_INT("long long", 8, 1, 5);
const dt_type_t dt_type_ullong = DT_INT("unsigned long long", 8, 0, 5);
const dt_type_t dt_type_string = { .dt_name = "string",
    .dt_kind = DT_TK_STRING };
const dt_type_t dt_type_float = { .dt_name = "float", .dt_kind = DT_TK_FLOAT,
    .dt_size = 4, .dt_signed = 1 };
const dt_type_t dt_type_double = { .dt_name = "double",
    .dt_kind = DT_TK_FLOAT, .dt_size = 8, .dt_signed = 1 };
const dt_type_t dt_type_ldouble = { .dt_name = "long double",
    .dt_kind = DT_TK_FLOAT, .dt_size = 16, .dt_signed = 1, .dt_align = 16 };

/* Typedefs: each is a distinct name for printing, with its base's shape. */
static const dt_type_t dt_decl_typedefs[] = {
	DT_INT("int8_t", 1, 1, 1), DT_INT("int16_t", 2, 1, 2),
	DT_INT("int32_t", 4, 1, 3), DT_INT("int64_t", 8, 1, 4),
	DT_INT("uint8_t", 1, 0, 1), DT_INT("uint16_t", 2, 0, 2),
	DT_INT("uint32_t", 4, 0, 3), DT_INT("uint64_t", 8, 0, 4),
	DT_INT("intptr_t", 8, 1, 4), DT_INT("uintptr_t", 8, 0, 4),
	DT_INT("size_t", 8, 0, 4), DT_INT("ssize_t", 8, 1, 4),
	DT_INT("off_t", 8, 1, 4), DT_INT("off64_t", 8, 1, 4),
	DT_INT("pid_t", 4, 1, 3), DT_INT("id_t", 4, 1, 3),
	DT_INT("uid_t", 4, 0, 3), DT_INT("gid_t", 4, 0, 3),
	DT_INT("uchar_t", 1, 0, 1), DT_INT("ushort_t", 2, 0, 2),
	DT_INT("uint_t", 4, 0, 3), DT_INT("ulong_t", 8, 0, 4),
	DT_INT("u_longlong_t", 8, 0, 5), DT_INT("longlong_t", 8, 1, 5),
	DT_INT("processorid_t", 4, 1, 3), DT_INT("hrtime_t", 8, 1, 5),
	/* inet_ntoa()'s argument points to one, in network order */
	DT_INT("ipaddr_t", 4, 0, 3),
	/* the short names illumos's <sys/types.h> gives D scripts */
	DT_INT("uchar", 1, 0, 1), DT_INT("unchar", 1, 0, 1),
	DT_INT("ushort", 2, 0, 2), DT_INT("uint", 4, 0, 3),
	DT_INT("ulong", 8, 0, 4), DT_INT("u_char", 1, 0, 1),
	DT_INT("u_short", 2, 0, 2), DT_INT("u_int", 4, 0, 3),
	DT_INT("u_long", 8, 0, 4),
};

/* A typedef name, or NULL: a program's own, then a built-in one. */
const dt_type_t *
dt_decl_lookup_any(dtrace_hdl_t *dtp, const char *name)
{
	const dt_tdef_t *td;

	for (td = dtp->dt_tdefs; td != NULL; td = td->td_next) {
		if (strcmp(td->td_name, name) == 0)
			return td->td_type;
	}
	return dt_decl_lookup(name);
}

/* A built-in typedef name, or NULL. */
const dt_type_t *
dt_decl_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(dt_decl_typedefs) / sizeof(dt_decl_typedefs[0]);
	    i++) {
		if (strcmp(dt_decl_typedefs[i].dt_name, name) == 0)
			return &dt_decl_typedefs[i];
	}
	return NULL;
}

/*
 * Resolve a specifier list such as "unsigned long long" into a type, or
 * return NULL with *whyp naming what is wrong.
 */
const dt_type_t *
dt_decl_type(const dt_typespec_t *ts, const char **whyp, int *tagp)
{
	int nbase = ts->ts_char + ts->ts_short + ts->ts_int + ts->ts_void +
	    ts->ts_string + ts->ts_float + ts->ts_double +
	    (ts->ts_name != NULL);
	int sign = ts->ts_signed + ts->ts_unsigned;

	*whyp = "invalid type combination";
	*tagp = D_DECL_COMBO;
	if (sign > 1 || ts->ts_long > 2 || ts->ts_class < 0)
		return NULL;
	/* the combinations illumos names */
	if (nbase - ts->ts_short == 1 && ts->ts_char &&
	    (ts->ts_short || ts->ts_long)) {
		*whyp = "invalid type declaration: short and long may not be "
		    "used with char type";
		*tagp = D_DECL_CHARATTR;
		return NULL;
	}
	if (nbase - ts->ts_short == 1 && ts->ts_void && (ts->ts_short ||
	    ts->ts_long || sign)) {
		*whyp = "invalid type declaration: attributes may not be used "
		    "with void type";
		*tagp = D_DECL_VOIDATTR;
		return NULL;
	}
	if (nbase == 1 && ts->ts_long && (ts->ts_name != NULL ||
	    ts->ts_string)) {
		*whyp = "invalid type declaration: long and long long may "
		    "only be used with integer or floating-point type";
		*tagp = D_DECL_LONGINT;
		return NULL;
	}
	if (ts->ts_float || ts->ts_double) {
		if (nbase > 1 || sign || ts->ts_long > ts->ts_double)
			return NULL;
		if (ts->ts_float)
			return &dt_type_float;
		return ts->ts_long ? &dt_type_ldouble : &dt_type_double;
	}
	if (ts->ts_name != NULL || ts->ts_void || ts->ts_string) {
		if (nbase > 1 || sign || ts->ts_long)
			return NULL;
		if (ts->ts_name != NULL)
			return ts->ts_name;
		return ts->ts_void ? &dt_type_void : &dt_type_string;
	}
	if (ts->ts_char) {
		if (ts->ts_short || ts->ts_int || ts->ts_long)
			return NULL;
		if (ts->ts_unsigned)
			return &dt_type_uchar;
		return ts->ts_signed ? &dt_type_schar : &dt_type_char;
	}
	if (ts->ts_short) {
		if (ts->ts_long)
			return NULL;
		return ts->ts_unsigned ? &dt_type_ushort : &dt_type_short;
	}
	if (ts->ts_long == 2)
		return ts->ts_unsigned ? &dt_type_ullong : &dt_type_llong;
	if (ts->ts_long == 1)
		return ts->ts_unsigned ? &dt_type_ulong : &dt_type_long;
	if (ts->ts_int || sign)
		return ts->ts_unsigned ? &dt_type_uint : &dt_type_int;
	/* "self x;", "this x;": a storage class alone means int, as in C */
	if (ts->ts_class > DT_DCLASS_TYPEDEF)
		return &dt_type_int;
	return NULL;
}

/* C's integer promotions: anything narrower than int, and enums, is int. */
const dt_type_t *
dt_decl_promote(const dt_type_t *t)
{
	/* an enum of 8 bytes (a target's) is its long */
	if (t->dt_kind == DT_TK_ENUM && t->dt_size == 8)
		return t->dt_signed ? &dt_type_long : &dt_type_ulong;
	if ((t->dt_kind == DT_TK_INT && t->dt_size < 4) ||
	    t->dt_kind == DT_TK_ENUM)
		return &dt_type_int;
	return t;
}

/* C's usual arithmetic conversions on two integer types. */
const dt_type_t *
dt_decl_arith(const dt_type_t *l, const dt_type_t *r)
{
	const dt_type_t *s, *u;

	l = dt_decl_promote(l);
	r = dt_decl_promote(r);
	if (l == r)
		return l;
	if (l->dt_signed == r->dt_signed)
		return l->dt_rank >= r->dt_rank ? l : r;
	s = l->dt_signed ? l : r;
	u = l->dt_signed ? r : l;
	if (u->dt_rank >= s->dt_rank)
		return u;
	if (s->dt_size > u->dt_size)
		return s;
	/* the unsigned type of the signed operand's rank */
	switch (s->dt_rank) {
	case 3:
		return &dt_type_uint;
	case 4:
		return &dt_type_ulong;
	default:
		return &dt_type_ullong;
	}
}

/*
 * The type of l op r for D's arithmetic and bitwise operators, as illumos
 * types it (dt_type_promote()): no promotion to int, but the operand of
 * greater rank, a rank being the width in bits plus one if unsigned, so
 * that an unsigned char plus a char is an unsigned char and wraps as
 * one.  Enums count as int.  On a tie, the type of higher C rank (long
 * long over long), then the left one.
 */
const dt_type_t *
dt_decl_result(const dt_type_t *l, const dt_type_t *r)
{
	unsigned int lr, rr;

	if (l->dt_kind == DT_TK_ENUM)
		l = &dt_type_int;
	if (r->dt_kind == DT_TK_ENUM)
		r = &dt_type_int;
	lr = l->dt_size * 8 + !l->dt_signed;
	rr = r->dt_size * 8 + !r->dt_signed;
	if (lr != rr)
		return lr > rr ? l : r;
	return r->dt_rank > l->dt_rank ? r : l;
}

uint32_t
dt_decl_strsize(dtrace_hdl_t *dtp)
{
	dtrace_optval_t v = dtp->dt_options[DTRACEOPT_STRSIZE];

	if (v <= 0 || v == DTRACEOPT_UNSET)
		return 256;
	return v > DIF_MAXSTRSIZE ? DIF_MAXSTRSIZE : (uint32_t)v;
}

/* The DIF type of a value of type t, as a DIFO returns it. */
void
dt_decl_rtype(dtrace_hdl_t *dtp, const dt_type_t *t, dif_type_t *dt)
{
	memset(dt, 0, sizeof(*dt));
	switch (t->dt_kind) {
	case DT_TK_STRING:
		dt->dt_kind = DIF_TYPE_STRING;
		dt->dt_flags = DIF_TF_BYREF;
		dt->dt_size = dt_decl_strsize(dtp);
		break;
	case DT_TK_INT:
		dt->dt_kind = DIF_TYPE_CTF;
		dt->dt_ckind = DIF_CKIND_INTEGER;
		dt->dt_flags = t->dt_signed ? DIF_TF_SIGNED : 0;
		dt->dt_size = t->dt_size;
		break;
	case DT_TK_ENUM:
		/* a target's enum may be 1 to 8 bytes, and unsigned */
		dt->dt_kind = DIF_TYPE_CTF;
		dt->dt_ckind = DIF_CKIND_INTEGER;
		dt->dt_flags = t->dt_signed ? DIF_TF_SIGNED : 0;
		dt->dt_size = t->dt_size != 0 ? t->dt_size : 4;
		break;
	case DT_TK_PTR:
		/* an address, by value: 64 bits in the LP64 model */
		dt->dt_kind = DIF_TYPE_CTF;
		dt->dt_ckind = DIF_CKIND_POINTER;
		dt->dt_size = 8;
		break;
	case DT_TK_FLOAT:
		/* the bits, by value (long double: by reference) */
		dt->dt_kind = DIF_TYPE_CTF;
		dt->dt_ckind = DIF_CKIND_FLOAT;
		dt->dt_size = t->dt_size;
		if (t->dt_size > 8)
			dt->dt_flags = DIF_TF_BYREF;
		break;
	case DT_TK_STRUCT:
	case DT_TK_UNION:
	case DT_TK_ARRAY:
		/* an object in memory: its address, and its bytes recorded */
		dt->dt_kind = DIF_TYPE_CTF;
		dt->dt_ckind = t->dt_kind == DT_TK_STRUCT ? DIF_CKIND_STRUCT :
		    t->dt_kind == DT_TK_UNION ? DIF_CKIND_UNION :
		    DIF_CKIND_ARRAY;
		dt->dt_flags = DIF_TF_BYREF;
		dt->dt_size = t->dt_size;
		break;
	default:
		dt->dt_kind = DIF_TYPE_CTF;
		dt->dt_ckind = DIF_CKIND_INTEGER;
		break;
	}
}

/* The alignment of a type in memory. */
uint32_t
dt_decl_align(const dt_type_t *t)
{
	if (t->dt_align != 0)
		return t->dt_align;
	switch (t->dt_kind) {
	case DT_TK_INT:
	case DT_TK_FLOAT:
	case DT_TK_ENUM:
		return t->dt_size ? t->dt_size : 1;
	case DT_TK_PTR:
		return 8;
	case DT_TK_ARRAY:
		return dt_decl_align(t->dt_base);
	default:
		return 1;
	}
}

int
dt_decl_is_integral(const dt_type_t *t)
{
	return t != NULL && (t->dt_kind == DT_TK_INT || t->dt_kind == DT_TK_ENUM);
}

int
dt_decl_is_scalar(const dt_type_t *t)
{
	return dt_decl_is_integral(t) || (t != NULL && t->dt_kind == DT_TK_PTR);
}

/* Values of these types are the address of the object (by reference). */
int
dt_decl_is_byref(const dt_type_t *t)
{
	return t != NULL && (t->dt_kind == DT_TK_STRUCT ||
	    t->dt_kind == DT_TK_UNION || t->dt_kind == DT_TK_ARRAY ||
	    (t->dt_kind == DT_TK_FLOAT && t->dt_size > 8));
}

static const dt_type_t *
dt_decl_base(const dt_type_t *t)
{
	return t->dt_base != NULL ? t->dt_base : &dt_type_void;
}

/* Bytes a pointer steps over: its pointee's size (void *: 1). */
uint32_t
dt_decl_pointee_size(const dt_type_t *t)
{
	const dt_type_t *b = dt_decl_base(t);

	if (b->dt_kind == DT_TK_VOID || b->dt_size == 0)
		return 1;
	return b->dt_size;
}

/*
 * May a pointer (or array) of type r be used where one of type l is
 * expected?  The same pointee, or either one is void *.
 */
int
dt_decl_ptrcompat(const dt_type_t *l, const dt_type_t *r)
{
	const dt_type_t *lb, *rb;

	if ((l->dt_kind != DT_TK_PTR && l->dt_kind != DT_TK_ARRAY) ||
	    (r->dt_kind != DT_TK_PTR && r->dt_kind != DT_TK_ARRAY))
		return 0;
	lb = dt_decl_base(l);
	rb = dt_decl_base(r);
	if (lb == rb || lb->dt_kind == DT_TK_VOID || rb->dt_kind == DT_TK_VOID)
		return 1;
	/* integer types of one shape are one type to the machine */
	return lb->dt_kind == DT_TK_INT && rb->dt_kind == DT_TK_INT &&
	    lb->dt_size == rb->dt_size && lb->dt_signed == rb->dt_signed;
}

static void __attribute__((noreturn))
dt_decl_nomem(dt_pcb_t *pcb)
{
	dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
	longjmp(pcb->pcb_jmpbuf, 1);
}

static char *
dt_decl_strdup(dt_pcb_t *pcb, const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		dt_decl_nomem(pcb);
	return p;
}

/* A new type on the handle's list, named name (copied). */
static dt_type_t *
dt_decl_new(dt_pcb_t *pcb, int kind, const char *name)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dt_type_t *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		dt_decl_nomem(pcb);
	if ((t->dt_name = strdup(name)) == NULL) {
		free(t);
		dt_decl_nomem(pcb);
	}
	t->dt_kind = (uint8_t)kind;
	t->dt_gen = pcb->pcb_gen;
	t->dt_next = dtp->dt_types;
	dtp->dt_types = t;
	return t;
}

/*
 * The C spelling of a derived type with inner around the place of the
 * name, as a cast writes it: "int *[4]" (array of pointers), "int (*)[4]"
 * (pointer to an array), "int (*)(int, char *)" (pointer to function).
 * Returns a malloc'd string, or NULL.
 */
char *
dt_decl_cname(const dt_type_t *t, const char *inner)
{
	const dt_member_t *m;
	char *s = NULL, *in = NULL, *p;
	size_t len;
	FILE *f;

	switch (t->dt_kind) {
	case DT_TK_PTR: {
		const dt_type_t *b = dt_decl_base(t);
		int paren = b->dt_kind == DT_TK_ARRAY ||
		    b->dt_kind == DT_TK_FUNC;

		if (asprintf(&in, paren ? "(*%s)" : "*%s", inner) == -1)
			return NULL;
		s = dt_decl_cname(b, in);
		break;
	}
	case DT_TK_ARRAY:
		if (asprintf(&in, "%s[%u]", inner, t->dt_nelems) == -1)
			return NULL;
		s = dt_decl_cname(t->dt_base, in);
		break;
	case DT_TK_FUNC:
		if ((f = open_memstream(&p, &len)) == NULL)
			return NULL;
		fprintf(f, "%s(", inner);
		for (m = t->dt_members; m != NULL; m = m->dm_next) {
			char *pn = dt_decl_cname(m->dm_type, "");

			fprintf(f, "%s%s", m == t->dt_members ? "" : ", ",
			    pn != NULL ? pn : "?");
			free(pn);
		}
		if (t->dt_signed)
			fprintf(f, "%s...", t->dt_members != NULL ? ", " : "");
		else if (t->dt_members == NULL)
			fprintf(f, "void");
		fprintf(f, ")");
		if (fclose(f) != 0) {
			free(p);
			return NULL;
		}
		in = p;
		s = dt_decl_cname(t->dt_base, in);
		break;
	default:
		if (asprintf(&s, "%s%s%s", t->dt_name, *inner != '\0' ? " " :
		    "", inner) == -1)
			s = NULL;
		break;
	}
	free(in);
	return s;
}

/* A new derived type named by its C spelling. */
static dt_type_t *
dt_decl_derived(dt_pcb_t *pcb, int kind, const dt_type_t *base,
    uint32_t nelems)
{
	dt_type_t tmp, *t;
	char *name;

	memset(&tmp, 0, sizeof(tmp));
	tmp.dt_kind = (uint8_t)kind;
	tmp.dt_base = base;
	tmp.dt_nelems = nelems;
	if ((name = dt_decl_cname(&tmp, "")) == NULL)
		dt_decl_nomem(pcb);
	t = dt_decl_new(pcb, kind, name);
	free(name);
	t->dt_base = base;
	t->dt_nelems = nelems;
	return t;
}

/* The type "pointer to base", one per base. */
const dt_type_t *
dt_decl_ptr(dt_pcb_t *pcb, const dt_type_t *base)
{
	dt_type_t *t;

	if (base->dt_kind == DT_TK_VOID)
		base = &dt_type_void;
	for (t = pcb->pcb_hdl->dt_types; t != NULL; t = t->dt_next) {
		if (t->dt_kind == DT_TK_PTR && t->dt_base == base)
			return t;
	}
	t = dt_decl_derived(pcb, DT_TK_PTR, base, 0);
	t->dt_size = 8;
	t->dt_rank = 4;
	return t;
}

/*
 * A struct or union may be an associative array's key, as in illumos: its
 * bytes are the key (at most strsize of them, as a by-ref value).
 */
int
dt_decl_is_sou_key(const dt_type_t *t)
{
	return (t->dt_kind == DT_TK_STRUCT || t->dt_kind == DT_TK_UNION) &&
	    t->dt_defined && t->dt_size > 0;
}

/* Can an object of type t be declared (a member, an element, a variable)? */
static void
dt_decl_check_object(dt_pcb_t *pcb, const dt_type_t *t, int line,
    const char *what)
{
	if (t->dt_kind == DT_TK_VOID)
		dt_parser_error(pcb, line, D_DECL_VOIDOBJ,
		    "cannot have void object: %s", what);
	if (t->dt_kind == DT_TK_FUNC)
		dt_parser_error(pcb, line, D_DECL_FUNC,
		    "cannot declare %s of function type %s: declare a "
		    "pointer to the function instead", what, t->dt_name);
	if ((t->dt_kind == DT_TK_STRUCT || t->dt_kind == DT_TK_UNION ||
	    t->dt_kind == DT_TK_ENUM) && !t->dt_defined)
		dt_parser_error(pcb, line, D_DECL_INCOMPLETE,
		    "declaration of %s is of incomplete type %s", what,
		    t->dt_name);
}

/* The type "array of n base", one per shape. */
const dt_type_t *
dt_decl_array(dt_pcb_t *pcb, const dt_type_t *base, uint64_t n, int line)
{
	dt_type_t *t;

	dt_decl_check_object(pcb, base, line, "array element");
	if (base->dt_kind == DT_TK_STRING)
		dt_parser_error(pcb, line, D_DECL_ARRSUB,
		    "arrays of strings are not supported: use an "
		    "associative array");
	if (n == 0 || n > UINT32_MAX / (base->dt_size ? base->dt_size : 1))
		dt_parser_error(pcb, line, n == 0 ? D_DECL_ARRSUB :
		    D_DECL_ARRBIG, "array dimension %s", n == 0 ?
		    "must be a positive integer constant" : "too big");
	for (t = pcb->pcb_hdl->dt_types; t != NULL; t = t->dt_next) {
		if (t->dt_kind == DT_TK_ARRAY && t->dt_base == base &&
		    t->dt_nelems == n)
			return t;
	}
	/* "char [16]"; "int [2][3]"; "int *[4]"; "int (*[4])[2]" */
	t = dt_decl_derived(pcb, DT_TK_ARRAY, base, (uint32_t)n);
	t->dt_size = (uint32_t)n * base->dt_size;
	t->dt_align = dt_decl_align(base);
	return t;
}

static const char *
dt_decl_kindname(int kind)
{
	return kind == DT_TK_STRUCT ? "struct" : kind == DT_TK_UNION ?
	    "union" : "enum";
}

/*
 * A tagged struct, union or enum of that kind already known, or NULL.
 * As in illumos (whose type names carry the kind), "struct r" and
 * "union r" are two types.
 */
static dt_type_t *
dt_decl_tag_lookup(dt_pcb_t *pcb, int kind, const char *tag)
{
	dt_type_t *t;
	char name[256];

	for (t = pcb->pcb_hdl->dt_types; t != NULL; t = t->dt_next) {
		if (t->dt_kind != kind)
			continue;
		snprintf(name, sizeof(name), "%s %s",
		    dt_decl_kindname(t->dt_kind), tag);
		if (strcmp(t->dt_name, name) == 0)
			return t;
	}
	return NULL;
}

/* "struct foo" (or union, enum): the one known, or a new incomplete one. */
static dt_type_t *
dt_decl_tag(dt_pcb_t *pcb, int kind, const char *tag, int line)
{
	dt_type_t *t;
	char name[256];

	if (tag == NULL) {
		snprintf(name, sizeof(name), "%s <anon>",
		    dt_decl_kindname(kind));
		return dt_decl_new(pcb, kind, name);
	}
	if ((t = dt_decl_tag_lookup(pcb, kind, tag)) != NULL)
		return t;
	(void)line;
	snprintf(name, sizeof(name), "%s %s", dt_decl_kindname(kind), tag);
	return dt_decl_new(pcb, kind, name);
}

/*
 * "struct foo" used without a body: D's own, else the target's (from
 * its DWARF, dt_dwarf.c), else a new incomplete one.  "struct mod`foo"
 * is the target's module mod's, or an error.  A D library's are D's
 * alone: it is compiled before any program names a target (procfs.d's
 * struct task_struct would have every module's DWARF of a -p target
 * read, a fifth of a second, for a type that is not the target's).
 */
const dt_type_t *
dt_decl_sou_ref(dt_pcb_t *pcb, int kind, const char *tag, int line)
{
	const dt_type_t *t;
	char name[512];

	if (strchr(tag, '`') != NULL) {
		snprintf(name, sizeof(name), "%s %s", dt_decl_kindname(kind),
		    tag);
		if ((t = dt_dwarf_lookup(pcb->pcb_hdl, name, kind)) == NULL)
			dt_parser_error(pcb, line, D_TYPE_ERR, "no %s in the "
			    "target (or no debug information for it)", name);
		return t;
	}
	if ((t = dt_decl_tag_lookup(pcb, kind, tag)) != NULL)
		return t;
	snprintf(name, sizeof(name), "%s %s", dt_decl_kindname(kind), tag);
	if (pcb->pcb_lib == NULL &&
	    (t = dt_dwarf_lookup(pcb->pcb_hdl, name, kind)) != NULL)
		return t;
	return dt_decl_tag(pcb, kind, tag, line);
}

/* A type name the lexer found (DT_TOK_TNAME): D's own, else the target's. */
const dt_type_t *
dt_decl_tname(dt_pcb_t *pcb, const char *name)
{
	const dt_type_t *t = dt_decl_lookup_any(pcb->pcb_hdl, name);

	if (t == NULL && (t = dt_dwarf_lookup(pcb->pcb_hdl, name, 0)) == NULL)
		dt_parser_error(pcb, dt_lex_lineno(pcb), D_TYPE_ERR,
		    "unknown type name %s", name);
	dt_dwarf_check(pcb, dt_lex_lineno(pcb), t, name);
	return t;
}

/* "struct foo {": the members follow (dt_decl_member), then "}". */
dt_type_t *
dt_decl_sou_begin(dt_pcb_t *pcb, int kind, const char *tag, int line)
{
	dt_type_t *t = dt_decl_tag(pcb, kind, tag, line);
	int i;

	for (i = 0; i < pcb->pcb_nsou; i++) {
		if (pcb->pcb_sou[i] == t)
			break;
	}
	if (t->dt_defined || i < pcb->pcb_nsou)
		dt_parser_error(pcb, line, D_DECL_TYPERED,
		    "type redeclared: %s", t->dt_name);
	if (pcb->pcb_nsou == (int)(sizeof(pcb->pcb_sou) /
	    sizeof(pcb->pcb_sou[0])))
		dt_parser_error(pcb, line, D_DECL_MEMBER,
		    "struct and union declarations nested too deeply");
	t->dt_bitpos = 0;
	t->dt_align = 1;
	pcb->pcb_sou[pcb->pcb_nsou++] = t;
	return t;
}

static void
dt_decl_addmember(dt_pcb_t *pcb, dt_type_t *t, dt_member_t *m)
{
	dt_member_t **mp;

	for (mp = &t->dt_members; *mp != NULL; mp = &(*mp)->dm_next)
		continue;
	*mp = m;
	(void)pcb;
}

/* One member declarator of the struct or union being declared. */
static void
dt_decl_member1(dt_pcb_t *pcb, dt_type_t *sou, const dt_type_t *mt,
    dt_declr_t *dd)
{
	const char *name = dd->dd_name != NULL ? dd->dd_name : "<bit-field>";
	uint32_t al = dt_decl_align(mt), unit, msize;
	int64_t bits = -1;
	dt_member_t *m;

	if (dd->dd_name != NULL && dt_decl_member_lookup(sou, dd->dd_name))
		dt_parser_error(pcb, dd->dd_line, D_DECL_IDRED,
		    "member redeclared: %s", dd->dd_name);
	/* a string member is a char array of strsize bytes, as in illumos */
	msize = mt->dt_kind == DT_TK_STRING ? dt_decl_strsize(pcb->pcb_hdl) :
	    mt->dt_size;
	/* a member of a type not defined yet: illumos's words */
	if (mt == sou || ((mt->dt_kind == DT_TK_STRUCT ||
	    mt->dt_kind == DT_TK_UNION || mt->dt_kind == DT_TK_ENUM) &&
	    !mt->dt_defined))
		dt_parser_error(pcb, dd->dd_line, D_DECL_INCOMPLETE,
		    "incomplete struct/union/enum %s: %s", mt->dt_name, name);
	/* void and a function have no size: illumos's words for both */
	if (mt->dt_kind == DT_TK_VOID || mt->dt_kind == DT_TK_FUNC)
		dt_parser_error(pcb, dd->dd_line, D_DECL_VOIDOBJ,
		    "cannot have void member: %s", name);
	dt_decl_check_object(pcb, mt, dd->dd_line, name);
	if (dd->dd_bits != NULL) {
		if (!dt_decl_is_integral(mt))
			dt_parser_error(pcb, dd->dd_line, D_DECL_BFTYPE,
			    "invalid type for bit-field: %s", name);
		bits = dt_node_intconst(pcb, dd->dd_bits, "bit-field size",
		    D_DECL_BFSIZE);
		if (bits > (int64_t)mt->dt_size * 8)
			dt_parser_error(pcb, dd->dd_line, D_DECL_BFSIZE,
			    "bit-field too big for type: %s", name);
		if (bits < 0 ||
		    (bits == 0 && dd->dd_name != NULL))
			dt_parser_error(pcb, dd->dd_line, D_DECL_BFSIZE,
			    "bit-field %s cannot have size %lld: it must be "
			    "within 1 and %u", name, (long long)bits,
			    mt->dt_size * 8);
	}
	if ((m = calloc(1, sizeof(*m))) == NULL)
		dt_decl_nomem(pcb);
	m->dm_type = mt;
	if (dd->dd_name != NULL &&
	    (m->dm_name = strdup(dd->dd_name)) == NULL) {
		free(m);
		dt_decl_nomem(pcb);
	}
	if (sou->dt_kind == DT_TK_UNION) {
		if (bits >= 0)
			m->dm_bits = (uint8_t)bits;
		if (msize > sou->dt_bitpos / 8)
			sou->dt_bitpos = (uint64_t)msize * 8;
	} else if (bits >= 0) {
		/* a storage unit of the declared type that holds it whole */
		unit = mt->dt_size * 8;
		if (bits == 0 || sou->dt_bitpos % unit + bits > unit)
			sou->dt_bitpos = (sou->dt_bitpos + unit - 1) /
			    unit * unit;
		m->dm_off = (uint32_t)(sou->dt_bitpos / unit * mt->dt_size);
		m->dm_bitoff = (uint8_t)(sou->dt_bitpos - m->dm_off * 8ULL);
		m->dm_bits = (uint8_t)bits;
		sou->dt_bitpos += bits;
	} else {
		sou->dt_bitpos = (sou->dt_bitpos + al * 8 - 1) / (al * 8) *
		    (al * 8);
		m->dm_off = (uint32_t)(sou->dt_bitpos / 8);
		sou->dt_bitpos += (uint64_t)msize * 8;
	}
	if (dd->dd_name == NULL) {
		/* an unnamed bit-field pads, and is not a member */
		free(m);
		return;
	}
	if (al > sou->dt_align)
		sou->dt_align = al;
	dt_decl_addmember(pcb, sou, m);
}

/* "type declarator, ...;" inside a struct or union body. */
void
dt_decl_member(dt_pcb_t *pcb, const dt_typespec_t *ts, dt_declr_t *list)
{
	dt_type_t *sou = pcb->pcb_sou[pcb->pcb_nsou - 1];
	const dt_type_t *base;
	dt_declr_t *dd;

	if (ts->ts_class != DT_DCLASS_NONE)
		dt_parser_error(pcb, list != NULL ? list->dd_line :
		    dt_lex_lineno(pcb), D_DECL_CLASS,
		    "storage class may not be used for a member");
	base = dt_decl_spec(pcb, ts, list != NULL ? list->dd_line :
	    dt_lex_lineno(pcb));
	for (dd = list; dd != NULL; dd = dd->dd_next)
		dt_decl_member1(pcb, sou, dt_decl_derive(pcb, base, dd), dd);
}

/* "}": the struct or union is complete. */
const dt_type_t *
dt_decl_sou_end(dt_pcb_t *pcb)
{
	dt_type_t *t = pcb->pcb_sou[--pcb->pcb_nsou];
	uint64_t bytes = (t->dt_bitpos + 7) / 8;

	bytes = (bytes + t->dt_align - 1) / t->dt_align * t->dt_align;
	if (bytes > UINT32_MAX)
		dt_parser_error(pcb, dt_lex_lineno(pcb), D_DECL_ARRBIG,
		    "%s is too large", t->dt_name);
	t->dt_size = (uint32_t)bytes;
	t->dt_defined = 1;
	return t;
}

/* "enum e {": the enumerators follow, then "}". */
dt_type_t *
dt_decl_enum_begin(dt_pcb_t *pcb, const char *tag, int line)
{
	dt_type_t *t = dt_decl_tag(pcb, DT_TK_ENUM, tag, line);

	if (t->dt_defined || pcb->pcb_enum != NULL)
		dt_parser_error(pcb, line, D_DECL_TYPERED,
		    "type redeclared: %s", t->dt_name);
	t->dt_size = 4;
	t->dt_signed = 1;
	t->dt_rank = 3;
	pcb->pcb_enum = t;
	pcb->pcb_enumval = 0;
	return t;
}

/* One enumerator: a constant of the enum's type, usable in expressions. */
void
dt_decl_enumerator(dt_pcb_t *pcb, char *name, dt_node_t *val, int line)
{
	dt_type_t *t = pcb->pcb_enum;
	dt_ident_t *idp;
	dt_member_t *m;
	int64_t v = pcb->pcb_enumval;

	if (val != NULL) {
		val = dt_node_cook(pcb, val);
		if (val->dn_kind != DT_NODE_INT || !dt_node_is_int(val))
			dt_parser_error(pcb, line, D_DECL_ENCONST,
			    "enumerator '%s' must be assigned to an integral "
			    "constant expression", name);
		v = dt_node_intconst(pcb, val, "enumerator", D_DECL_ENCONST);
	}
	if (v < INT32_MIN || v > INT32_MAX)
		dt_parser_error(pcb, line, D_DECL_ENOFLOW,
		    "enumerator '%s' value overflows INT_MAX (%d)", name,
		    INT32_MAX);
	/* twice in one enum: illumos's type library refuses the member */
	if (dt_decl_member_lookup(t, name) != NULL)
		dt_parser_error(pcb, line, D_UNKNOWN,
		    "failed to define enumerator '%s': Duplicate member or "
		    "variable name", name);
	if (dt_idhash_lookup(pcb->pcb_hdl->dt_globals, name) != NULL)
		dt_parser_error(pcb, line, D_DECL_IDRED,
		    "identifier redeclared: %s", name);
	idp = dt_idhash_insert(pcb->pcb_hdl->dt_globals, name,
	    DT_IDENT_ENUMR, DT_IDFLG_BUILTIN, 0, t);
	if (idp == NULL || (m = calloc(1, sizeof(*m))) == NULL)
		dt_decl_nomem(pcb);
	idp->di_value = v;
	idp->di_gen = pcb->pcb_gen;
	m->dm_name = dt_decl_strdup(pcb, name);
	m->dm_type = t;
	m->dm_value = v;
	dt_decl_addmember(pcb, t, m);
	pcb->pcb_enumval = v + 1;
}

const dt_type_t *
dt_decl_enum_end(dt_pcb_t *pcb)
{
	dt_type_t *t = pcb->pcb_enum;

	t->dt_defined = 1;
	pcb->pcb_enum = NULL;
	return t;
}

/* The type of a list of specifiers, or a compile error. */
const dt_type_t *
dt_decl_spec(dt_pcb_t *pcb, const dt_typespec_t *ts, int line)
{
	const dt_type_t *t;
	const char *why;
	int tag;

	/* as illumos: at the specifiers, not at the end of a struct body */
	if ((t = dt_decl_type(ts, &why, &tag)) == NULL)
		dt_parser_error(pcb, ts->ts_line > 0 ? ts->ts_line : line,
		    (dt_errtag_t)tag, "%s", why);
	return t;
}

/*
 * The type "function of params returning ret" (params: type nodes; a
 * lone void means none), one per shape.
 */
static const dt_type_t *
dt_decl_func(dt_pcb_t *pcb, const dt_type_t *ret, const dt_node_t *params,
    int varargs, int line)
{
	const dt_node_t *np;
	const dt_member_t *m;
	dt_member_t *nm, **mp;
	dt_type_t *t;
	uint32_t n = 0;

	if (ret->dt_kind == DT_TK_ARRAY || ret->dt_kind == DT_TK_FUNC)
		dt_parser_error(pcb, line, D_DECL_FUNCRET,
		    "a function may not return %s: %s",
		    ret->dt_kind == DT_TK_ARRAY ? "an array" : "a function",
		    ret->dt_name);
	if (params != NULL && params->dn_list == NULL && !varargs &&
	    params->dn_type->dt_kind == DT_TK_VOID)
		params = NULL;
	for (np = params; np != NULL; np = np->dn_list, n++) {
		if (np->dn_type->dt_kind == DT_TK_VOID)
			dt_parser_error(pcb, line, D_DECL_PROTO_VOID,
			    "void must be the only parameter");
	}
	for (t = pcb->pcb_hdl->dt_types; t != NULL; t = t->dt_next) {
		if (t->dt_kind != DT_TK_FUNC || t->dt_base != ret ||
		    t->dt_nelems != n || t->dt_signed != varargs)
			continue;
		for (np = params, m = t->dt_members; np != NULL;
		    np = np->dn_list, m = m->dm_next) {
			/* a parameter of array type is a pointer (C) */
			if (m->dm_type != np->dn_type &&
			    !(np->dn_type->dt_kind == DT_TK_ARRAY &&
			    m->dm_type->dt_kind == DT_TK_PTR &&
			    m->dm_type->dt_base == np->dn_type->dt_base))
				break;
		}
		if (np == NULL)
			return t;
	}
	t = dt_decl_new(pcb, DT_TK_FUNC, "function");
	t->dt_base = ret;
	t->dt_nelems = n;
	t->dt_signed = (uint8_t)varargs;
	t->dt_defined = 1;
	for (np = params, mp = &t->dt_members; np != NULL; np = np->dn_list) {
		if ((nm = calloc(1, sizeof(*nm))) == NULL)
			dt_decl_nomem(pcb);
		nm->dm_type = np->dn_type->dt_kind == DT_TK_ARRAY ?
		    dt_decl_ptr(pcb, np->dn_type->dt_base) :
		    np->dn_type->dt_kind == DT_TK_FUNC ?
		    dt_decl_ptr(pcb, np->dn_type) : np->dn_type;
		*mp = nm;
		mp = &nm->dm_next;
	}
	{
		char *name = dt_decl_cname(t, "");

		if (name == NULL)
			dt_decl_nomem(pcb);
		free((char *)t->dt_name);
		t->dt_name = name;
	}
	return t;
}

/* Apply a declarator's pointers, arrays and functions to its base type. */
const dt_type_t *
dt_decl_derive(dt_pcb_t *pcb, const dt_type_t *t, const dt_declr_t *dd)
{
	const dt_dop_t *op;

	for (op = dd != NULL ? dd->dd_ops : NULL; op != NULL;
	    op = op->do_next) {
		switch (op->do_kind) {
		case DT_DOP_PTR:
			if (t->dt_kind == DT_TK_STRING)
				dt_parser_error(pcb, dd->dd_line, D_DECL_COMBO,
				    "pointers to string are not supported");
			t = dt_decl_ptr(pcb, t);
			break;
		case DT_DOP_ARRAY:
			t = dt_decl_array(pcb, t, op->do_n, dd->dd_line);
			break;
		case DT_DOP_FUNC:
			t = dt_decl_func(pcb, t, op->do_keys, (int)op->do_n,
			    dd->dd_line);
			break;
		default:
			dt_parser_error(pcb, dd->dd_line, D_DECL_COMBO,
			    "an associative array may only be declared as a "
			    "variable");
		}
	}
	return t;
}

static void
dt_decl_typedef(dt_pcb_t *pcb, const char *name, const dt_type_t *t,
    int line)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dt_tdef_t *td;

	if (dt_decl_lookup_any(dtp, name) != NULL ||
	    dt_idhash_lookup(dtp->dt_globals, name) != NULL)
		dt_parser_error(pcb, line, D_DECL_IDRED,
		    "identifier redeclared: %s", name);
	if ((td = calloc(1, sizeof(*td))) == NULL)
		dt_decl_nomem(pcb);
	if ((td->td_name = strdup(name)) == NULL) {
		free(td);
		dt_decl_nomem(pcb);
	}
	td->td_type = t;
	td->td_gen = pcb->pcb_gen;
	td->td_next = dtp->dt_tdefs;
	dtp->dt_tdefs = td;
}

/* One variable declaration: "int x;", "self char *p;", "int a[string];" */
static void
dt_decl_var(dt_pcb_t *pcb, const dt_typespec_t *ts, const dt_type_t *base,
    dt_declr_t *dd)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	int scope = ts->ts_class == DT_DCLASS_SELF ? DIFV_SCOPE_THREAD :
	    ts->ts_class == DT_DCLASS_THIS ? DIFV_SCOPE_LOCAL :
	    DIFV_SCOPE_GLOBAL;
	const char *pfx = scope == DIFV_SCOPE_THREAD ? "self->" :
	    scope == DIFV_SCOPE_LOCAL ? "this->" : "";
	dt_dop_t *op, *assoc = NULL, **opp;
	const dt_type_t *t, **keys = NULL;
	char name[512];
	dt_node_t *kp;
	dt_ident_t *idp;
	int n = 0, i;

	snprintf(name, sizeof(name), "%s%s", pfx, dd->dd_name);
	/* the last derivation may make it an associative array */
	for (opp = &dd->dd_ops; (op = *opp) != NULL; opp = &op->do_next) {
		if (op->do_next == NULL && op->do_kind == DT_DOP_ASSOC) {
			assoc = op;
			*opp = NULL;
			break;
		}
	}
	/* "extern int a[];": an array of the traced program, likewise */
	for (op = dd->dd_ops; ts->ts_class == DT_DCLASS_EXTERN && op != NULL;
	    op = op->do_next) {
		if (op->do_kind == DT_DOP_ARRAY && op->do_n == 0)
			return;
	}
	t = dt_decl_derive(pcb, base, dd);
	/*
	 * "extern int f(void);" declares a function of the traced program,
	 * as C headers do: legal, and nothing D can call or read.
	 */
	if (t->dt_kind == DT_TK_FUNC && assoc == NULL &&
	    scope == DIFV_SCOPE_GLOBAL)
		return;
	dt_decl_check_object(pcb, t, dd->dd_line, dd->dd_name);
	if (dt_idhash_lookup(dtp->dt_globals, name) != NULL)
		dt_parser_error(pcb, dd->dd_line, D_DECL_IDRED,
		    "identifier redeclared: %s", name);
	if (scope == DIFV_SCOPE_LOCAL && dt_decl_is_byref(t) &&
	    t->dt_size > dt_decl_strsize(dtp))
		dt_parser_error(pcb, dd->dd_line, D_DECL_DYNOBJ,
		    "%s of type %s is %u bytes: a clause-local variable holds "
		    "at most strsize (%u) bytes", name, t->dt_name,
		    t->dt_size, dt_decl_strsize(dtp));
	if (assoc == NULL) {
		(void)dt_node_declare(pcb, dd->dd_line, name, DT_IDENT_SCALAR,
		    scope, t);
		return;
	}
	if (scope == DIFV_SCOPE_LOCAL)
		dt_parser_error(pcb, dd->dd_line, D_DECL_LOCASSC,
		    "associative arrays may not be declared as local "
		    "variables: %s", dd->dd_name);
	/* before the keys are allocated: dt_node_declare's bound */
	if (dt_decl_is_byref(t) && t->dt_size > DIF_MAXSTRSIZE)
		dt_parser_error(pcb, dd->dd_line, D_DECL_DYNOBJ,
		    "%s[ ] of type %s is %u bytes: a dynamic variable holds at "
		    "most %u bytes", name, t->dt_name, t->dt_size,
		    (unsigned int)DIF_MAXSTRSIZE);
	for (kp = assoc->do_keys; kp != NULL; kp = kp->dn_list)
		n++;
	if (n > DIF_DTR_NREGS - (scope == DIFV_SCOPE_THREAD))
		dt_parser_error(pcb, dd->dd_line, D_KEY_TYPE,
		    "%s[ ] has too many keys: %d, at most %d", name, n,
		    DIF_DTR_NREGS - (scope == DIFV_SCOPE_THREAD));
	if ((keys = calloc(n, sizeof(*keys))) == NULL)
		dt_decl_nomem(pcb);
	for (kp = assoc->do_keys, i = 0; kp != NULL; kp = kp->dn_list, i++) {
		keys[i] = kp->dn_type;
		if (!dt_decl_is_scalar(keys[i]) &&
		    keys[i]->dt_kind != DT_TK_STRING &&
		    !dt_decl_is_sou_key(keys[i])) {
			free(keys);
			dt_parser_error(pcb, dd->dd_line, D_KEY_TYPE,
			    "%s expression may not be used as an associative "
			    "array index: key #%d", kp->dn_type->dt_name,
			    i + 1);
		}
	}
	idp = dt_node_declare(pcb, dd->dd_line, name, DT_IDENT_ASSOC, scope,
	    t);
	idp->di_keys = keys;
	idp->di_nargs = n;
}

/* A declaration at the program level: typedefs and variables. */
void
dt_decl_declare(dt_pcb_t *pcb, const dt_typespec_t *ts, dt_declr_t *list,
    int line)
{
	const dt_type_t *base = dt_decl_spec(pcb, ts, line);
	dt_declr_t *dd;

	if (list == NULL) {
		/* "struct s { ... };" and "enum e { ... };" declare types */
		if (ts->ts_name == NULL || (ts->ts_name->dt_kind !=
		    DT_TK_STRUCT && ts->ts_name->dt_kind != DT_TK_UNION &&
		    ts->ts_name->dt_kind != DT_TK_ENUM) ||
		    ts->ts_class != DT_DCLASS_NONE)
			dt_parser_error(pcb, line, D_DECL_USELESS,
			    "useless declaration");
		return;
	}
	if (ts->ts_class >= DT_DCLASS_AUTO)
		dt_parser_error(pcb, list->dd_line, D_DECL_BADCLASS,
		    "specified storage class not appropriate in D");
	for (dd = list; dd != NULL; dd = dd->dd_next) {
		if (dd->dd_bits != NULL)
			dt_parser_error(pcb, dd->dd_line, D_DECL_BFTYPE,
			    "bit-field %s may only be a member of a struct or "
			    "union", dd->dd_name);
		if (ts->ts_class == DT_DCLASS_TYPEDEF)
			dt_decl_typedef(pcb, dd->dd_name,
			    dt_decl_derive(pcb, base, dd), dd->dd_line);
		else
			dt_decl_var(pcb, ts, base, dd);
	}
}

const dt_member_t *
dt_decl_member_lookup(const dt_type_t *t, const char *name)
{
	const dt_member_t *m;

	for (m = t->dt_members; m != NULL; m = m->dm_next) {
		if (m->dm_name != NULL && strcmp(m->dm_name, name) == 0)
			return m;
	}
	return NULL;
}

static void
dt_decl_free(dt_type_t *t)
{
	dt_member_t *m, *next;

	for (m = t->dt_members; m != NULL; m = next) {
		next = m->dm_next;
		free(m->dm_name);
		free(m);
	}
	free((char *)t->dt_name);
	free(t);
}

/* Take back the types and typedefs a failed compile created. */
void
dt_decl_rollback(dtrace_hdl_t *dtp, unsigned int gen)
{
	dt_type_t **tp, *t;
	dt_tdef_t **dp, *td;

	for (dp = &dtp->dt_tdefs; (td = *dp) != NULL;) {
		if (td->td_gen == gen) {
			*dp = td->td_next;
			free(td->td_name);
			free(td);
		} else
			dp = &td->td_next;
	}
	for (tp = &dtp->dt_types; (t = *tp) != NULL;) {
		if (t->dt_gen == gen) {
			*tp = t->dt_next;
			dt_decl_free(t);
		} else {
			/* a body begun by the failed compile is unfinished */
			if (!t->dt_defined && t->dt_members != NULL) {
				dt_member_t *m, *next;

				for (m = t->dt_members; m != NULL; m = next) {
					next = m->dm_next;
					free(m->dm_name);
					free(m);
				}
				t->dt_members = NULL;
			}
			tp = &t->dt_next;
		}
	}
}

void
dt_decl_destroy(dtrace_hdl_t *dtp)
{
	dt_type_t *t, *tn;
	dt_tdef_t *td, *dn;

	for (td = dtp->dt_tdefs; td != NULL; td = dn) {
		dn = td->td_next;
		free(td->td_name);
		free(td);
	}
	for (t = dtp->dt_types; t != NULL; t = tn) {
		tn = t->dt_next;
		dt_decl_free(t);
	}
	dtp->dt_tdefs = NULL;
	dtp->dt_types = NULL;
}
