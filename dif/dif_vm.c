/*
 * dif_vm.c: the DIF interpreter.
 *
 * dif_vm_exec() runs one verified DIFO (dif_verify() must have accepted
 * it: register fields, table indices and forward-only branches ending
 * in RET are not re-checked here) with illumos dtrace_dif_emulate()
 * semantics.  Every load from the daemon's own memory goes through
 * dif_vm_canload() (strings through dif_vm_strload(), which also gives
 * their length), every store through dif_vm_canstore(); the traced
 * process is read only through the host's dh_uread callback.  A fault
 * stops the program: dm_fault, dm_faultpc (instruction index) and
 * dm_illval describe it and the result is 0.
 *
 * Speed (tests/bench/difbench): threaded dispatch whose fetch is a
 * load, a count and a jump; operands decoded by the case that uses them;
 * the budget only counted when it covers the DIFO; arguments read in
 * place from dm_args; one region walk per string.  Measure before and
 * after any change here.
 */
#include <stdlib.h>
#include <string.h>

#include "dif.h"

void
dif_mstate_init(dif_mstate_t *ms, const dif_host_t *host, void *hostarg,
    dif_vstate_t *vs, char *scratch, size_t scratch_size, uint32_t strsize)
{
	const size_t roff = offsetof(dif_mstate_t, dm_regions);
	const size_t rend = offsetof(dif_mstate_t, dm_drefs) +
	    sizeof(ms->dm_drefs);

	/*
	 * Every field but dm_regions and dm_drefs (most of the structure,
	 * only read below dm_nregions and dm_ndrefs) starts zeroed: a
	 * memset of it all cost a probe firing more than a few of its
	 * instructions.
	 */
	memset(ms, 0, roff);
	memset((char *)ms + rend, 0, sizeof(*ms) - rend);
	ms->dm_host = host;
	ms->dm_hostarg = hostarg;
	ms->dm_vstate = vs;
	ms->dm_scratch = scratch;
	ms->dm_scratch_size = scratch != NULL ? scratch_size : 0;
	ms->dm_strsize = strsize != 0 ? strsize : 256;
	ms->dm_budget = DIF_DEFAULT_BUDGET;
}

void
dif_mstate_fini(dif_mstate_t *ms)
{
	int i;

	for (i = 0; i < ms->dm_ndrefs; i++)
		dif_dvar_unref(ms->dm_vstate, ms->dm_drefs[i].dr_ent);
	ms->dm_ndrefs = 0;
}

/* Is [addr, addr + size) inside [base, base + len)? Overflow-safe. */
static inline int
dif_vm_within(uint64_t addr, size_t size, uintptr_t base, size_t len)
{
	return addr >= base && addr - base <= len &&
	    size <= len - (addr - base);
}

/* Is [addr, addr + size) inside a dynamic variable lent to the firing? */
static inline int
dif_vm_indref(const dif_mstate_t *ms, uint64_t addr, size_t size)
{
	int i;

	for (i = 0; i < ms->dm_ndrefs; i++) {
		if (dif_vm_within(addr, size, ms->dm_drefs[i].dr_base,
		    ms->dm_drefs[i].dr_size))
			return 1;
	}
	return 0;
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
	if (dif_vm_indref(ms, addr, size))
		return 1;
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
static inline size_t
dif_vm_avail(const dif_mstate_t *ms, const dif_difo_t *dp, uint64_t addr)
{
	const dif_vstate_t *vs;
	uintptr_t base, off;
	uint32_t i;
	int r;

	/*
	 * off = addr - base wraps to a huge value when addr < base, so one
	 * unsigned compare, off < size, says whether addr is in a region.
	 */
	if (addr == 0)
		return 0;
	off = addr - (uintptr_t)ms->dm_scratch;
	if (off < ms->dm_scratch_used)
		return ms->dm_scratch_used - off;
	if (dp != NULL) {
		off = addr - (uintptr_t)dp->dd_strtab;
		if (off < dp->dd_strlen)
			return dp->dd_strlen - off;
	}
	for (r = 0; r < ms->dm_nregions; r++) {
		off = addr - ms->dm_regions[r].dr_base;
		if (off < ms->dm_regions[r].dr_size)
			return ms->dm_regions[r].dr_size - off;
	}
	for (r = 0; r < ms->dm_ndrefs; r++) {
		off = addr - ms->dm_drefs[r].dr_base;
		if (off < ms->dm_drefs[r].dr_size)
			return ms->dm_drefs[r].dr_size - off;
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

#define DIF_VM_SHORTSTR	32

/*
 * A string of the daemon's memory at addr: 0 if addr is not loadable,
 * else 1 and in *lenp its length, cut at max bytes and at the end of the
 * region that holds it.  One walk of the regions where dif_vm_canload()
 * then dif_vm_strlen() take two.
 */
int
dif_vm_strload(const dif_mstate_t *ms, const dif_difo_t *dp, uint64_t addr,
    size_t max, size_t *lenp)
{
	const char *s = (const char *)(uintptr_t)addr, *nul;
	size_t avail = dif_vm_avail(ms, dp, addr), lim, i;

	if (avail == 0)
		return 0;
	if (avail > max)
		avail = max;
	/*
	 * Most strings are short: look for the NUL a word at a time in
	 * line (never reading past avail), and call memchr() only for what
	 * is left after DIF_VM_SHORTSTR bytes.
	 */
	lim = avail < DIF_VM_SHORTSTR ? avail : DIF_VM_SHORTSTR;
	for (i = 0; i + 8 <= lim; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, sizeof(w));
		if (((w - 0x0101010101010101ULL) & ~w &
		    0x8080808080808080ULL) != 0)
			break;
	}
	/* the word with the NUL, or what is left of lim */
	lim = i + 8 < avail ? i + 8 : avail;
	for (; i < lim; i++) {
		if (s[i] == '\0') {
			*lenp = i;
			return 1;
		}
	}
	nul = i < avail ? memchr(s + i, '\0', avail - i) : NULL;
	*lenp = nul != NULL ? (size_t)(nul - s) : avail;
	return 1;
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
	/* so is a thread-local's or an array element's (a[k].m = v) */
	if (dif_vm_indref(ms, addr, size))
		return 1;
	/* a clause-local struct or array is written in place (this->s.m) */
	if (ms->dm_lstate != NULL && ms->dm_lstate->dl_data != NULL &&
	    dif_vm_within(addr, size, (uintptr_t)ms->dm_lstate->dl_data,
	    (size_t)ms->dm_lstate->dl_nvars * ms->dm_lstate->dl_ssize))
		return 1;
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
 * Take size bytes of scratch aligned to align (a power of two), with the
 * alignment padding zeroed but not the bytes themselves: for a result
 * its caller writes in full, since scratch is loadable up to what is in
 * use and must never show what an earlier firing left there.  NULL (and
 * DIF_FLT_NOSCRATCH) when there is not enough left.
 */
void *
dif_vm_scratch_take(dif_mstate_t *ms, size_t size, size_t align)
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
	if (p != cur)
		memset((void *)cur, 0, p - cur);
	ms->dm_scratch_used = off + size;
	return (void *)p;
}

/* The same, the bytes zeroed. */
void *
dif_vm_scratch_alloc(dif_mstate_t *ms, size_t size, size_t align)
{
	void *p;

	if ((p = dif_vm_scratch_take(ms, size, align)) != NULL)
		memset(p, 0, size);
	return p;
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

/*
 * Bytes of a by-ref dynamic or clause-local value; 0 for an integer.  A
 * string holds at most strsize characters (its type's size) and then its
 * NUL, as every string of the VM does (dif.h, dm_strsize).
 */
static size_t
dif_vm_vsize(const dif_var_t *v, const dif_mstate_t *ms)
{
	size_t n;

	if (!(v->dv_type.dt_flags & DIF_TF_BYREF))
		return 0;
	n = v->dv_type.dt_size;
	/*
	 * A string holds strsize bytes at most; a struct, union or array
	 * all of its own (the verifier bounds it), as illumos sizes its
	 * dynamic variables' chunks by their largest type.
	 */
	if (n == 0 || (n > ms->dm_strsize &&
	    v->dv_type.dt_kind == DIF_TYPE_STRING))
		n = ms->dm_strsize;
	return v->dv_type.dt_kind == DIF_TYPE_STRING ? n + 1 : n;
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
	size_t len;
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
			if (!dif_vm_strload(ms, dp, a, lim, &len)) {
				*faultp = DIF_FLT_BADADDR;
				*illval = a;
				return -1;
			}
			k[i].dk_size = (uint32_t)len;
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
 * A struct, union or array held in a dynamic variable: its own storage,
 * held until dif_mstate_fini() (one hold per entry and firing), in *valp;
 * 0 if there is no such variable.
 */
static int
dif_vm_lend(dif_mstate_t *ms, uint32_t id, uint8_t scope,
    const dif_dkey_t *k, int nk, size_t vsize, uint64_t *valp)
{
	void *ent, *data;
	size_t size;
	int i;

	*valp = 0;
	if ((ent = dif_dvar_ref(ms->dm_vstate, id, scope, k, nk, vsize,
	    &data, &size)) == NULL)
		return 0;
	for (i = 0; i < ms->dm_ndrefs && ms->dm_drefs[i].dr_ent != ent; i++)
		;
	if (i < ms->dm_ndrefs) {
		/* held already by this firing: the one hold will do */
		dif_dvar_unref(ms->dm_vstate, ent);
	} else if (i == DIF_MAXDREFS) {
		dif_dvar_unref(ms->dm_vstate, ent);
		return DIF_FLT_NOSCRATCH;
	} else {
		ms->dm_drefs[i].dr_ent = ent;
		ms->dm_drefs[i].dr_base = (uintptr_t)data;
		ms->dm_drefs[i].dr_size = size;
		ms->dm_ndrefs++;
	}
	*valp = (uint64_t)(uintptr_t)data;
	return 0;
}

/*
 * LDTS, LDGAA, LDTAA, STTS, STGAA, STTAA.  Loads of an absent variable
 * yield 0 (NULL for a by-ref one).  An integer is loaded by value, a
 * string copied into scratch, a struct, union or array lent in place
 * (dif_vm_lend).  Storing 0, a NULL pointer or an empty string deletes.
 * A store the space cannot hold is a drop, counted by dif_dvar_store,
 * not a fault.  Not inlined (nor is dif_vm_local): folded into
 * dif_vm_exec they cost its arithmetic loop about a fifth of its speed.
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
		if (v->dv_type.dt_kind != DIF_TYPE_STRING) {
			if (scope == DIFV_SCOPE_THREAD && ms->dm_tkey == 0) {
				regs[rd] = 0;
				return 0;
			}
			return dif_vm_lend(ms, id, scope, k, nk, vsize,
			    &regs[rd]);
		}
		if ((buf = dif_vm_scratch_alloc(ms, vsize, 8)) == NULL)
			return DIF_FLT_NOSCRATCH;
		/*
		 * An absent by-ref variable is NULL, as in illumos: a
		 * compare reads it as "", trace() or strlen() of it fault.
		 */
		if ((scope == DIFV_SCOPE_THREAD && ms->dm_tkey == 0) ||
		    !dif_dvar_load(ms->dm_vstate, id, scope, k, nk, NULL,
		    buf, vsize)) {
			ms->dm_scratch_used -= vsize;
			regs[rd] = 0;
			return 0;
		}
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
		if (!dif_vm_strload(ms, dp, src, vsize - 1, &len)) {
			*illval = src;
			return DIF_FLT_BADADDR;
		}
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
		if (!dif_vm_strload(ms, dp, src, vsize - 1, &n)) {
			*illval = src;
			return DIF_FLT_BADADDR;
		}
		memmove(p, (const void *)(uintptr_t)src, n);
	}
	memset(p + n, 0, ls->dl_ssize - n);
	ls->dl_setgen[slot] = ls->dl_gen;
	return 0;
}

/*
 * Compare two strings of the daemon's memory as illumos's SCMP does:
 * bytewise unsigned, up to the first difference or NUL, at most limit
 * bytes.  a1 and a2 are the bytes loadable at s1 and s2 (from
 * dif_vm_avail(); 0 for NULL, the empty string): past them a string
 * reads as ended.  One pass, no strlen() of either string first.
 */
static int
dif_vm_strcmp(const char *s1, size_t a1, const char *s2, size_t a2,
    size_t limit)
{
	size_t i;
	int c1, c2;

	if (s1 == s2)
		return 0;
	for (i = 0; i < limit; i++) {
		c1 = i < a1 ? (uint8_t)s1[i] : 0;
		c2 = i < a2 ? (uint8_t)s2[i] : 0;
		if (c1 != c2)
			return c1 - c2;
		if (c1 == 0)
			break;
	}
	return 0;
}

/*
 * The operands of the instruction being run, decoded where a case uses
 * them (the verifier has checked every register field).
 */
#define DIF_VM_R1	regs[DIF_INSTR_R1(in)]
#define DIF_VM_R2	regs[DIF_INSTR_R2(in)]
#define DIF_VM_RD	regs[DIF_INSTR_RD(in)]

#define DIF_VM_LOAD(type)						\
	do {								\
		uint64_t a_ = DIF_VM_R1;				\
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
		DIF_VM_RD = (uint64_t)v_;				\
	} while (0)

#define DIF_VM_ULOAD(type)						\
	do {								\
		uint64_t a_ = DIF_VM_R1;				\
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
		DIF_VM_RD = (uint64_t)v_;				\
	} while (0)

#define DIF_VM_STORE(type)						\
	do {								\
		uint64_t a_ = DIF_VM_RD;				\
		type v_ = (type)DIF_VM_R1;				\
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

/*
 * Condition codes, one bit each.  No DIF instruction sets overflow (as
 * in illumos, CMP, SCMP and TST all clear it), so there is no V bit and
 * the signed branches read N alone.
 */
#define DIF_VM_CC_N	0x1	/* negative */
#define DIF_VM_CC_Z	0x2	/* zero */
#define DIF_VM_CC_C	0x4	/* carry: unsigned less than */

/*
 * Dispatch.  With GNU C, each instruction's code ends by fetching the
 * next instruction and jumping straight to its code through a table of
 * label addresses (threaded code), so the processor predicts each
 * opcode's successor on its own rather than every instruction through
 * one indirect branch.  The fetch is kept to a load, a count and the
 * jump, small enough that the compiler copies it into every case rather
 * than merging them into one shared jump; each case decodes only the
 * operands it uses.  Elsewhere it is a plain switch in a loop.
 * DIF_VM_OPS lists every opcode dif_vm_exec has a case for (a case
 * missing from it is a compile-time error: its label is unused; an
 * entry without a case, an undefined label).
 */
#define	DIF_VM_OPS(X)	\
	X(DIF_OP_OR) \
	X(DIF_OP_XOR) \
	X(DIF_OP_AND) \
	X(DIF_OP_SLL) \
	X(DIF_OP_SRL) \
	X(DIF_OP_SRA) \
	X(DIF_OP_SUB) \
	X(DIF_OP_ADD) \
	X(DIF_OP_MUL) \
	X(DIF_OP_SDIV) \
	X(DIF_OP_UDIV) \
	X(DIF_OP_SREM) \
	X(DIF_OP_UREM) \
	X(DIF_OP_NOT) \
	X(DIF_OP_MOV) \
	X(DIF_OP_CMP) \
	X(DIF_OP_TST) \
	X(DIF_OP_BA) \
	X(DIF_OP_BE) \
	X(DIF_OP_BNE) \
	X(DIF_OP_BG) \
	X(DIF_OP_BGU) \
	X(DIF_OP_BGE) \
	X(DIF_OP_BGEU) \
	X(DIF_OP_BL) \
	X(DIF_OP_BLU) \
	X(DIF_OP_BLE) \
	X(DIF_OP_BLEU) \
	X(DIF_OP_LDSB) \
	X(DIF_OP_LDSH) \
	X(DIF_OP_LDSW) \
	X(DIF_OP_LDUB) \
	X(DIF_OP_LDUH) \
	X(DIF_OP_LDUW) \
	X(DIF_OP_LDX) \
	X(DIF_OP_ULDSB) \
	X(DIF_OP_RLDSB) \
	X(DIF_OP_ULDSH) \
	X(DIF_OP_RLDSH) \
	X(DIF_OP_ULDSW) \
	X(DIF_OP_RLDSW) \
	X(DIF_OP_ULDUB) \
	X(DIF_OP_RLDUB) \
	X(DIF_OP_ULDUH) \
	X(DIF_OP_RLDUH) \
	X(DIF_OP_ULDUW) \
	X(DIF_OP_RLDUW) \
	X(DIF_OP_ULDX) \
	X(DIF_OP_RLDX) \
	X(DIF_OP_RET) \
	X(DIF_OP_NOP) \
	X(DIF_OP_SETX) \
	X(DIF_OP_SETS) \
	X(DIF_OP_SCMP) \
	X(DIF_OP_LDGA) \
	X(DIF_OP_LDGS) \
	X(DIF_OP_STGS) \
	X(DIF_OP_CALL) \
	X(DIF_OP_PUSHTR) \
	X(DIF_OP_PUSHTV) \
	X(DIF_OP_POPTS) \
	X(DIF_OP_FLUSHTS) \
	X(DIF_OP_LDTS) \
	X(DIF_OP_STTS) \
	X(DIF_OP_LDGAA) \
	X(DIF_OP_STGAA) \
	X(DIF_OP_LDTAA) \
	X(DIF_OP_STTAA) \
	X(DIF_OP_LDLS) \
	X(DIF_OP_STLS) \
	X(DIF_OP_ALLOCS) \
	X(DIF_OP_COPYS) \
	X(DIF_OP_STB) \
	X(DIF_OP_STH) \
	X(DIF_OP_STW) \
	X(DIF_OP_STX)

#if defined(__GNUC__)
#define	DIF_VM_THREADED
#define	DIF_VM_CASE(op)	case op: dif_vm_l_##op
#define	DIF_VM_NEXT()							\
	do {								\
		in = *ip++;						\
		n++;							\
		goto *disp[DIF_INSTR_OP(in)];				\
	} while (0)
#else
#define	DIF_VM_CASE(op)	case op
#define	DIF_VM_NEXT()	goto dispatch
#endif

/*
 * Run one verified DIFO.  The verifier's guarantees are relied on, not
 * re-checked: registers in range, %r0 never written, integer and string
 * table indices in range, and branches that only go forward to an
 * instruction of the DIFO, whose last one is RET.  So ip never runs off
 * the end and a DIFO runs at most dd_len instructions: when the budget
 * left is at least that, the instructions are only counted; otherwise
 * each is checked against it before it runs (the dif_vm_check entry
 * every opcode has in the second table).
 */
#if defined(DIF_VM_THREADED) && !defined(__clang__)
/*
 * GCC's cross-jumping would merge the identical fetch-and-jump tails of
 * the cases back into one shared indirect jump (5 left of 70): keep
 * them apart.
 */
__attribute__((optimize("no-crossjumping")))
#endif
uint64_t
dif_vm_exec(const dif_difo_t *dp, dif_mstate_t *ms)
{
	const dif_instr_t *text = dp->dd_buf;
	const uint64_t budget = ms->dm_budget;
	uint64_t regs[DIF_DIR_NREGS];
	dif_vm_tuple_t tup;
	uint64_t n = 0;			/* instructions started */
	uint64_t illval = 0, rval = 0;
	const dif_instr_t *ip = text;	/* the next instruction */
	uint32_t id;
	dif_instr_t in;
	int cc = 0, fault = 0;
#ifdef DIF_VM_THREADED
	/* every opcode is a bad one, but for those we have code for */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
	static const void *const dif_vm_tab[256] = {
		[0 ... 255] = &&dif_vm_bad,
#define	X(op)	[op] = &&dif_vm_l_##op,
		DIF_VM_OPS(X)
#undef	X
	};
#pragma GCC diagnostic pop
	static const void *const dif_vm_ctab[256] = {
		[0 ... 255] = &&dif_vm_check,
	};
	const void *const *disp = budget >= dp->dd_len ? dif_vm_tab :
	    dif_vm_ctab;
#endif

	memset(regs, 0, sizeof(regs));
	tup.tu_top = 0;
	ms->dm_fault = 0;

#ifdef DIF_VM_THREADED
	DIF_VM_NEXT();
dif_vm_check:
	if (n > budget)
		goto exhausted;
	goto *dif_vm_tab[DIF_INSTR_OP(in)];
#else
dispatch:
	in = *ip++;
	if (++n > budget)
		goto exhausted;
#endif
	switch (DIF_INSTR_OP(in)) {
	DIF_VM_CASE(DIF_OP_OR):
		DIF_VM_RD = DIF_VM_R1 | DIF_VM_R2;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_XOR):
		DIF_VM_RD = DIF_VM_R1 ^ DIF_VM_R2;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_AND):
		DIF_VM_RD = DIF_VM_R1 & DIF_VM_R2;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_SLL):
		DIF_VM_RD = DIF_VM_R1 << (DIF_VM_R2 & 63);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_SRL):
		DIF_VM_RD = DIF_VM_R1 >> (DIF_VM_R2 & 63);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_SRA):
		DIF_VM_RD = (uint64_t)((int64_t)DIF_VM_R1 >> (DIF_VM_R2 & 63));
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_SUB):
		DIF_VM_RD = DIF_VM_R1 - DIF_VM_R2;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ADD):
		DIF_VM_RD = DIF_VM_R1 + DIF_VM_R2;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_MUL):
		DIF_VM_RD = DIF_VM_R1 * DIF_VM_R2;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_SDIV): {
		const uint64_t a = DIF_VM_R1, b = DIF_VM_R2;

		if (b == 0) {
			fault = DIF_FLT_DIVZERO;
			goto out;
		}
		/* INT64_MIN / -1 traps on x86: it wraps in DIF. */
		DIF_VM_RD = (int64_t)b == -1 ? -a :
		    (uint64_t)((int64_t)a / (int64_t)b);
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_UDIV): {
		const uint64_t a = DIF_VM_R1, b = DIF_VM_R2;

		if (b == 0) {
			fault = DIF_FLT_DIVZERO;
			goto out;
		}
		DIF_VM_RD = a / b;
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_SREM): {
		const uint64_t a = DIF_VM_R1, b = DIF_VM_R2;

		if (b == 0) {
			fault = DIF_FLT_DIVZERO;
			goto out;
		}
		DIF_VM_RD = (int64_t)b == -1 ? 0 :
		    (uint64_t)((int64_t)a % (int64_t)b);
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_UREM): {
		const uint64_t a = DIF_VM_R1, b = DIF_VM_R2;

		if (b == 0) {
			fault = DIF_FLT_DIVZERO;
			goto out;
		}
		DIF_VM_RD = a % b;
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_NOT):
		DIF_VM_RD = ~DIF_VM_R1;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_MOV):
		DIF_VM_RD = DIF_VM_R1;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_CMP): {
		const uint64_t a = DIF_VM_R1, b = DIF_VM_R2;

		cc = ((int64_t)(a - b) < 0 ? DIF_VM_CC_N : 0) |
		    (a == b ? DIF_VM_CC_Z : 0) | (a < b ? DIF_VM_CC_C : 0);
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_TST):
		cc = DIF_VM_R1 == 0 ? DIF_VM_CC_Z : 0;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BA):
		ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BE):
		if (cc & DIF_VM_CC_Z)
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BNE):
		if (!(cc & DIF_VM_CC_Z))
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BG):
		if (!(cc & (DIF_VM_CC_Z | DIF_VM_CC_N)))
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BGU):
		if (!(cc & (DIF_VM_CC_C | DIF_VM_CC_Z)))
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BGE):
		if (!(cc & DIF_VM_CC_N))
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BGEU):
		if (!(cc & DIF_VM_CC_C))
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BL):
		if (cc & DIF_VM_CC_N)
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BLU):
		if (cc & DIF_VM_CC_C)
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BLE):
		if (cc & (DIF_VM_CC_Z | DIF_VM_CC_N))
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_BLEU):
		if (cc & (DIF_VM_CC_C | DIF_VM_CC_Z))
			ip = text + DIF_INSTR_LABEL(in);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDSB):
		DIF_VM_LOAD(int8_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDSH):
		DIF_VM_LOAD(int16_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDSW):
		DIF_VM_LOAD(int32_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDUB):
		DIF_VM_LOAD(uint8_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDUH):
		DIF_VM_LOAD(uint16_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDUW):
		DIF_VM_LOAD(uint32_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDX):
		DIF_VM_LOAD(uint64_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ULDSB):
	DIF_VM_CASE(DIF_OP_RLDSB):
		DIF_VM_ULOAD(int8_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ULDSH):
	DIF_VM_CASE(DIF_OP_RLDSH):
		DIF_VM_ULOAD(int16_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ULDSW):
	DIF_VM_CASE(DIF_OP_RLDSW):
		DIF_VM_ULOAD(int32_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ULDUB):
	DIF_VM_CASE(DIF_OP_RLDUB):
		DIF_VM_ULOAD(uint8_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ULDUH):
	DIF_VM_CASE(DIF_OP_RLDUH):
		DIF_VM_ULOAD(uint16_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ULDUW):
	DIF_VM_CASE(DIF_OP_RLDUW):
		DIF_VM_ULOAD(uint32_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ULDX):
	DIF_VM_CASE(DIF_OP_RLDX):
		DIF_VM_ULOAD(uint64_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_RET):
		rval = DIF_VM_RD;
		goto done;
	DIF_VM_CASE(DIF_OP_NOP):
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_SETX):
		DIF_VM_RD = dp->dd_inttab[DIF_INSTR_INTEGER(in)];
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_SETS):
		DIF_VM_RD = (uint64_t)(uintptr_t)(dp->dd_strtab +
		    DIF_INSTR_STRING(in));
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_SCMP): {
		uint64_t s1 = DIF_VM_R1, s2 = DIF_VM_R2;
		size_t a1 = 0, a2 = 0;
		int cmp;

		if (s1 != 0 && (a1 = dif_vm_avail(ms, dp, s1)) == 0) {
			fault = DIF_FLT_BADADDR;
			illval = s1;
			goto out;
		}
		if (s2 != 0 && (a2 = dif_vm_avail(ms, dp, s2)) == 0) {
			fault = DIF_FLT_BADADDR;
			illval = s2;
			goto out;
		}
		cmp = dif_vm_strcmp((const char *)(uintptr_t)s1, a1,
		    (const char *)(uintptr_t)s2, a2, ms->dm_strsize);
		cc = cmp < 0 ? DIF_VM_CC_N : cmp == 0 ? DIF_VM_CC_Z : 0;
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_LDGA):
		/* r1 is the array id, r2 the index register */
		if (DIF_INSTR_R1(in) == DIF_VAR_ARGS &&
		    DIF_VM_R2 < ms->dm_nargs) {
			DIF_VM_RD = ms->dm_args[DIF_VM_R2];
			DIF_VM_NEXT();
		}
		if (ms->dm_host == NULL || ms->dm_host->dh_builtin == NULL) {
			fault = DIF_FLT_ILLOP;
			goto out;
		}
		if ((fault = ms->dm_host->dh_builtin(ms->dm_hostarg,
		    DIF_INSTR_R1(in), DIF_VM_R2, &DIF_VM_RD)) != 0)
			goto out;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDGS): {
		const dif_var_t *v;
		dif_gvar_t *g;

		id = DIF_INSTR_VAR(in);
		if (id - DIF_VAR_ARG0 < ms->dm_nargs) {
			DIF_VM_RD = ms->dm_args[id - DIF_VAR_ARG0];
			DIF_VM_NEXT();
		}
		if (id < DIF_VAR_OTHER_UBASE) {
			if (ms->dm_host == NULL ||
			    ms->dm_host->dh_builtin == NULL) {
				fault = DIF_FLT_ILLOP;
				goto out;
			}
			if ((fault = ms->dm_host->dh_builtin(ms->dm_hostarg,
			    id, 0, &DIF_VM_RD)) != 0)
				goto out;
			DIF_VM_NEXT();
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
			DIF_VM_RD = (uint64_t)(uintptr_t)g->dg_data;
		} else {
			DIF_VM_RD = g->dg_value;
		}
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_STGS): {
		const dif_var_t *v;
		dif_gvar_t *g;

		id = DIF_INSTR_VAR(in);
		if (id < DIF_VAR_OTHER_UBASE || ms->dm_vstate == NULL ||
		    id - DIF_VAR_OTHER_UBASE >= ms->dm_vstate->dv_nglobals ||
		    (v = dif_vm_gvar(dp, id)) == NULL) {
			fault = DIF_FLT_ILLOP;
			goto out;
		}
		g = &ms->dm_vstate->dv_globals[id - DIF_VAR_OTHER_UBASE];
		if (v->dv_type.dt_flags & DIF_TF_BYREF) {
			uint64_t src = DIF_VM_RD;
			size_t lim, len;

			if (g->dg_data == NULL || g->dg_size == 0) {
				fault = DIF_FLT_ILLOP;
				goto out;
			}
			if (v->dv_type.dt_kind != DIF_TYPE_STRING) {
				/* a struct, union or array */
				len = v->dv_type.dt_size < g->dg_size ?
				    v->dv_type.dt_size : g->dg_size;
				if (!dif_vm_canload(ms, dp, src, len)) {
					fault = DIF_FLT_BADADDR;
					illval = src;
					goto out;
				}
				memmove(g->dg_data,
				    (const void *)(uintptr_t)src, len);
				g->dg_set = 1;
				DIF_VM_NEXT();
			}
			/* strsize characters and the NUL (dif.h) */
			lim = g->dg_size < ms->dm_strsize + 1 ? g->dg_size :
			    ms->dm_strsize + 1;
			/* s = NULL: the empty string, as SCMP reads NULL */
			len = 0;
			if (src != 0 && !dif_vm_strload(ms, dp, src, lim - 1,
			    &len)) {
				fault = DIF_FLT_BADADDR;
				illval = src;
				goto out;
			}
			if (len != 0)
				memmove(g->dg_data,
				    (const void *)(uintptr_t)src, len);
			g->dg_data[len] = '\0';
		} else {
			g->dg_value = DIF_VM_RD;
		}
		g->dg_set = 1;
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_CALL):
		DIF_VM_RD = dif_subr_call(DIF_INSTR_SUBR(in), tup.tu_val,
		    tup.tu_top, dp, ms);
		if (ms->dm_fault != 0) {
			fault = ms->dm_fault;
			illval = ms->dm_illval;
			goto out;
		}
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_PUSHTR):
	DIF_VM_CASE(DIF_OP_PUSHTV):
		if (tup.tu_top == DIF_DTR_NREGS) {
			fault = DIF_FLT_TUPOFLOW;
			goto out;
		}
		/* r1 is the type, r2 the size register (PUSHTR) */
		tup.tu_val[tup.tu_top] = DIF_VM_RD;
		tup.tu_size[tup.tu_top] = DIF_VM_R2;
		tup.tu_type[tup.tu_top] = DIF_INSTR_OP(in) == DIF_OP_PUSHTR ?
		    (uint8_t)DIF_INSTR_R1(in) : DIF_VM_TUPVAL;
		tup.tu_top++;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_POPTS):
		if (tup.tu_top != 0)
			tup.tu_top--;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_FLUSHTS):
		tup.tu_top = 0;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDTS):
	DIF_VM_CASE(DIF_OP_STTS):
	DIF_VM_CASE(DIF_OP_LDGAA):
	DIF_VM_CASE(DIF_OP_STGAA):
	DIF_VM_CASE(DIF_OP_LDTAA):
	DIF_VM_CASE(DIF_OP_STTAA):
		if ((fault = dif_vm_dvar(dp, ms, in, regs, &tup,
		    &illval)) != 0)
			goto out;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_LDLS):
	DIF_VM_CASE(DIF_OP_STLS):
		if ((fault = dif_vm_local(dp, ms, in, regs, &illval)) != 0)
			goto out;
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_ALLOCS): {
		void *p;

		if ((p = dif_vm_scratch_alloc(ms, DIF_VM_R1, 8)) == NULL) {
			fault = DIF_FLT_NOSCRATCH;
			goto out;
		}
		DIF_VM_RD = (uint64_t)(uintptr_t)p;
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_COPYS): {
		const uint64_t dst = DIF_VM_RD, src = DIF_VM_R1, len = DIF_VM_R2;

		if (!dif_vm_canstore(ms, dst, len)) {
			fault = DIF_FLT_BADADDR;
			illval = dst;
			goto out;
		}
		if (!dif_vm_canload(ms, dp, src, len)) {
			fault = DIF_FLT_BADADDR;
			illval = src;
			goto out;
		}
		if (len != 0)
			memmove((void *)(uintptr_t)dst,
			    (const void *)(uintptr_t)src, len);
		DIF_VM_NEXT();
	}
	DIF_VM_CASE(DIF_OP_STB):
		DIF_VM_STORE(uint8_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_STH):
		DIF_VM_STORE(uint16_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_STW):
		DIF_VM_STORE(uint32_t);
		DIF_VM_NEXT();
	DIF_VM_CASE(DIF_OP_STX):
		DIF_VM_STORE(uint64_t);
		DIF_VM_NEXT();
	default:
#ifdef DIF_VM_THREADED
	dif_vm_bad:
#endif
		/* translators (xlate, xlarg): not supported */
		fault = DIF_FLT_ILLOP;
		goto out;
	}
	/* every case ends in DIF_VM_NEXT(), but one that breaks goes on */
	DIF_VM_NEXT();
exhausted:
	/* the budget is spent: this instruction does not run */
	n = budget;
	fault = DIF_FLT_ILLOP;
out:
	ms->dm_budget = budget - n;
	ms->dm_fault = fault;
	ms->dm_faultpc = (uint32_t)(ip - text) - 1;
	ms->dm_illval = illval;
	return 0;
done:
	ms->dm_budget = budget - n;
	return rval;
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
