/*
 * dt_cg.c: the code generator.  It walks a cooked expression tree and
 * appends DIF instructions to the pcb's instruction list, one register
 * per live value.  Values in registers are 64 bits wide and kept
 * sign- or zero-extended from their D type where it matters: on stores
 * to narrower variables, casts, and conversions between signedness.
 * All branches go forward, as the DIF verifier requires.
 *
 * Objects in memory (*p, p[i], p->m, s.m) are reached by computing their
 * address (dt_cg_addr) and loading it with the load of the member's
 * size and signedness; the VM checks every load and store against the
 * memory DIF may touch (scratch: copyin(), alloca(); variables), so a
 * raw address of the traced process is a fault, not a read.  A struct,
 * union or array is never loaded: its value is its address.
 */
#include "dt_impl.h"
#include "dt_grammar.h"

static void dt_cg_node(dt_pcb_t *, dt_node_t *);

static void
dt_cg_setx(dt_pcb_t *pcb, int reg, uint64_t v)
{
	dt_as_emit(pcb, DIF_INSTR_SETX(dt_as_intern(pcb, v), reg), DT_LBL_NONE);
}

/* Truncate reg to the width of t and extend it back to 64 bits. */
static void
dt_cg_normalize(dt_pcb_t *pcb, int reg, const dt_type_t *t)
{
	int sh;

	if (!dt_decl_is_integral(t) || t->dt_size >= 8)
		return;
	sh = dt_regset_alloc(pcb);
	dt_cg_setx(pcb, sh, 64 - t->dt_size * 8);
	dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_SLL, reg, sh, reg), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_FMT(t->dt_signed ? DIF_OP_SRA : DIF_OP_SRL,
	    reg, sh, reg), DT_LBL_NONE);
	dt_regset_free(pcb, sh);
}

/* Convert the integer in reg from type f to type t (C conversion rules). */
static void
dt_cg_typecast(dt_pcb_t *pcb, int reg, const dt_type_t *f,
    const dt_type_t *t)
{
	if (!dt_decl_is_scalar(f) || !dt_decl_is_integral(t) ||
	    t->dt_size >= 8)
		return;
	if (f->dt_size == t->dt_size && f->dt_signed == t->dt_signed)
		return;
	/* a narrower value already fits when it is unsigned or t is signed */
	if (f->dt_size < t->dt_size && (!f->dt_signed || t->dt_signed))
		return;
	dt_cg_normalize(pcb, reg, t);
}

/* reg += off */
static void
dt_cg_addoff(dt_pcb_t *pcb, int reg, uint64_t off)
{
	int r;

	if (off == 0)
		return;
	r = dt_regset_alloc(pcb);
	dt_cg_setx(pcb, r, off);
	dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_ADD, reg, r, reg), DT_LBL_NONE);
	dt_regset_free(pcb, r);
}

/* reg *= size (a pointer step); op DIV instead divides (p - q) */
static void
dt_cg_scale(dt_pcb_t *pcb, int reg, uint32_t size, uint32_t op)
{
	int r;

	if (size <= 1)
		return;
	r = dt_regset_alloc(pcb);
	dt_cg_setx(pcb, r, size);
	dt_as_emit(pcb, DIF_INSTR_FMT(op, reg, r, reg), DT_LBL_NONE);
	dt_regset_free(pcb, r);
}

/* The load (store) of an object of type t by its size and sign. */
static uint32_t
dt_cg_memop(const dt_type_t *t, int store)
{
	int sg = t->dt_kind == DT_TK_INT || t->dt_kind == DT_TK_ENUM ?
	    t->dt_signed : 0;

	switch (t->dt_size) {
	case 1:
		return store ? DIF_OP_STB : sg ? DIF_OP_LDSB : DIF_OP_LDUB;
	case 2:
		return store ? DIF_OP_STH : sg ? DIF_OP_LDSH : DIF_OP_LDUH;
	case 4:
		return store ? DIF_OP_STW : sg ? DIF_OP_LDSW : DIF_OP_LDUW;
	default:
		return store ? DIF_OP_STX : DIF_OP_LDX;
	}
}

/* reg holds an address: load the object of type t there (or keep it). */
static void
dt_cg_memload(dt_pcb_t *pcb, int reg, const dt_type_t *t)
{
	if (dt_decl_is_byref(t) || t->dt_kind == DT_TK_STRING)
		return;
	dt_as_emit(pcb, DIF_INSTR_LOAD(dt_cg_memop(t, 0), reg, reg),
	    DT_LBL_NONE);
}

/* reg holds the address of a bit-field's storage unit: extract it. */
static void
dt_cg_bitfield(dt_pcb_t *pcb, int reg, const dt_member_t *m)
{
	const dt_type_t *t = m->dm_type;
	int r = dt_regset_alloc(pcb);
	uint32_t op;

	op = t->dt_size == 1 ? DIF_OP_LDUB : t->dt_size == 2 ? DIF_OP_LDUH :
	    t->dt_size == 4 ? DIF_OP_LDUW : DIF_OP_LDX;
	dt_as_emit(pcb, DIF_INSTR_LOAD(op, reg, reg), DT_LBL_NONE);
	/* the field to the top, then back down with its sign */
	dt_cg_setx(pcb, r, 64 - m->dm_bitoff - m->dm_bits);
	dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_SLL, reg, r, reg), DT_LBL_NONE);
	dt_cg_setx(pcb, r, 64 - m->dm_bits);
	dt_as_emit(pcb, DIF_INSTR_FMT(t->dt_signed ? DIF_OP_SRA : DIF_OP_SRL,
	    reg, r, reg), DT_LBL_NONE);
	dt_regset_free(pcb, r);
}

/*
 * Store the value in reg into a bit-field whose storage unit is at the
 * address in areg: read the unit, replace the field's bits, write it.
 */
static void
dt_cg_bitfield_store(dt_pcb_t *pcb, int reg, int areg, const dt_member_t *m)
{
	const dt_type_t *t = m->dm_type;
	uint64_t mask = (m->dm_bits >= 64 ? ~UINT64_C(0) :
	    (UINT64_C(1) << m->dm_bits) - 1) << m->dm_bitoff;
	int unit = dt_regset_alloc(pcb), r = dt_regset_alloc(pcb);
	int v = dt_regset_alloc(pcb);
	uint32_t ld, st;

	ld = t->dt_size == 1 ? DIF_OP_LDUB : t->dt_size == 2 ? DIF_OP_LDUH :
	    t->dt_size == 4 ? DIF_OP_LDUW : DIF_OP_LDX;
	st = dt_cg_memop(t, 1);
	dt_as_emit(pcb, DIF_INSTR_LOAD(ld, areg, unit), DT_LBL_NONE);
	dt_cg_setx(pcb, r, ~mask);
	dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_AND, unit, r, unit), DT_LBL_NONE);
	dt_cg_setx(pcb, r, m->dm_bitoff);
	dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_SLL, reg, r, v), DT_LBL_NONE);
	dt_cg_setx(pcb, r, mask);
	dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_AND, v, r, v), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_OR, unit, v, unit), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_STORE(st, unit, areg), DT_LBL_NONE);
	dt_regset_free(pcb, v);
	dt_regset_free(pcb, r);
	dt_regset_free(pcb, unit);
}

static void dt_cg_keys(dt_pcb_t *, dt_node_t *);
static void dt_cg_load(dt_pcb_t *, const dt_node_t *, int);
static void dt_cg_store(dt_pcb_t *, const dt_node_t *, int);

/*
 * The storage of a struct, union or array held in a thread-local
 * variable or an associative array, to be written (self->s.m = v,
 * a[k].m = v), as illumos generates it: the load yields the variable's
 * own storage (the VM lends it), and a variable not yet there is first
 * stored from zeroed scratch, then loaded again.  Should that store be
 * dropped (the space is full: the drop is counted) or go nowhere (no
 * thread), the scratch is written instead and the value is lost, as a
 * dropped store's is.
 *
 *	ld	var, %r		keys on the tuple stack (a[k]), kept
 *	tst	%r
 *	bne	done
 *	setx	size, %r
 *	allocs	%r, %r
 *	st	var, %r
 *	ld	var, %t
 *	tst	%t
 *	be	done
 *	mov	%t, %r
 * done:
 */
static void
dt_cg_dvar_ref(dt_pcb_t *pcb, dt_node_t *dnp)
{
	uint32_t ldone = dt_as_label(pcb);
	int reg, t;

	dt_cg_keys(pcb, dnp);
	reg = dnp->dn_reg = dt_regset_alloc(pcb);
	dt_cg_load(pcb, dnp, reg);
	dt_as_emit(pcb, DIF_INSTR_TST(reg), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(DIF_OP_BNE, 0), ldone);
	dt_cg_setx(pcb, reg, dnp->dn_type->dt_size);
	dt_as_emit(pcb, DIF_INSTR_ALLOCS(reg, reg), DT_LBL_NONE);
	dt_cg_store(pcb, dnp, reg);
	t = dt_regset_alloc(pcb);
	dt_cg_load(pcb, dnp, t);
	dt_as_emit(pcb, DIF_INSTR_TST(t), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(DIF_OP_BE, 0), ldone);
	dt_as_emit(pcb, DIF_INSTR_MOV(t, reg), DT_LBL_NONE);
	dt_regset_free(pcb, t);
	dt_as_label_here(pcb, ldone);
}

static void dt_cg_addr(dt_pcb_t *, dt_node_t *, int);

/*
 * The address of the struct or array on the left of s.m or a[i], in
 * lp->dn_reg.  store: the object is to be written, so that one held in
 * a thread-local or an associative array is made to exist first.
 */
static void
dt_cg_base(dt_pcb_t *pcb, dt_node_t *lp, int store)
{
	const dt_ident_t *idp;

	if (!store || !dt_decl_is_byref(lp->dn_type)) {
		dt_cg_node(pcb, lp);
		return;
	}
	if (lp->dn_kind == DT_NODE_VAR) {
		idp = lp->dn_ident;
		if (idp->di_kind == DT_IDENT_ASSOC ||
		    (idp->di_kind == DT_IDENT_SCALAR &&
		    idp->di_scope == DIFV_SCOPE_THREAD))
			dt_cg_dvar_ref(pcb, lp);
		else
			dt_cg_node(pcb, lp);
		return;
	}
	/* a member or element that is itself a struct or array: its address */
	if (lp->dn_flags & DT_NF_MEMORY)
		dt_cg_addr(pcb, lp, store);
	else
		dt_cg_node(pcb, lp);
}

/*
 * The address of an object in memory, in dnp->dn_reg; store as for
 * dt_cg_base().
 */
static void
dt_cg_addr(dt_pcb_t *pcb, dt_node_t *dnp, int store)
{
	dt_node_t *lp = dnp->dn_left, *rp = dnp->dn_right;

	switch (dnp->dn_kind == DT_NODE_OP1 || dnp->dn_kind == DT_NODE_OP2 ?
	    dnp->dn_op : 0) {
	case DT_TOK_DEREF:
		dt_cg_node(pcb, lp);
		dnp->dn_reg = lp->dn_reg;
		return;
	case DT_TOK_LBRAC:
		dt_cg_base(pcb, lp, store);
		dt_cg_node(pcb, rp);
		dt_cg_scale(pcb, rp->dn_reg, dt_decl_pointee_size(lp->dn_type),
		    DIF_OP_MUL);
		dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_ADD, lp->dn_reg,
		    rp->dn_reg, lp->dn_reg), DT_LBL_NONE);
		dt_regset_free(pcb, rp->dn_reg);
		dnp->dn_reg = lp->dn_reg;
		return;
	case DT_TOK_PTR:
	case DT_TOK_DOT:
		/* a pointer's value, or a struct's: its address */
		if (dnp->dn_op == DT_TOK_DOT)
			dt_cg_base(pcb, lp, store);
		else
			dt_cg_node(pcb, lp);
		dt_cg_addoff(pcb, lp->dn_reg, dnp->dn_member->dm_off);
		dnp->dn_reg = lp->dn_reg;
		return;
	default:
		/* a struct or array in a D variable: its storage */
		dt_cg_node(pcb, dnp);
		return;
	}
}

/* *p, p[i], p->m, s.m as a value */
static void
dt_cg_memref(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_cg_addr(pcb, dnp, 0);
	if (dnp->dn_flags & DT_NF_BITFIELD)
		dt_cg_bitfield(pcb, dnp->dn_reg, dnp->dn_member);
	else
		dt_cg_memload(pcb, dnp->dn_reg, dnp->dn_type);
}

/* The load (store) opcode of a variable, by its scope and kind. */
static uint32_t
dt_cg_varop(const dt_ident_t *idp, int store)
{
	if (idp->di_kind == DT_IDENT_ASSOC) {
		if (idp->di_scope == DIFV_SCOPE_THREAD)
			return store ? DIF_OP_STTAA : DIF_OP_LDTAA;
		return store ? DIF_OP_STGAA : DIF_OP_LDGAA;
	}
	switch (idp->di_scope) {
	case DIFV_SCOPE_THREAD:
		return store ? DIF_OP_STTS : DIF_OP_LDTS;
	case DIFV_SCOPE_LOCAL:
		return store ? DIF_OP_STLS : DIF_OP_LDLS;
	default:
		return store ? DIF_OP_STGS : DIF_OP_LDGS;
	}
}

/*
 * Put the keys of an associative array access on the tuple stack.  The
 * keys are all evaluated first, since a key may itself use the tuple
 * stack (b[a[1]]); then the stack is flushed and they are pushed,
 * converted to the array's key types: integers by value, strings by
 * reference with strsize as their limit.  A load leaves the tuple in
 * place, so a store that follows (a[k]++, a[k] += v) reuses it.
 */
static void
dt_cg_keys(dt_pcb_t *pcb, dt_node_t *dnp)
{
	const dt_ident_t *idp = dnp->dn_ident;
	dt_node_t *kp;
	int i, sreg;

	if (idp->di_kind != DT_IDENT_ASSOC)
		return;
	for (kp = dnp->dn_args; kp != NULL; kp = kp->dn_list)
		dt_cg_node(pcb, kp);
	dt_as_emit(pcb, DIF_INSTR_FLUSHTS, DT_LBL_NONE);
	for (kp = dnp->dn_args, i = 0; kp != NULL; kp = kp->dn_list, i++) {
		if (dt_node_is_string(kp)) {
			sreg = dt_regset_alloc(pcb);
			dt_cg_setx(pcb, sreg, dt_decl_strsize(pcb->pcb_hdl));
			dt_as_emit(pcb, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR,
			    DIF_TYPE_STRING, sreg, kp->dn_reg), DT_LBL_NONE);
			dt_regset_free(pcb, sreg);
		} else if (dt_decl_is_sou_key(kp->dn_type)) {
			/* a struct or union: its bytes, at its address */
			sreg = dt_regset_alloc(pcb);
			dt_cg_setx(pcb, sreg, kp->dn_type->dt_size);
			dt_as_emit(pcb, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR,
			    DIF_TYPE_CTF, sreg, kp->dn_reg), DT_LBL_NONE);
			dt_regset_free(pcb, sreg);
		} else {
			dt_cg_typecast(pcb, kp->dn_reg, kp->dn_type,
			    idp->di_keys[i]);
			dt_as_emit(pcb, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV,
			    DIF_TYPE_CTF, 0, kp->dn_reg), DT_LBL_NONE);
		}
		dt_regset_free(pcb, kp->dn_reg);
	}
}

/*
 * A global holds what one DIF variable carries (the daemon refuses more,
 * as illumos's kernel refuses an oversized by-ref static): checked where
 * code uses it, as a declaration alone (an extern naming an object of
 * the traced program, a sizeof) takes no storage.
 */
static void
dt_cg_var_check(dt_pcb_t *pcb, const dt_node_t *dnp)
{
	const dt_ident_t *idp = dnp->dn_ident;
	const dt_type_t *t = idp->di_type;

	if (idp->di_scope == DIFV_SCOPE_GLOBAL &&
	    idp->di_kind != DT_IDENT_ASSOC && dt_decl_is_byref(t) &&
	    t->dt_size > DIF_MAXSTRSIZE)
		dt_parser_error(pcb, dnp->dn_line, D_DECL_DYNOBJ,
		    "%s of type %s is %u bytes: a variable holds at most %u "
		    "bytes", idp->di_name, t->dt_name, t->dt_size,
		    (unsigned int)DIF_MAXSTRSIZE);
}

static void
dt_cg_load(dt_pcb_t *pcb, const dt_node_t *dnp, int reg)
{
	dt_ident_t *idp = dnp->dn_ident;

	if (!(idp->di_flags & DT_IDFLG_BUILTIN)) {
		dt_cg_var_check(pcb, dnp);
		dt_as_var(pcb, idp, DIFV_F_REF);
	}
	dt_as_emit(pcb, DIF_INSTR_LDV(dt_cg_varop(idp, 0), idp->di_id, reg),
	    DT_LBL_NONE);
}

static void
dt_cg_store(dt_pcb_t *pcb, const dt_node_t *dnp, int reg)
{
	dt_ident_t *idp = dnp->dn_ident;

	dt_cg_var_check(pcb, dnp);
	dt_as_var(pcb, idp, DIFV_F_MOD);
	dt_as_emit(pcb, DIF_INSTR_STV(dt_cg_varop(idp, 1), idp->di_id, reg),
	    DT_LBL_NONE);
}

static uint32_t
dt_cg_arith_op(int op, const dt_type_t *t)
{
	switch (op) {
	case DT_TOK_ADD: return DIF_OP_ADD;
	case DT_TOK_SUB: return DIF_OP_SUB;
	case DT_TOK_MUL: return DIF_OP_MUL;
	case DT_TOK_DIV: return t->dt_signed ? DIF_OP_SDIV : DIF_OP_UDIV;
	case DT_TOK_MOD: return t->dt_signed ? DIF_OP_SREM : DIF_OP_UREM;
	case DT_TOK_BAND: return DIF_OP_AND;
	case DT_TOK_BOR: return DIF_OP_OR;
	case DT_TOK_XOR: return DIF_OP_XOR;
	case DT_TOK_LSH: return DIF_OP_SLL;
	case DT_TOK_RSH: return t->dt_signed ? DIF_OP_SRA : DIF_OP_SRL;
	default: return DIF_OP_NOP;
	}
}

static uint32_t
dt_cg_branch_op(int op, int sign)
{
	switch (op) {
	case DT_TOK_EQU: return DIF_OP_BE;
	case DT_TOK_NEQ: return DIF_OP_BNE;
	case DT_TOK_LT: return sign ? DIF_OP_BL : DIF_OP_BLU;
	case DT_TOK_LE: return sign ? DIF_OP_BLE : DIF_OP_BLEU;
	case DT_TOK_GT: return sign ? DIF_OP_BG : DIF_OP_BGU;
	default: return sign ? DIF_OP_BGE : DIF_OP_BGEU;
	}
}

/* reg = cond ? 1 : 0, after a compare or test that set the codes */
static void
dt_cg_setcc(dt_pcb_t *pcb, uint32_t branch, int reg)
{
	uint32_t ltrue = dt_as_label(pcb), lend = dt_as_label(pcb);

	dt_as_emit(pcb, DIF_INSTR_BRANCH(branch, 0), ltrue);
	dt_as_emit(pcb, DIF_INSTR_MOV(0, reg), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(DIF_OP_BA, 0), lend);
	dt_as_label_here(pcb, ltrue);
	dt_cg_setx(pcb, reg, 1);
	dt_as_label_here(pcb, lend);
}

/* reg = reg != 0 */
static void
dt_cg_bool(dt_pcb_t *pcb, int reg)
{
	uint32_t lzero = dt_as_label(pcb);

	dt_as_emit(pcb, DIF_INSTR_TST(reg), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(DIF_OP_BE, 0), lzero);
	dt_cg_setx(pcb, reg, 1);
	dt_as_label_here(pcb, lzero);
}

static void
dt_cg_compare(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *lp = dnp->dn_left, *rp = dnp->dn_right;
	const dt_type_t *t;
	int sign = 1;

	dt_cg_node(pcb, lp);
	dt_cg_node(pcb, rp);
	if (dt_node_is_string(lp) || dt_node_is_string(rp)) {
		dt_as_emit(pcb, DIF_INSTR_CMP(DIF_OP_SCMP, lp->dn_reg,
		    rp->dn_reg), DT_LBL_NONE);
	} else if (dt_node_is_ptr(lp) || dt_node_is_ptr(rp)) {
		/* addresses compare unsigned */
		sign = 0;
		dt_as_emit(pcb, DIF_INSTR_CMP(DIF_OP_CMP, lp->dn_reg,
		    rp->dn_reg), DT_LBL_NONE);
	} else {
		t = dt_decl_arith(lp->dn_type, rp->dn_type);
		dt_cg_typecast(pcb, lp->dn_reg, lp->dn_type, t);
		dt_cg_typecast(pcb, rp->dn_reg, rp->dn_type, t);
		sign = t->dt_signed;
		dt_as_emit(pcb, DIF_INSTR_CMP(DIF_OP_CMP, lp->dn_reg,
		    rp->dn_reg), DT_LBL_NONE);
	}
	dt_regset_free(pcb, rp->dn_reg);
	dnp->dn_reg = lp->dn_reg;
	dt_cg_setcc(pcb, dt_cg_branch_op(dnp->dn_op, sign), dnp->dn_reg);
}

static void
dt_cg_logical(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *lp = dnp->dn_left, *rp = dnp->dn_right;
	uint32_t lshort = dt_as_label(pcb), lend = dt_as_label(pcb);
	/* && stops at the first 0, || at the first non-zero */
	uint32_t br = dnp->dn_op == DT_TOK_LAND ? DIF_OP_BE : DIF_OP_BNE;
	uint64_t full = dnp->dn_op == DT_TOK_LAND;

	dt_cg_node(pcb, lp);
	dnp->dn_reg = lp->dn_reg;
	dt_as_emit(pcb, DIF_INSTR_TST(lp->dn_reg), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(br, 0), lshort);
	dt_cg_node(pcb, rp);
	dt_as_emit(pcb, DIF_INSTR_TST(rp->dn_reg), DT_LBL_NONE);
	dt_regset_free(pcb, rp->dn_reg);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(br, 0), lshort);
	if (full)
		dt_cg_setx(pcb, dnp->dn_reg, 1);
	else
		dt_as_emit(pcb, DIF_INSTR_MOV(0, dnp->dn_reg), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(DIF_OP_BA, 0), lend);
	dt_as_label_here(pcb, lshort);
	if (full)
		dt_as_emit(pcb, DIF_INSTR_MOV(0, dnp->dn_reg), DT_LBL_NONE);
	else
		dt_cg_setx(pcb, dnp->dn_reg, 1);
	dt_as_label_here(pcb, lend);
}

static void
dt_cg_arith(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *lp = dnp->dn_left, *rp = dnp->dn_right;
	const dt_type_t *t = dnp->dn_type;
	int shift = dnp->dn_op == DT_TOK_LSH || dnp->dn_op == DT_TOK_RSH;

	dt_cg_node(pcb, lp);
	dt_cg_node(pcb, rp);
	if (dt_node_is_ptr(lp) && dt_node_is_ptr(rp)) {
		/* p - q: the number of objects between them */
		dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_SUB, lp->dn_reg,
		    rp->dn_reg, lp->dn_reg), DT_LBL_NONE);
		dt_regset_free(pcb, rp->dn_reg);
		dt_cg_scale(pcb, lp->dn_reg, dt_decl_pointee_size(lp->dn_type),
		    DIF_OP_SDIV);
		dnp->dn_reg = lp->dn_reg;
		return;
	}
	if (t->dt_kind == DT_TK_PTR) {
		/* p + n, n + p, p - n: n objects */
		dt_cg_scale(pcb, dt_node_is_ptr(lp) ? rp->dn_reg : lp->dn_reg,
		    dt_decl_pointee_size(t), DIF_OP_MUL);
	} else {
		dt_cg_typecast(pcb, lp->dn_reg, lp->dn_type, t);
		if (!shift)
			dt_cg_typecast(pcb, rp->dn_reg, rp->dn_type, t);
	}
	dt_as_emit(pcb, DIF_INSTR_FMT(dt_cg_arith_op(dnp->dn_op, t),
	    lp->dn_reg, rp->dn_reg, lp->dn_reg), DT_LBL_NONE);
	dt_regset_free(pcb, rp->dn_reg);
	/* char and short results wrap in their own type (dt_decl_result) */
	if (!shift && t->dt_kind != DT_TK_PTR && t->dt_size < 4)
		dt_cg_normalize(pcb, lp->dn_reg, t);
	dnp->dn_reg = lp->dn_reg;
}

/*
 * The current value of an lvalue in a new register.  For an object in
 * memory, *areg keeps its address for the store that follows; for a
 * variable, its keys stay on the tuple stack (-1 in *areg).
 */
static int
dt_cg_lval_load(dt_pcb_t *pcb, dt_node_t *lp, int *areg)
{
	int reg;

	if (lp->dn_flags & DT_NF_MEMORY) {
		dt_cg_addr(pcb, lp, 1);
		*areg = lp->dn_reg;
		reg = dt_regset_alloc(pcb);
		dt_as_emit(pcb, DIF_INSTR_MOV(*areg, reg), DT_LBL_NONE);
		if (lp->dn_flags & DT_NF_BITFIELD)
			dt_cg_bitfield(pcb, reg, lp->dn_member);
		else
			dt_cg_memload(pcb, reg, lp->dn_type);
		return reg;
	}
	*areg = -1;
	dt_cg_keys(pcb, lp);
	reg = dt_regset_alloc(pcb);
	dt_cg_load(pcb, lp, reg);
	return reg;
}

static void
dt_cg_lval_store(dt_pcb_t *pcb, dt_node_t *lp, int reg, int areg)
{
	if (areg < 0) {
		dt_cg_store(pcb, lp, reg);
		return;
	}
	if (lp->dn_flags & DT_NF_BITFIELD)
		dt_cg_bitfield_store(pcb, reg, areg, lp->dn_member);
	else if (dt_decl_is_byref(lp->dn_type) &&
	    !(lp->dn_flags & DT_NF_XLSTR)) {
		/* a struct, union or array: all of its bytes (COPYS) */
		int sz = dt_regset_alloc(pcb);

		dt_cg_setx(pcb, sz, lp->dn_type->dt_size);
		dt_as_emit(pcb, DIF_INSTR_COPYS(reg, sz, areg), DT_LBL_NONE);
		dt_regset_free(pcb, sz);
	} else if (lp->dn_type->dt_kind == DT_TK_STRING ||
	    (lp->dn_flags & DT_NF_XLSTR)) {
		/*
		 * a string member, or an xlate's char array member made of
		 * a string cut to fit: its bytes and the NUL, strlen(s) + 1
		 */
		int sz = dt_regset_alloc(pcb), sreg = dt_regset_alloc(pcb);

		dt_as_emit(pcb, DIF_INSTR_FLUSHTS, DT_LBL_NONE);
		dt_cg_setx(pcb, sreg, dt_decl_strsize(pcb->pcb_hdl));
		dt_as_emit(pcb, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR,
		    DIF_TYPE_STRING, sreg, reg), DT_LBL_NONE);
		dt_regset_free(pcb, sreg);
		dt_as_emit(pcb, DIF_INSTR_CALL(DIF_SUBR_STRLEN, sz),
		    DT_LBL_NONE);
		dt_cg_addoff(pcb, sz, 1);
		dt_as_emit(pcb, DIF_INSTR_COPYS(reg, sz, areg), DT_LBL_NONE);
		dt_regset_free(pcb, sz);
	} else
		dt_as_emit(pcb, DIF_INSTR_STORE(dt_cg_memop(lp->dn_type, 1),
		    reg, areg), DT_LBL_NONE);
	dt_regset_free(pcb, areg);
}

/* x op= e */
static void
dt_cg_asgn_op(dt_pcb_t *pcb, dt_node_t *dnp, int op)
{
	dt_node_t *lp = dnp->dn_left, *rp = dnp->dn_right;
	const dt_type_t *t;
	int reg, areg;

	if (lp->dn_type->dt_kind == DT_TK_PTR)
		t = lp->dn_type;
	else
		t = op == DT_TOK_LSH || op == DT_TOK_RSH ?
		    dt_decl_promote(lp->dn_type) : dt_decl_arith(lp->dn_type,
		    rp->dn_type);
	/* the value first: it may use the tuple stack the keys go on */
	dt_cg_node(pcb, rp);
	reg = dt_cg_lval_load(pcb, lp, &areg);
	if (t->dt_kind == DT_TK_PTR)
		dt_cg_scale(pcb, rp->dn_reg, dt_decl_pointee_size(t),
		    DIF_OP_MUL);
	dt_cg_typecast(pcb, reg, lp->dn_type, t);
	if (op != DT_TOK_LSH && op != DT_TOK_RSH)
		dt_cg_typecast(pcb, rp->dn_reg, rp->dn_type, t);
	dt_as_emit(pcb, DIF_INSTR_FMT(dt_cg_arith_op(op, t), reg, rp->dn_reg,
	    reg), DT_LBL_NONE);
	dt_regset_free(pcb, rp->dn_reg);
	dt_cg_normalize(pcb, reg, lp->dn_type);	/* as "=" does */
	dt_cg_lval_store(pcb, lp, reg, areg);
	dnp->dn_reg = reg;
}

static void
dt_cg_incdec(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *vp = dnp->dn_left;
	int op = dnp->dn_op;
	int post = op == DT_TOK_POSTINC || op == DT_TOK_POSTDEC;
	uint32_t aop = op == DT_TOK_PREINC || op == DT_TOK_POSTINC ?
	    DIF_OP_ADD : DIF_OP_SUB;
	int reg, one, areg;

	reg = dt_cg_lval_load(pcb, vp, &areg);
	one = dt_regset_alloc(pcb);
	/* a pointer steps over one object */
	dt_cg_setx(pcb, one, vp->dn_type->dt_kind == DT_TK_PTR ?
	    dt_decl_pointee_size(vp->dn_type) : 1);
	/* post: the new value goes to "one", the old one stays in reg */
	dt_as_emit(pcb, DIF_INSTR_FMT(aop, reg, one, post ? one : reg),
	    DT_LBL_NONE);
	dt_cg_normalize(pcb, post ? one : reg, vp->dn_type);
	dt_cg_lval_store(pcb, vp, post ? one : reg, areg);
	dt_regset_free(pcb, one);
	dnp->dn_reg = reg;
}

static void
dt_cg_ternary(dt_pcb_t *pcb, dt_node_t *dnp)
{
	uint32_t lfalse = dt_as_label(pcb), lend = dt_as_label(pcb);
	dt_node_t *cp = dnp->dn_expr, *lp = dnp->dn_left, *rp = dnp->dn_right;

	dt_cg_node(pcb, cp);
	dnp->dn_reg = cp->dn_reg;
	dt_as_emit(pcb, DIF_INSTR_TST(cp->dn_reg), DT_LBL_NONE);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(DIF_OP_BE, 0), lfalse);
	dt_cg_node(pcb, lp);
	dt_cg_typecast(pcb, lp->dn_reg, lp->dn_type, dnp->dn_type);
	dt_as_emit(pcb, DIF_INSTR_MOV(lp->dn_reg, dnp->dn_reg), DT_LBL_NONE);
	dt_regset_free(pcb, lp->dn_reg);
	dt_as_emit(pcb, DIF_INSTR_BRANCH(DIF_OP_BA, 0), lend);
	dt_as_label_here(pcb, lfalse);
	dt_cg_node(pcb, rp);
	dt_cg_typecast(pcb, rp->dn_reg, rp->dn_type, dnp->dn_type);
	dt_as_emit(pcb, DIF_INSTR_MOV(rp->dn_reg, dnp->dn_reg), DT_LBL_NONE);
	dt_regset_free(pcb, rp->dn_reg);
	dt_as_label_here(pcb, lend);
}

static void
dt_cg_op2(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *lp = dnp->dn_left, *rp = dnp->dn_right;

	switch (dnp->dn_op) {
	case DT_TOK_ASGN:
		dt_cg_node(pcb, rp);
		/*
		 * An integer narrower than 64 bits holds what its type can,
		 * whatever the register had (an int's product overflows it):
		 * as illumos, the variable keeps the converted value.
		 */
		if (dt_decl_is_scalar(rp->dn_type))
			dt_cg_normalize(pcb, rp->dn_reg, lp->dn_type);
		if (lp->dn_flags & DT_NF_MEMORY) {
			dt_cg_addr(pcb, lp, 1);
			dt_cg_lval_store(pcb, lp, rp->dn_reg, lp->dn_reg);
		} else {
			dt_cg_keys(pcb, lp);
			dt_cg_store(pcb, lp, rp->dn_reg);
		}
		dnp->dn_reg = rp->dn_reg;
		break;
	case DT_TOK_PTR:
	case DT_TOK_DOT:
	case DT_TOK_LBRAC:
		dt_cg_memref(pcb, dnp);
		break;
	case DT_TOK_ADD_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_ADD); break;
	case DT_TOK_SUB_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_SUB); break;
	case DT_TOK_MUL_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_MUL); break;
	case DT_TOK_DIV_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_DIV); break;
	case DT_TOK_MOD_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_MOD); break;
	case DT_TOK_AND_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_BAND); break;
	case DT_TOK_OR_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_BOR); break;
	case DT_TOK_XOR_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_XOR); break;
	case DT_TOK_LSH_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_LSH); break;
	case DT_TOK_RSH_EQ: dt_cg_asgn_op(pcb, dnp, DT_TOK_RSH); break;
	case DT_TOK_COMMA:
		dt_cg_node(pcb, lp);
		dt_regset_free(pcb, lp->dn_reg);
		dt_cg_node(pcb, rp);
		dnp->dn_reg = rp->dn_reg;
		break;
	case DT_TOK_CAST:
		dt_cg_node(pcb, rp);
		dt_cg_typecast(pcb, rp->dn_reg, rp->dn_type, dnp->dn_type);
		dnp->dn_reg = rp->dn_reg;
		break;
	case DT_TOK_EQU:
	case DT_TOK_NEQ:
	case DT_TOK_LT:
	case DT_TOK_LE:
	case DT_TOK_GT:
	case DT_TOK_GE:
		dt_cg_compare(pcb, dnp);
		break;
	case DT_TOK_LAND:
	case DT_TOK_LOR:
		dt_cg_logical(pcb, dnp);
		break;
	case DT_TOK_LXOR:
		dt_cg_node(pcb, lp);
		dt_cg_node(pcb, rp);
		dt_cg_bool(pcb, lp->dn_reg);
		dt_cg_bool(pcb, rp->dn_reg);
		dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_XOR, lp->dn_reg,
		    rp->dn_reg, lp->dn_reg), DT_LBL_NONE);
		dt_regset_free(pcb, rp->dn_reg);
		dnp->dn_reg = lp->dn_reg;
		break;
	default:
		dt_cg_arith(pcb, dnp);
		break;
	}
}

static void
dt_cg_op1(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_node_t *cp = dnp->dn_left;

	switch (dnp->dn_op) {
	case DT_TOK_PREINC:
	case DT_TOK_PREDEC:
	case DT_TOK_POSTINC:
	case DT_TOK_POSTDEC:
		dt_cg_incdec(pcb, dnp);
		return;
	case DT_TOK_DEREF:
		dt_cg_memref(pcb, dnp);
		return;
	case DT_TOK_ADDROF:
		dt_cg_addr(pcb, cp, 0);
		dnp->dn_reg = cp->dn_reg;
		return;
	}
	dt_cg_node(pcb, cp);
	dnp->dn_reg = cp->dn_reg;
	switch (dnp->dn_op) {
	case DT_TOK_INEG:
		dt_cg_typecast(pcb, cp->dn_reg, cp->dn_type, dnp->dn_type);
		dt_as_emit(pcb, DIF_INSTR_FMT(DIF_OP_SUB, 0, cp->dn_reg,
		    cp->dn_reg), DT_LBL_NONE);
		if (!dnp->dn_type->dt_signed)
			dt_cg_normalize(pcb, cp->dn_reg, dnp->dn_type);
		break;
	case DT_TOK_BNEG:
		dt_as_emit(pcb, DIF_INSTR_NOT(cp->dn_reg, cp->dn_reg),
		    DT_LBL_NONE);
		if (!dnp->dn_type->dt_signed)
			dt_cg_normalize(pcb, cp->dn_reg, dnp->dn_type);
		break;
	case DT_TOK_LNEG:
		dt_as_emit(pcb, DIF_INSTR_TST(cp->dn_reg), DT_LBL_NONE);
		dt_cg_setcc(pcb, DIF_OP_BE, cp->dn_reg);
		break;
	default:	/* unary +, stringof */
		break;
	}
}

/*
 * A subroutine call, as illumos generates it: every argument is
 * evaluated first (an argument may itself call a subroutine or index an
 * array, both of which use the tuple stack), then the stack is flushed
 * and the arguments pushed, converted to their parameter types: strings
 * by reference with strsize as their limit, everything else by value.
 * CALL leaves the tuple in place; the next user flushes it.
 */
static void
dt_cg_subr(dt_pcb_t *pcb, dt_node_t *dnp)
{
	const dt_ident_t *idp = dnp->dn_ident;
	const dt_type_t *pt;
	dt_node_t *ap;
	int i, sreg;

	if (idp == NULL || idp->di_kind != DT_IDENT_FUNC)
		dt_parser_error(pcb, dnp->dn_line, D_FUNC_UNSUP,
		    "cannot generate code for a call of %s( )",
		    dnp->dn_string);
	for (ap = dnp->dn_args; ap != NULL; ap = ap->dn_list)
		dt_cg_node(pcb, ap);
	dt_as_emit(pcb, DIF_INSTR_FLUSHTS, DT_LBL_NONE);
	for (ap = dnp->dn_args, i = 0; ap != NULL; ap = ap->dn_list, i++) {
		pt = idp->di_keys[i];
		if (pt->dt_kind == DT_TK_STRING) {
			sreg = dt_regset_alloc(pcb);
			dt_cg_setx(pcb, sreg, dt_decl_strsize(pcb->pcb_hdl));
			dt_as_emit(pcb, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR,
			    DIF_TYPE_STRING, sreg, ap->dn_reg), DT_LBL_NONE);
			dt_regset_free(pcb, sreg);
		} else {
			dt_cg_typecast(pcb, ap->dn_reg, ap->dn_type, pt);
			dt_as_emit(pcb, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV,
			    DIF_TYPE_CTF, 0, ap->dn_reg), DT_LBL_NONE);
		}
		dt_regset_free(pcb, ap->dn_reg);
	}
	dnp->dn_reg = dt_regset_alloc(pcb);
	dt_as_emit(pcb, DIF_INSTR_CALL(idp->di_id, dnp->dn_reg), DT_LBL_NONE);
	/* the VM returns 64 bits: rand() must come back an int */
	dt_cg_normalize(pcb, dnp->dn_reg, idp->di_type);
}

static void
dt_cg_node(dt_pcb_t *pcb, dt_node_t *dnp)
{
	switch (dnp->dn_kind) {
	case DT_NODE_INT:
		dnp->dn_reg = dt_regset_alloc(pcb);
		dt_cg_setx(pcb, dnp->dn_reg, dnp->dn_value);
		break;
	case DT_NODE_STRING:
		dnp->dn_reg = dt_regset_alloc(pcb);
		dt_as_emit(pcb, DIF_INSTR_SETS(dt_as_string(pcb,
		    dnp->dn_string), dnp->dn_reg), DT_LBL_NONE);
		break;
	case DT_NODE_VAR:
		if (dnp->dn_ident->di_kind == DT_IDENT_ARRAY) {
			/* args[i], uregs[i]: the index register is reused */
			dt_cg_node(pcb, dnp->dn_args);
			dnp->dn_reg = dnp->dn_args->dn_reg;
			dt_as_emit(pcb, DIF_INSTR_LDA(DIF_OP_LDGA,
			    dnp->dn_ident->di_id, dnp->dn_reg, dnp->dn_reg),
			    DT_LBL_NONE);
			break;
		}
		dt_cg_keys(pcb, dnp);
		dnp->dn_reg = dt_regset_alloc(pcb);
		dt_cg_load(pcb, dnp, dnp->dn_reg);
		break;
	case DT_NODE_OP1:
		dt_cg_op1(pcb, dnp);
		break;
	case DT_NODE_OP2:
		dt_cg_op2(pcb, dnp);
		break;
	case DT_NODE_OP3:
		dt_cg_ternary(pcb, dnp);
		break;
	case DT_NODE_FUNC:
		dt_cg_subr(pcb, dnp);
		break;
	default:
		dt_parser_error(pcb, dnp->dn_line, D_SYNTAX,
		    "cannot generate code for node kind %d", dnp->dn_kind);
	}
}

/* Generate the code of one DIF object that returns the value of dnp. */
void
dt_cg(dt_pcb_t *pcb, dt_node_t *dnp)
{
	dt_regset_init(&pcb->pcb_regs, DIF_DIR_NREGS);
	dt_cg_node(pcb, dnp);
	dt_as_emit(pcb, DIF_INSTR_RET(dnp->dn_reg), DT_LBL_NONE);
	dt_regset_free(pcb, dnp->dn_reg);
}
