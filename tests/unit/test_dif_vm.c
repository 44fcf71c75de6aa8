/*
 * test_dif_vm.c: the DIF interpreter and subroutines on hand-assembled
 * DIFOs, with a fake host for built-in variables and user memory.
 * Every well-formed program is also run through dif_verify().
 */
#include <sys/socket.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dif.h"
#include "dif_harness.h"
#include "tap.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* The fake traced process: USER_SIZE bytes at USER_BASE. */
#define USER_BASE	0x10000ULL
#define USER_SIZE	8192
static unsigned char user_mem[USER_SIZE];

static char execname[] = "myprog";

static int
fake_builtin(void *arg, uint32_t var, uint64_t ndx, uint64_t *valp)
{
	switch (var) {
	case DIF_VAR_ARGS:
		*valp = 100 + ndx;
		return 0;
	case DIF_VAR_UREGS:
		*valp = 200 + ndx;
		return 0;
	case DIF_VAR_ARG0:
		*valp = 42;
		return 0;
	case DIF_VAR_ARG1:
		*valp = (uint64_t)-1;
		return 0;
	case DIF_VAR_PID:
		*valp = 1234;
		return 0;
	case DIF_VAR_EXECNAME:
		*valp = (uint64_t)(uintptr_t)execname;
		return 0;
	case DIF_VAR_CURTHREAD:
		return DIF_FLT_KPRIV;
	}
	return DIF_FLT_ILLOP;
}

static int
fake_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	if (addr < USER_BASE || addr - USER_BASE > USER_SIZE ||
	    len > USER_SIZE - (addr - USER_BASE))
		return DIF_FLT_BADADDR;
	memcpy(buf, user_mem + (addr - USER_BASE), len);
	return 0;
}

static const dif_host_t host = { fake_builtin, fake_uread };

/* copyout(), copyoutstr(): a host that lets them write user memory */
static int
fake_uwrite(void *arg, uint64_t addr, const void *buf, size_t len)
{
	if (addr < USER_BASE || addr - USER_BASE > USER_SIZE ||
	    len > USER_SIZE - (addr - USER_BASE))
		return DIF_FLT_BADADDR;
	memcpy(user_mem + (addr - USER_BASE), buf, len);
	return 0;
}

static const dif_host_t host_w = { fake_builtin, fake_uread, NULL,
    fake_uwrite };

static char scratch[4096];
static char gstr[32];
static dif_gvar_t globals[2];
static dif_vstate_t vstate = { globals, 2, NULL };

/* Two user globals: 0x500 an integer, 0x501 a string of 16 bytes. */
static dif_var_t vartab[] = {
	{ 1, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, DIFV_F_REF | DIFV_F_MOD,
	    { DIF_TYPE_CTF, DIF_CKIND_INTEGER, DIF_TF_SIGNED, 0, 8 } },
	{ 3, 0x501, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, DIFV_F_REF | DIFV_F_MOD,
	    { DIF_TYPE_STRING, DIF_CKIND_UNKNOWN, DIF_TF_BYREF, 0, 16 } },
};

static void
reset(uint32_t strsize)
{
	dif_mstate_init(&ms, &host, NULL, &vstate, scratch, sizeof(scratch),
	    strsize);
	ms.dm_regions[0].dr_base = (uintptr_t)execname;
	ms.dm_regions[0].dr_size = sizeof(execname);
	ms.dm_nregions = 1;
}

static uint64_t
arith(uint32_t op, uint64_t a, uint64_t b)
{
	uint64_t ints[] = { a, b };
	dif_instr_t prog[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_SETX(1, 2),
		DIF_INSTR_FMT(op, 1, 2, 3),
		DIF_INSTR_RET(3),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), ints, 2, NULL, 0);

	reset(256);
	return run(&d);
}

static uint64_t
unary(uint32_t op, uint64_t a)
{
	uint64_t ints[] = { a };
	dif_instr_t prog[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_FMT(op, 1, 0, 2),
		DIF_INSTR_RET(2),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), ints, 1, NULL, 0);

	reset(256);
	return run(&d);
}

static void
test_arith(void)
{
	tap_is(arith(DIF_OP_ADD, 2, 3), 5, "add");
	tap_is(arith(DIF_OP_SUB, 2, 3), -1, "sub");
	tap_is(arith(DIF_OP_MUL, 7, -3), -21, "mul");
	tap_is(arith(DIF_OP_SDIV, -7, 2), -3, "sdiv rounds toward zero");
	tap_is(arith(DIF_OP_UDIV, -8, 2), 0x7ffffffffffffffcULL, "udiv");
	tap_is(arith(DIF_OP_SREM, -7, 2), -1, "srem");
	tap_is(arith(DIF_OP_UREM, -7, 16), 9, "urem");
	tap_is(arith(DIF_OP_SDIV, INT64_MIN, -1), INT64_MIN,
	    "sdiv INT64_MIN / -1 wraps");
	tap_is(arith(DIF_OP_SREM, INT64_MIN, -1), 0, "srem INT64_MIN % -1");
	tap_is(arith(DIF_OP_AND, 0xf0f0, 0xff00), 0xf000, "and");
	tap_is(arith(DIF_OP_OR, 0xf0f0, 0x0f00), 0xfff0, "or");
	tap_is(arith(DIF_OP_XOR, 0xf0f0, 0xff00), 0x0ff0, "xor");
	tap_is(arith(DIF_OP_SLL, 1, 40), 1ULL << 40, "sll");
	tap_is(arith(DIF_OP_SRL, -16, 2), (uint64_t)-16 >> 2, "srl logical");
	tap_is(arith(DIF_OP_SRA, -16, 2), -4, "sra arithmetic");
	tap_is(unary(DIF_OP_NOT, 0), -1, "not");
	tap_is(unary(DIF_OP_MOV, 77), 77, "mov");
}

/* cmp a, b; bXX: returns 1 if the branch is taken. */
static uint64_t
branch(uint32_t op, uint64_t a, uint64_t b, int tst)
{
	uint64_t ints[] = { a, b, 1 };
	dif_instr_t prog[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_SETX(1, 2),
		tst ? DIF_INSTR_TST(1) : DIF_INSTR_CMP(DIF_OP_CMP, 1, 2),
		DIF_INSTR_BRANCH(op, 5),
		DIF_INSTR_RET(0),
		DIF_INSTR_SETX(2, 3),
		DIF_INSTR_RET(3),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), ints, 3, NULL, 0);

	reset(256);
	return run(&d);
}

static void
test_branches(void)
{
	static const int64_t pairs[][2] = {
		{ 1, 2 }, { 2, 1 }, { 2, 2 }, { -1, 1 }, { 1, -1 }, { -5, -5 },
	};
	static const uint32_t ops[] = {
		DIF_OP_BA, DIF_OP_BE, DIF_OP_BNE, DIF_OP_BG, DIF_OP_BGU,
		DIF_OP_BGE, DIF_OP_BGEU, DIF_OP_BL, DIF_OP_BLU, DIF_OP_BLE,
		DIF_OP_BLEU,
	};
	size_t i, j;
	int bad = 0;

	for (i = 0; i < NELEM(ops); i++) {
		for (j = 0; j < NELEM(pairs); j++) {
			int64_t a = pairs[j][0], b = pairs[j][1];
			uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
			int want = 0;

			switch (ops[i]) {
			case DIF_OP_BA: want = 1; break;
			case DIF_OP_BE: want = a == b; break;
			case DIF_OP_BNE: want = a != b; break;
			case DIF_OP_BG: want = a > b; break;
			case DIF_OP_BGU: want = ua > ub; break;
			case DIF_OP_BGE: want = a >= b; break;
			case DIF_OP_BGEU: want = ua >= ub; break;
			case DIF_OP_BL: want = a < b; break;
			case DIF_OP_BLU: want = ua < ub; break;
			case DIF_OP_BLE: want = a <= b; break;
			case DIF_OP_BLEU: want = ua <= ub; break;
			}
			if (branch(ops[i], ua, ub, 0) != (uint64_t)want) {
				printf("# %s %lld, %lld: want %d\n",
				    dif_op_name(ops[i]), (long long)a,
				    (long long)b, want);
				bad++;
			}
		}
		tap_ok(bad == 0, "%s after cmp", dif_op_name(ops[i]));
		bad = 0;
	}
	tap_is(branch(DIF_OP_BE, 0, 0, 1), 1, "tst 0; be taken");
	tap_is(branch(DIF_OP_BE, 5, 0, 1), 0, "tst 5; be not taken");
	tap_is(branch(DIF_OP_BNE, 5, 0, 1), 1, "tst 5; bne taken");
	tap_is(branch(DIF_OP_BL, -5, 0, 1), 0, "tst clears n: bl not taken");
	tap_is(branch(DIF_OP_BLU, 0, 1, 1), 0, "tst clears c: blu not taken");
}

static void
test_strings(void)
{
	char strs[] = "\0abc\0abd\0abc\0ab\0";
	uint64_t ints[] = { 1 };
	dif_instr_t prog[] = {
		DIF_INSTR_SETS(1, 1),
		DIF_INSTR_SETS(0, 2),		/* patched per case */
		DIF_INSTR_CMP(DIF_OP_SCMP, 1, 2),
		DIF_INSTR_BRANCH(DIF_OP_BE, 6),	/* patched per case */
		DIF_INSTR_RET(0),
		DIF_INSTR_NOP,
		DIF_INSTR_SETX(0, 3),
		DIF_INSTR_RET(3),
	};
	dif_instr_t sets[] = {
		DIF_INSTR_SETS(1, 1),
		DIF_INSTR_RET(1),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), ints, 1, strs, sizeof(strs));
	dif_difo_t ds = mkdifo(sets, NELEM(sets), NULL, 0, strs, sizeof(strs));

	reset(256);
	tap_is(run(&ds), (uintptr_t)(strs + 1), "sets yields strtab address");

	prog[1] = DIF_INSTR_SETS(9, 2);
	prog[3] = DIF_INSTR_BRANCH(DIF_OP_BE, 6);
	reset(256);
	tap_is(run(&d), 1, "scmp equal strings at different offsets: be");
	prog[1] = DIF_INSTR_SETS(5, 2);
	prog[3] = DIF_INSTR_BRANCH(DIF_OP_BL, 6);
	reset(256);
	tap_is(run(&d), 1, "scmp \"abc\" < \"abd\": bl");
	prog[3] = DIF_INSTR_BRANCH(DIF_OP_BE, 6);
	reset(256);
	tap_is(run(&d), 0, "scmp \"abc\" != \"abd\"");
	prog[1] = DIF_INSTR_SETS(13, 2);
	prog[3] = DIF_INSTR_BRANCH(DIF_OP_BG, 6);
	reset(256);
	tap_is(run(&d), 1, "scmp \"abc\" > \"ab\": bg");
	prog[1] = DIF_INSTR_SETS(13, 2);
	prog[3] = DIF_INSTR_BRANCH(DIF_OP_BE, 6);
	reset(2);
	tap_is(run(&d), 1, "scmp honours strsize: \"abc\" == \"ab\" at 2");
}

static void
test_globals(void)
{
	uint64_t ints[] = { 31337 };
	char strs[] = "\0x\0s\0hello world\0";
	dif_instr_t iprog[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_STV(DIF_OP_STGS, 0x500, 1),
		DIF_INSTR_LDV(DIF_OP_LDGS, 0x500, 2),
		DIF_INSTR_RET(2),
	};
	dif_instr_t sprog[] = {
		DIF_INSTR_SETS(5, 1),
		DIF_INSTR_STV(DIF_OP_STGS, 0x501, 1),
		DIF_INSTR_LDV(DIF_OP_LDGS, 0x501, 2),
		DIF_INSTR_RET(2),
	};
	dif_difo_t d = mkdifo(iprog, NELEM(iprog), ints, 1, strs, sizeof(strs));
	uint64_t v;

	memset(globals, 0, sizeof(globals));
	globals[1].dg_data = gstr;
	globals[1].dg_size = 16;
	d.dd_vartab = vartab;
	d.dd_varlen = NELEM(vartab);
	reset(256);
	tap_is(run(&d), 31337, "stgs/ldgs integer global");
	tap_ok(globals[0].dg_value == 31337 && globals[0].dg_set,
	    "integer global stored in dg_value");

	d.dd_buf = sprog;
	d.dd_len = NELEM(sprog);
	reset(256);
	v = run(&d);
	tap_is(v, (uintptr_t)gstr, "ldgs of a string global is dg_data");
	tap_str(gstr, "hello world", "string global copied");
	reset(4);
	run(&d);
	tap_str(gstr, "hell", "string global: strsize characters, then NUL");

	/* a global whose id is beyond the vstate */
	vstate.dv_nglobals = 1;
	reset(256);
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_ILLOP,
	    "global out of the vstate: illegal operation");
	vstate.dv_nglobals = 2;
}

static void
test_builtins(void)
{
	uint64_t ints[] = { 3 };
	dif_instr_t prog[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 1),
		DIF_INSTR_RET(1),
	};
	dif_instr_t aprog[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 1, 2),
		DIF_INSTR_RET(2),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), NULL, 0, NULL, 0);
	dif_difo_t da = mkdifo(aprog, NELEM(aprog), ints, 1, NULL, 0);
	uint64_t v;

	reset(256);
	tap_is(run(&d), 42, "ldgs arg0 via the host");
	prog[0] = DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 1);
	reset(256);
	tap_is(run(&d), 1234, "ldgs pid via the host");
	prog[0] = DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_CURTHREAD, 1);
	reset(256);
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_KPRIV && ms.dm_faultpc == 0,
	    "host fault from a built-in is the DIF fault");
	reset(256);
	tap_is(run(&da), 103, "ldga args[3]");
	aprog[1] = DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_UREGS, 1, 2);
	reset(256);
	tap_is(run(&da), 203, "ldga uregs[3]");
}

static void
test_uload(void)
{
	uint64_t ints[] = { USER_BASE + 16, USER_SIZE + USER_BASE - 2 };
	dif_instr_t prog[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_LOAD(DIF_OP_ULDSB, 1, 2),
		DIF_INSTR_RET(2),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), ints, 2, NULL, 0);
	uint64_t x = 0x8899aabbccddeeffULL;
	uint64_t v;

	memcpy(user_mem + 16, &x, 8);
	reset(256);
	tap_is(run(&d), (int8_t)0xff, "uldsb sign-extends");
	prog[1] = DIF_INSTR_LOAD(DIF_OP_ULDUB, 1, 2);
	reset(256);
	tap_is(run(&d), 0xff, "uldub");
	prog[1] = DIF_INSTR_LOAD(DIF_OP_ULDSH, 1, 2);
	reset(256);
	tap_is(run(&d), (int16_t)0xeeff, "uldsh");
	prog[1] = DIF_INSTR_LOAD(DIF_OP_ULDUW, 1, 2);
	reset(256);
	tap_is(run(&d), 0xccddeeffULL, "ulduw");
	prog[1] = DIF_INSTR_LOAD(DIF_OP_ULDSW, 1, 2);
	reset(256);
	tap_is(run(&d), (int32_t)0xccddeeff, "uldsw");
	prog[1] = DIF_INSTR_LOAD(DIF_OP_ULDX, 1, 2);
	reset(256);
	tap_is(run(&d), x, "uldx");
	prog[1] = DIF_INSTR_LOAD(DIF_OP_RLDUH, 1, 2);
	reset(256);
	tap_is(run(&d), 0xeeff, "rlduh reads user memory too");
	prog[0] = DIF_INSTR_SETX(1, 1);
	prog[1] = DIF_INSTR_LOAD(DIF_OP_ULDX, 1, 2);
	reset(256);
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_BADADDR &&
	    ms.dm_illval == USER_BASE + USER_SIZE - 2 && ms.dm_faultpc == 1,
	    "uldx across the end of user memory faults");
}

static void
test_faults(void)
{
	uint64_t ints[] = { 10, 0, 0x1234 };
	char strs[] = "\0abcdefghijklmnop\0";
	dif_instr_t div[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_SETX(1, 2),
		DIF_INSTR_NOP,
		DIF_INSTR_FMT(DIF_OP_UDIV, 1, 2, 3),
		DIF_INSTR_RET(3),
	};
	dif_instr_t ld[] = {
		DIF_INSTR_SETX(2, 1),
		DIF_INSTR_LOAD(DIF_OP_LDX, 1, 2),
		DIF_INSTR_RET(2),
	};
	dif_instr_t al[] = {
		DIF_INSTR_SETS(1, 1),
		DIF_INSTR_LOAD(DIF_OP_LDUW, 1, 2),
		DIF_INSTR_RET(2),
	};
	dif_difo_t d = mkdifo(div, NELEM(div), ints, 3, strs, sizeof(strs));
	uint32_t ops[] = { DIF_OP_SDIV, DIF_OP_UDIV, DIF_OP_SREM, DIF_OP_UREM };
	uint64_t v;
	size_t i;

	for (i = 0; i < NELEM(ops); i++) {
		div[3] = DIF_INSTR_FMT(ops[i], 1, 2, 3);
		reset(256);
		v = run(&d);
		tap_ok(v == 0 && ms.dm_fault == DIF_FLT_DIVZERO &&
		    ms.dm_faultpc == 3, "%s by zero: divide-by-zero at 3",
		    dif_op_name(ops[i]));
	}
	tap_str(dif_fault_name(ms.dm_fault), "divide-by-zero", "fault name");

	d.dd_buf = ld;
	d.dd_len = NELEM(ld);
	reset(256);
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_BADADDR &&
	    ms.dm_illval == 0x1234 && ms.dm_faultpc == 1,
	    "ldx from an unknown address: invalid address (0x1234)");

	/* strtab + 1 is loadable but not 4-aligned (strtab is malloc'd) */
	d.dd_buf = al;
	d.dd_len = NELEM(al);
	d.dd_strtab = malloc(sizeof(strs));
	memcpy(d.dd_strtab, strs, sizeof(strs));
	reset(256);
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_BADALIGN,
	    "misaligned lduw: invalid alignment");
	al[0] = DIF_INSTR_SETS(4, 1);
	reset(256);
	memcpy(&v, d.dd_strtab + 4, 4);
	tap_is(run(&d), (uint32_t)v, "aligned lduw from the strtab");
	al[0] = DIF_INSTR_SETS(16, 1);
	reset(256);
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_BADADDR,
	    "lduw past the end of the strtab: invalid address");
	free(d.dd_strtab);

	/* the instruction budget */
	d = mkdifo(div, NELEM(div), ints, 3, NULL, 0);
	div[3] = DIF_INSTR_FMT(DIF_OP_ADD, 1, 2, 3);
	reset(256);
	ms.dm_budget = 3;
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_ILLOP && ms.dm_faultpc == 3,
	    "instruction budget exhausted: illegal operation");
	reset(256);
	tap_is(run(&d), 10, "same program within the default budget");

	tap_str(dif_fault_name(DIF_FLT_NOSCRATCH), "out of scratch space",
	    "fault name: noscratch");
	tap_str(dif_fault_name(77), "unknown fault", "fault name: unknown");
}

static void
test_scratch(void)
{
	uint64_t ints[] = { 24, 0x1122334455667788ULL, 5000, 8 };
	char strs[] = "\0copyme!\0";
	dif_instr_t prog[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_ALLOCS(1, 1),
		DIF_INSTR_SETX(1, 2),
		DIF_INSTR_STORE(DIF_OP_STX, 2, 1),
		DIF_INSTR_LOAD(DIF_OP_LDUB, 1, 3),
		DIF_INSTR_LOAD(DIF_OP_LDX, 1, 4),
		DIF_INSTR_FMT(DIF_OP_ADD, 3, 4, 5),
		DIF_INSTR_RET(5),
	};
	dif_instr_t big[] = {
		DIF_INSTR_SETX(2, 1),
		DIF_INSTR_ALLOCS(1, 1),
		DIF_INSTR_RET(1),
	};
	dif_instr_t bad[] = {
		DIF_INSTR_SETX(1, 1),
		DIF_INSTR_SETX(0, 2),
		DIF_INSTR_STORE(DIF_OP_STW, 1, 2),
		DIF_INSTR_RET(2),
	};
	dif_instr_t cp[] = {
		DIF_INSTR_SETX(3, 1),
		DIF_INSTR_ALLOCS(1, 2),
		DIF_INSTR_SETS(1, 3),
		DIF_INSTR_COPYS(3, 1, 2),
		DIF_INSTR_RET(2),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), ints, 4, strs, sizeof(strs));
	uint64_t v;

	reset(256);
	tap_is(run(&d), 0x1122334455667788ULL + 0x88,
	    "allocs, stx, ldub and ldx through scratch");
	tap_ok(ms.dm_scratch_used >= 24, "scratch used");

	d.dd_buf = big;
	d.dd_len = NELEM(big);
	reset(256);
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_NOSCRATCH &&
	    ms.dm_faultpc == 1, "allocs beyond scratch: out of scratch space");

	d.dd_buf = bad;
	d.dd_len = NELEM(bad);
	reset(256);
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_BADADDR &&
	    ms.dm_illval == 24, "stw to a wild address: invalid address");

	d.dd_buf = cp;
	d.dd_len = NELEM(cp);
	reset(256);
	v = run(&d);
	tap_ok(v != 0 && memcmp((char *)(uintptr_t)v, "copyme!", 8) == 0,
	    "copys from the strtab into scratch");
}

static uint64_t
call(uint32_t subr, int nargs, uint64_t a0, uint64_t a1, uint64_t a2)
{
	uint64_t args[3] = { a0, a1, a2 };

	ms.dm_fault = 0;
	return dif_subr_call(subr, args, nargs, NULL, &ms);
}

#define S(x)	((uint64_t)(uintptr_t)(x))
#define R(x)	((const char *)(uintptr_t)(x))

static char region[512];
static size_t region_used;

/* Put a string into the loadable test region. */
static uint64_t
str(const char *s)
{
	char *p = region + region_used;

	strcpy(p, s);
	region_used += strlen(s) + 1;
	return S(p);
}

static void
subr_reset(uint32_t strsize)
{
	reset(strsize);
	ms.dm_regions[1].dr_base = (uintptr_t)region;
	ms.dm_regions[1].dr_size = sizeof(region);
	ms.dm_nregions = 2;
}

static void
sub_is(uint64_t got, const char *want, const char *name)
{
	tap_str(got != 0 && ms.dm_fault == 0 ? R(got) : NULL, want, "%s", name);
}

static void
test_subr_strings(void)
{
	uint64_t hello, v;

	subr_reset(256);
	hello = str("hello");
	tap_is(call(DIF_SUBR_STRLEN, 1, hello, 0, 0), 5, "strlen(\"hello\")");
	sub_is(call(DIF_SUBR_STRJOIN, 2, str("foo"), str("bar"), 0), "foobar",
	    "strjoin");
	sub_is(call(DIF_SUBR_SUBSTR, 2, hello, 1, 0), "ello", "substr(s, 1)");
	sub_is(call(DIF_SUBR_SUBSTR, 2, hello, -2, 0), "lo", "substr(s, -2)");
	sub_is(call(DIF_SUBR_SUBSTR, 3, hello, 1, 3), "ell", "substr(s, 1, 3)");
	sub_is(call(DIF_SUBR_SUBSTR, 3, hello, -10, 7), "he",
	    "substr(s, -10, 7)");
	sub_is(call(DIF_SUBR_SUBSTR, 3, hello, 1, -1), "ell",
	    "substr(s, 1, -1)");
	sub_is(call(DIF_SUBR_SUBSTR, 2, hello, 10, 0), "", "substr(s, 10)");
	sub_is(call(DIF_SUBR_SUBSTR, 3, hello, 3, 100), "lo",
	    "substr(s, 3, 100)");
	tap_is(call(DIF_SUBR_INDEX, 2, hello, str("l"), 0), 2, "index");
	tap_is(call(DIF_SUBR_RINDEX, 2, hello, str("l"), 0), 3, "rindex");
	tap_is(call(DIF_SUBR_INDEX, 3, hello, str("l"), 3), 3,
	    "index with start");
	tap_is(call(DIF_SUBR_RINDEX, 3, hello, str("l"), 2), 2,
	    "rindex with start");
	tap_is(call(DIF_SUBR_INDEX, 2, hello, str("lo"), 0), 3,
	    "index of a substring");
	tap_is(call(DIF_SUBR_INDEX, 2, hello, str("z"), 0), -1,
	    "index not found");
	tap_is(call(DIF_SUBR_INDEX, 3, hello, str("l"), 9), -1,
	    "index start past the end");
	tap_is(call(DIF_SUBR_INDEX, 2, hello, str(""), 0), 0,
	    "index of \"\"");
	tap_is(call(DIF_SUBR_RINDEX, 2, hello, str(""), 0), 5,
	    "rindex of \"\"");
	tap_is(call(DIF_SUBR_INDEX, 3, hello, str(""), 9), 5,
	    "index of \"\" past the end is the length");
	tap_is(call(DIF_SUBR_STRCHR, 2, hello, 'l', 0), hello + 2, "strchr");
	tap_is(call(DIF_SUBR_STRRCHR, 2, hello, 'l', 0), hello + 3,
	    "strrchr");
	tap_is(call(DIF_SUBR_STRCHR, 2, hello, 'z', 0), 0,
	    "strchr not found");
	tap_is(call(DIF_SUBR_STRSTR, 2, hello, str("ll"), 0), hello + 2,
	    "strstr");
	tap_is(call(DIF_SUBR_STRSTR, 2, hello, str("lx"), 0), 0,
	    "strstr not found");
	sub_is(call(DIF_SUBR_TOUPPER, 1, str("Hello, World 1"), 0, 0),
	    "HELLO, WORLD 1", "toupper");
	sub_is(call(DIF_SUBR_TOLOWER, 1, str("Hello, World 1"), 0, 0),
	    "hello, world 1", "tolower");

	sub_is(call(DIF_SUBR_LLTOSTR, 1, -123, 0, 0), "-123", "lltostr(-123)");
	sub_is(call(DIF_SUBR_LLTOSTR, 1, 0, 0, 0), "0", "lltostr(0)");
	sub_is(call(DIF_SUBR_LLTOSTR, 2, 255, 16, 0), "0xff",
	    "lltostr(255, 16)");
	sub_is(call(DIF_SUBR_LLTOSTR, 2, 0, 16, 0), "0x0", "lltostr(0, 16)");
	sub_is(call(DIF_SUBR_LLTOSTR, 2, 8, 8, 0), "010", "lltostr(8, 8)");
	sub_is(call(DIF_SUBR_LLTOSTR, 2, 5, 2, 0), "101", "lltostr(5, 2)");
	sub_is(call(DIF_SUBR_LLTOSTR, 1, INT64_MIN, 0, 0),
	    "-9223372036854775808", "lltostr(INT64_MIN)");
	v = call(DIF_SUBR_LLTOSTR, 2, 5, 1, 0);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_ILLOP,
	    "lltostr base 1: illegal operation");

	tap_is(call(DIF_SUBR_STRTOLL, 1, str("  -42"), 0, 0), -42,
	    "strtoll(\"  -42\")");
	tap_is(call(DIF_SUBR_STRTOLL, 2, str("0x1f"), 16, 0), 31,
	    "strtoll(\"0x1f\", 16)");
	tap_is(call(DIF_SUBR_STRTOLL, 2, str("777"), 8, 0), 511,
	    "strtoll(\"777\", 8)");
	tap_is(call(DIF_SUBR_STRTOLL, 1, str("12abc"), 0, 0), 12,
	    "strtoll stops at a non-digit");
}

static void
test_subr_paths(void)
{
	static const struct {
		const char *in, *base, *dir;
	} cases[] = {
		{ "/usr/lib/libc.so", "libc.so", "/usr/lib" },
		{ "/usr/lib/", "lib", "/usr" },
		{ "foo", "foo", "." },
		{ "/", "/", "/" },
		{ "///", "/", "/" },
		{ "/foo", "foo", "/" },
		{ "", ".", "." },
		{ "a//b", "b", "a" },
	};
	static const struct {
		const char *in, *out;
	} clean[] = {
		{ "/foo//bar/./baz/../qux", "/foo/bar/qux" },
		{ "/a/b/../../c", "/c" },
		{ "/a/..b/.c", "/a/..b/.c" },
		{ "./x", "./x" },
	};
	char name[128];
	size_t i;

	for (i = 0; i < NELEM(cases); i++) {
		subr_reset(256);
		snprintf(name, sizeof(name), "basename(\"%s\")", cases[i].in);
		sub_is(call(DIF_SUBR_BASENAME, 1, str(cases[i].in), 0, 0),
		    cases[i].base, name);
		snprintf(name, sizeof(name), "dirname(\"%s\")", cases[i].in);
		sub_is(call(DIF_SUBR_DIRNAME, 1, str(cases[i].in), 0, 0),
		    cases[i].dir, name);
	}
	for (i = 0; i < NELEM(clean); i++) {
		subr_reset(256);
		snprintf(name, sizeof(name), "cleanpath(\"%s\")", clean[i].in);
		sub_is(call(DIF_SUBR_CLEANPATH, 1, str(clean[i].in), 0, 0),
		    clean[i].out, name);
	}
}

/* json(): want NULL for "no value" */
static void
json_is(const char *js, const char *sel, const char *want, uint32_t strsize)
{
	uint64_t v;

	subr_reset(strsize);
	region_used = 0;
	v = call(DIF_SUBR_JSON, 2, str(js), str(sel), 0);
	if (want == NULL)
		tap_ok(v == 0 && ms.dm_fault == 0, "json(%s, %s) is NULL",
		    js, sel);
	else
		sub_is(v, want, sel);
}

static void
test_subr_json(void)
{
	static const char doc[] = "{ \"name\": \"d\\\"q\\u00e9\", "
	    "\"n\": -12.5e+3, \"z\": 0, \"t\": true, \"f\": false, "
	    "\"nil\": null, \"o\": {\"p\": {\"q\": [1, [2, 3], {\"r\": "
	    "\"deep\"}]}}, \"e\": [], \"eo\": {}, \"dup\": 1, \"dup\": 2,"
	    " \"a.b\": 7 }";

	json_is(doc, "name", "d\\\"q\\u00e9", 256);
	json_is(doc, "n", "-12.5e+3", 256);
	json_is(doc, "z", "0", 256);
	json_is(doc, "t", "true", 256);
	json_is(doc, "f", "false", 256);
	json_is(doc, "nil", "null", 256);
	json_is(doc, "o.p.q[0]", "1", 256);
	json_is(doc, "o.p.q[1][1]", "3", 256);
	json_is(doc, "o.p.q[2].r", "deep", 256);
	json_is(doc, "o.p.q[1]", "[2, 3]", 256);
	json_is(doc, "o.p", "{\"q\": [1, [2, 3], {\"r\": \"deep\"}]}", 256);
	json_is(doc, "e", "[]", 256);
	json_is(doc, "eo", "{}", 256);
	json_is(doc, "dup", "1", 256);
	json_is(doc, "o.p.q[3]", NULL, 256);
	json_is(doc, "e[0]", NULL, 256);
	json_is(doc, "missing", NULL, 256);
	json_is(doc, "o.missing", NULL, 256);
	json_is(doc, "n.x", NULL, 256);
	json_is(doc, "o[0]", NULL, 256);
	json_is(doc, "a.b", NULL, 256);
	json_is(doc, "o..p", NULL, 256);
	json_is(doc, "o.", NULL, 256);
	json_is(doc, ".o", NULL, 256);
	json_is(doc, "o.p.q[]", NULL, 256);
	json_is(doc, "o.p.q[1", NULL, 256);
	json_is(doc, "o.p.q[0]x", NULL, 256);
	json_is(doc, "", NULL, 256);
	json_is("[5, {\"k\": 6}]", "[1].k", "6", 256);
	json_is("{\"a\": 01}", "a", NULL, 256);
	json_is("{\"a\": 1x}", "a", NULL, 256);
	json_is("{\"a\": 1", "a", NULL, 256);
	json_is("{\"a\" 1}", "a", NULL, 256);
	json_is("{\"a\": tru}", "a", NULL, 256);
	json_is("{\"a\": \"\\x\"}", "a", NULL, 256);
	json_is("{\"a\": \"\\u12g4\"}", "a", NULL, 256);
	json_is("{\"a\": [1,], \"b\": 2}", "b", NULL, 256);
	json_is("{\"a\": -, \"b\": 2}", "b", NULL, 256);
	json_is("{\"a\": 1.}", "a", NULL, 256);
	json_is("{\"b\": 2, \"a\": [}", "b", "2", 256);
	/* a text longer than strsize is cut there: its end is missing */
	json_is("{\"a\": \"abcdefghij\"}", "a", NULL, 18);
	json_is("{\"a\": \"abcdefghij\"}", "a", "abcdefghij", 19);
	/* nesting is bounded: 40 arrays deep is too deep to skip, 31 is not */
	json_is("{\"a\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], \"b\": 1}", "b", NULL,
	    256);
	json_is("{\"a\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], \"b\": 1}", "b", "1",
	    256);
	json_is("{\"a\": [[[[[[[[[[]]]]]]]]]], \"b\": 1}", "b", "1", 256);
}

static void
test_subr_net(void)
{
	/* s: inet_ntop() and inet_ntoa6(a, 1); n, where not s: inet_ntoa6(a) */
	static const struct {
		uint8_t a[16];
		const char *s;
		const char *n;
	} v6[] = {
		{ { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x14, 0x4f, 0xff,
		    0xfe, 0x0b, 0x76, 0xc8 }, "fe80::214:4fff:fe0b:76c8" },
		{ { [15] = 1 }, "::1" },
		{ { 0 }, "::" },
		{ { [10] = 0xff, [11] = 0xff, [12] = 1, [13] = 2, [14] = 3,
		    [15] = 4 }, "::ffff:1.2.3.4", "1.2.3.4" },
		{ { [12] = 10, [15] = 7 }, "::10.0.0.7", "10.0.0.7" },
		{ { [14] = 1, [15] = 0 }, "::0.0.1.0", "0.0.1.0" },
		{ { [10] = 0xff, [11] = 0xfe, [12] = 1 }, "::fffe:100:0" },
		{ { 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3 },
		    "1:0:0:2::3" },
		{ { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, "2001:db8::1" },
		{ { 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8 },
		    "1:2:3:4:5:6:7:8" },
	};
	uint8_t ip4[4] = { 192, 168, 1, 10 };
	char name[64];
	size_t i;

	subr_reset(256);
	memcpy(region, ip4, 4);
	region_used = 4;
	sub_is(call(DIF_SUBR_INET_NTOA, 1, S(region), 0, 0), "192.168.1.10",
	    "inet_ntoa");
	sub_is(call(DIF_SUBR_INET_NTOP, 2, AF_INET, S(region), 0),
	    "192.168.1.10", "inet_ntop(AF_INET)");
	for (i = 0; i < NELEM(v6); i++) {
		subr_reset(256);
		memcpy(region, v6[i].a, 16);
		snprintf(name, sizeof(name), "inet_ntoa6: %s", v6[i].s);
		sub_is(call(DIF_SUBR_INET_NTOA6, 1, S(region), 0, 0),
		    v6[i].n != NULL ? v6[i].n : v6[i].s, name);
		snprintf(name, sizeof(name), "inet_ntoa6(a, 2): %s", v6[i].s);
		sub_is(call(DIF_SUBR_INET_NTOA6, 2, S(region), 2, 0), v6[i].s,
		    name);
		snprintf(name, sizeof(name), "inet_ntop: %s", v6[i].s);
		sub_is(call(DIF_SUBR_INET_NTOP, 2, AF_INET6, S(region), 0),
		    v6[i].s, name);
		snprintf(name, sizeof(name), "inet_ntoa6(a, 0): %s", v6[i].s);
		sub_is(call(DIF_SUBR_INET_NTOA6, 2, S(region), 0, 0),
		    v6[i].n != NULL ? v6[i].n : v6[i].s, name);
	}
	sub_is(call(DIF_SUBR_INET_NTOP, 2, AF_INET6, S(region), 0),
	    "1:2:3:4:5:6:7:8", "inet_ntop(AF_INET6)");
	call(DIF_SUBR_INET_NTOP, 2, 99, S(region), 0);
	tap_is(ms.dm_fault, DIF_FLT_ILLOP, "inet_ntop of an unknown family");

	tap_is(call(DIF_SUBR_HTONS, 1, 0x1234, 0, 0), 0x3412, "htons");
	tap_is(call(DIF_SUBR_NTOHL, 1, 0x12345678, 0, 0), 0x78563412,
	    "ntohl");
	tap_is(call(DIF_SUBR_HTONLL, 1, 0x0102030405060708ULL, 0, 0),
	    0x0807060504030201ULL, "htonll");
}

static void
test_subr_memory(void)
{
	uint64_t v, p;

	subr_reset(256);
	strcpy((char *)user_mem + 100, "user string");
	sub_is(call(DIF_SUBR_COPYINSTR, 1, USER_BASE + 100, 0, 0),
	    "user string", "copyinstr");
	sub_is(call(DIF_SUBR_COPYINSTR, 2, USER_BASE + 100, 4, 0), "user",
	    "copyinstr with a length");
	subr_reset(6);
	sub_is(call(DIF_SUBR_COPYINSTR, 1, USER_BASE + 100, 0, 0), "user s",
	    "copyinstr bounded by strsize characters");
	sub_is(call(DIF_SUBR_COPYINSTR, 2, USER_BASE + 100, 9, 0), "user s",
	    "copyinstr's length bounded by strsize");
	/* a string that ends just before unmapped memory */
	strcpy((char *)user_mem + USER_SIZE - 4, "end");
	subr_reset(256);
	sub_is(call(DIF_SUBR_COPYINSTR, 1, USER_BASE + USER_SIZE - 4, 0, 0),
	    "end", "copyinstr stops at the NUL before unmapped memory");
	v = call(DIF_SUBR_COPYINSTR, 1, 0x20, 0, 0);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_BADADDR &&
	    ms.dm_illval == 0x20, "copyinstr of a bad address faults");

	v = call(DIF_SUBR_COPYIN, 2, USER_BASE + 100, 4, 0);
	tap_ok(v != 0 && (v & 7) == 0 && memcmp(R(v), "user", 4) == 0,
	    "copyin into aligned scratch");

	/* copyout(), copyoutstr(): only through a host that writes */
	(void)call(DIF_SUBR_COPYOUT, 3, v, USER_BASE + 200, 4);
	tap_ok(ms.dm_fault == DIF_FLT_UPRIV && ms.dm_illval == USER_BASE + 200,
	    "copyout without a writing host faults");
	ms.dm_host = &host_w;
	memset(user_mem + 200, 'x', 16);
	(void)call(DIF_SUBR_COPYOUT, 3, v, USER_BASE + 200, 4);
	tap_ok(ms.dm_fault == 0 && memcmp(user_mem + 200, "userxx", 6) == 0,
	    "copyout writes n bytes");
	(void)call(DIF_SUBR_COPYOUT, 3, v, USER_BASE + 200, 4096);
	tap_is(ms.dm_fault, DIF_FLT_BADADDR,
	    "copyout of more than the source holds faults");
	(void)call(DIF_SUBR_COPYOUT, 3, v, 0x20, 4);
	tap_ok(ms.dm_fault == DIF_FLT_BADADDR && ms.dm_illval == 0x20,
	    "copyout to a bad address faults");
	(void)call(DIF_SUBR_COPYOUTSTR, 3, str("ab"), USER_BASE + 200, 16);
	tap_ok(ms.dm_fault == 0 && memcmp(user_mem + 200, "ab\0rxx", 6) == 0,
	    "copyoutstr writes the string and its NUL");
	(void)call(DIF_SUBR_COPYOUTSTR, 3, str("wxyz"), USER_BASE + 200, 2);
	tap_ok(ms.dm_fault == 0 && memcmp(user_mem + 200, "wx\0rxx", 6) == 0,
	    "copyoutstr writes at most maxlen bytes");
	ms.dm_host = &host;
	p = call(DIF_SUBR_ALLOCA, 1, 10, 0, 0);
	tap_ok(p != 0 && (p & 7) == 0 && dif_vm_inscratch(&ms, p, 10),
	    "alloca returns aligned scratch");
	call(DIF_SUBR_COPYINTO, 3, USER_BASE + 105, 6, p);
	tap_ok(ms.dm_fault == 0 && memcmp(R(p), "string", 6) == 0,
	    "copyinto scratch");
	call(DIF_SUBR_COPYINTO, 3, USER_BASE + 105, 6, S(region));
	tap_is(ms.dm_fault, 0, "copyinto a host region");
	call(DIF_SUBR_BCOPY, 3, str("abc"), p, 4);
	tap_ok(ms.dm_fault == 0 && strcmp(R(p), "abc") == 0, "bcopy");
	call(DIF_SUBR_BCOPY, 3, str("abc"), S(region), 4);
	tap_is(ms.dm_fault, DIF_FLT_BADADDR, "bcopy outside scratch faults");
	call(DIF_SUBR_BCOPY, 3, 0x1000, p, 4);
	tap_is(ms.dm_fault, DIF_FLT_BADADDR, "bcopy from a wild source faults");
	v = call(DIF_SUBR_ALLOCA, 1, (uint64_t)-1, 0, 0);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_NOSCRATCH,
	    "alloca(-1): out of scratch space");

	subr_reset(256);
	v = call(DIF_SUBR_STRLEN, 1, 0x1234, 0, 0);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_BADADDR &&
	    ms.dm_illval == 0x1234, "strlen of a wild pointer faults");
	subr_reset(8);
	sub_is(call(DIF_SUBR_STRJOIN, 2, str("abcd"), str("efgh"), 0),
	    "abcdefgh", "strjoin of exactly strsize characters");
	call(DIF_SUBR_STRJOIN, 2, str("abcd"), str("efghi"), 0);
	tap_is(ms.dm_fault, DIF_FLT_NOSCRATCH,
	    "strjoin longer than strsize: out of scratch space");
	call(DIF_SUBR_STRTOK, 1, str("a b"), 0, 0);
	tap_is(ms.dm_fault, DIF_FLT_ILLOP, "strtok needs two arguments");
	tap_ok(dif_subr_supported(DIF_SUBR_STRTOK) &&
	    !dif_subr_supported(DIF_SUBR_GETF) &&
	    dif_subr_supported(DIF_SUBR_RAND) &&
	    !dif_subr_supported(DIF_SUBR_MAX + 1), "dif_subr_supported");
	call(DIF_SUBR_STRLEN, 0, 0, 0, 0);
	tap_is(ms.dm_fault, DIF_FLT_ILLOP, "strlen without its argument");
	v = call(DIF_SUBR_RAND, 0, 0, 0, 0);
	tap_ok(v != call(DIF_SUBR_RAND, 0, 0, 0, 0), "rand varies");

	/* scratch exhaustion in a string subroutine */
	dif_mstate_init(&ms, &host, NULL, &vstate, scratch, 4, 256);
	ms.dm_regions[0].dr_base = (uintptr_t)region;
	ms.dm_regions[0].dr_size = sizeof(region);
	ms.dm_nregions = 1;
	v = call(DIF_SUBR_TOUPPER, 1, str("longer than four"), 0, 0);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_NOSCRATCH,
	    "toupper with no scratch left: out of scratch space");
}

static void
test_call(void)
{
	char strs[] = "\0hello, world\0";
	dif_instr_t prog[] = {
		DIF_INSTR_SETS(1, 1),
		DIF_INSTR_FLUSHTS,
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 1),
		DIF_INSTR_CALL(DIF_SUBR_STRLEN, 2),
		DIF_INSTR_RET(2),
	};
	dif_instr_t over[] = {
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_RET(1),
	};
	dif_instr_t join[] = {
		DIF_INSTR_SETS(1, 1),
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_EXECNAME, 2),
		DIF_INSTR_FLUSHTS,
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 2),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 1),
		DIF_INSTR_CALL(DIF_SUBR_STRJOIN, 3),
		DIF_INSTR_POPTS,
		DIF_INSTR_CALL(DIF_SUBR_STRLEN, 4),
		DIF_INSTR_FLUSHTS,
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 3),
		DIF_INSTR_CALL(DIF_SUBR_STRLEN, 5),
		DIF_INSTR_FMT(DIF_OP_SLL, 5, 4, 5),
		DIF_INSTR_RET(3),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), NULL, 0, strs, sizeof(strs));
	uint64_t v;

	reset(256);
	tap_is(run(&d), 12, "call strlen with a pushed string");
	d.dd_buf = over;
	d.dd_len = NELEM(over);
	tap_ok(dif_verify(&d, NULL, 0) == -1,
	    "nine pushes: rejected by the verifier");
	/* the VM checks too, for a DIFO that skipped the verifier */
	reset(256);
	v = dif_vm_exec(&d, &ms);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_TUPOFLOW && ms.dm_faultpc == 8,
	    "nine pushes: tuple stack overflow at 8");
	d.dd_buf = join;
	d.dd_len = NELEM(join);
	reset(256);
	v = run(&d);
	tap_str(v != 0 ? R(v) : NULL, "myproghello, world",
	    "strjoin(execname, sets) through the tuple stack");
}

static void
bench(void)
{
	enum { N = 4000 };
	static dif_instr_t prog[N];
	uint64_t ints[] = { 3, 5 };
	dif_difo_t d;
	struct timespec t0, t1;
	double secs;
	int i, reps = 2000;

	prog[0] = DIF_INSTR_SETX(0, 1);
	prog[1] = DIF_INSTR_SETX(1, 2);
	for (i = 2; i < N - 1; i++)
		prog[i] = DIF_INSTR_FMT(i % 3 == 0 ? DIF_OP_ADD :
		    i % 3 == 1 ? DIF_OP_XOR : DIF_OP_MUL, 1, 2, 1 + i % 2);
	prog[N - 1] = DIF_INSTR_RET(1);
	d = mkdifo(prog, N, ints, 2, NULL, 0);
	reset(256);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < reps; i++) {
		ms.dm_budget = DIF_DEFAULT_BUDGET;
		dif_vm_exec(&d, &ms);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# %.0fM DIF instructions/s\n", (double)N * reps / secs / 1e6);
}

int
main(void)
{
	test_arith();
	test_branches();
	test_strings();
	test_globals();
	test_builtins();
	test_uload();
	test_faults();
	test_scratch();
	test_subr_strings();
	test_subr_paths();
	test_subr_net();
	test_subr_json();
	test_subr_memory();
	test_call();
	bench();
	return tap_done();
}
