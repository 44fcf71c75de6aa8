/*
 * dt_decl.c: the D types the compiler knows.  Until type information
 * from CTF/DWARF lands, D has the C integer types (LP64), the D string
 * type, void, and the typedefs illumos DTrace predefines for them.
 */
#include <string.h>

#include "dt_impl.h"

#define DT_INT(n, sz, sg, rk)	{ n, DT_TK_INT, sz, sg, rk }

const dt_type_t dt_type_void = { "void", DT_TK_VOID, 0, 0, 0 };
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
const dt_type_t dt_type_string = { "string", DT_TK_STRING, 0, 0, 0 };

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
};

/* A typedef name, or NULL. */
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
dt_decl_type(const dt_typespec_t *ts, const char **whyp)
{
	int nbase = ts->ts_char + ts->ts_short + ts->ts_int + ts->ts_void +
	    ts->ts_string + (ts->ts_name != NULL);
	int sign = ts->ts_signed + ts->ts_unsigned;

	*whyp = "invalid type combination";
	if (sign > 1 || ts->ts_long > 2)
		return NULL;
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
	return NULL;
}

/* C's integer promotions: anything narrower than int becomes int. */
const dt_type_t *
dt_decl_promote(const dt_type_t *t)
{
	if (t->dt_kind == DT_TK_INT && t->dt_size < 4)
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
	case DT_TK_PTR:
		/* an address, by value: 64 bits in the LP64 model */
		dt->dt_kind = DIF_TYPE_CTF;
		dt->dt_ckind = DIF_CKIND_POINTER;
		dt->dt_size = 8;
		break;
	default:
		dt->dt_kind = DIF_TYPE_CTF;
		dt->dt_ckind = DIF_CKIND_INTEGER;
		break;
	}
}
