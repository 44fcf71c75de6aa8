/*
 * dif_verify.c: validation of a DIFO received from an untrusted client.
 *
 * The daemon runs dif_verify() on every DIFO before accepting it, and
 * dif_vm_exec() relies on what is checked here: register fields, table
 * indices, forward-only branches ending in RET, variables that the VM
 * knows how to reach in the scope and kind their opcode names, and a
 * tuple stack that cannot overflow and is never empty where an
 * associative array needs a key.  Reserved operand fields must be zero
 * so that one program has exactly one encoding.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dif.h"

static int
dif_verify_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen != 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int
dif_verify_type(const dif_type_t *t)
{
	if (t->dt_kind != DIF_TYPE_CTF && t->dt_kind != DIF_TYPE_STRING)
		return 0;
	if (t->dt_ckind > DIF_CKIND_ENUM)
		return 0;
	if (t->dt_flags & ~(DIF_TF_BYREF | DIF_TF_SIGNED))
		return 0;
	if (t->dt_pad != 0 || t->dt_size > DIF_MAXSTRSIZE)
		return 0;
	/* the VM copies strings by reference */
	if (t->dt_kind == DIF_TYPE_STRING && !(t->dt_flags & DIF_TF_BYREF))
		return 0;
	return 1;
}

/* Built-in variables the VM asks its host for. */
static int
dif_verify_builtin_scalar(uint32_t id)
{
	return id >= DIF_VAR_OTHER_MIN && id <= DIF_VAR_BUILTIN_MAX;
}

static int
dif_verify_builtin_array(uint32_t id)
{
	return id == DIF_VAR_ARGS || id == DIF_VAR_UREGS ||
	    id == DIF_VAR_PSINFO;
}

static const dif_var_t *
dif_verify_var(const dif_difo_t *dp, uint32_t id, uint8_t scope)
{
	uint32_t i;

	for (i = 0; i < dp->dd_varlen; i++) {
		if (dp->dd_vartab[i].dv_id == id &&
		    dp->dd_vartab[i].dv_scope == scope)
			return &dp->dd_vartab[i];
	}
	return NULL;
}

static int
dif_verify_vartab(const dif_difo_t *dp, char *err, size_t errlen)
{
	uint32_t i, j;

	for (i = 0; i < dp->dd_varlen; i++) {
		const dif_var_t *v = &dp->dd_vartab[i];

		if (v->dv_name >= dp->dd_strlen)
			return dif_verify_err(err, errlen,
			    "variable %u: invalid name offset %u", i,
			    v->dv_name);
		if (v->dv_kind != DIFV_KIND_ARRAY &&
		    v->dv_kind != DIFV_KIND_SCALAR)
			return dif_verify_err(err, errlen,
			    "variable %u: invalid kind %u", i, v->dv_kind);
		if (v->dv_scope != DIFV_SCOPE_GLOBAL &&
		    v->dv_scope != DIFV_SCOPE_THREAD &&
		    v->dv_scope != DIFV_SCOPE_LOCAL)
			return dif_verify_err(err, errlen,
			    "variable %u: invalid scope %u", i, v->dv_scope);
		if (v->dv_flags & ~(DIFV_F_REF | DIFV_F_MOD))
			return dif_verify_err(err, errlen,
			    "variable %u: invalid flags 0x%x", i, v->dv_flags);
		if (!dif_verify_type(&v->dv_type))
			return dif_verify_err(err, errlen,
			    "variable %u: invalid type", i);
		if (v->dv_kind == DIFV_KIND_ARRAY) {
			/*
			 * Associative arrays (a[k], self->a[k]) take their
			 * ids from the user scalar range, as in illumos;
			 * the array range holds indexed arrays (args[]).
			 */
			if (v->dv_id >= DIF_VAR_OTHER_UBASE &&
			    v->dv_id <= DIF_VAR_OTHER_MAX) {
				if (v->dv_scope == DIFV_SCOPE_LOCAL)
					return dif_verify_err(err, errlen,
					    "variable %u: clause-local "
					    "associative array", i);
			} else if (v->dv_id > DIF_VAR_ARRAY_MAX)
				return dif_verify_err(err, errlen,
				    "variable %u: invalid array id %u", i,
				    v->dv_id);
			if (v->dv_id < DIF_VAR_ARRAY_UBASE &&
			    (!dif_verify_builtin_array(v->dv_id) ||
			    v->dv_scope != DIFV_SCOPE_GLOBAL))
				return dif_verify_err(err, errlen,
				    "variable %u: unknown built-in array %u",
				    i, v->dv_id);
		} else {
			if (v->dv_id < DIF_VAR_OTHER_MIN ||
			    v->dv_id > DIF_VAR_OTHER_MAX)
				return dif_verify_err(err, errlen,
				    "variable %u: invalid id %u", i, v->dv_id);
			if (v->dv_id < DIF_VAR_OTHER_UBASE &&
			    (!dif_verify_builtin_scalar(v->dv_id) ||
			    v->dv_scope != DIFV_SCOPE_GLOBAL))
				return dif_verify_err(err, errlen,
				    "variable %u: unknown built-in variable %u",
				    i, v->dv_id);
			if (v->dv_id < DIF_VAR_OTHER_UBASE &&
			    (v->dv_flags & DIFV_F_MOD))
				return dif_verify_err(err, errlen,
				    "variable %u: built-in variable %u is "
				    "read-only", i, v->dv_id);
		}
		for (j = 0; j < i; j++) {
			if (dp->dd_vartab[j].dv_id == v->dv_id &&
			    dp->dd_vartab[j].dv_scope == v->dv_scope)
				return dif_verify_err(err, errlen,
				    "variable %u: duplicate of variable %u",
				    i, j);
		}
	}
	return 0;
}

/*
 * Track the depth of the tuple stack.  Branches only go forward, so one
 * pass in instruction order sees every predecessor of an instruction
 * before the instruction itself: [lo, hi] bounds the depth over all
 * paths.  A push that may overflow, or an associative array access that
 * may find no key, is rejected.  Runs after the per-instruction checks.
 */
static int
dif_verify_tuples(const dif_difo_t *dp, char *err, size_t errlen)
{
	signed char *lo, *hi;
	uint32_t pc, op, target;
	int l, h, rc = 0;

	if ((lo = malloc(2 * (size_t)dp->dd_len)) == NULL)
		return dif_verify_err(err, errlen, "out of memory");
	hi = lo + dp->dd_len;
	memset(lo, -1, 2 * (size_t)dp->dd_len);
	lo[0] = hi[0] = 0;
	for (pc = 0; pc < dp->dd_len && rc == 0; pc++) {
		if ((l = lo[pc]) < 0)
			continue;	/* unreachable */
		h = hi[pc];
		op = DIF_INSTR_OP(dp->dd_buf[pc]);
		switch (op) {
		case DIF_OP_PUSHTR:
		case DIF_OP_PUSHTV:
			if (h >= DIF_DTR_NREGS) {
				rc = dif_verify_err(err, errlen, "tuple stack "
				    "overflow at instruction %u", pc);
				continue;
			}
			l++;
			h++;
			break;
		case DIF_OP_POPTS:
			l = l > 0 ? l - 1 : 0;
			h = h > 0 ? h - 1 : 0;
			break;
		case DIF_OP_FLUSHTS:
			l = h = 0;
			break;
		case DIF_OP_LDGAA: case DIF_OP_STGAA:
		case DIF_OP_LDTAA: case DIF_OP_STTAA:
			if (l < 1) {
				rc = dif_verify_err(err, errlen, "empty key "
				    "tuple at instruction %u", pc);
				continue;
			}
			break;
		case DIF_OP_RET:
			continue;
		}
		if (op >= DIF_OP_BA && op <= DIF_OP_BLEU) {
			target = DIF_INSTR_LABEL(dp->dd_buf[pc]);
			if (lo[target] < 0 || l < lo[target])
				lo[target] = (signed char)l;
			if (h > hi[target])
				hi[target] = (signed char)h;
			if (op == DIF_OP_BA)
				continue;
		}
		if (pc + 1 < dp->dd_len) {
			if (lo[pc + 1] < 0 || l < lo[pc + 1])
				lo[pc + 1] = (signed char)l;
			if (h > hi[pc + 1])
				hi[pc + 1] = (signed char)h;
		}
	}
	free(lo);
	return rc;
}

/*
 * A variable's type: by value, a string, or by reference an object of
 * C type (a struct, union or array, a long double) of a bounded size,
 * which stores and loads copy whole.
 */
static int
dif_verify_byref(const dif_type_t *t)
{
	if (!(t->dt_flags & DIF_TF_BYREF) || t->dt_kind == DIF_TYPE_STRING)
		return 1;
	if (t->dt_kind != DIF_TYPE_CTF || t->dt_size == 0 ||
	    t->dt_size > DIF_MAXSTRSIZE)
		return 0;
	return t->dt_ckind == DIF_CKIND_STRUCT ||
	    t->dt_ckind == DIF_CKIND_UNION || t->dt_ckind == DIF_CKIND_ARRAY ||
	    t->dt_ckind == DIF_CKIND_FLOAT;
}

int
dif_verify(const dif_difo_t *dp, char *err, size_t errlen)
{
	uint32_t pc, op, r1, r2, rd, id;
	dif_instr_t in;
	const dif_var_t *v;

	if (err != NULL && errlen != 0)
		err[0] = '\0';
	if (dp == NULL)
		return dif_verify_err(err, errlen, "no DIF object");
	if (dp->dd_len == 0 || dp->dd_buf == NULL)
		return dif_verify_err(err, errlen, "empty DIF object");
	if (dp->dd_len > DIF_MAXINSTRS)
		return dif_verify_err(err, errlen,
		    "too many instructions (%u > %u)", dp->dd_len,
		    DIF_MAXINSTRS);
	if (dp->dd_intlen > DIF_MAXINTTAB ||
	    (dp->dd_intlen != 0 && dp->dd_inttab == NULL))
		return dif_verify_err(err, errlen,
		    "invalid integer table (%u entries)", dp->dd_intlen);
	if (dp->dd_strlen > DIF_MAXSTRTAB ||
	    (dp->dd_strlen != 0 && dp->dd_strtab == NULL))
		return dif_verify_err(err, errlen,
		    "invalid string table (%u bytes)", dp->dd_strlen);
	if (dp->dd_strlen != 0 && dp->dd_strtab[dp->dd_strlen - 1] != '\0')
		return dif_verify_err(err, errlen,
		    "string table is not NUL-terminated");
	if (dp->dd_varlen > DIF_MAXVARS ||
	    (dp->dd_varlen != 0 && dp->dd_vartab == NULL))
		return dif_verify_err(err, errlen,
		    "invalid variable table (%u entries)", dp->dd_varlen);
	if (!dif_verify_type(&dp->dd_rtype))
		return dif_verify_err(err, errlen, "invalid return type");
	if (dif_verify_vartab(dp, err, errlen) != 0)
		return -1;
	if (DIF_INSTR_OP(dp->dd_buf[dp->dd_len - 1]) != DIF_OP_RET)
		return dif_verify_err(err, errlen,
		    "last DIF instruction is not ret");

#define VERR(...)	do {						\
		char m_[160];						\
		snprintf(m_, sizeof(m_), __VA_ARGS__);			\
		return dif_verify_err(err, errlen, "%s at instruction %u", \
		    m_, pc);						\
	} while (0)
#define VREG(r)		do {						\
		if ((r) >= DIF_DIR_NREGS)				\
			VERR("invalid register %u", (r));		\
	} while (0)
#define VZERO(f)	do {						\
		if ((f) != 0)						\
			VERR("non-zero reserved bits");			\
	} while (0)
#define VDEST(r)	do {						\
		VREG(r);						\
		if ((r) == 0)						\
			VERR("cannot write to %%r0");			\
	} while (0)

	for (pc = 0; pc < dp->dd_len; pc++) {
		in = dp->dd_buf[pc];
		op = DIF_INSTR_OP(in);
		r1 = DIF_INSTR_R1(in);
		r2 = DIF_INSTR_R2(in);
		rd = DIF_INSTR_RD(in);

		switch (op) {
		case DIF_OP_OR: case DIF_OP_XOR: case DIF_OP_AND:
		case DIF_OP_SLL: case DIF_OP_SRL: case DIF_OP_SRA:
		case DIF_OP_SUB: case DIF_OP_ADD: case DIF_OP_MUL:
		case DIF_OP_SDIV: case DIF_OP_UDIV:
		case DIF_OP_SREM: case DIF_OP_UREM:
			VREG(r1);
			VREG(r2);
			VDEST(rd);
			break;
		case DIF_OP_NOT:
		case DIF_OP_MOV:
		case DIF_OP_ALLOCS:
			VREG(r1);
			VZERO(r2);
			VDEST(rd);
			break;
		case DIF_OP_CMP:
		case DIF_OP_SCMP:
			VREG(r1);
			VREG(r2);
			VZERO(rd);
			break;
		case DIF_OP_TST:
			VREG(r1);
			VZERO(r2);
			VZERO(rd);
			break;
		case DIF_OP_BA: case DIF_OP_BE: case DIF_OP_BNE:
		case DIF_OP_BG: case DIF_OP_BGU: case DIF_OP_BGE:
		case DIF_OP_BGEU: case DIF_OP_BL: case DIF_OP_BLU:
		case DIF_OP_BLE: case DIF_OP_BLEU:
			id = DIF_INSTR_LABEL(in);
			if (id >= dp->dd_len)
				VERR("invalid branch target %u", id);
			if (id <= pc)
				VERR("backward branch to %u", id);
			break;
		case DIF_OP_LDSB: case DIF_OP_LDSH: case DIF_OP_LDSW:
		case DIF_OP_LDUB: case DIF_OP_LDUH: case DIF_OP_LDUW:
		case DIF_OP_LDX:
		case DIF_OP_ULDSB: case DIF_OP_ULDSH: case DIF_OP_ULDSW:
		case DIF_OP_ULDUB: case DIF_OP_ULDUH: case DIF_OP_ULDUW:
		case DIF_OP_ULDX:
		case DIF_OP_RLDSB: case DIF_OP_RLDSH: case DIF_OP_RLDSW:
		case DIF_OP_RLDUB: case DIF_OP_RLDUH: case DIF_OP_RLDUW:
		case DIF_OP_RLDX:
			VREG(r1);
			VZERO(r2);
			VDEST(rd);
			break;
		case DIF_OP_STB: case DIF_OP_STH: case DIF_OP_STW:
		case DIF_OP_STX:
			VREG(r1);
			VZERO(r2);
			VREG(rd);
			if (rd == 0)
				VERR("cannot write to 0 address");
			break;
		case DIF_OP_COPYS:
			VREG(r1);
			VREG(r2);
			VREG(rd);
			break;
		case DIF_OP_RET:
			VZERO(r1);
			VZERO(r2);
			VREG(rd);
			break;
		case DIF_OP_NOP:
		case DIF_OP_POPTS:
		case DIF_OP_FLUSHTS:
			VZERO(in & 0xffffff);
			break;
		case DIF_OP_SETX:
			id = DIF_INSTR_INTEGER(in);
			if (id >= dp->dd_intlen)
				VERR("invalid integer ref %u", id);
			VDEST(rd);
			break;
		case DIF_OP_SETS:
			id = DIF_INSTR_STRING(in);
			if (id >= dp->dd_strlen)
				VERR("invalid string ref %u", id);
			VDEST(rd);
			break;
		case DIF_OP_LDGA:
			/* r1 is the array id, r2 the index register */
			if (!dif_verify_builtin_array(r1))
				VERR("invalid array %u", r1);
			VREG(r2);
			VDEST(rd);
			break;
		case DIF_OP_LDGS:
			id = DIF_INSTR_VAR(in);
			if (id < DIF_VAR_OTHER_MIN)
				VERR("invalid variable %u", id);
			if (id < DIF_VAR_OTHER_UBASE) {
				if (!dif_verify_builtin_scalar(id))
					VERR("unknown built-in variable %u",
					    id);
			} else if ((v = dif_verify_var(dp, id,
			    DIFV_SCOPE_GLOBAL)) == NULL ||
			    v->dv_kind != DIFV_KIND_SCALAR) {
				VERR("variable %u is not a global scalar in "
				    "the variable table", id);
			} else if (!dif_verify_byref(&v->dv_type)) {
				VERR("unsupported by-ref type of variable %u",
				    id);
			}
			VDEST(rd);
			break;
		case DIF_OP_STGS:
			id = DIF_INSTR_VAR(in);
			if (id < DIF_VAR_OTHER_UBASE)
				VERR("cannot store to built-in variable %u",
				    id);
			if ((v = dif_verify_var(dp, id,
			    DIFV_SCOPE_GLOBAL)) == NULL ||
			    v->dv_kind != DIFV_KIND_SCALAR)
				VERR("variable %u is not a global scalar in "
				    "the variable table", id);
			if (!dif_verify_byref(&v->dv_type))
				VERR("unsupported by-ref type of variable %u",
				    id);
			VREG(rd);
			break;
		case DIF_OP_CALL:
			id = DIF_INSTR_SUBR(in);
			if (!dif_subr_supported(id))
				VERR("unsupported subroutine %u (%s)", id,
				    dif_subr_name(id));
			VDEST(rd);
			break;
		case DIF_OP_PUSHTR:
		case DIF_OP_PUSHTV:
			if (r1 != DIF_TYPE_CTF && r1 != DIF_TYPE_STRING)
				VERR("invalid value type %u", r1);
			VREG(r2);
			VREG(rd);
			break;
		case DIF_OP_LDTS: case DIF_OP_STTS:
		case DIF_OP_LDLS: case DIF_OP_STLS:
		case DIF_OP_LDGAA: case DIF_OP_STGAA:
		case DIF_OP_LDTAA: case DIF_OP_STTAA: {
			const int aa = op == DIF_OP_LDGAA ||
			    op == DIF_OP_STGAA || op == DIF_OP_LDTAA ||
			    op == DIF_OP_STTAA;
			const uint8_t scope = (op == DIF_OP_LDLS ||
			    op == DIF_OP_STLS) ? DIFV_SCOPE_LOCAL :
			    (op == DIF_OP_LDGAA || op == DIF_OP_STGAA) ?
			    DIFV_SCOPE_GLOBAL : DIFV_SCOPE_THREAD;
			static const char *const sname[] = {
				"global", "thread-local", "clause-local",
			};

			id = DIF_INSTR_VAR(in);
			if (id < DIF_VAR_OTHER_UBASE)
				VERR("invalid variable %u", id);
			if ((v = dif_verify_var(dp, id, scope)) == NULL ||
			    v->dv_kind != (aa ? DIFV_KIND_ARRAY :
			    DIFV_KIND_SCALAR))
				VERR("variable %u is not a %s %s in the "
				    "variable table", id, sname[scope],
				    aa ? "associative array" : "scalar");
			if (!dif_verify_byref(&v->dv_type))
				VERR("unsupported by-ref type of variable %u",
				    id);
			if (op == DIF_OP_LDTS || op == DIF_OP_LDLS ||
			    op == DIF_OP_LDGAA || op == DIF_OP_LDTAA)
				VDEST(rd);
			else
				VREG(rd);
			break;
		}
		case DIF_OP_LDTA:
		case DIF_OP_XLATE: case DIF_OP_XLARG:
			VERR("unsupported opcode %s", dif_op_name(op));
		default:
			VERR("invalid opcode %u", op);
		}
	}
#undef VERR
#undef VREG
#undef VZERO
#undef VDEST
	return dif_verify_tuples(dp, err, errlen);
}
