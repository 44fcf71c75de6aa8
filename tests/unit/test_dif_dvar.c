/*
 * test_dif_dvar.c: dynamic variables (self->x, a[k...], self->a[k...]),
 * clause-local variables (this->x) and strtok(), on hand-assembled DIFOs
 * run through dif_verify() and dif_vm_exec(); the space's bounds and
 * drop count; four threads storing at once; structs lent in place
 * (a[k].m = v): the bytes lent and no more, holds across a delete, a
 * full space; strtok() across clauses; the verifier's checks of the
 * new opcodes; and their disassembly.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dif.h"
#include "tap.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The probe arguments of the current firing, per thread so that the
 * concurrent test can fire from four threads.
 */
static __thread uint64_t args[4];

static int
fake_builtin(void *arg, uint32_t var, uint64_t ndx, uint64_t *valp)
{
	(void)arg;
	(void)ndx;
	if (var >= DIF_VAR_ARG0 && var <= DIF_VAR_ARG3) {
		*valp = args[var - DIF_VAR_ARG0];
		return 0;
	}
	return DIF_FLT_ILLOP;
}

static const dif_host_t host = { fake_builtin, NULL };

/* Variable names; the vartab below points into this string table. */
static char strs[] = "\0x\0s\0a\0b\0t\0l\0ls\0 ,\0";
#define S_X	1
#define S_S	3
#define S_A	5
#define S_B	7
#define S_T	9
#define S_L	11
#define S_LS	13
#define S_DELIM	16

#define INTTYPE	{ DIF_TYPE_CTF, DIF_CKIND_INTEGER, DIF_TF_SIGNED, 0, 8 }
#define STRTYPE	{ DIF_TYPE_STRING, DIF_CKIND_UNKNOWN, DIF_TF_BYREF, 0, 32 }
#define RW	(DIFV_F_REF | DIFV_F_MOD)

/*
 * self->x (int) and global a[] share id 0x500, self->s (string) and
 * global b[] (string values) share 0x501: scopes keep them apart.
 */
static dif_var_t vartab[] = {
	{ S_X, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, RW, INTTYPE },
	{ S_S, 0x501, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, RW, STRTYPE },
	{ S_A, 0x500, DIFV_KIND_ARRAY, DIFV_SCOPE_GLOBAL, RW, INTTYPE },
	{ S_B, 0x501, DIFV_KIND_ARRAY, DIFV_SCOPE_GLOBAL, RW, STRTYPE },
	{ S_T, 0x502, DIFV_KIND_ARRAY, DIFV_SCOPE_THREAD, RW, INTTYPE },
	{ S_L, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_LOCAL, RW, INTTYPE },
	{ S_LS, 0x501, DIFV_KIND_SCALAR, DIFV_SCOPE_LOCAL, RW, STRTYPE },
};

#define A0	DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 1)
#define A1	DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG1, 2)
#define A2	DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG2, 3)
#define PUSHV(r) DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, r)
#define PUSHS(r) DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, r)

/* self->x = arg0 */
static dif_instr_t p_stts[] = { A0, DIF_INSTR_STV(DIF_OP_STTS, 0x500, 1),
	DIF_INSTR_RET(1) };
/* self->x */
static dif_instr_t p_ldts[] = { DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 1),
	DIF_INSTR_RET(1) };
/* self->x = self->x + arg0 */
static dif_instr_t p_incts[] = { A0, DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 2),
	DIF_INSTR_FMT(DIF_OP_ADD, 1, 2, 2),
	DIF_INSTR_STV(DIF_OP_STTS, 0x500, 2), DIF_INSTR_RET(2) };
/* self->s = (string)arg0 */
static dif_instr_t p_stss[] = { A0, DIF_INSTR_STV(DIF_OP_STTS, 0x501, 1),
	DIF_INSTR_RET(1) };
/* self->s */
static dif_instr_t p_ldss[] = { DIF_INSTR_LDV(DIF_OP_LDTS, 0x501, 1),
	DIF_INSTR_RET(1) };
/* a[arg0, (string)arg1] = arg2 */
static dif_instr_t p_stgaa[] = { A0, A1, A2, DIF_INSTR_FLUSHTS, PUSHV(1),
	PUSHS(2), DIF_INSTR_STV(DIF_OP_STGAA, 0x500, 3), DIF_INSTR_FLUSHTS,
	DIF_INSTR_RET(3) };
/* a[arg0, (string)arg1] */
static dif_instr_t p_ldgaa[] = { A0, A1, DIF_INSTR_FLUSHTS, PUSHV(1),
	PUSHS(2), DIF_INSTR_LDV(DIF_OP_LDGAA, 0x500, 3), DIF_INSTR_FLUSHTS,
	DIF_INSTR_RET(3) };
/* b[(string)arg0] = (string)arg1 */
static dif_instr_t p_stgaas[] = { A0, A1, DIF_INSTR_FLUSHTS, PUSHS(1),
	DIF_INSTR_STV(DIF_OP_STGAA, 0x501, 2), DIF_INSTR_RET(2) };
/* b[(string)arg0] */
static dif_instr_t p_ldgaas[] = { A0, DIF_INSTR_FLUSHTS, PUSHS(1),
	DIF_INSTR_LDV(DIF_OP_LDGAA, 0x501, 2), DIF_INSTR_RET(2) };
/* self->t[arg0] = arg1 */
static dif_instr_t p_sttaa[] = { A0, A1, DIF_INSTR_FLUSHTS, PUSHV(1),
	DIF_INSTR_STV(DIF_OP_STTAA, 0x502, 2), DIF_INSTR_RET(2) };
/* self->t[arg0] */
static dif_instr_t p_ldtaa[] = { A0, DIF_INSTR_FLUSHTS, PUSHV(1),
	DIF_INSTR_LDV(DIF_OP_LDTAA, 0x502, 2), DIF_INSTR_RET(2) };
/* this->l = arg0 */
static dif_instr_t p_stls[] = { A0, DIF_INSTR_STV(DIF_OP_STLS, 0x500, 1),
	DIF_INSTR_RET(1) };
/* this->l */
static dif_instr_t p_ldls[] = { DIF_INSTR_LDV(DIF_OP_LDLS, 0x500, 1),
	DIF_INSTR_RET(1) };
/* this->ls = (string)arg0 */
static dif_instr_t p_stlss[] = { A0, DIF_INSTR_STV(DIF_OP_STLS, 0x501, 1),
	DIF_INSTR_RET(1) };
/* this->ls */
static dif_instr_t p_ldlss[] = { DIF_INSTR_LDV(DIF_OP_LDLS, 0x501, 1),
	DIF_INSTR_RET(1) };
/* strtok((string)arg0, " ,") */
static dif_instr_t p_strtok[] = { A0, DIF_INSTR_SETS(S_DELIM, 2),
	DIF_INSTR_FLUSHTS, PUSHS(1), PUSHS(2),
	DIF_INSTR_CALL(DIF_SUBR_STRTOK, 3), DIF_INSTR_FLUSHTS,
	DIF_INSTR_RET(3) };

static dif_difo_t
mk(dif_instr_t *buf, uint32_t len, int byref)
{
	dif_difo_t d;

	memset(&d, 0, sizeof(d));
	d.dd_buf = buf;
	d.dd_len = len;
	d.dd_strtab = strs;
	d.dd_strlen = sizeof(strs);
	d.dd_vartab = vartab;
	d.dd_varlen = NELEM(vartab);
	if (byref) {
		d.dd_rtype.dt_kind = DIF_TYPE_STRING;
		d.dd_rtype.dt_flags = DIF_TF_BYREF;
		d.dd_rtype.dt_size = 32;
	} else {
		d.dd_rtype.dt_kind = DIF_TYPE_CTF;
		d.dd_rtype.dt_ckind = DIF_CKIND_INTEGER;
		d.dd_rtype.dt_size = 8;
	}
	return d;
}

#define MK(p)	mk(p, NELEM(p), 0)
#define MKS(p)	mk(p, NELEM(p), 1)

/*
 * What one thread firing probes needs: scratch, an mstate and its
 * clause-local storage; the host resets scratch per clause and the
 * clause-locals per firing.
 */
typedef struct firer {
	char		fi_scratch[4096];
	dif_mstate_t	fi_ms;
	dif_lstate_t	fi_ls;
	char		fi_str[3][64];	/* string arguments, loadable */
	int		fi_fault;
} firer_t;

static uint64_t
fire(firer_t *f, dif_vstate_t *vs, const dif_difo_t *d, uint64_t tkey,
    uint64_t a0, uint64_t a1, uint64_t a2)
{
	dif_mstate_t *ms = &f->fi_ms;
	uint64_t v;
	int i;

	dif_mstate_init(ms, &host, NULL, vs, f->fi_scratch,
	    sizeof(f->fi_scratch), 32);
	ms->dm_tkey = tkey;
	ms->dm_lstate = &f->fi_ls;
	for (i = 0; i < 3; i++) {
		ms->dm_regions[i].dr_base = (uintptr_t)f->fi_str[i];
		ms->dm_regions[i].dr_size = sizeof(f->fi_str[i]);
	}
	ms->dm_nregions = 3;
	args[0] = a0;
	args[1] = a1;
	args[2] = a2;
	v = dif_vm_exec(d, ms);
	f->fi_fault = ms->dm_fault;
	dif_mstate_fini(ms);
	return v;
}

/* A string argument: copied into the firer's loadable string slot n. */
static uint64_t
sarg(firer_t *f, int n, const char *s)
{
	snprintf(f->fi_str[n], sizeof(f->fi_str[n]), "%s", s);
	return (uint64_t)(uintptr_t)f->fi_str[n];
}

static const char *
R(uint64_t v)
{
	return (const char *)(uintptr_t)v;
}

static int
verifies(dif_difo_t *d, const char *name)
{
	char err[256];

	if (dif_verify(d, err, sizeof(err)) != 0) {
		printf("# %s: %s\n", name, err);
		return 0;
	}
	return 1;
}

static firer_t F;	/* the main thread's */

static void
test_accept(void)
{
	static struct {
		dif_instr_t	*p;
		uint32_t	len;
		const char	*name;
	} progs[] = {
#define P(x)	{ x, NELEM(x), #x }
		P(p_stts), P(p_ldts), P(p_incts), P(p_stss), P(p_ldss),
		P(p_stgaa), P(p_ldgaa), P(p_stgaas), P(p_ldgaas), P(p_sttaa),
		P(p_ldtaa), P(p_stls), P(p_ldls), P(p_stlss), P(p_ldlss),
		P(p_strtok),
#undef P
	};
	size_t i;
	int ok = 1;

	for (i = 0; i < NELEM(progs); i++) {
		dif_difo_t d = mk(progs[i].p, progs[i].len, 0);

		ok &= verifies(&d, progs[i].name);
	}
	tap_ok(ok, "the verifier accepts every test program");
}

static void
test_tls(void)
{
	dif_vstate_t vs = { NULL, 0, NULL };
	dif_difo_t st = MK(p_stts), ld = MK(p_ldts), inc = MK(p_incts);
	dif_difo_t sts = MKS(p_stss), lds = MKS(p_ldss);
	uint64_t v, used1;

	tap_ok(dif_dvar_init(&vs, 1 << 20) == 0, "dif_dvar_init");
	v = fire(&F, &vs, &ld, 7, 0, 0, 0);
	tap_ok(v == 0 && F.fi_fault == 0, "ldts of an absent self->x is 0");
	fire(&F, &vs, &st, 7, 42, 0, 0);
	tap_is(fire(&F, &vs, &ld, 7, 0, 0, 0), 42, "stts then ldts");
	tap_is(dif_dvar_count(&vs), 1, "one dynamic variable");
	used1 = dif_dvar_used(&vs);
	tap_ok(used1 > 0, "its size is charged");
	tap_is(fire(&F, &vs, &ld, 8, 0, 0, 0), 0,
	    "thread 8 does not see thread 7's self->x");
	fire(&F, &vs, &st, 8, 99, 0, 0);
	tap_ok(fire(&F, &vs, &ld, 7, 0, 0, 0) == 42 &&
	    fire(&F, &vs, &ld, 8, 0, 0, 0) == 99,
	    "two threads' self->x kept apart");
	fire(&F, &vs, &inc, 7, 3, 0, 0);
	tap_is(fire(&F, &vs, &ld, 7, 0, 0, 0), 45, "self->x += 3");
	fire(&F, &vs, &st, 7, 0, 0, 0);
	tap_ok(fire(&F, &vs, &ld, 7, 0, 0, 0) == 0 &&
	    dif_dvar_count(&vs) == 1 && dif_dvar_used(&vs) == used1,
	    "storing 0 deletes self->x and frees its space");
	fire(&F, &vs, &st, 7, 0, 0, 0);
	tap_is(dif_dvar_count(&vs), 1, "deleting an absent variable: no-op");

	/* no thread context: nothing stored, nothing loaded */
	fire(&F, &vs, &st, 0, 5, 0, 0);
	tap_ok(F.fi_fault == 0 && dif_dvar_count(&vs) == 1 &&
	    fire(&F, &vs, &ld, 0, 0, 0, 0) == 0 && dif_dvar_drops(&vs, 0) == 0,
	    "tkey 0: self-> refers to nothing");

	/* strings */
	v = fire(&F, &vs, &lds, 7, 0, 0, 0);
	tap_ok(F.fi_fault == 0 && v == 0,
	    "ldts of an absent string: NULL, as in illumos");
	fire(&F, &vs, &sts, 7, sarg(&F, 0, "hello"), 0, 0);
	v = fire(&F, &vs, &lds, 7, 0, 0, 0);
	tap_str(F.fi_fault == 0 ? R(v) : NULL, "hello", "self->s = \"hello\"");
	tap_ok(v != (uint64_t)(uintptr_t)F.fi_str[0] &&
	    dif_vm_canload(&F.fi_ms, &lds, v, 6),
	    "the value was copied, and the load is loadable");
	fire(&F, &vs, &sts, 7,
	    sarg(&F, 0, "a string longer than the 32 bytes of the type"), 0,
	    0);
	v = fire(&F, &vs, &lds, 7, 0, 0, 0);
	tap_str(R(v), "a string longer than the 32 byte",
	    "a long string is cut at the variable's size (32 characters)");
	tap_is(fire(&F, &vs, &lds, 8, 0, 0, 0), 0,
	    "thread 8's self->s is still absent");
	fire(&F, &vs, &sts, 7, sarg(&F, 0, ""), 0, 0);
	tap_is(dif_dvar_count(&vs), 1, "storing \"\" deletes self->s");
	fire(&F, &vs, &sts, 7, sarg(&F, 0, "x"), 0, 0);
	fire(&F, &vs, &sts, 7, 0, 0, 0);
	tap_is(dif_dvar_count(&vs), 1, "storing NULL deletes self->s");
	fire(&F, &vs, &sts, 7, 0x10, 0, 0);
	tap_ok(F.fi_fault == DIF_FLT_BADADDR && F.fi_ms.dm_illval == 0x10 &&
	    F.fi_ms.dm_faultpc == 1, "storing a bad string pointer faults");

	/* a thread that exits loses its variables */
	fire(&F, &vs, &st, 7, 1, 0, 0);
	fire(&F, &vs, &sts, 7, sarg(&F, 0, "bye"), 0, 0);
	tap_is(dif_dvar_count(&vs), 3, "three variables for two threads");
	dif_dvar_thread_exit(&vs, 7);
	tap_ok(dif_dvar_count(&vs) == 1 && fire(&F, &vs, &ld, 8, 0, 0, 0) == 99 &&
	    fire(&F, &vs, &ld, 7, 0, 0, 0) == 0,
	    "dif_dvar_thread_exit frees only that thread's");
	fire(&F, &vs, &st, 8, 0, 0, 0);
	tap_ok(dif_dvar_count(&vs) == 0 && dif_dvar_used(&vs) == 0,
	    "all deleted: no space used");
	dif_dvar_fini(&vs);
	tap_ok(vs.dv_dynvars == NULL, "dif_dvar_fini");

	/* no space at all: loads are 0 and stores lost, no crash */
	tap_ok(fire(&F, &vs, &ld, 7, 0, 0, 0) == 0 && F.fi_fault == 0 &&
	    fire(&F, &vs, &st, 7, 1, 0, 0) == 1 && F.fi_fault == 0 &&
	    fire(&F, &vs, &ld, 7, 0, 0, 0) == 0, "no space: no variables");
}

static void
test_assoc(void)
{
	dif_vstate_t vs = { NULL, 0, NULL };
	dif_difo_t st = MK(p_stgaa), ld = MK(p_ldgaa);
	dif_difo_t sts = MKS(p_stgaas), lds = MKS(p_ldgaas);
	dif_difo_t stt = MK(p_sttaa), ldt = MK(p_ldtaa);
	dif_difo_t stx = MK(p_stts), ldx = MK(p_ldts);
	uint64_t v;

	dif_dvar_init(&vs, 1 << 20);
	tap_is(fire(&F, &vs, &ld, 1, 1, sarg(&F, 0, "k"), 0), 0,
	    "ldgaa of an absent a[1, \"k\"] is 0");
	fire(&F, &vs, &st, 1, 1, sarg(&F, 0, "k"), 10);
	fire(&F, &vs, &st, 1, 1, sarg(&F, 0, "kk"), 11);
	fire(&F, &vs, &st, 1, 2, sarg(&F, 0, "k"), 12);
	fire(&F, &vs, &st, 1, 1, sarg(&F, 0, ""), 13);
	tap_ok(F.fi_fault == 0 && dif_dvar_count(&vs) == 4,
	    "four elements of a[]");
	tap_is(fire(&F, &vs, &ld, 1, 1, sarg(&F, 1, "k"), 0), 10,
	    "a[1, \"k\"] (key string at another address)");
	tap_is(fire(&F, &vs, &ld, 1, 1, sarg(&F, 1, "kk"), 0), 11,
	    "a[1, \"kk\"]");
	tap_is(fire(&F, &vs, &ld, 1, 2, sarg(&F, 1, "k"), 0), 12,
	    "a[2, \"k\"]");
	tap_is(fire(&F, &vs, &ld, 1, 1, sarg(&F, 1, ""), 0), 13,
	    "a[1, \"\"]");
	tap_is(fire(&F, &vs, &ld, 2, 1, sarg(&F, 1, "k"), 0), 10,
	    "a[] is global: another thread sees it");
	tap_is(fire(&F, &vs, &ldx, 1, 0, 0, 0), 0,
	    "self->x (same id, thread scope) is not a[]");
	fire(&F, &vs, &stx, 1, 5, 0, 0);
	tap_ok(fire(&F, &vs, &ldx, 1, 0, 0, 0) == 5 &&
	    fire(&F, &vs, &ld, 1, 1, sarg(&F, 1, "k"), 0) == 10,
	    "self->x and a[] are apart");
	fire(&F, &vs, &stx, 1, 0, 0, 0);
	fire(&F, &vs, &st, 1, 1, sarg(&F, 0, "kk"), 0);
	tap_ok(dif_dvar_count(&vs) == 3 &&
	    fire(&F, &vs, &ld, 1, 1, sarg(&F, 1, "kk"), 0) == 0 &&
	    fire(&F, &vs, &ld, 1, 1, sarg(&F, 1, "k"), 0) == 10,
	    "a[1, \"kk\"] = 0 deletes that element only");
	fire(&F, &vs, &st, 1, 1, 0, 1);
	tap_ok(F.fi_fault == DIF_FLT_BADADDR && F.fi_ms.dm_illval == 0,
	    "a NULL string key faults");

	/* string values */
	v = fire(&F, &vs, &lds, 1, sarg(&F, 0, "nokey"), 0, 0);
	tap_ok(F.fi_fault == 0 && v == 0,
	    "an absent b[\"nokey\"] is NULL");
	fire(&F, &vs, &sts, 1, sarg(&F, 0, "key"), sarg(&F, 1, "value"), 0);
	v = fire(&F, &vs, &lds, 3, sarg(&F, 2, "key"), 0, 0);
	tap_str(F.fi_fault == 0 ? R(v) : NULL, "value",
	    "b[\"key\"] = \"value\"");
	fire(&F, &vs, &sts, 1, sarg(&F, 0, "key"), sarg(&F, 1, "v2"), 0);
	v = fire(&F, &vs, &lds, 3, sarg(&F, 2, "key"), 0, 0);
	tap_ok(strcmp(R(v), "v2") == 0 && dif_dvar_count(&vs) == 4,
	    "b[\"key\"] overwritten in place");
	fire(&F, &vs, &sts, 1, sarg(&F, 0, "key"), sarg(&F, 1, ""), 0);
	tap_is(dif_dvar_count(&vs), 3, "b[\"key\"] = \"\" deletes it");

	/* thread-local arrays */
	fire(&F, &vs, &stt, 1, 4, 40, 0);
	fire(&F, &vs, &stt, 2, 4, 41, 0);
	tap_ok(fire(&F, &vs, &ldt, 1, 4, 0, 0) == 40 &&
	    fire(&F, &vs, &ldt, 2, 4, 0, 0) == 41 &&
	    fire(&F, &vs, &ldt, 3, 4, 0, 0) == 0,
	    "self->t[4] per thread (sttaa, ldtaa)");
	tap_is(fire(&F, &vs, &ldt, 0, 4, 0, 0), 0, "ldtaa with tkey 0 is 0");
	fire(&F, &vs, &stt, 1, 4, 0, 0);
	tap_ok(fire(&F, &vs, &ldt, 1, 4, 0, 0) == 0 &&
	    fire(&F, &vs, &ldt, 2, 4, 0, 0) == 41 && dif_dvar_count(&vs) == 4,
	    "self->t[4] = 0 deletes thread 1's only");
	dif_dvar_thread_exit(&vs, 2);
	tap_is(dif_dvar_count(&vs), 3, "thread exit frees self->t[] too");
	dif_dvar_fini(&vs);
}

static void
test_exhaustion(void)
{
	dif_vstate_t vs = { NULL, 0, NULL };
	dif_difo_t st = MK(p_stts), ld = MK(p_ldts);
	size_t each;
	uint64_t t;
	int ok = 1;

	dif_dvar_init(&vs, 1 << 20);
	fire(&F, &vs, &st, 1, 1, 0, 0);
	each = dif_dvar_used(&vs);
	dif_dvar_fini(&vs);

	/* room for ten self->x and half of an eleventh */
	dif_dvar_init(&vs, 10 * each + each / 2);
	for (t = 1; t <= 15; t++)
		fire(&F, &vs, &st, t, t * 100, 0, 0);
	tap_is(dif_dvar_count(&vs), 10, "ten variables fit");
	tap_is(dif_dvar_drops(&vs, 0), 5, "five stores dropped");
	for (t = 1; t <= 15; t++)
		ok &= fire(&F, &vs, &ld, t, 0, 0, 0) == (t <= 10 ? t * 100 : 0);
	tap_ok(ok, "the first ten have their values, the rest are absent");
	fire(&F, &vs, &st, 3, 333, 0, 0);
	tap_ok(dif_dvar_drops(&vs, 0) == 5 &&
	    fire(&F, &vs, &ld, 3, 0, 0, 0) == 333,
	    "a full space still updates existing variables");
	fire(&F, &vs, &st, 16, 1, 0, 0);
	tap_is(dif_dvar_drops(&vs, 0), 6, "a new one is dropped");
	fire(&F, &vs, &st, 4, 0, 0, 0);
	fire(&F, &vs, &st, 16, 1600, 0, 0);
	tap_ok(dif_dvar_drops(&vs, 0) == 6 &&
	    fire(&F, &vs, &ld, 16, 0, 0, 0) == 1600,
	    "a delete makes room for one more");
	tap_is(dif_dvar_drops(&vs, 1), 6, "drops read and reset");
	tap_is(dif_dvar_drops(&vs, 0), 0, "drops are 0 after the reset");
	dif_dvar_fini(&vs);

	/* as illumos rounds dynvarsize up to one chunk */
	dif_dvar_init(&vs, 0);
	fire(&F, &vs, &st, 1, 1, 0, 0);
	tap_ok(dif_dvar_drops(&vs, 0) == 0 && dif_dvar_count(&vs) == 1 &&
	    fire(&F, &vs, &ld, 1, 0, 0, 0) == 1,
	    "dynvarsize 0: one variable fits");
	fire(&F, &vs, &st, 2, 2, 0, 0);
	tap_ok(dif_dvar_drops(&vs, 0) == 1 && dif_dvar_count(&vs) == 1,
	    "dynvarsize 0: a second is a drop");
	fire(&F, &vs, &st, 1, 0, 0, 0);
	fire(&F, &vs, &st, 3, 0, 0, 0);
	fire(&F, &vs, &st, 2, 2, 0, 0);
	tap_ok(dif_dvar_drops(&vs, 0) == 1 && dif_dvar_count(&vs) == 1 &&
	    fire(&F, &vs, &ld, 2, 0, 0, 0) == 2,
	    "dynvarsize 0: deletes are not drops, and free the one place");
	dif_dvar_fini(&vs);
}

static void
test_locals(void)
{
	dif_vstate_t vs = { NULL, 0, NULL };
	dif_difo_t st = MK(p_stls), ld = MK(p_ldls);
	dif_difo_t sts = MKS(p_stlss), lds = MKS(p_ldlss);
	dif_lstate_t *ls = &F.fi_ls;
	uint64_t v;

	tap_is(dif_dvar_maxid(&st, DIFV_SCOPE_LOCAL), 2,
	    "dif_dvar_maxid: two clause-local ids");
	dif_dvar_local_fini(ls);	/* main()'s, made anew here */
	tap_ok(dif_dvar_local_init(ls, 2, 32) == 0, "dif_dvar_local_init");
	dif_dvar_local_reset(ls);
	tap_is(fire(&F, &vs, &ld, 1, 0, 0, 0), 0, "this->l unset is 0");
	fire(&F, &vs, &st, 1, 17, 0, 0);
	tap_is(fire(&F, &vs, &ld, 1, 0, 0, 0), 17,
	    "this->l set in one clause, read in the next");
	fire(&F, &vs, &sts, 1, sarg(&F, 0, "local"), 0, 0);
	v = fire(&F, &vs, &lds, 1, 0, 0, 0);
	tap_str(F.fi_fault == 0 ? R(v) : NULL, "local", "this->ls string");
	tap_ok(dif_vm_canload(&F.fi_ms, &lds, v, 6) &&
	    dif_vm_strlen(&F.fi_ms, &lds, v, 1000) == 5,
	    "this->ls is loadable, bounded by its slot");
	fire(&F, &vs, &sts, 1,
	    sarg(&F, 0, "0123456789012345678901234567890123456789"), 0, 0);
	tap_str(R(fire(&F, &vs, &lds, 1, 0, 0, 0)),
	    "0123456789012345678901234567890", "this->ls cut at 31 bytes");
	dif_dvar_local_reset(ls);
	tap_is(fire(&F, &vs, &ld, 1, 0, 0, 0), 0,
	    "the next firing starts with this->l unset");
	v = fire(&F, &vs, &lds, 1, 0, 0, 0);
	tap_ok(F.fi_fault == 0 && R(v)[0] == '\0',
	    "and this->ls empty");
	ls->dl_gen = UINT32_MAX;
	fire(&F, &vs, &st, 1, 5, 0, 0);
	dif_dvar_local_reset(ls);
	tap_ok(ls->dl_gen == 1 && fire(&F, &vs, &ld, 1, 0, 0, 0) == 0,
	    "the generation wraps to 1 and forgets everything");
	F.fi_ms.dm_lstate = NULL;
	dif_mstate_init(&F.fi_ms, &host, NULL, &vs, F.fi_scratch,
	    sizeof(F.fi_scratch), 32);
	dif_vm_exec(&ld, &F.fi_ms);
	tap_is(F.fi_ms.dm_fault, DIF_FLT_ILLOP, "ldls without a lstate faults");
	dif_dvar_local_fini(ls);
	dif_dvar_local_init(ls, 1, 32);
	fire(&F, &vs, &lds, 1, 0, 0, 0);
	tap_is(F.fi_fault, DIF_FLT_ILLOP, "ldls past dl_nvars faults");
	dif_dvar_local_fini(ls);
	dif_dvar_local_init(ls, 2, 32);
}

static void
test_strtok(void)
{
	dif_vstate_t vs = { NULL, 0, NULL };
	dif_difo_t d = MKS(p_strtok);
	const char *want[] = { "a", "bc", "d", NULL, NULL };
	uint64_t v, s;
	size_t i;
	int ok = 1;

	dif_mstate_init(&F.fi_ms, &host, NULL, &vs, F.fi_scratch,
	    sizeof(F.fi_scratch), 32);
	snprintf(F.fi_str[0], sizeof(F.fi_str[0]), ",, a bc,d ,");
	s = (uint64_t)(uintptr_t)F.fi_str[0];
	F.fi_ms.dm_regions[0].dr_base = s;
	F.fi_ms.dm_regions[0].dr_size = sizeof(F.fi_str[0]);
	F.fi_ms.dm_nregions = 1;
	/* one firing: the state carries across calls in the same mstate */
	for (i = 0; i < NELEM(want); i++) {
		args[0] = i == 0 ? s : 0;
		v = dif_vm_exec(&d, &F.fi_ms);
		if (F.fi_ms.dm_fault != 0 || (want[i] == NULL ? v != 0 :
		    v == 0 || strcmp(R(v), want[i]) != 0)) {
			printf("# token %zu: fault %d, \"%s\"\n", i,
			    F.fi_ms.dm_fault, v ? R(v) : "(null)");
			ok = 0;
		}
	}
	tap_ok(ok, "strtok(\",, a bc,d ,\", \" ,\") gives a, bc, d, NULL");
	tap_ok(strcmp(F.fi_str[0], ",, a bc,d ,") == 0,
	    "strtok leaves its input alone");

	v = fire(&F, &vs, &d, 1, 0, 0, 0);
	tap_ok(F.fi_fault == 0 && v == 0,
	    "strtok(NULL) in a fresh firing is NULL");
	v = fire(&F, &vs, &d, 1, sarg(&F, 0, " ,, "), 0, 0);
	tap_ok(F.fi_fault == 0 && v == 0, "only delimiters: NULL");
	v = fire(&F, &vs, &d, 1, sarg(&F, 0, "word"), 0, 0);
	tap_str(F.fi_fault == 0 ? R(v) : NULL, "word", "no delimiter");
	v = fire(&F, &vs, &d, 1, 0x10, 0, 0);
	tap_ok(F.fi_fault == DIF_FLT_BADADDR && F.fi_ms.dm_illval == 0x10,
	    "strtok of a bad pointer faults");

	/* the saved position must still be loadable when resumed */
	dif_mstate_init(&F.fi_ms, &host, NULL, &vs, F.fi_scratch,
	    sizeof(F.fi_scratch), 32);
	F.fi_ms.dm_strtok = 0x1000;
	F.fi_ms.dm_strtok_limit = 0x1004;
	args[0] = 0;
	dif_vm_exec(&d, &F.fi_ms);
	tap_ok(F.fi_ms.dm_fault == DIF_FLT_BADADDR &&
	    F.fi_ms.dm_illval == 0x1000, "a stale strtok position faults");
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Four threads at once: distinct keys, exact values afterwards. */
#define NTHR	4
#define NPER	3000

static dif_vstate_t cvs = { NULL, 0, NULL };

static void *
worker(void *arg)
{
	uintptr_t me = (uintptr_t)arg;
	firer_t *f = calloc(1, sizeof(*f));
	dif_difo_t st = MK(p_stgaa), inc = MK(p_incts), stt = MK(p_sttaa);
	uint64_t name, j, bad = 0;

	if (f == NULL)
		return (void *)1;
	dif_dvar_local_init(&f->fi_ls, 2, 32);
	name = sarg(f, 1, me == 0 ? "zero" : me == 1 ? "one" :
	    me == 2 ? "two" : "three");
	for (j = 0; j < NPER; j++) {
		fire(f, &cvs, &st, 100 + me, j, name, j * 10 + me + 1);
		bad += f->fi_fault != 0;
		fire(f, &cvs, &inc, 100 + me, 1, 0, 0);
		bad += f->fi_fault != 0;
		fire(f, &cvs, &stt, 100 + me, j, j + 1, 0);
		bad += f->fi_fault != 0;
	}
	/* then delete every other a[] element again */
	for (j = 0; j < NPER; j += 2) {
		fire(f, &cvs, &st, 100 + me, j, name, 0);
		bad += f->fi_fault != 0;
	}
	dif_dvar_local_fini(&f->fi_ls);
	free(f);
	return (void *)(uintptr_t)bad;
}

static void
test_concurrent(void)
{
	static const char *const names[NTHR] = { "zero", "one", "two", "three" };
	dif_difo_t ld = MK(p_ldgaa), ldx = MK(p_ldts), ldt = MK(p_ldtaa);
	pthread_t tid[NTHR];
	void *rv;
	uintptr_t i;
	uint64_t j, want, errs = 0, faults = 0;
	double t0, t1;

	dif_dvar_init(&cvs, 64 << 20);
	t0 = now();
	for (i = 0; i < NTHR; i++)
		pthread_create(&tid[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHR; i++) {
		pthread_join(tid[i], &rv);
		faults += (uintptr_t)rv;
	}
	t1 = now();
	/* per thread: 3 programs of NPER firings, 4 dynvar accesses each */
	printf("# info: %d threads: %.1fM dynamic variable accesses/s\n", NTHR,
	    NTHR * (NPER * 4.0 + NPER / 2) / (t1 - t0) / 1e6);
	tap_is(faults, 0, "%d threads stored without a fault", NTHR);
	tap_is(dif_dvar_drops(&cvs, 0), 0, "and without a drop");
	tap_is(dif_dvar_count(&cvs), NTHR * (NPER / 2 + 1 + NPER),
	    "exactly the variables that should be there");
	for (i = 0; i < NTHR; i++) {
		uint64_t name = sarg(&F, 1, names[i]);

		if (fire(&F, &cvs, &ldx, 100 + i, 0, 0, 0) != NPER)
			errs++;
		for (j = 0; j < NPER; j++) {
			want = j % 2 == 0 ? 0 : j * 10 + i + 1;
			if (fire(&F, &cvs, &ld, 1, j, name, 0) != want)
				errs++;
			if (fire(&F, &cvs, &ldt, 100 + i, j, 0, 0) != j + 1)
				errs++;
		}
	}
	tap_is(errs, 0, "every value exact (self->x == %d per thread)", NPER);
	dif_dvar_fini(&cvs);
}

/*
 * Structs held in dynamic variables, lent in place: p[k] (16 bytes) and
 * self->q (16 bytes), written a member at a time as dt_cg.c compiles
 * a[k].m = v (load; if absent store zeroed scratch and load again).
 */
#define SOUTYPE	{ DIF_TYPE_CTF, DIF_CKIND_STRUCT, DIF_TF_BYREF, 0, 16 }
static dif_var_t lvartab[] = {
	{ S_A, 0x500, DIFV_KIND_ARRAY, DIFV_SCOPE_GLOBAL, RW, SOUTYPE },
	{ S_S, 0x501, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, RW, SOUTYPE },
};
static uint64_t linttab[] = { 16 };

#define LD_P(r)	DIF_INSTR_LDV(DIF_OP_LDGAA, 0x500, r)
#define ST_P(r)	DIF_INSTR_STV(DIF_OP_STGAA, 0x500, r)
#define LD_Q(r)	DIF_INSTR_LDV(DIF_OP_LDTS, 0x501, r)
#define ST_Q(r)	DIF_INSTR_STV(DIF_OP_STTS, 0x501, r)

/* (int)p[arg0][arg1] = arg2; the address written */
static dif_instr_t l_stp[] = { A0, DIF_INSTR_FLUSHTS, PUSHV(1),
	LD_P(4), DIF_INSTR_TST(4), DIF_INSTR_BRANCH(DIF_OP_BNE, 14),
	DIF_INSTR_SETX(0, 4), DIF_INSTR_ALLOCS(4, 4), ST_P(4), LD_P(5),
	DIF_INSTR_TST(5), DIF_INSTR_BRANCH(DIF_OP_BE, 14),
	DIF_INSTR_MOV(5, 4), DIF_INSTR_NOP,
	/* 14 */ A1, DIF_INSTR_FMT(DIF_OP_ADD, 4, 2, 4), A2,
	DIF_INSTR_STORE(DIF_OP_STW, 3, 4), DIF_INSTR_RET(4) };
/* the same for self->q */
static dif_instr_t l_stq[] = { LD_Q(4), DIF_INSTR_TST(4),
	DIF_INSTR_BRANCH(DIF_OP_BNE, 11), DIF_INSTR_SETX(0, 4),
	DIF_INSTR_ALLOCS(4, 4), ST_Q(4), LD_Q(5), DIF_INSTR_TST(5),
	DIF_INSTR_BRANCH(DIF_OP_BE, 11), DIF_INSTR_MOV(5, 4), DIF_INSTR_NOP,
	/* 11 */ A1, DIF_INSTR_FMT(DIF_OP_ADD, 4, 2, 4), A2,
	DIF_INSTR_STORE(DIF_OP_STW, 3, 4), DIF_INSTR_RET(4) };
/* (int)p[arg0][arg1] */
static dif_instr_t l_ldp[] = { A0, DIF_INSTR_FLUSHTS, PUSHV(1), LD_P(4),
	A1, DIF_INSTR_FMT(DIF_OP_ADD, 4, 2, 4),
	DIF_INSTR_LOAD(DIF_OP_LDUW, 4, 3), DIF_INSTR_RET(3) };
/* p[arg0]: its address */
static dif_instr_t l_addr[] = { A0, DIF_INSTR_FLUSHTS, PUSHV(1), LD_P(4),
	DIF_INSTR_RET(4) };
/* p[arg0] = 0 */
static dif_instr_t l_del[] = { A0, DIF_INSTR_FLUSHTS, PUSHV(1), ST_P(0),
	DIF_INSTR_RET(0) };
/* *(int *)arg0 = arg1 */
static dif_instr_t l_poke[] = { A0, A1, DIF_INSTR_STORE(DIF_OP_STW, 2, 1),
	DIF_INSTR_RET(1) };
/* *(int *)arg0 */
static dif_instr_t l_peek[] = { A0, DIF_INSTR_LOAD(DIF_OP_LDUW, 1, 2),
	DIF_INSTR_RET(2) };
/* p[arg1] = p[arg0]: a copy of the whole struct */
static dif_instr_t l_copy[] = { A0, A1, DIF_INSTR_FLUSHTS, PUSHV(1),
	LD_P(4), DIF_INSTR_FLUSHTS, PUSHV(2), ST_P(4), DIF_INSTR_RET(4) };

static dif_difo_t
lmk(dif_instr_t *buf, uint32_t len)
{
	dif_difo_t d = mk(buf, len, 0);

	d.dd_vartab = lvartab;
	d.dd_varlen = NELEM(lvartab);
	d.dd_inttab = linttab;
	d.dd_intlen = NELEM(linttab);
	return d;
}
#define LMK(p)	lmk(p, NELEM(p))

/* One clause's machine state that outlives a fire(): held references. */
static void
clause_begin(firer_t *f, dif_vstate_t *vs, uint64_t tkey)
{
	dif_mstate_init(&f->fi_ms, &host, NULL, vs, f->fi_scratch,
	    sizeof(f->fi_scratch), 32);
	f->fi_ms.dm_tkey = tkey;
}

static uint64_t
clause_run(firer_t *f, const dif_difo_t *d, uint64_t a0, uint64_t a1,
    uint64_t a2)
{
	args[0] = a0;
	args[1] = a1;
	args[2] = a2;
	return dif_vm_exec(d, &f->fi_ms);
}

static int
in_scratch(const firer_t *f, uint64_t a)
{
	return a >= (uintptr_t)f->fi_scratch &&
	    a < (uintptr_t)f->fi_scratch + sizeof(f->fi_scratch);
}

static void
test_lend(void)
{
	dif_vstate_t vs = { NULL, 0, NULL };
	dif_difo_t stp = LMK(l_stp), stq = LMK(l_stq), ldp = LMK(l_ldp);
	dif_difo_t addr = LMK(l_addr), del = LMK(l_del), poke = LMK(l_poke);
	dif_difo_t peek = LMK(l_peek), copy = LMK(l_copy);
	static firer_t G;
	uint64_t a, b, k;
	size_t used, each;
	int ok;

	ok = verifies(&stp, "l_stp") & verifies(&stq, "l_stq") &
	    verifies(&ldp, "l_ldp") & verifies(&addr, "l_addr") &
	    verifies(&del, "l_del") & verifies(&poke, "l_poke") &
	    verifies(&peek, "l_peek") & verifies(&copy, "l_copy");
	tap_ok(ok, "the verifier accepts the member-store programs");

	dif_dvar_init(&vs, 1 << 20);
	/* a: the address of p[1].m at offset 4 */
	a = fire(&F, &vs, &stp, 1, 1, 4, 77);
	tap_ok(F.fi_fault == 0 && dif_dvar_count(&vs) == 1 &&
	    !in_scratch(&F, a) && a % 4 == 0,
	    "p[1].m = 77 allocates p[1] and writes it in place");
	tap_ok(fire(&F, &vs, &ldp, 1, 1, 4, 0) == 77 &&
	    fire(&F, &vs, &ldp, 1, 1, 0, 0) == 0 &&
	    fire(&F, &vs, &ldp, 1, 1, 12, 0) == 0,
	    "read back: the member, the rest zero-filled");
	b = fire(&F, &vs, &stp, 1, 1, 8, 5);
	tap_ok(F.fi_fault == 0 && b == a + 4 && dif_dvar_count(&vs) == 1 &&
	    fire(&F, &vs, &ldp, 1, 1, 4, 0) == 77 &&
	    fire(&F, &vs, &ldp, 1, 1, 8, 0) == 5,
	    "a second member: the same storage, the first kept");
	fire(&F, &vs, &ldp, 1, 2, 0, 0);
	tap_ok(F.fi_fault == DIF_FLT_BADADDR && F.fi_ms.dm_illval == 0 &&
	    dif_dvar_count(&vs) == 1,
	    "a load of an absent element is NULL and allocates nothing");

	/* the bytes lent, and no more */
	fire(&F, &vs, &stp, 1, 1, 12, 1);
	tap_ok(F.fi_fault == 0, "the last member of the element: stored");
	fire(&F, &vs, &stp, 1, 1, 14, 1);
	tap_ok(F.fi_fault == DIF_FLT_BADADDR && F.fi_ms.dm_illval == a + 10,
	    "a store running past the element faults");
	fire(&F, &vs, &stp, 1, 1, (uint64_t)-8, 1);
	tap_ok(F.fi_fault == DIF_FLT_BADADDR, "one before it faults");
	fire(&F, &vs, &poke, 1, a, 9, 0);
	tap_ok(F.fi_fault == DIF_FLT_BADADDR && F.fi_ms.dm_illval == a &&
	    fire(&F, &vs, &ldp, 1, 1, 4, 0) == 77,
	    "an address lent to an earlier clause is not writable");
	fire(&F, &vs, &peek, 1, a, 0, 0);
	tap_ok(F.fi_fault == DIF_FLT_BADADDR, "nor loadable");

	/* whole values: copied from the lent storage */
	fire(&F, &vs, &copy, 1, 1, 3, 0);
	tap_ok(F.fi_fault == 0 && fire(&F, &vs, &ldp, 1, 3, 4, 0) == 77 &&
	    fire(&F, &vs, &ldp, 1, 3, 8, 0) == 5,
	    "p[3] = p[1] copies the struct");
	fire(&F, &vs, &copy, 1, 3, 3, 0);
	tap_ok(F.fi_fault == 0 && fire(&F, &vs, &ldp, 1, 3, 8, 0) == 5,
	    "p[3] = p[3] keeps it");
	fire(&F, &vs, &del, 1, 3, 0, 0);
	tap_ok(dif_dvar_count(&vs) == 1 &&
	    fire(&F, &vs, &ldp, 1, 1, 4, 0) == 77,
	    "deleting p[3] leaves p[1] alone");

	/*
	 * held by a clause: a delete gives the room back but does not free
	 * what the clause can reach (an ASan build would see it)
	 */
	used = dif_dvar_used(&vs);
	clause_begin(&G, &vs, 1);
	b = clause_run(&G, &addr, 1, 0, 0);
	clause_run(&G, &addr, 1, 0, 0);
	tap_ok(b == a - 4 && G.fi_ms.dm_ndrefs == 1,
	    "one hold per element and clause");
	fire(&F, &vs, &del, 1, 1, 0, 0);
	tap_ok(used != 0 && dif_dvar_count(&vs) == 0 &&
	    dif_dvar_used(&vs) == 0,
	    "p[1] deleted while held: unlinked, its room given back");
	clause_run(&G, &poke, a + 4, 123, 0);
	tap_ok(G.fi_ms.dm_fault == 0 &&
	    clause_run(&G, &peek, a + 4, 0, 0) == 123,
	    "the holder still writes and reads it");
	tap_ok(fire(&F, &vs, &ldp, 1, 1, 4, 0) == 0 &&
	    F.fi_fault == DIF_FLT_BADADDR, "others see it gone");
	dif_mstate_fini(&G.fi_ms);
	tap_ok(G.fi_ms.dm_ndrefs == 0, "the clause's holds given back");

	/* at most DIF_MAXDREFS elements a clause */
	for (k = 0; k <= DIF_MAXDREFS; k++)
		fire(&F, &vs, &stp, 1, 100 + k, 0, (uint32_t)k + 1);
	clause_begin(&G, &vs, 1);
	ok = 1;
	for (k = 0; k < DIF_MAXDREFS; k++)
		ok &= clause_run(&G, &addr, 100 + k, 0, 0) != 0 &&
		    G.fi_ms.dm_fault == 0;
	clause_run(&G, &addr, 100 + DIF_MAXDREFS, 0, 0);
	tap_ok(ok && G.fi_ms.dm_fault == DIF_FLT_NOSCRATCH,
	    "%d elements lent to a clause, one more is out of scratch",
	    DIF_MAXDREFS);
	dif_mstate_fini(&G.fi_ms);
	for (k = 0; k <= DIF_MAXDREFS; k++)
		fire(&F, &vs, &del, 1, 100 + k, 0, 0);
	tap_ok(dif_dvar_count(&vs) == 0 && dif_dvar_used(&vs) == 0,
	    "every hold given back");

	/* thread-locals */
	a = fire(&F, &vs, &stq, 7, 0, 8, 70);
	b = fire(&F, &vs, &stq, 8, 0, 8, 80);
	tap_ok(F.fi_fault == 0 && a != b && dif_dvar_count(&vs) == 2 &&
	    !in_scratch(&F, a) && fire(&F, &vs, &stq, 7, 0, 0, 1) == a - 8,
	    "self->q.m = v: one struct per thread, written in place");
	fire(&F, &vs, &stq, 0, 0, 8, 1);
	tap_ok(F.fi_fault == 0 && dif_dvar_count(&vs) == 2,
	    "no thread: the store goes nowhere, and does not fault");
	clause_begin(&G, &vs, 7);
	a = clause_run(&G, &stq, 0, 12, 3);
	dif_dvar_thread_exit(&vs, 7);
	clause_run(&G, &poke, a, 4, 0);
	tap_ok(G.fi_ms.dm_fault == 0 && dif_dvar_count(&vs) == 1,
	    "a thread's exit does not free what a clause holds");
	dif_mstate_fini(&G.fi_ms);
	dif_dvar_thread_exit(&vs, 8);
	tap_ok(dif_dvar_used(&vs) == 0, "then it is freed");

	/*
	 * What is lent is the entry's own size: a program (another
	 * client's, say) that sizes p[] at 8 bytes finds no 16-byte p[1],
	 * and the verifier bounds every size.
	 */
	{
		dif_var_t v8[NELEM(lvartab)];
		dif_difo_t a8 = LMK(l_addr);

		fire(&F, &vs, &stp, 1, 1, 12, 1);
		memcpy(v8, lvartab, sizeof(v8));
		v8[0].dv_type.dt_size = 8;
		a8.dd_vartab = v8;
		tap_ok(verifies(&a8, "8-byte p") &&
		    fire(&F, &vs, &a8, 1, 1, 0, 0) == 0 && F.fi_fault == 0,
		    "an element of another size is not lent");
		v8[0].dv_type.dt_size = 0;
		tap_ok(dif_verify(&a8, NULL, 0) == -1,
		    "the verifier refuses a struct of no size");
		v8[0].dv_type.dt_size = DIF_MAXSTRSIZE + 1;
		tap_ok(dif_verify(&a8, NULL, 0) == -1,
		    "and one over %d bytes", DIF_MAXSTRSIZE);
		fire(&F, &vs, &del, 1, 1, 0, 0);
	}
	dif_dvar_fini(&vs);

	/* a full space: the store is a drop, and lands in scratch */
	dif_dvar_init(&vs, 1 << 20);
	fire(&F, &vs, &stp, 1, 1, 0, 1);
	each = dif_dvar_used(&vs);
	dif_dvar_fini(&vs);
	dif_dvar_init(&vs, each);
	fire(&F, &vs, &stp, 1, 1, 0, 1);
	a = fire(&F, &vs, &stp, 1, 2, 4, 2);
	tap_ok(F.fi_fault == 0 && in_scratch(&F, a) &&
	    dif_dvar_drops(&vs, 0) == 1 && dif_dvar_count(&vs) == 1,
	    "no room: one drop counted, the member written to scratch");
	tap_ok(fire(&F, &vs, &stp, 1, 1, 4, 9) != 0 && F.fi_fault == 0 &&
	    dif_dvar_drops(&vs, 0) == 1 &&
	    fire(&F, &vs, &ldp, 1, 1, 4, 0) == 9,
	    "an element there is still written in a full space");
	dif_dvar_fini(&vs);
}

/*
 * strtok(NULL, ...) resumes in a later clause of the same firing (each
 * fire() is a clause: a new mstate), from a copy of the string that the
 * clause's DIF cannot reach; a new firing starts with none.
 */
static void
test_strtok_clauses(void)
{
	dif_vstate_t vs = { NULL, 0, NULL };
	dif_difo_t d = MKS(p_strtok);
	const char *want[] = { "b", "c", NULL, NULL };
	uint64_t v, s;
	size_t i;
	int ok = 1;

	dif_dvar_local_reset(&F.fi_ls);
	s = sarg(&F, 0, "a,b c");
	v = fire(&F, &vs, &d, 1, s, 0, 0);
	tap_str(F.fi_fault == 0 && v != 0 ? R(v) : NULL, "a",
	    "strtok(str) in a first clause");
	snprintf(F.fi_str[0], sizeof(F.fi_str[0]), "x,y");
	for (i = 0; i < NELEM(want); i++) {
		v = fire(&F, &vs, &d, 1, 0, 0, 0);
		if (F.fi_fault != 0 || (want[i] == NULL ? v != 0 :
		    v == 0 || strcmp(R(v), want[i]) != 0))
			ok = 0;
	}
	tap_ok(ok, "strtok(NULL) in the next clauses: b, c, NULL, NULL");
	v = fire(&F, &vs, &d, 1, s, 0, 0);
	dif_dvar_local_reset(&F.fi_ls);
	v = fire(&F, &vs, &d, 1, 0, 0, 0);
	tap_ok(F.fi_fault == 0 && v == 0, "a new firing resumes nothing");
}

/*
 * Many clauses writing members of the same element while another
 * deletes it: no fault, nothing freed under a holder (ASan builds see
 * it), nothing left afterwards.
 */
#define NLEND	20000

static dif_vstate_t lvs = { NULL, 0, NULL };

static void *
lend_writer(void *arg)
{
	firer_t *f = calloc(1, sizeof(*f));
	dif_difo_t stp = LMK(l_stp), del = LMK(l_del);
	uint64_t j, bad = 0;

	if (f == NULL)
		return (void *)1;
	for (j = 0; j < NLEND; j++) {
		if (arg != NULL) {
			fire(f, &lvs, &del, 1, 5, 0, 0);
		} else {
			fire(f, &lvs, &stp, 1, 5, (j % 4) * 4, (uint32_t)j);
		}
		bad += f->fi_fault != 0;
	}
	free(f);
	return (void *)(uintptr_t)bad;
}

static void
test_lend_concurrent(void)
{
	pthread_t t[3];
	dif_difo_t del = LMK(l_del);
	void *rv;
	uint64_t faults = 0;
	int i;

	dif_dvar_init(&lvs, 1 << 20);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, lend_writer,
		    i == 2 ? (void *)1 : NULL);
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], &rv);
		faults += (uintptr_t)rv;
	}
	tap_is(faults, 0, "two threads writing p[5].m, one deleting p[5]");
	fire(&F, &lvs, &del, 1, 5, 0, 0);
	tap_ok(dif_dvar_count(&lvs) == 0 && dif_dvar_used(&lvs) == 0,
	    "nothing left held");
	dif_dvar_fini(&lvs);
}

/* Not a pass/fail check: the rate of the hot path, for the log. */
static void
bench(void)
{
	enum { N = 400000 };
	dif_vstate_t vs = { NULL, 0, NULL };
	dif_difo_t st = MK(p_stts), ld = MK(p_ldts);
	dif_difo_t sta = MK(p_stgaa), lda = MK(p_ldgaa);
	uint64_t i, sum = 0, name;
	double t0, t1, t2, t3, t4;

	dif_dvar_init(&vs, 64 << 20);
	name = sarg(&F, 1, "key");
	t0 = now();
	for (i = 0; i < N; i++)
		fire(&F, &vs, &st, 1 + i % 1024, i + 1, 0, 0);
	t1 = now();
	for (i = 0; i < N; i++)
		sum += fire(&F, &vs, &ld, 1 + i % 1024, 0, 0, 0);
	t2 = now();
	for (i = 0; i < N; i++)
		fire(&F, &vs, &sta, 1, i % 4096, name, i + 1);
	t3 = now();
	for (i = 0; i < N; i++)
		sum += fire(&F, &vs, &lda, 1, i % 4096, name, 0);
	t4 = now();
	tap_ok(sum != 0, "benchmark ran");
	printf("# info: self->x: %.1fM stores/s, %.1fM loads/s; "
	    "a[int, string]: %.1fM stores/s, %.1fM loads/s "
	    "(whole DIF programs, one thread)\n",
	    N / (t1 - t0) / 1e6, N / (t2 - t1) / 1e6,
	    N / (t3 - t2) / 1e6, N / (t4 - t3) / 1e6);
	dif_dvar_fini(&vs);
}

/* Verifier: each rule for the new opcodes broken once. */
static void
test_verify(void)
{
	dif_instr_t buf[16];
	dif_var_t vars[NELEM(vartab)];
	dif_difo_t d;
	char err[256];
	struct {
		dif_instr_t	p[8];
		uint32_t	len;
		const char	*want;
		const char	*name;
	} bad[] = {
		{ { DIF_INSTR_LDV(DIF_OP_LDTS, 0x503, 1), DIF_INSTR_RET(1) }, 2,
		    "variable 1283 is not a thread-local scalar",
		    "ldts of an unknown variable" },
		{ { DIF_INSTR_LDV(DIF_OP_LDTS, 0x502, 1), DIF_INSTR_RET(1) }, 2,
		    "variable 1282 is not a thread-local scalar",
		    "ldts of a thread-local array" },
		{ { DIF_INSTR_LDV(DIF_OP_LDTS, DIF_VAR_PID, 1),
		    DIF_INSTR_RET(1) }, 2, "invalid variable 278",
		    "ldts of a built-in" },
		{ { DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 0), DIF_INSTR_RET(0) }, 2,
		    "cannot write to %r0", "ldts into %r0" },
		{ { DIF_INSTR_STV(DIF_OP_STTS, 0x500, 9), DIF_INSTR_RET(0) }, 2,
		    "invalid register 9", "stts from %r9" },
		{ { DIF_INSTR_STV(DIF_OP_STLS, 0x502, 1), DIF_INSTR_RET(0) }, 2,
		    "variable 1282 is not a clause-local scalar",
		    "stls of a thread-local variable's id" },
		{ { PUSHV(1), DIF_INSTR_LDV(DIF_OP_LDGAA, 0x502, 1),
		    DIF_INSTR_RET(1) }, 3,
		    "variable 1282 is not a global associative array",
		    "ldgaa of a thread-local array" },
		{ { PUSHV(1), DIF_INSTR_STV(DIF_OP_STTAA, 0x500, 1),
		    DIF_INSTR_RET(1) }, 3,
		    "variable 1280 is not a thread-local associative array",
		    "sttaa of a thread-local scalar" },
		{ { DIF_INSTR_LDV(DIF_OP_LDGAA, 0x500, 1), DIF_INSTR_RET(1) }, 2,
		    "empty key tuple at instruction 0", "ldgaa without a key" },
		{ { PUSHV(1), DIF_INSTR_POPTS,
		    DIF_INSTR_STV(DIF_OP_STGAA, 0x500, 1), DIF_INSTR_RET(1) }, 4,
		    "empty key tuple at instruction 2", "stgaa after popts" },
		{ { DIF_INSTR_TST(1), DIF_INSTR_BRANCH(DIF_OP_BE, 3), PUSHV(1),
		    DIF_INSTR_LDV(DIF_OP_LDTAA, 0x502, 1), DIF_INSTR_RET(1) },
		    5, "empty key tuple at instruction 3",
		    "ldtaa with a key on one path only" },
		{ { PUSHV(1), PUSHV(1), PUSHV(1), PUSHV(1), PUSHV(1), PUSHV(1),
		    PUSHV(1), DIF_INSTR_RET(1) }, 8, NULL, "seven pushes" },
	};
	size_t i;

	for (i = 0; i < NELEM(bad); i++) {
		memcpy(buf, bad[i].p, sizeof(bad[i].p));
		d = mk(buf, bad[i].len, 0);
		memcpy(vars, vartab, sizeof(vars));
		d.dd_vartab = vars;
		err[0] = '\0';
		if (bad[i].want == NULL) {
			tap_ok(dif_verify(&d, err, sizeof(err)) == 0,
			    "accepted: %s", bad[i].name);
			continue;
		}
		if (!tap_ok(dif_verify(&d, err, sizeof(err)) == -1 &&
		    strstr(err, bad[i].want) != NULL, "rejected: %s",
		    bad[i].name))
			printf("#   err \"%s\", want \"%s\"\n", err, bad[i].want);
	}

	/* eight pushes fit; a ninth on any path overflows */
	for (i = 0; i < 8; i++)
		buf[i] = PUSHV(1);
	buf[8] = DIF_INSTR_LDV(DIF_OP_LDGAA, 0x500, 1);
	buf[9] = DIF_INSTR_RET(1);
	d = mk(buf, 10, 0);
	tap_ok(dif_verify(&d, err, sizeof(err)) == 0, "eight key elements");
	buf[0] = DIF_INSTR_TST(1);
	buf[1] = DIF_INSTR_BRANCH(DIF_OP_BE, 3);
	buf[2] = DIF_INSTR_FLUSHTS;
	for (i = 3; i < 11; i++)
		buf[i] = PUSHV(1);
	buf[11] = DIF_INSTR_RET(1);
	d = mk(buf, 12, 0);
	tap_ok(dif_verify(&d, err, sizeof(err)) == 0,
	    "flushts then eight pushes");
	buf[2] = PUSHV(2);
	tap_ok(dif_verify(&d, err, sizeof(err)) == -1 &&
	    strstr(err, "tuple stack overflow at instruction 10") != NULL,
	    "a ninth push on one path: overflow");

	/* the vartab */
	buf[0] = DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 1);
	buf[1] = DIF_INSTR_RET(1);
	d = mk(buf, 2, 0);
	memcpy(vars, vartab, sizeof(vars));
	d.dd_vartab = vars;
	vars[2].dv_id = 0x400;
	tap_ok(dif_verify(&d, err, sizeof(err)) == -1 &&
	    strstr(err, "invalid array id 1024") != NULL,
	    "an array id between the ranges");
	memcpy(vars, vartab, sizeof(vars));
	vars[4].dv_scope = DIFV_SCOPE_LOCAL;
	tap_ok(dif_verify(&d, err, sizeof(err)) == -1 &&
	    strstr(err, "clause-local associative array") != NULL,
	    "a clause-local associative array");
	memcpy(vars, vartab, sizeof(vars));
	vars[0].dv_type.dt_flags = DIF_TF_BYREF;
	vars[0].dv_type.dt_ckind = DIF_CKIND_INTEGER;
	tap_ok(dif_verify(&d, err, sizeof(err)) == -1 &&
	    strstr(err, "unsupported by-ref type of variable 1280") != NULL,
	    "a by-ref integer in self->");
	vars[0].dv_type.dt_ckind = DIF_CKIND_STRUCT;
	vars[0].dv_type.dt_size = 16;
	tap_ok(dif_verify(&d, err, sizeof(err)) == 0,
	    "a by-ref struct in self-> (copied whole)");
	memcpy(vars, vartab, sizeof(vars));
	vars[1].dv_id = 0x500;
	tap_ok(dif_verify(&d, err, sizeof(err)) == -1 &&
	    strstr(err, "duplicate") != NULL, "two thread-locals with one id");
	memcpy(vars, vartab, sizeof(vars));
	vars[0].dv_id = DIF_VAR_PID;
	tap_ok(dif_verify(&d, err, sizeof(err)) == -1 &&
	    strstr(err, "unknown built-in variable 278") != NULL,
	    "a thread-local with a built-in's id");
}

static char *
listing(const dif_difo_t *dp)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&out, &len)) == NULL)
		return NULL;
	dif_dis(dp, fp);
	fclose(fp);
	return out;
}

static void
test_dis(void)
{
	static dif_instr_t buf[] = {
		DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 1),
		DIF_INSTR_STV(DIF_OP_STTS, 0x500, 1),
		DIF_INSTR_FLUSHTS,
		PUSHV(1),
		PUSHS(2),
		DIF_INSTR_LDV(DIF_OP_LDGAA, 0x501, 2),
		DIF_INSTR_STV(DIF_OP_STGAA, 0x501, 2),
		DIF_INSTR_LDV(DIF_OP_LDTAA, 0x502, 3),
		DIF_INSTR_STV(DIF_OP_STTAA, 0x502, 3),
		DIF_INSTR_LDV(DIF_OP_LDLS, 0x500, 4),
		DIF_INSTR_STV(DIF_OP_STLS, 0x501, 4),
		DIF_INSTR_RET(1),
	};
	static const char expect[] =
	    "OFF OPCODE      INSTRUCTION\n"
	    "00: 2c050001    ldts DT_VAR(1280), %r1\t\t! DT_VAR(1280) = \"x\"\n"
	    "01: 2d050001    stts %r1, DT_VAR(1280)\t\t! DT_VAR(1280) = \"x\"\n"
	    "02: 33000000    flushts\n"
	    "03: 31000001    pushtv DT_TYPE(0), %r0, %r1\t! DT_TYPE(0) = D type\n"
	    "04: 30010002    pushtr DT_TYPE(1), %r0, %r2\t! DT_TYPE(1) = string\n"
	    "05: 34050102    ldgaa DT_VAR(1281), %r2\t\t! DT_VAR(1281) = \"b\"\n"
	    "06: 36050102    stgaa %r2, DT_VAR(1281)\t\t! DT_VAR(1281) = \"b\"\n"
	    "07: 35050203    ldtaa DT_VAR(1282), %r3\t\t! DT_VAR(1282) = \"t\"\n"
	    "08: 37050203    sttaa %r3, DT_VAR(1282)\t\t! DT_VAR(1282) = \"t\"\n"
	    "09: 38050004    ldls DT_VAR(1280), %r4\t\t! DT_VAR(1280) = \"l\"\n"
	    "10: 39050104    stls %r4, DT_VAR(1281)\t\t! DT_VAR(1281) = \"ls\"\n"
	    "11: 23000001    ret  %r1\n"
	    "\n"
	    "NAME             ID   KND SCP FLAG TYPE\n"
	    "x                500  scl tls r/w  D type (integer) (size 8)\n"
	    "s                501  scl tls r/w  string (unknown) by ref (size 32)\n"
	    "a                500  arr glb r/w  D type (integer) (size 8)\n"
	    "b                501  arr glb r/w  string (unknown) by ref (size 32)\n"
	    "t                502  arr tls r/w  D type (integer) (size 8)\n"
	    "l                500  scl loc r/w  D type (integer) (size 8)\n"
	    "ls               501  scl loc r/w  string (unknown) by ref (size 32)\n"
	    "\n";
	dif_difo_t d = MK(buf);
	char *out = listing(&d), *body;

	tap_ok(verifies(&d, "dis program"), "the listed program verifies");
	body = out != NULL ? strstr(out, "OFF OPCODE") : NULL;
	tap_str(body, expect, "disassembly of the dynamic variable opcodes");
	free(out);
}

int
main(void)
{
	dif_dvar_local_init(&F.fi_ls, 2, 32);
	test_accept();
	test_tls();
	test_assoc();
	test_exhaustion();
	test_locals();
	test_strtok();
	test_lend();
	test_lend_concurrent();
	test_strtok_clauses();
	test_concurrent();
	test_verify();
	test_dis();
	bench();
	dif_dvar_local_fini(&F.fi_ls);
	return tap_done();
}
