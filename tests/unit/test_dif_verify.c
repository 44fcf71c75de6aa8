/*
 * test_dif_verify.c: one valid DIFO is accepted; each rule of the
 * verifier is then broken once, on a fresh copy, and must be rejected
 * with the expected reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dif.h"
#include "tap.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static const dif_instr_t base_buf[] = {
	/* 0 */ DIF_INSTR_SETX(0, 1),
	/* 1 */ DIF_INSTR_SETS(1, 2),
	/* 2 */ DIF_INSTR_STV(DIF_OP_STGS, 0x500, 1),
	/* 3 */ DIF_INSTR_LDV(DIF_OP_LDGS, 0x500, 3),
	/* 4 */ DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 4),
	/* 5 */ DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 1, 5),
	/* 6 */ DIF_INSTR_CMP(DIF_OP_CMP, 3, 4),
	/* 7 */ DIF_INSTR_BRANCH(DIF_OP_BGE, 10),
	/* 8 */ DIF_INSTR_FMT(DIF_OP_ADD, 3, 4, 3),
	/* 9 */ DIF_INSTR_TST(3),
	/* 10 */ DIF_INSTR_FLUSHTS,
	/* 11 */ DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 2),
	/* 12 */ DIF_INSTR_CALL(DIF_SUBR_STRLEN, 6),
	/* 13 */ DIF_INSTR_STV(DIF_OP_STGS, 0x501, 2),
	/* 14 */ DIF_INSTR_NOP,
	/* 15 */ DIF_INSTR_RET(6),
};
static const uint64_t base_ints[] = { 1, 2 };
static const char base_strs[] = "\0hello\0x\0s";
static const dif_var_t base_vars[] = {
	{ 7, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, DIFV_F_REF | DIFV_F_MOD,
	    { DIF_TYPE_CTF, DIF_CKIND_INTEGER, DIF_TF_SIGNED, 0, 8 } },
	{ 9, 0x501, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, DIFV_F_MOD,
	    { DIF_TYPE_STRING, DIF_CKIND_UNKNOWN, DIF_TF_BYREF, 0, 256 } },
};

static dif_instr_t buf[64];
static uint64_t ints[8];
static char strs[64];
static dif_var_t vars[8];
static dif_difo_t d;

static void
fresh(void)
{
	memcpy(buf, base_buf, sizeof(base_buf));
	memcpy(ints, base_ints, sizeof(base_ints));
	memcpy(strs, base_strs, sizeof(base_strs));
	memcpy(vars, base_vars, sizeof(base_vars));
	memset(&d, 0, sizeof(d));
	d.dd_buf = buf;
	d.dd_len = NELEM(base_buf);
	d.dd_inttab = ints;
	d.dd_intlen = NELEM(base_ints);
	d.dd_strtab = strs;
	d.dd_strlen = sizeof(base_strs);
	d.dd_vartab = vars;
	d.dd_varlen = NELEM(base_vars);
	d.dd_rtype.dt_kind = DIF_TYPE_CTF;
	d.dd_rtype.dt_ckind = DIF_CKIND_INTEGER;
	d.dd_rtype.dt_size = 8;
}

/* Expect rejection with a reason containing want. */
static void
reject(const char *want, const char *name)
{
	char err[256];
	int rc;

	err[0] = '\0';
	rc = dif_verify(&d, err, sizeof(err));
	if (!tap_ok(rc == -1 && strstr(err, want) != NULL, "%s", name))
		printf("#   rc %d, err \"%s\", want \"%s\"\n", rc, err, want);
	fresh();
}

int
main(void)
{
	char err[256];
	int rc;

	fresh();
	rc = dif_verify(&d, err, sizeof(err));
	if (!tap_ok(rc == 0, "valid DIFO accepted"))
		printf("#   %s\n", err);
	tap_ok(dif_verify(&d, NULL, 0) == 0, "err buffer is optional");

	d.dd_len = 0;
	reject("empty", "no instructions");
	d.dd_len = DIF_MAXINSTRS + 1;
	reject("too many instructions", "more than DIF_MAXINSTRS");
	d.dd_len = 14;
	reject("last DIF instruction is not ret", "last instruction not ret");
	buf[14] = DIF_INSTR_FMT(0, 0, 0, 0);
	reject("invalid opcode 0", "opcode 0");
	buf[14] = DIF_INSTR_FMT(DIF_OP_MAX + 1, 0, 0, 0);
	reject("invalid opcode 80", "opcode past DIF_OP_MAX");
	buf[14] = DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 1);
	reject("variable 1280 is not a thread-local scalar",
	    "ldts of a global");
	buf[14] = DIF_INSTR_LDV(DIF_OP_LDGAA, 0x500, 1);
	reject("variable 1280 is not a global associative array",
	    "ldgaa of a scalar");
	buf[14] = DIF_INSTR_LDA(DIF_OP_LDTA, DIF_VAR_ARGS, 1, 1);
	reject("unsupported opcode ldta", "ldta is not supported");
	buf[14] = DIF_INSTR_FMT(DIF_OP_XLATE, 0, 0, 1);
	reject("unsupported opcode xlate", "xlate is not supported yet");

	buf[8] = DIF_INSTR_FMT(DIF_OP_ADD, 8, 4, 3);
	reject("invalid register 8 at instruction 8", "r1 out of range");
	buf[8] = DIF_INSTR_FMT(DIF_OP_ADD, 3, 4, 9);
	reject("invalid register 9", "rd out of range");
	buf[8] = DIF_INSTR_FMT(DIF_OP_ADD, 3, 4, 0);
	reject("cannot write to %r0", "add into %r0");
	buf[0] = DIF_INSTR_SETX(0, 0);
	reject("cannot write to %r0", "setx into %r0");
	buf[12] = DIF_INSTR_CALL(DIF_SUBR_STRLEN, 0);
	reject("cannot write to %r0", "call into %r0");
	buf[3] = DIF_INSTR_LDV(DIF_OP_LDGS, 0x500, 0);
	reject("cannot write to %r0", "ldgs into %r0");

	buf[7] = DIF_INSTR_BRANCH(DIF_OP_BGE, 7);
	reject("backward branch to 7", "branch to itself");
	buf[7] = DIF_INSTR_BRANCH(DIF_OP_BA, 2);
	reject("backward branch to 2", "backward branch");
	buf[7] = DIF_INSTR_BRANCH(DIF_OP_BE, 16);
	reject("invalid branch target 16", "branch past the end");

	buf[0] = DIF_INSTR_SETX(2, 1);
	reject("invalid integer ref 2", "setx index out of the inttab");
	buf[1] = DIF_INSTR_SETS(sizeof(base_strs), 2);
	reject("invalid string ref", "sets offset out of the strtab");
	strs[sizeof(base_strs) - 1] = 'x';
	reject("not NUL-terminated", "strtab not NUL-terminated");
	d.dd_intlen = DIF_MAXINTTAB + 1;
	reject("invalid integer table", "inttab too long");
	d.dd_inttab = NULL;
	reject("invalid integer table", "inttab missing");
	d.dd_strlen = DIF_MAXSTRTAB + 1;
	reject("invalid string table", "strtab too long");
	d.dd_varlen = DIF_MAXVARS + 1;
	reject("invalid variable table", "vartab too long");
	d.dd_rtype.dt_size = DIF_MAXSTRSIZE + 1;
	reject("invalid return type", "return type too large");
	d.dd_rtype.dt_kind = 7;
	reject("invalid return type", "return type of unknown kind");

	vars[0].dv_name = 100;
	reject("invalid name offset", "variable name outside the strtab");
	vars[0].dv_kind = 2;
	reject("invalid kind", "variable kind");
	vars[0].dv_scope = 3;
	reject("invalid scope", "variable scope");
	vars[0].dv_flags = 4;
	reject("invalid flags", "variable flags");
	vars[1].dv_type.dt_size = DIF_MAXSTRSIZE + 1;
	reject("invalid type", "variable type too large");
	vars[1].dv_type.dt_flags = 0;
	reject("invalid type", "string variable not by reference");
	vars[0].dv_id = 0x10000;
	reject("invalid id", "scalar id above DIF_VAR_OTHER_MAX");
	vars[0].dv_id = 0x1ff;
	reject("unknown built-in variable", "unknown built-in id");
	vars[0].dv_id = DIF_VAR_PID;
	vars[0].dv_flags = DIFV_F_MOD;
	reject("read-only", "built-in variable marked written");
	vars[0].dv_kind = DIFV_KIND_ARRAY;
	vars[0].dv_id = 0x100;
	reject("invalid array id", "array id above DIF_VAR_ARRAY_MAX");
	vars[0].dv_kind = DIFV_KIND_ARRAY;
	vars[0].dv_id = DIF_VAR_REGS;
	reject("unknown built-in array", "regs[] is kernel-only");
	vars[0].dv_kind = DIFV_KIND_ARRAY;
	vars[0].dv_id = DIF_VAR_PSINFO + 1;
	reject("unknown built-in array", "the id after __psinfo[]");
	vars[1].dv_id = 0x500;
	reject("duplicate", "duplicate variable");
	vars[1].dv_type.dt_kind = DIF_TYPE_CTF;
	vars[1].dv_type.dt_ckind = DIF_CKIND_POINTER;
	reject("unsupported by-ref type of variable 1281",
	    "stgs of a by-ref pointer global");

	vars[0].dv_scope = DIFV_SCOPE_THREAD;
	reject("variable 1280 is not a global scalar", "ldgs of a thread var");
	buf[3] = DIF_INSTR_LDV(DIF_OP_LDGS, 0x502, 3);
	reject("variable 1282 is not a global scalar",
	    "ldgs of a variable missing from the vartab");
	buf[2] = DIF_INSTR_STV(DIF_OP_STGS, DIF_VAR_PID, 1);
	reject("cannot store to built-in variable", "stgs to a built-in");
	buf[4] = DIF_INSTR_LDV(DIF_OP_LDGS, 0x150, 4);
	reject("unknown built-in variable 336", "ldgs of an unknown built-in");
	buf[4] = DIF_INSTR_LDV(DIF_OP_LDGS, 0x10, 4);
	reject("invalid variable 16", "ldgs of an array id");
	buf[5] = DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_REGS, 1, 5);
	reject("invalid array 1", "ldga regs[]");
	buf[5] = DIF_INSTR_LDA(DIF_OP_LDGA, 0x80, 1, 5);
	reject("invalid array 128", "ldga of a user array");
	buf[5] = DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 9, 5);
	reject("invalid register 9", "ldga index register out of range");

	buf[12] = DIF_INSTR_CALL(DIF_SUBR_GETF, 6);
	reject("unsupported subroutine 46 (getf)", "call getf");
	buf[12] = DIF_INSTR_CALL(DIF_SUBR_MAX + 1, 6);
	reject("unsupported subroutine 49", "call past DIF_SUBR_MAX");
	buf[11] = DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, 2, 0, 2);
	reject("invalid value type 2", "pushtr of an unknown type");
	buf[11] = DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 8, 2);
	reject("invalid register 8", "pushtr size register out of range");

	buf[6] = DIF_INSTR_FMT(DIF_OP_CMP, 3, 4, 1);
	reject("non-zero reserved bits at instruction 6", "cmp with an rd");
	buf[6] = DIF_INSTR_FMT(DIF_OP_SCMP, 3, 4, 1);
	reject("non-zero reserved bits", "scmp with an rd");
	buf[9] = DIF_INSTR_FMT(DIF_OP_TST, 3, 1, 0);
	reject("non-zero reserved bits", "tst with an r2");
	buf[15] = DIF_INSTR_FMT(DIF_OP_RET, 1, 0, 6);
	reject("non-zero reserved bits", "ret with an r1");
	buf[15] = DIF_INSTR_FMT(DIF_OP_RET, 0, 1, 6);
	reject("non-zero reserved bits", "ret with an r2");
	buf[14] = DIF_INSTR_FMT(DIF_OP_NOP, 0, 0, 1);
	reject("non-zero reserved bits", "nop with operands");
	buf[14] = DIF_INSTR_FMT(DIF_OP_FLUSHTS, 0, 1, 0);
	reject("non-zero reserved bits", "flushts with operands");
	buf[8] = DIF_INSTR_FMT(DIF_OP_MOV, 3, 4, 3);
	reject("non-zero reserved bits", "mov with an r2");
	buf[8] = DIF_INSTR_FMT(DIF_OP_LDX, 3, 4, 3);
	reject("non-zero reserved bits", "ldx with an r2");
	buf[8] = DIF_INSTR_FMT(DIF_OP_STX, 3, 0, 0);
	reject("cannot write to 0 address", "stx to [%r0]");
	buf[8] = DIF_INSTR_FMT(DIF_OP_ULDX, 3, 0, 0);
	reject("cannot write to %r0", "uldx into %r0");

	return tap_done();
}
