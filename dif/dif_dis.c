/*
 * dif_dis.c: the disassembler behind `dtrace -S`.
 *
 * The listing reproduces illumos's: a "DIFO ... returns ..." line, the
 * OFF/OPCODE/INSTRUCTION table with "! comment" annotations for
 * constants, variables and subroutines, then the variable table.
 */
#include <stdio.h>
#include <string.h>

#include "dif.h"

static const char *const dif_dis_ops[DIF_OP_MAX + 1] = {
	"(illegal opcode)", "or", "xor", "and", "sll", "srl", "sub", "add",
	"mul", "sdiv", "udiv", "srem", "urem", "not", "mov", "cmp", "tst",
	"ba", "be", "bne", "bg", "bgu", "bge", "bgeu", "bl", "blu", "ble",
	"bleu", "ldsb", "ldsh", "ldsw", "ldub", "lduh", "lduw", "ldx", "ret",
	"nop", "setx", "sets", "scmp", "ldga", "ldgs", "stgs", "ldta", "ldts",
	"stts", "sra", "call", "pushtr", "pushtv", "popts", "flushts",
	"ldgaa", "ldtaa", "stgaa", "sttaa", "ldls", "stls", "allocs", "copys",
	"stb", "sth", "stw", "stx", "uldsb", "uldsh", "uldsw", "uldub",
	"ulduh", "ulduw", "uldx", "rldsb", "rldsh", "rldsw", "rldub",
	"rlduh", "rlduw", "rldx", "xlate", "xlarg",
};

static const char *const dif_dis_builtins[] = {
	[DIF_VAR_CURTHREAD - DIF_VAR_OTHER_MIN] = "curthread",
	[DIF_VAR_TIMESTAMP - DIF_VAR_OTHER_MIN] = "timestamp",
	[DIF_VAR_VTIMESTAMP - DIF_VAR_OTHER_MIN] = "vtimestamp",
	[DIF_VAR_IPL - DIF_VAR_OTHER_MIN] = "ipl",
	[DIF_VAR_EPID - DIF_VAR_OTHER_MIN] = "epid",
	[DIF_VAR_ID - DIF_VAR_OTHER_MIN] = "id",
	[DIF_VAR_ARG0 - DIF_VAR_OTHER_MIN] = "arg0",
	[DIF_VAR_ARG1 - DIF_VAR_OTHER_MIN] = "arg1",
	[DIF_VAR_ARG2 - DIF_VAR_OTHER_MIN] = "arg2",
	[DIF_VAR_ARG3 - DIF_VAR_OTHER_MIN] = "arg3",
	[DIF_VAR_ARG4 - DIF_VAR_OTHER_MIN] = "arg4",
	[DIF_VAR_ARG5 - DIF_VAR_OTHER_MIN] = "arg5",
	[DIF_VAR_ARG6 - DIF_VAR_OTHER_MIN] = "arg6",
	[DIF_VAR_ARG7 - DIF_VAR_OTHER_MIN] = "arg7",
	[DIF_VAR_ARG8 - DIF_VAR_OTHER_MIN] = "arg8",
	[DIF_VAR_ARG9 - DIF_VAR_OTHER_MIN] = "arg9",
	[DIF_VAR_STACKDEPTH - DIF_VAR_OTHER_MIN] = "stackdepth",
	[DIF_VAR_CALLER - DIF_VAR_OTHER_MIN] = "caller",
	[DIF_VAR_PROBEPROV - DIF_VAR_OTHER_MIN] = "probeprov",
	[DIF_VAR_PROBEMOD - DIF_VAR_OTHER_MIN] = "probemod",
	[DIF_VAR_PROBEFUNC - DIF_VAR_OTHER_MIN] = "probefunc",
	[DIF_VAR_PROBENAME - DIF_VAR_OTHER_MIN] = "probename",
	[DIF_VAR_PID - DIF_VAR_OTHER_MIN] = "pid",
	[DIF_VAR_TID - DIF_VAR_OTHER_MIN] = "tid",
	[DIF_VAR_EXECNAME - DIF_VAR_OTHER_MIN] = "execname",
	[DIF_VAR_ZONENAME - DIF_VAR_OTHER_MIN] = "zonename",
	[DIF_VAR_WALLTIMESTAMP - DIF_VAR_OTHER_MIN] = "walltimestamp",
	[DIF_VAR_USTACKDEPTH - DIF_VAR_OTHER_MIN] = "ustackdepth",
	[DIF_VAR_UCALLER - DIF_VAR_OTHER_MIN] = "ucaller",
	[DIF_VAR_PPID - DIF_VAR_OTHER_MIN] = "ppid",
	[DIF_VAR_UID - DIF_VAR_OTHER_MIN] = "uid",
	[DIF_VAR_GID - DIF_VAR_OTHER_MIN] = "gid",
	[DIF_VAR_ERRNO - DIF_VAR_OTHER_MIN] = "errno",
	[DIF_VAR_CPU - DIF_VAR_OTHER_MIN] = "cpu",
};

const char *
dif_op_name(uint32_t op)
{
	if (op > DIF_OP_MAX)
		return dif_dis_ops[0];
	return dif_dis_ops[op];
}

const char *
dif_dis_varname(uint32_t id)
{
	switch (id) {
	case DIF_VAR_ARGS:
		return "args";
	case DIF_VAR_REGS:
		return "regs";
	case DIF_VAR_UREGS:
		return "uregs";
	case DIF_VAR_PSINFO:
		return "__psinfo";
	}
	if (id >= DIF_VAR_OTHER_MIN && id <= DIF_VAR_BUILTIN_MAX)
		return dif_dis_builtins[id - DIF_VAR_OTHER_MIN];
	return NULL;
}

char *
dif_type_str(const dif_type_t *t, char *buf, size_t len)
{
	static const char *const ckinds[] = {
		"unknown", "integer", "float", "pointer", "array",
		"function", "struct", "union", "enum",
	};
	char kind[16], ckind[16];

	if (t->dt_kind == DIF_TYPE_CTF)
		snprintf(kind, sizeof(kind), "D type");
	else if (t->dt_kind == DIF_TYPE_STRING)
		snprintf(kind, sizeof(kind), "string");
	else
		snprintf(kind, sizeof(kind), "0x%x", t->dt_kind);
	if (t->dt_ckind <= DIF_CKIND_ENUM)
		snprintf(ckind, sizeof(ckind), "%s", ckinds[t->dt_ckind]);
	else
		snprintf(ckind, sizeof(ckind), "0x%x", t->dt_ckind);
	snprintf(buf, len, "%s (%s) %s(size %u)", kind, ckind,
	    (t->dt_flags & DIF_TF_BYREF) ? "by ref " : "", t->dt_size);
	return buf;
}

/* The name of variable id in scope: the vartab's, else a built-in's. */
static const char *
dif_dis_name(const dif_difo_t *dp, uint32_t id, uint8_t scope)
{
	uint32_t i;

	for (i = 0; i < dp->dd_varlen; i++) {
		const dif_var_t *v = &dp->dd_vartab[i];

		if (v->dv_id == id && v->dv_scope == scope) {
			if (v->dv_name < dp->dd_strlen)
				return dp->dd_strtab + v->dv_name;
			break;
		}
	}
	return scope == DIFV_SCOPE_GLOBAL ? dif_dis_varname(id) : NULL;
}

/* The scope an opcode's variable lives in, from its name: ldgs, stts... */
static uint8_t
dif_dis_scope(const char *name)
{
	switch (name[2]) {
	case 't':
		return DIFV_SCOPE_THREAD;
	case 'l':
		return DIFV_SCOPE_LOCAL;
	default:
		return DIFV_SCOPE_GLOBAL;
	}
}

static void
dif_dis_str(FILE *fp, const char *s, size_t max)
{
	size_t i;
	unsigned char c;

	for (i = 0; i < max && s[i] != '\0'; i++) {
		c = (unsigned char)s[i];
		switch (c) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		default:
			if (c < ' ' || c >= 0x7f)
				fprintf(fp, "\\%03o", c);
			else
				fputc(c, fp);
		}
	}
}

static void
dif_dis_instr(const dif_difo_t *dp, dif_instr_t in, FILE *fp)
{
	uint32_t op = DIF_INSTR_OP(in);
	uint32_t r1 = DIF_INSTR_R1(in), r2 = DIF_INSTR_R2(in);
	uint32_t rd = DIF_INSTR_RD(in), id;
	const char *name = dif_op_name(op), *vname;

	switch (op) {
	case DIF_OP_OR: case DIF_OP_XOR: case DIF_OP_AND:
	case DIF_OP_SLL: case DIF_OP_SRL: case DIF_OP_SRA:
	case DIF_OP_SUB: case DIF_OP_ADD: case DIF_OP_MUL:
	case DIF_OP_SDIV: case DIF_OP_UDIV:
	case DIF_OP_SREM: case DIF_OP_UREM: case DIF_OP_COPYS:
		fprintf(fp, "%-4s %%r%u, %%r%u, %%r%u", name, r1, r2, rd);
		break;
	case DIF_OP_NOT: case DIF_OP_MOV: case DIF_OP_ALLOCS:
		fprintf(fp, "%-4s %%r%u, %%r%u", name, r1, rd);
		break;
	case DIF_OP_CMP: case DIF_OP_SCMP:
		fprintf(fp, "%-4s %%r%u, %%r%u", name, r1, r2);
		break;
	case DIF_OP_TST:
		fprintf(fp, "%-4s %%r%u", name, r1);
		break;
	case DIF_OP_BA: case DIF_OP_BE: case DIF_OP_BNE:
	case DIF_OP_BG: case DIF_OP_BGU: case DIF_OP_BGE:
	case DIF_OP_BGEU: case DIF_OP_BL: case DIF_OP_BLU:
	case DIF_OP_BLE: case DIF_OP_BLEU:
		fprintf(fp, "%-4s %u", name, DIF_INSTR_LABEL(in));
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
		fprintf(fp, "%-4s [%%r%u], %%r%u", name, r1, rd);
		break;
	case DIF_OP_STB: case DIF_OP_STH: case DIF_OP_STW: case DIF_OP_STX:
		fprintf(fp, "%-4s %%r%u, [%%r%u]", name, r1, rd);
		break;
	case DIF_OP_RET:
		fprintf(fp, "%-4s %%r%u", name, rd);
		break;
	case DIF_OP_NOP: case DIF_OP_POPTS: case DIF_OP_FLUSHTS:
		fprintf(fp, "%s", name);
		break;
	case DIF_OP_SETX:
		id = DIF_INSTR_INTEGER(in);
		fprintf(fp, "%-4s DT_INTEGER[%u], %%r%u", name, id, rd);
		if (dp->dd_inttab != NULL && id < dp->dd_intlen)
			fprintf(fp, "\t\t! 0x%llx",
			    (unsigned long long)dp->dd_inttab[id]);
		break;
	case DIF_OP_SETS:
		id = DIF_INSTR_STRING(in);
		fprintf(fp, "%-4s DT_STRING[%u], %%r%u", name, id, rd);
		if (dp->dd_strtab != NULL && id < dp->dd_strlen) {
			fprintf(fp, "\t\t! \"");
			dif_dis_str(fp, dp->dd_strtab + id, dp->dd_strlen - id);
			fprintf(fp, "\"");
		}
		break;
	case DIF_OP_LDGA: case DIF_OP_LDTA:
		fprintf(fp, "%-4s DT_VAR(%u), %%r%u, %%r%u", name, r1, r2, rd);
		if ((vname = dif_dis_name(dp, r1, dif_dis_scope(name))) != NULL)
			fprintf(fp, "\t\t! DT_VAR(%u) = \"%s\"", r1, vname);
		break;
	case DIF_OP_LDGS: case DIF_OP_LDTS: case DIF_OP_LDLS:
	case DIF_OP_LDGAA: case DIF_OP_LDTAA:
		id = DIF_INSTR_VAR(in);
		fprintf(fp, "%-4s DT_VAR(%u), %%r%u", name, id, rd);
		if ((vname = dif_dis_name(dp, id, dif_dis_scope(name))) != NULL)
			fprintf(fp, "\t\t! DT_VAR(%u) = \"%s\"", id, vname);
		break;
	case DIF_OP_STGS: case DIF_OP_STTS: case DIF_OP_STLS:
	case DIF_OP_STGAA: case DIF_OP_STTAA:
		id = DIF_INSTR_VAR(in);
		fprintf(fp, "%-4s %%r%u, DT_VAR(%u)", name, rd, id);
		if ((vname = dif_dis_name(dp, id, dif_dis_scope(name))) != NULL)
			fprintf(fp, "\t\t! DT_VAR(%u) = \"%s\"", id, vname);
		break;
	case DIF_OP_CALL:
		id = DIF_INSTR_SUBR(in);
		fprintf(fp, "%-4s DIF_SUBR(%u), %%r%u\t\t! %s", name, id, rd,
		    dif_subr_name(id));
		break;
	case DIF_OP_PUSHTR: case DIF_OP_PUSHTV:
		id = DIF_INSTR_TYPE(in);
		fprintf(fp, "%-4s DT_TYPE(%u), %%r%u, %%r%u", name, id, r2, rd);
		if (id == DIF_TYPE_CTF || id == DIF_TYPE_STRING)
			fprintf(fp, "\t! DT_TYPE(%u) = %s", id,
			    id == DIF_TYPE_CTF ? "D type" : "string");
		break;
	case DIF_OP_XLATE: case DIF_OP_XLARG:
		fprintf(fp, "%-4s DT_XLREF[%u], %%r%u", name,
		    DIF_INSTR_XLREF(in), rd);
		break;
	default:
		fprintf(fp, "%s", name);
		break;
	}
}

void
dif_dis(const dif_difo_t *dp, FILE *fp)
{
	char type[64], flags[8];
	const char *kind, *scope, *vname;
	uint32_t i;

	fprintf(fp, "\nDIFO %p returns %s\n", (const void *)dp,
	    dif_type_str(&dp->dd_rtype, type, sizeof(type)));
	fprintf(fp, "%-3s %-8s    %s\n", "OFF", "OPCODE", "INSTRUCTION");
	for (i = 0; i < dp->dd_len; i++) {
		fprintf(fp, "%02u: %08x    ", i, dp->dd_buf[i]);
		dif_dis_instr(dp, dp->dd_buf[i], fp);
		fprintf(fp, "\n");
	}

	if (dp->dd_varlen != 0)
		fprintf(fp, "\n%-16s %-4s %-3s %-3s %-4s %s\n",
		    "NAME", "ID", "KND", "SCP", "FLAG", "TYPE");
	for (i = 0; i < dp->dd_varlen; i++) {
		const dif_var_t *v = &dp->dd_vartab[i];

		switch (v->dv_kind) {
		case DIFV_KIND_ARRAY:
			kind = "arr";
			break;
		case DIFV_KIND_SCALAR:
			kind = "scl";
			break;
		default:
			kind = "?";
		}
		switch (v->dv_scope) {
		case DIFV_SCOPE_GLOBAL:
			scope = "glb";
			break;
		case DIFV_SCOPE_THREAD:
			scope = "tls";
			break;
		case DIFV_SCOPE_LOCAL:
			scope = "loc";
			break;
		default:
			scope = "?";
		}
		/* illumos prints "r", "w" or "r/w" */
		flags[0] = flags[1] = '\0';
		if (v->dv_flags & DIFV_F_REF)
			strcat(flags, "/r");
		if (v->dv_flags & DIFV_F_MOD)
			strcat(flags, "/w");
		vname = v->dv_name < dp->dd_strlen ?
		    dp->dd_strtab + v->dv_name : "?";
		fprintf(fp, "%-16s %-4x %-3s %-3s %-4s %s\n", vname, v->dv_id,
		    kind, scope, flags + 1,
		    dif_type_str(&v->dv_type, type, sizeof(type)));
	}
	fprintf(fp, "\n");
}
