/*
 * test_dif_vmfast.c: what the DIF VM's fast paths must keep exact.
 *
 * dif_vm_strload() (one region walk, a word-wide NUL scan, then memchr)
 * against a byte-by-byte reference for every length around the word and
 * scan limits, in buffers allocated to the byte so that a sanitizer
 * build catches any read past a region; SCMP's ordering (unsigned
 * bytes, shorter first, cut at strsize); and the instruction budget in
 * both of its modes (only counted when it covers the whole DIFO, else
 * checked before each instruction); arguments read in place from
 * dm_args, the rest still from the host.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dif.h"
#include "dif_harness.h"
#include "tap.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static char scratch[4096];

static void
reset(uint32_t strsize)
{
	dif_mstate_init(&ms, NULL, NULL, NULL, scratch, sizeof(scratch),
	    strsize);
}

/* The reference: bytes up to the first NUL, max, or the region's end. */
static size_t
ref_len(const char *s, size_t avail, size_t max)
{
	size_t i;

	for (i = 0; i < avail && i < max && s[i] != '\0'; i++)
		;
	return i;
}

static void
test_strload(void)
{
	size_t size, nul, max, len;
	int bad = 0, n = 0;
	char *buf;

	/* a region of every size, the NUL anywhere in it or nowhere */
	for (size = 1; size <= 80 && !bad; size++) {
		for (nul = 0; nul <= size && !bad; nul++) {
			if ((buf = malloc(size)) == NULL)
				abort();
			memset(buf, 'a' + (int)(size % 26), size);
			if (nul < size)
				buf[nul] = '\0';
			for (max = 0; max <= size + 1 && !bad; max += 7) {
				reset(256);
				ms.dm_regions[0].dr_base = (uintptr_t)buf;
				ms.dm_regions[0].dr_size = size;
				ms.dm_nregions = 1;
				len = 9999;
				if (!dif_vm_strload(&ms, NULL, (uintptr_t)buf,
				    max, &len) || len != ref_len(buf, size, max)) {
					printf("# size %zu nul %zu max %zu: "
					    "len %zu\n", size, nul, max, len);
					bad = 1;
				}
				n++;
			}
			/* from the middle of the region */
			if (size > 3 && !bad) {
				len = 9999;
				if (!dif_vm_strload(&ms, NULL,
				    (uintptr_t)buf + 3, 256, &len) ||
				    len != ref_len(buf + 3, size - 3, 256))
					bad = 1;
			}
			free(buf);
		}
	}
	tap_ok(!bad && n > 1000, "strload: %d lengths, regions and limits "
	    "agree with a bytewise scan", n);

	if ((buf = malloc(8)) == NULL)
		abort();
	memcpy(buf, "1234567", 8);
	reset(256);
	ms.dm_regions[0].dr_base = (uintptr_t)buf;
	ms.dm_regions[0].dr_size = 8;
	ms.dm_nregions = 1;
	tap_ok(!dif_vm_strload(&ms, NULL, (uintptr_t)buf + 8, 256, &len),
	    "strload: the byte past a region is not loadable");
	tap_ok(!dif_vm_strload(&ms, NULL, (uintptr_t)buf - 1, 256, &len),
	    "strload: the byte before a region is not loadable");
	tap_ok(!dif_vm_strload(&ms, NULL, 0, 256, &len),
	    "strload: NULL is not loadable");
	tap_ok(dif_vm_strload(&ms, NULL, (uintptr_t)buf + 7, 256, &len) &&
	    len == 0, "strload: the last byte, a NUL");
	free(buf);

	/* scratch is loadable only up to what is in use */
	reset(256);
	tap_ok(!dif_vm_strload(&ms, NULL, (uintptr_t)scratch, 256, &len),
	    "strload: unused scratch is not loadable");
	if (dif_vm_scratch_alloc(&ms, 40, 1) == NULL)
		abort();
	memset(scratch, 'x', 40);
	tap_ok(dif_vm_strload(&ms, NULL, (uintptr_t)scratch, 256, &len) &&
	    len == 40, "strload: a scratch string without NUL ends with "
	    "the scratch in use");
}

/* scmp of strtab strings at o1 and o2: -1, 0 or 1 from the branches */
static int64_t
scmp(char *strs, uint32_t nstrs, uint32_t o1, uint32_t o2, uint32_t strsize)
{
	dif_instr_t prog[] = {
		DIF_INSTR_SETS(o1, 1),
		DIF_INSTR_SETS(o2, 2),
		DIF_INSTR_CMP(DIF_OP_SCMP, 1, 2),
		DIF_INSTR_BRANCH(DIF_OP_BL, 6),
		DIF_INSTR_BRANCH(DIF_OP_BG, 8),
		DIF_INSTR_RET(0),
		DIF_INSTR_NOT(0, 3),
		DIF_INSTR_RET(3),
		DIF_INSTR_RET(1),	/* a string's address: not 0 or -1 */
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), NULL, 0, strs, nstrs);
	uint64_t v;

	reset(strsize);
	v = run(&d);
	if (ms.dm_fault != 0)
		return 99;
	return v == 0 ? 0 : (int64_t)v == -1 ? -1 : 1;
}

static void
test_scmp(void)
{
	/* offsets: 0 "abc", 4 "abd", 8 "ab", 11 "", 12 "\xff", 14 "a",
	   16 "abcdX", 22 "abcdY" */
	char strs[] = "abc\0abd\0ab\0\0\xff\0a\0abcdX\0abcdY";

	tap_is(scmp(strs, sizeof(strs), 0, 4, 256), -1, "scmp abc < abd");
	tap_is(scmp(strs, sizeof(strs), 4, 0, 256), 1, "scmp abd > abc");
	tap_is(scmp(strs, sizeof(strs), 8, 0, 256), -1, "scmp ab < abc");
	tap_is(scmp(strs, sizeof(strs), 0, 8, 256), 1, "scmp abc > ab");
	tap_is(scmp(strs, sizeof(strs), 0, 0, 256), 0, "scmp abc == abc");
	tap_is(scmp(strs, sizeof(strs), 11, 11, 256), 0, "scmp empty");
	tap_is(scmp(strs, sizeof(strs), 11, 14, 256), -1, "scmp \"\" < a");
	tap_is(scmp(strs, sizeof(strs), 12, 14, 256), 1,
	    "scmp compares bytes unsigned");
	tap_is(scmp(strs, sizeof(strs), 16, 22, 256), -1,
	    "scmp abcdX < abcdY");
	tap_is(scmp(strs, sizeof(strs), 16, 22, 4), 0,
	    "scmp cut at strsize: abcd == abcd");
}

static void
test_budget(void)
{
	/* six instructions, four of them run: the branch skips two */
	dif_instr_t prog[] = {
		DIF_INSTR_NOT(0, 1),
		DIF_INSTR_BRANCH(DIF_OP_BA, 4),
		DIF_INSTR_MOV(0, 1),
		DIF_INSTR_MOV(0, 1),
		DIF_INSTR_NOT(1, 2),
		DIF_INSTR_RET(1),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), NULL, 0, NULL, 0);
	uint64_t v;

	reset(256);
	ms.dm_budget = 100;
	v = run(&d);
	tap_ok(v == ~0ULL && ms.dm_fault == 0 && ms.dm_budget == 96,
	    "budget over the DIFO's length: 4 instructions counted");
	reset(256);
	ms.dm_budget = 6;
	v = run(&d);
	tap_ok(v == ~0ULL && ms.dm_fault == 0 && ms.dm_budget == 2,
	    "budget equal to the length: 4 counted");
	reset(256);
	ms.dm_budget = 4;
	v = run(&d);
	tap_ok(v == ~0ULL && ms.dm_fault == 0 && ms.dm_budget == 0,
	    "budget under the length but enough: runs, 0 left");
	reset(256);
	ms.dm_budget = 3;
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_ILLOP &&
	    ms.dm_faultpc == 5 && ms.dm_budget == 0,
	    "budget one short: illegal operation at the 4th one run (pc 5)");
	reset(256);
	ms.dm_budget = 0;
	v = run(&d);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_ILLOP &&
	    ms.dm_faultpc == 0 && ms.dm_budget == 0,
	    "no budget: illegal operation at pc 0");
}

/* The host's answer for built-ins: arg N is 1000 + N; args[] too. */
static int
host_builtin(void *arg, uint32_t var, uint64_t ndx, uint64_t *valp)
{
	int *calls = arg;

	(*calls)++;
	if (var == DIF_VAR_ARGS) {
		if (ndx >= 10)
			return DIF_FLT_ILLOP;
		*valp = 1000 + ndx;
		return 0;
	}
	if (var >= DIF_VAR_ARG0 && var <= DIF_VAR_ARG9) {
		*valp = 1000 + var - DIF_VAR_ARG0;
		return 0;
	}
	if (var == DIF_VAR_PID) {
		*valp = 77;
		return 0;
	}
	return DIF_FLT_ILLOP;
}

static void
test_args(void)
{
	static const dif_host_t host = { .dh_builtin = host_builtin };
	uint64_t args[10] = { 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 };
	uint64_t ints[] = { 2, 10 };
	dif_instr_t prog[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG3, 1),
		DIF_INSTR_SETX(0, 2),
		DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 2, 3),
		DIF_INSTR_FMT(DIF_OP_ADD, 1, 3, 1),
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 3),
		DIF_INSTR_FMT(DIF_OP_ADD, 1, 3, 1),
		DIF_INSTR_RET(1),
	};
	dif_instr_t bad[] = {
		DIF_INSTR_SETX(1, 2),
		DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 2, 3),
		DIF_INSTR_RET(3),
	};
	dif_difo_t d = mkdifo(prog, NELEM(prog), NULL, 0, NULL, 0);
	dif_difo_t db = mkdifo(bad, NELEM(bad), NULL, 0, NULL, 0);
	uint64_t v;
	int calls = 0;

	d.dd_inttab = db.dd_inttab = ints;
	d.dd_intlen = db.dd_intlen = NELEM(ints);
	dif_mstate_init(&ms, &host, &calls, NULL, scratch, sizeof(scratch),
	    256);
	v = run(&d);
	tap_ok(v == 1003 + 1002 + 77 && calls == 3,
	    "no dm_args: arg3, args[2] and pid from the host");
	dif_mstate_init(&ms, &host, &calls, NULL, scratch, sizeof(scratch),
	    256);
	ms.dm_args = args;
	ms.dm_nargs = 10;
	calls = 0;
	v = run(&d);
	tap_ok(v == 13 + 12 + 77 && calls == 1,
	    "dm_args: arg3 and args[2] read in place, pid from the host");
	calls = 0;
	v = run(&db);
	tap_ok(v == 0 && ms.dm_fault == DIF_FLT_ILLOP && ms.dm_faultpc == 1 &&
	    calls == 1, "dm_args: args[10] still goes to the host, which "
	    "faults");
}

int
main(void)
{
	test_strload();
	test_args();
	test_scmp();
	test_budget();
	return tap_done();
}
