/*
 * dif_vm.c: the DIF interpreter.
 *
 * dif_vm_exec() runs one verified DIFO (dif_verify() must have accepted
 * it: register fields and table indices are not re-checked here) with
 * illumos dtrace_dif_emulate() semantics.  Every load from the daemon's
 * own memory goes through dif_vm_canload(), every store through
 * dif_vm_canstore(); the traced process is read only through the host's
 * dh_uread callback.  A fault stops the program: dm_fault, dm_faultpc
 * (instruction index) and dm_illval describe it and the result is 0.
 */
#include <stdlib.h>
#include <string.h>

#include "dif.h"

void
dif_mstate_init(dif_mstate_t *ms, const dif_host_t *host, void *hostarg,
    dif_vstate_t *vs, char *scratch, size_t scratch_size, uint32_t strsize)
{
	memset(ms, 0, sizeof(*ms));
	ms->dm_host = host;
	ms->dm_hostarg = hostarg;
	ms->dm_vstate = vs;
	ms->dm_scratch = scratch;
	ms->dm_scratch_size = scratch != NULL ? scratch_size : 0;
	ms->dm_strsize = strsize != 0 ? strsize : 256;
	ms->dm_budget = DIF_DEFAULT_BUDGET;
}

/* Is [addr, addr + size) inside [base, base + len)? Overflow-safe. */
static inline int
dif_vm_within(uint64_t addr, size_t size, uintptr_t base, size_t len)
{
	return addr >= base && addr - base <= len &&
	    size <= len - (addr - base);
}

int
dif_vm_canload(const dif_mstate_t *ms, const dif_difo_t *dp, uint64_t addr,
    size_t size)
{
	const dif_vstate_t *vs;
	uint32_t i;
	int r;

	if (size == 0)
		return 1;
	if (addr == 0)
		return 0;
	if (ms->dm_scratch_used != 0 && dif_vm_within(addr, size,
	    (uintptr_t)ms->dm_scratch, ms->dm_scratch_used))
		return 1;
	if (dp != NULL && dp->dd_strlen != 0 && dif_vm_within(addr, size,
	    (uintptr_t)dp->dd_strtab, dp->dd_strlen))
		return 1;
	for (r = 0; r < ms->dm_nregions; r++) {
		if (dif_vm_within(addr, size, ms->dm_regions[r].dr_base,
		    ms->dm_regions[r].dr_size))
			return 1;
	}
	if (ms->dm_lstate != NULL && ms->dm_lstate->dl_data != NULL &&
	    dif_vm_within(addr, size, (uintptr_t)ms->dm_lstate->dl_data,
	    (size_t)ms->dm_lstate->dl_nvars * ms->dm_lstate->dl_ssize))
		return 1;
	if ((vs = ms->dm_vstate) != NULL) {
		for (i = 0; i < vs->dv_nglobals; i++) {
			const dif_gvar_t *g = &vs->dv_globals[i];

			if (g->dg_data != NULL && dif_vm_within(addr, size,
			    (uintptr_t)g->dg_data, g->dg_size))
				return 1;
		}
	}
	return 0;
}

/* Bytes loadable from addr to the end of the region that holds it. */
static size_t
dif_vm_avail(const dif_mstate_t *ms, const dif_difo_t *dp, uint64_t addr)
{
	const dif_vstate_t *vs;
	uintptr_t base;
	uint32_t i;
	int r;

	if (addr == 0)
		return 0;
	base = (uintptr_t)ms->dm_scratch;
	if (ms->dm_scratch_used != 0 && addr >= base &&
	    addr - base < ms->dm_scratch_used)
		return ms->dm_scratch_used - (addr - base);
	if (dp != NULL && dp->dd_strlen != 0) {
		base = (uintptr_t)dp->dd_strtab;
		if (addr >= base && addr - base < dp->dd_strlen)
			return dp->dd_strlen - (addr - base);
	}
	for (r = 0; r < ms->dm_nregions; r++) {
		base = ms->dm_regions[r].dr_base;
		if (addr >= base && addr - base < ms->dm_regions[r].dr_size)
			return ms->dm_regions[r].dr_size - (addr - base);
	}
	if (ms->dm_lstate != NULL && ms->dm_lstate->dl_data != NULL) {
		const dif_lstate_t *ls = ms->dm_lstate;

		/* up to the end of the variable's own slot */
		base = (uintptr_t)ls->dl_data;
		if (addr >= base &&
		    addr - base < (size_t)ls->dl_nvars * ls->dl_ssize)
			return ls->dl_ssize - (addr - base) % ls->dl_ssize;
	}
	if ((vs = ms->dm_vstate) != NULL) {
		for (i = 0; i < vs->dv_nglobals; i++) {
			const dif_gvar_t *g = &vs->dv_globals[i];

			base = (uintptr_t)g->dg_data;
			if (g->dg_data != NULL && addr >= base &&
			    addr - base < g->dg_size)
				return g->dg_size - (addr - base);
		}
	}
	return 0;
}

size_t
dif_vm_strlen(const dif_mstate_t *ms, const dif_difo_t *dp, uint64_t addr,
    size_t max)
{
	size_t avail = dif_vm_avail(ms, dp, addr);
	const char *nul;

	if (avail > max)
		avail = max;
	if (avail == 0)
		return 0;
	nul = memchr((const void *)(uintptr_t)addr, '\0', avail);
	return nul != NULL ? (size_t)(nul - (const char *)(uintptr_t)addr) :
	    avail;
}

int
dif_vm_inscratch(const dif_mstate_t *ms, uint64_t addr, size_t size)
{
	return ms->dm_scratch_used != 0 && dif_vm_within(addr, size,
	    (uintptr_t)ms->dm_scratch, ms->dm_scratch_used);
}

int
dif_vm_canstore(const dif_mstate_t *ms, uint64_t addr, size_t size)
{
	const dif_vstate_t *vs;
	uint32_t i;
	int r;

	if (addr == 0)
		return 0;
	if (dif_vm_inscratch(ms, addr, size))
		return 1;
	for (r = 0; r < ms->dm_nregions; r++) {
		if (dif_vm_within(addr, size, ms->dm_regions[r].dr_base,
		    ms->dm_regions[r].dr_size))
			return 1;
	}
	/* a global array or struct is written in place (a[i] = v) */
	if ((vs = ms->dm_vstate) != NULL) {
		for (i = 0; i < vs->dv_nglobals; i++) {
			const dif_gvar_t *g = &vs->dv_globals[i];

			if (g->dg_data != NULL && dif_vm_within(addr, size,
			    (uintptr_t)g->dg_data, g->dg_size))
				return 1;
		}
	}
	return 0;
}

/*
 * Take size zeroed bytes of scratch aligned to align (a power of two);
 * NULL (and DIF_FLT_NOSCRATCH) when there is not enough left.
 */
void *
dif_vm_scratch_alloc(dif_mstate_t *ms, size_t size, size_t align)
{
	uintptr_t base = (uintptr_t)ms->dm_scratch;
	uintptr_t cur = base + ms->dm_scratch_used;
	uintptr_t p = (cur + align - 1) & ~(uintptr_t)(align - 1);
	size_t off = p - base;

	if (ms->dm_scratch == NULL || off > ms->dm_scratch_size ||
	    size > ms->dm_scratch_size - off) {
		ms->dm_fault = DIF_FLT_NOSCRATCH;
		return NULL;
	}
	memset((void *)cur, 0, p - cur + size);
	ms->dm_scratch_used = off + size;
	return (void *)p;
}

/* The vartab entry of variable id in scope, or NULL. */
static const dif_var_t *
dif_vm_var(const dif_difo_t *dp, uint32_t id, uint8_t scope)
{
	uint32_t i;

	for (i = 0; i < dp->dd_varlen; i++) {
		const dif_var_t *v = &dp->dd_vartab[i];

		if (v->dv_id == id && v->dv_scope == scope)
			return v;
	}
	return NULL;
}

static const dif_var_t *
dif_vm_gvar(const dif_difo_t *dp, uint32_t id)
{
	return dif_vm_var(dp, id, DIFV_SCOPE_GLOBAL);
}

/*
 * The tuple stack: values (what subroutines get), and for each element
 * pushed by PUSHTR its type and size register, which give the bytes a
 * dynamic variable's key copies.  PUSHTV elements have type TUPVAL.
 */
#define DIF_VM_TUPVAL	0xff
typedef struct dif_vm_tuple {
	uint64_t	tu_val[DIF_DTR_NREGS];
	uint64_t	tu_size[DIF_DTR_NREGS];
	uint8_t		tu_type[DIF_DTR_NREGS];
	int		tu_top;
} dif_vm_tuple_t;

/* Bytes of a by-ref dynamic or clause-local value; 0 for an integer. */
static size_t
dif_vm_vsize(const dif_var_t *v, const dif_mstate_t *ms)
{
	size_t n;

	if (!(v->dv_type.dt_flags & DIF_TF_BYREF))
		return 0;
	n = v->dv_type.dt_size;
	if (n == 0 || n > ms->dm_strsize)
		n = ms->dm_strsize;
	return n;
}

/*
 * The key elements of an associative array access: the tuple stack,
 * strings cut at strsize, then for thread scope the thread key.
 * Returns the number of elements, or -1 with a fault in *faultp.
 */
static int
dif_vm_dkeys(const dif_difo_t *dp, dif_mstate_t *ms, const dif_vm_tuple_t *t,
    int thread, dif_dkey_t *k, int *faultp, uint64_t *illval)
{
	uint64_t a;
	int i;

	for (i = 0; i < t->tu_top; i++) {
		a = t->tu_val[i];
		k[i].dk_value = a;
		k[i].dk_size = 0;
		k[i].dk_byref = 0;
		if (t->tu_type[i] == DIF_VM_TUPVAL)
			continue;
		k[i].dk_byref = 1;
		if (t->tu_type[i] == DIF_TYPE_STRING) {
			size_t lim = ms->dm_strsize;

			if (t->tu_size[i] != 0 && t->tu_size[i] < lim)
				lim = t->tu_size[i];
			if (!dif_vm_canload(ms, dp, a, 1)) {
				*faultp = DIF_FLT_BADADDR;
				*illval = a;
				return -1;
			}
			k[i].dk_size = (uint32_t)dif_vm_strlen(ms, dp, a, lim);
			continue;
		}
		if (t->tu_size[i] > DIF_MAXSTRSIZE) {
			*faultp = DIF_FLT_ILLOP;
			return -1;
		}
		if (!dif_vm_canload(ms, dp, a, t->tu_size[i])) {
			*faultp = DIF_FLT_BADADDR;
			*illval = a;
			return -1;
		}
		k[i].dk_size = (uint32_t)t->tu_size[i];
	}
	if (thread) {
		k[i].dk_value = ms->dm_tkey;
		k[i].dk_size = 0;
		k[i].dk_byref = 0;
		i++;
	}
	return i;
}

/*
 * LDTS, LDGAA, LDTAA, STTS, STGAA, STTAA.  Loads of an absent variable
 * yield 0, or for a by-ref variable a zeroed value in scratch (the value
 * is always copied out, see dif_dvar.c).  Storing 0, a NULL pointer or
 * an empty string deletes.  A store the space cannot hold is a drop,
 * counted by dif_dvar_store, not a fault.  Not inlined (nor is
 * dif_vm_local): folded into dif_vm_exec they cost its arithmetic loop
 * about a fifth of its speed.
 */
static __attribute__((noinline)) int
dif_vm_dvar(const dif_difo_t *dp, dif_mstate_t *ms, dif_instr_t in,
    uint64_t *regs, const dif_vm_tuple_t *t, uint64_t *illval)
{
	dif_dkey_t k[DIF_DVAR_MAXKEYS];
	const uint32_t op = DIF_INSTR_OP(in), id = DIF_INSTR_VAR(in);
	const uint32_t rd = DIF_INSTR_RD(in);
	const dif_var_t *v;
	uint8_t scope;
	size_t vsize, len;
	uint64_t src;
	void *buf;
	int nk, fault = 0, store;

	scope = (op == DIF_OP_LDGAA || op == DIF_OP_STGAA) ?
	    DIFV_SCOPE_GLOBAL : DIFV_SCOPE_THREAD;
	store = op == DIF_OP_STTS || op == DIF_OP_STGAA || op == DIF_OP_STTAA;
	if (ms->dm_vstate == NULL || (v = dif_vm_var(dp, id, scope)) == NULL)
		return DIF_FLT_ILLOP;
	vsize = dif_vm_vsize(v, ms);
	if (op == DIF_OP_LDTS || op == DIF_OP_STTS) {
		k[0].dk_value = ms->dm_tkey;
		k[0].dk_size = 0;
		k[0].dk_byref = 0;
		nk = 1;
	} else if ((nk = dif_vm_dkeys(dp, ms, t, scope == DIFV_SCOPE_THREAD,
	    k, &fault, illval)) < 0) {
		return fault;
	}
	if (nk == 0)
		return DIF_FLT_ILLOP;	/* the verifier prevents it */

	if (!store) {
		if (vsize == 0) {
			if (scope == DIFV_SCOPE_THREAD && ms->dm_tkey == 0)
				regs[rd] = 0;
			else
				(void)dif_dvar_load(ms->dm_vstate, id, scope,
				    k, nk, &regs[rd], NULL, 0);
			return 0;
		}
		if ((buf = dif_vm_scratch_alloc(ms, vsize, 8)) == NULL)
			return DIF_FLT_NOSCRATCH;
		if (scope != DIFV_SCOPE_THREAD || ms->dm_tkey != 0)
			(void)dif_dvar_load(ms->dm_vstate, id, scope, k, nk,
			    NULL, buf, vsize);
		/* a string value always ends within its storage */
		((char *)buf)[vsize - 1] = '\0';
		regs[rd] = (uint64_t)(uintptr_t)buf;
		return 0;
	}

	/* no thread context: self-> refers to nothing */
	if (scope == DIFV_SCOPE_THREAD && ms->dm_tkey == 0)
		return 0;
	src = regs[rd];
	if (vsize == 0) {
		(void)dif_dvar_store(ms->dm_vstate, id, scope, k, nk, src,
		    NULL, 0, 0);
		return 0;
	}
	len = 0;
	if (src != 0 && v->dv_type.dt_kind != DIF_TYPE_STRING) {
		/* a struct, union or array: all of its bytes */
		len = vsize;
		if (!dif_vm_canload(ms, dp, src, len)) {
			*illval = src;
			return DIF_FLT_BADADDR;
		}
	} else if (src != 0) {
		if (!dif_vm_canload(ms, dp, src, 1)) {
			*illval = src;
			return DIF_FLT_BADADDR;
		}
		len = dif_vm_strlen(ms, dp, src, vsize - 1);
	}
	(void)dif_dvar_store(ms->dm_vstate, id, scope, k, nk, 0,
	    (const void *)(uintptr_t)src, len, vsize);
	return 0;
}

/* LDLS and STLS: this-> variables in the host's dif_lstate_t. */
static __attribute__((noinline)) int
dif_vm_local(const dif_difo_t *dp, dif_mstate_t *ms, dif_instr_t in,
    uint64_t *regs, uint64_t *illval)
{
	const uint32_t id = DIF_INSTR_VAR(in), rd = DIF_INSTR_RD(in);
	dif_lstate_t *ls = ms->dm_lstate;
	const dif_var_t *v;
	uint32_t slot;
	size_t vsize, n;
	uint64_t src;
	char *p;

	if (ls == NULL || id < DIF_VAR_OTHER_UBASE ||
	    (slot = id - DIF_VAR_OTHER_UBASE) >= ls->dl_nvars ||
	    (v = dif_vm_var(dp, id, DIFV_SCOPE_LOCAL)) == NULL)
		return DIF_FLT_ILLOP;
	vsize = dif_vm_vsize(v, ms);
	if (vsize == 0) {
		if (DIF_INSTR_OP(in) == DIF_OP_LDLS) {
			regs[rd] = ls->dl_setgen[slot] == ls->dl_gen ?
			    ls->dl_value[slot] : 0;
		} else {
			ls->dl_value[slot] = regs[rd];
			ls->dl_setgen[slot] = ls->dl_gen;
		}
		return 0;
	}
	if (vsize > ls->dl_ssize)
		vsize = ls->dl_ssize;
	p = ls->dl_data + (size_t)slot * ls->dl_ssize;
	if (DIF_INSTR_OP(in) == DIF_OP_LDLS) {
		if (ls->dl_setgen[slot] != ls->dl_gen) {
			memset(p, 0, ls->dl_ssize);
			ls->dl_setgen[slot] = ls->dl_gen;
		}
		regs[rd] = (uint64_t)(uintptr_t)p;
		return 0;
	}
	src = regs[rd];
	n = 0;
	if (src != 0 && v->dv_type.dt_kind != DIF_TYPE_STRING) {
		/* a struct, union or array: all of its bytes */
		n = vsize;
		if (!dif_vm_canload(ms, dp, src, n)) {
			*illval = src;
			return DIF_FLT_BADADDR;
		}
		memmove(p, (const void *)(uintptr_t)src, n);
	} else if (src != 0) {
		if (!dif_vm_canload(ms, dp, src, 1)) {
			*illval = src;
			return DIF_FLT_BADADDR;
		}
		n = dif_vm_strlen(ms, dp, src, vsize - 1);
		memmove(p, (const void *)(uintptr_t)src, n);
	}
	memset(p + n, 0, ls->dl_ssize - n);
	ls->dl_setgen[slot] = ls->dl_gen;
	return 0;
}

/* Compare two strings of the daemon's memory as illumos's SCMP does. */
static int
dif_vm_strcmp(const char *s1, size_t l1, const char *s2, size_t l2,
    size_t limit)
{
	size_t i;
	int c1, c2;

	if (s1 == s2)
		return 0;
	for (i = 0; i < limit; i++) {
		c1 = (s1 == NULL || i >= l1) ? 0 : (uint8_t)s1[i];
		c2 = (s2 == NULL || i >= l2) ? 0 : (uint8_t)s2[i];
		if (c1 != c2)
			return c1 - c2;
		if (c1 == 0)
			break;
	}
	return 0;
}

#define DIF_VM_LOAD(type)						\
	do {								\
		uint64_t a_ = regs[r1];					\
		type v_;						\
		if (!dif_vm_canload(ms, dp, a_, sizeof(type))) {	\
			fault = DIF_FLT_BADADDR;			\
			illval = a_;					\
			goto out;					\
		}							\
		if (a_ & (sizeof(type) - 1)) {				\
			fault = DIF_FLT_BADALIGN;			\
			illval = a_;					\
			goto out;					\
		}							\
		memcpy(&v_, (const void *)(uintptr_t)a_, sizeof(v_));	\
		regs[rd] = (uint64_t)v_;				\
	} while (0)

#define DIF_VM_ULOAD(type)						\
	do {								\
		uint64_t a_ = regs[r1];					\
		type v_;						\
		int e_;							\
		if (ms->dm_host == NULL ||				\
		    ms->dm_host->dh_uread == NULL) {			\
			fault = DIF_FLT_UPRIV;				\
			illval = a_;					\
			goto out;					\
		}							\
		if ((e_ = ms->dm_host->dh_uread(ms->dm_hostarg, a_,	\
		    &v_, sizeof(v_))) != 0) {				\
			fault = e_;					\
			illval = a_;					\
			goto out;					\
		}							\
		regs[rd] = (uint64_t)v_;				\
	} while (0)

#define DIF_VM_STORE(type)						\
	do {								\
		uint64_t a_ = regs[rd];					\
		type v_ = (type)regs[r1];				\
		if (!dif_vm_canstore(ms, a_, sizeof(type))) {		\
			fault = DIF_FLT_BADADDR;			\
			illval = a_;					\
			goto out;					\
		}							\
		if (a_ & (sizeof(type) - 1)) {				\
			fault = DIF_FLT_BADALIGN;			\
			illval = a_;					\
			goto out;					\
		}							\
		memcpy((void *)(uintptr_t)a_, &v_, sizeof(v_));	\
	} while (0)

uint64_t
dif_vm_exec(const dif_difo_t *dp, dif_mstate_t *ms)
{
	const dif_instr_t *text = dp->dd_buf;
	const uint32_t len = dp->dd_len;
	uint64_t regs[DIF_DIR_NREGS];
	dif_vm_tuple_t tup;
	uint64_t budget = ms->dm_budget;
	uint64_t illval = 0, rval = 0;
	uint32_t pc = 0, opc = 0;
	uint32_t r1, r2, rd, id;
	dif_instr_t in;
	int64_t cc_r;
	int cc_n = 0, cc_z = 0, cc_v = 0, cc_c = 0;
	int fault = 0;

	memset(regs, 0, sizeof(regs));
	tup.tu_top = 0;
	ms->dm_fault = 0;

	while (pc < len) {
		opc = pc;
		if (budget == 0) {
			fault = DIF_FLT_ILLOP;
			goto out;
		}
		budget--;
		in = text[pc++];
		r1 = DIF_INSTR_R1(in);
		r2 = DIF_INSTR_R2(in);
		rd = DIF_INSTR_RD(in);

		switch (DIF_INSTR_OP(in)) {
		case DIF_OP_OR:
			regs[rd] = regs[r1] | regs[r2];
			break;
		case DIF_OP_XOR:
			regs[rd] = regs[r1] ^ regs[r2];
			break;
		case DIF_OP_AND:
			regs[rd] = regs[r1] & regs[r2];
			break;
		case DIF_OP_SLL:
			regs[rd] = regs[r1] << (regs[r2] & 63);
			break;
		case DIF_OP_SRL:
			regs[rd] = regs[r1] >> (regs[r2] & 63);
			break;
		case DIF_OP_SRA:
			regs[rd] = (uint64_t)((int64_t)regs[r1] >>
			    (regs[r2] & 63));
			break;
		case DIF_OP_SUB:
			regs[rd] = regs[r1] - regs[r2];
			break;
		case DIF_OP_ADD:
			regs[rd] = regs[r1] + regs[r2];
			break;
		case DIF_OP_MUL:
			regs[rd] = regs[r1] * regs[r2];
			break;
		case DIF_OP_SDIV:
			if (regs[r2] == 0) {
				fault = DIF_FLT_DIVZERO;
				goto out;
			}
			/* INT64_MIN / -1 traps on x86: it wraps in DIF. */
			if ((int64_t)regs[r2] == -1)
				regs[rd] = -regs[r1];
			else
				regs[rd] = (uint64_t)((int64_t)regs[r1] /
				    (int64_t)regs[r2]);
			break;
		case DIF_OP_UDIV:
			if (regs[r2] == 0) {
				fault = DIF_FLT_DIVZERO;
				goto out;
			}
			regs[rd] = regs[r1] / regs[r2];
			break;
		case DIF_OP_SREM:
			if (regs[r2] == 0) {
				fault = DIF_FLT_DIVZERO;
				goto out;
			}
			if ((int64_t)regs[r2] == -1)
				regs[rd] = 0;
			else
				regs[rd] = (uint64_t)((int64_t)regs[r1] %
				    (int64_t)regs[r2]);
			break;
		case DIF_OP_UREM:
			if (regs[r2] == 0) {
				fault = DIF_FLT_DIVZERO;
				goto out;
			}
			regs[rd] = regs[r1] % regs[r2];
			break;
		case DIF_OP_NOT:
			regs[rd] = ~regs[r1];
			break;
		case DIF_OP_MOV:
			regs[rd] = regs[r1];
			break;
		case DIF_OP_CMP:
			cc_r = (int64_t)(regs[r1] - regs[r2]);
			cc_n = cc_r < 0;
			cc_z = cc_r == 0;
			cc_v = 0;
			cc_c = regs[r1] < regs[r2];
			break;
		case DIF_OP_TST:
			cc_n = cc_v = cc_c = 0;
			cc_z = regs[r1] == 0;
			break;
		case DIF_OP_BA:
			pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BE:
			if (cc_z)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BNE:
			if (cc_z == 0)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BG:
			if ((cc_z | (cc_n ^ cc_v)) == 0)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BGU:
			if ((cc_c | cc_z) == 0)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BGE:
			if ((cc_n ^ cc_v) == 0)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BGEU:
			if (cc_c == 0)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BL:
			if (cc_n ^ cc_v)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BLU:
			if (cc_c)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BLE:
			if (cc_z | (cc_n ^ cc_v))
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_BLEU:
			if (cc_c | cc_z)
				pc = DIF_INSTR_LABEL(in);
			break;
		case DIF_OP_LDSB:
			DIF_VM_LOAD(int8_t);
			break;
		case DIF_OP_LDSH:
			DIF_VM_LOAD(int16_t);
			break;
		case DIF_OP_LDSW:
			DIF_VM_LOAD(int32_t);
			break;
		case DIF_OP_LDUB:
			DIF_VM_LOAD(uint8_t);
			break;
		case DIF_OP_LDUH:
			DIF_VM_LOAD(uint16_t);
			break;
		case DIF_OP_LDUW:
			DIF_VM_LOAD(uint32_t);
			break;
		case DIF_OP_LDX:
			DIF_VM_LOAD(uint64_t);
			break;
		case DIF_OP_ULDSB:
		case DIF_OP_RLDSB:
			DIF_VM_ULOAD(int8_t);
			break;
		case DIF_OP_ULDSH:
		case DIF_OP_RLDSH:
			DIF_VM_ULOAD(int16_t);
			break;
		case DIF_OP_ULDSW:
		case DIF_OP_RLDSW:
			DIF_VM_ULOAD(int32_t);
			break;
		case DIF_OP_ULDUB:
		case DIF_OP_RLDUB:
			DIF_VM_ULOAD(uint8_t);
			break;
		case DIF_OP_ULDUH:
		case DIF_OP_RLDUH:
			DIF_VM_ULOAD(uint16_t);
			break;
		case DIF_OP_ULDUW:
		case DIF_OP_RLDUW:
			DIF_VM_ULOAD(uint32_t);
			break;
		case DIF_OP_ULDX:
		case DIF_OP_RLDX:
			DIF_VM_ULOAD(uint64_t);
			break;
		case DIF_OP_RET:
			rval = regs[rd];
			goto done;
		case DIF_OP_NOP:
			break;
		case DIF_OP_SETX:
			id = DIF_INSTR_INTEGER(in);
			if (id >= dp->dd_intlen) {
				fault = DIF_FLT_ILLOP;
				goto out;
			}
			regs[rd] = dp->dd_inttab[id];
			break;
		case DIF_OP_SETS:
			id = DIF_INSTR_STRING(in);
			if (id >= dp->dd_strlen) {
				fault = DIF_FLT_ILLOP;
				goto out;
			}
			regs[rd] = (uint64_t)(uintptr_t)(dp->dd_strtab + id);
			break;
		case DIF_OP_SCMP: {
			size_t sz = ms->dm_strsize, l1 = 0, l2 = 0;
			uint64_t s1 = regs[r1], s2 = regs[r2];

			if (s1 != 0) {
				if (!dif_vm_canload(ms, dp, s1, 1)) {
					fault = DIF_FLT_BADADDR;
					illval = s1;
					goto out;
				}
				l1 = dif_vm_strlen(ms, dp, s1, sz);
			}
			if (s2 != 0) {
				if (!dif_vm_canload(ms, dp, s2, 1)) {
					fault = DIF_FLT_BADADDR;
					illval = s2;
					goto out;
				}
				l2 = dif_vm_strlen(ms, dp, s2, sz);
			}
			cc_r = dif_vm_strcmp((const char *)(uintptr_t)s1, l1,
			    (const char *)(uintptr_t)s2, l2, sz);
			cc_n = cc_r < 0;
			cc_z = cc_r == 0;
			cc_v = cc_c = 0;
			break;
		}
		case DIF_OP_LDGA:
			/* r1 is the array id, r2 the index register */
			if (ms->dm_host == NULL ||
			    ms->dm_host->dh_builtin == NULL) {
				fault = DIF_FLT_ILLOP;
				goto out;
			}
			if ((fault = ms->dm_host->dh_builtin(ms->dm_hostarg,
			    r1, regs[r2], &regs[rd])) != 0)
				goto out;
			break;
		case DIF_OP_LDGS: {
			const dif_var_t *v;
			dif_gvar_t *g;

			id = DIF_INSTR_VAR(in);
			if (id < DIF_VAR_OTHER_UBASE) {
				if (ms->dm_host == NULL ||
				    ms->dm_host->dh_builtin == NULL) {
					fault = DIF_FLT_ILLOP;
					goto out;
				}
				if ((fault = ms->dm_host->dh_builtin(
				    ms->dm_hostarg, id, 0, &regs[rd])) != 0)
					goto out;
				break;
			}
			if (ms->dm_vstate == NULL || id - DIF_VAR_OTHER_UBASE >=
			    ms->dm_vstate->dv_nglobals ||
			    (v = dif_vm_gvar(dp, id)) == NULL) {
				fault = DIF_FLT_ILLOP;
				goto out;
			}
			g = &ms->dm_vstate->dv_globals[id - DIF_VAR_OTHER_UBASE];
			if (v->dv_type.dt_flags & DIF_TF_BYREF) {
				if (g->dg_data == NULL) {
					fault = DIF_FLT_ILLOP;
					goto out;
				}
				regs[rd] = (uint64_t)(uintptr_t)g->dg_data;
			} else {
				regs[rd] = g->dg_value;
			}
			break;
		}
		case DIF_OP_STGS: {
			const dif_var_t *v;
			dif_gvar_t *g;

			id = DIF_INSTR_VAR(in);
			if (id < DIF_VAR_OTHER_UBASE || ms->dm_vstate == NULL ||
			    id - DIF_VAR_OTHER_UBASE >=
			    ms->dm_vstate->dv_nglobals ||
			    (v = dif_vm_gvar(dp, id)) == NULL) {
				fault = DIF_FLT_ILLOP;
				goto out;
			}
			g = &ms->dm_vstate->dv_globals[id - DIF_VAR_OTHER_UBASE];
			if (v->dv_type.dt_flags & DIF_TF_BYREF) {
				uint64_t src = regs[rd];
				size_t lim, n;

				if (g->dg_data == NULL || g->dg_size == 0) {
					fault = DIF_FLT_ILLOP;
					goto out;
				}
				if (v->dv_type.dt_kind != DIF_TYPE_STRING) {
					/* a struct, union or array */
					n = v->dv_type.dt_size < g->dg_size ?
					    v->dv_type.dt_size : g->dg_size;
					if (!dif_vm_canload(ms, dp, src, n)) {
						fault = DIF_FLT_BADADDR;
						illval = src;
						goto out;
					}
					memmove(g->dg_data,
					    (const void *)(uintptr_t)src, n);
					g->dg_set = 1;
					break;
				}
				if (!dif_vm_canload(ms, dp, src, 1)) {
					fault = DIF_FLT_BADADDR;
					illval = src;
					goto out;
				}
				lim = g->dg_size < ms->dm_strsize ? g->dg_size :
				    ms->dm_strsize;
				n = dif_vm_strlen(ms, dp, src, lim - 1);
				memmove(g->dg_data, (const void *)(uintptr_t)src,
				    n);
				g->dg_data[n] = '\0';
			} else {
				g->dg_value = regs[rd];
			}
			g->dg_set = 1;
			break;
		}
		case DIF_OP_CALL:
			ms->dm_budget = budget;
			regs[rd] = dif_subr_call(DIF_INSTR_SUBR(in), tup.tu_val,
			    tup.tu_top, dp, ms);
			if (ms->dm_fault != 0) {
				fault = ms->dm_fault;
				illval = ms->dm_illval;
				goto out;
			}
			break;
		case DIF_OP_PUSHTR:
		case DIF_OP_PUSHTV:
			if (tup.tu_top == DIF_DTR_NREGS) {
				fault = DIF_FLT_TUPOFLOW;
				goto out;
			}
			/* r1 is the type, r2 the size register (PUSHTR) */
			tup.tu_val[tup.tu_top] = regs[rd];
			tup.tu_size[tup.tu_top] = regs[r2];
			tup.tu_type[tup.tu_top] = DIF_INSTR_OP(in) ==
			    DIF_OP_PUSHTR ? (uint8_t)r1 : DIF_VM_TUPVAL;
			tup.tu_top++;
			break;
		case DIF_OP_POPTS:
			if (tup.tu_top != 0)
				tup.tu_top--;
			break;
		case DIF_OP_FLUSHTS:
			tup.tu_top = 0;
			break;
		case DIF_OP_LDTS:
		case DIF_OP_STTS:
		case DIF_OP_LDGAA:
		case DIF_OP_STGAA:
		case DIF_OP_LDTAA:
		case DIF_OP_STTAA:
			if ((fault = dif_vm_dvar(dp, ms, in, regs, &tup,
			    &illval)) != 0)
				goto out;
			break;
		case DIF_OP_LDLS:
		case DIF_OP_STLS:
			if ((fault = dif_vm_local(dp, ms, in, regs,
			    &illval)) != 0)
				goto out;
			break;
		case DIF_OP_ALLOCS: {
			void *p;

			if ((p = dif_vm_scratch_alloc(ms, regs[r1], 8)) ==
			    NULL) {
				fault = DIF_FLT_NOSCRATCH;
				goto out;
			}
			regs[rd] = (uint64_t)(uintptr_t)p;
			break;
		}
		case DIF_OP_COPYS:
			if (!dif_vm_canstore(ms, regs[rd], regs[r2])) {
				fault = DIF_FLT_BADADDR;
				illval = regs[rd];
				goto out;
			}
			if (!dif_vm_canload(ms, dp, regs[r1], regs[r2])) {
				fault = DIF_FLT_BADADDR;
				illval = regs[r1];
				goto out;
			}
			if (regs[r2] != 0)
				memmove((void *)(uintptr_t)regs[rd],
				    (const void *)(uintptr_t)regs[r1], regs[r2]);
			break;
		case DIF_OP_STB:
			DIF_VM_STORE(uint8_t);
			break;
		case DIF_OP_STH:
			DIF_VM_STORE(uint16_t);
			break;
		case DIF_OP_STW:
			DIF_VM_STORE(uint32_t);
			break;
		case DIF_OP_STX:
			DIF_VM_STORE(uint64_t);
			break;
		default:
			/* translators (xlate, xlarg): not supported */
			fault = DIF_FLT_ILLOP;
			goto out;
		}
	}
done:
	ms->dm_budget = budget;
	return rval;
out:
	ms->dm_budget = budget;
	ms->dm_fault = fault;
	ms->dm_faultpc = opc;
	ms->dm_illval = illval;
	return 0;
}

const char *
dif_fault_name(int fault)
{
	switch (fault) {
	case DIF_FLT_BADADDR:
		return "invalid address";
	case DIF_FLT_BADALIGN:
		return "invalid alignment";
	case DIF_FLT_ILLOP:
		return "illegal operation";
	case DIF_FLT_DIVZERO:
		return "divide-by-zero";
	case DIF_FLT_NOSCRATCH:
		return "out of scratch space";
	case DIF_FLT_KPRIV:
		return "invalid kernel access";
	case DIF_FLT_UPRIV:
		return "invalid user access";
	case DIF_FLT_TUPOFLOW:
		return "tuple stack overflow";
	case DIF_FLT_BADSTACK:
		return "bad stack";
	case DIF_FLT_LIBRARY:
		return "library-level fault";
	default:
		return "unknown fault";
	}
}

void
dif_difo_free(dif_difo_t *dp)
{
	if (dp == NULL)
		return;
	free(dp->dd_buf);
	free(dp->dd_inttab);
	free(dp->dd_strtab);
	free(dp->dd_vartab);
	free(dp);
}
