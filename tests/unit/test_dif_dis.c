/*
 * test_dif_dis.c: the `dtrace -S` listing of a small DIFO, compared
 * byte for byte with the illumos layout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dif.h"
#include "tap.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

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

static const char expect_body[] =
    "OFF OPCODE      INSTRUCTION\n"
    "00: 25000001    setx DT_INTEGER[0], %r1\t\t! 0x1\n"
    "01: 26000102    sets DT_STRING[1], %r2\t\t! \"hello\"\n"
    "02: 2a050001    stgs %r1, DT_VAR(1280)\t\t! DT_VAR(1280) = \"x\"\n"
    "03: 2a050102    stgs %r2, DT_VAR(1281)\t\t! DT_VAR(1281) = \"s\"\n"
    "04: 29010603    ldgs DT_VAR(262), %r3\t\t! DT_VAR(262) = \"arg0\"\n"
    "05: 07010304    add  %r1, %r3, %r4\n"
    "06: 0f010300    cmp  %r1, %r3\n"
    "07: 1300000a    bne  10\n"
    "08: 28000105    ldga DT_VAR(0), %r1, %r5\t\t! DT_VAR(0) = \"args\"\n"
    "09: 22050005    ldx  [%r5], %r5\n"
    "10: 33000000    flushts\n"
    "11: 30010002    pushtr DT_TYPE(1), %r0, %r2\t! DT_TYPE(1) = string\n"
    "12: 2f000c01    call DIF_SUBR(12), %r1\t\t! strlen\n"
    "13: 3e010005    stw  %r1, [%r5]\n"
    "14: 29040003    ldgs DT_VAR(1024), %r3\n"
    "15: 24000000    nop\n"
    "16: 23000001    ret  %r1\n"
    "\n"
    "NAME             ID   KND SCP FLAG TYPE\n"
    "x                500  scl glb r/w  D type (integer) (size 8)\n"
    "s                501  scl glb w    string (unknown) by ref (size 256)\n"
    "self             500  scl tls r    D type (integer) (size 4)\n"
    "\n";

int
main(void)
{
	static dif_instr_t buf[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_SETS(1, 2),
		DIF_INSTR_STV(DIF_OP_STGS, 0x500, 1),
		DIF_INSTR_STV(DIF_OP_STGS, 0x501, 2),
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 3),
		DIF_INSTR_FMT(DIF_OP_ADD, 1, 3, 4),
		DIF_INSTR_CMP(DIF_OP_CMP, 1, 3),
		DIF_INSTR_BRANCH(DIF_OP_BNE, 10),
		DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 1, 5),
		DIF_INSTR_LOAD(DIF_OP_LDX, 5, 5),
		DIF_INSTR_FLUSHTS,
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 2),
		DIF_INSTR_CALL(DIF_SUBR_STRLEN, 1),
		DIF_INSTR_STORE(DIF_OP_STW, 1, 5),
		DIF_INSTR_LDV(DIF_OP_LDGS, 0x400, 3),
		DIF_INSTR_NOP,
		DIF_INSTR_RET(1),
	};
	static uint64_t ints[] = { 1 };
	static char strs[] = "\0hello\0x\0s\0self";
	static dif_var_t vars[] = {
		{ 7, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL,
		    DIFV_F_REF | DIFV_F_MOD,
		    { DIF_TYPE_CTF, DIF_CKIND_INTEGER, DIF_TF_SIGNED, 0, 8 } },
		{ 9, 0x501, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, DIFV_F_MOD,
		    { DIF_TYPE_STRING, DIF_CKIND_UNKNOWN, DIF_TF_BYREF, 0,
		    256 } },
		{ 11, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, DIFV_F_REF,
		    { DIF_TYPE_CTF, DIF_CKIND_INTEGER, 0, 0, 4 } },
	};
	dif_difo_t d;
	dif_type_t t;
	char *got, *want, tbuf[128];
	size_t n;

	memset(&d, 0, sizeof(d));
	d.dd_buf = buf;
	d.dd_len = NELEM(buf);
	d.dd_inttab = ints;
	d.dd_intlen = NELEM(ints);
	d.dd_strtab = strs;
	d.dd_strlen = sizeof(strs);
	d.dd_vartab = vars;
	d.dd_varlen = NELEM(vars);
	d.dd_rtype.dt_kind = DIF_TYPE_CTF;
	d.dd_rtype.dt_ckind = DIF_CKIND_INTEGER;
	d.dd_rtype.dt_size = 8;

	got = listing(&d);
	n = strlen(expect_body) + 128;
	want = malloc(n);
	snprintf(want, n, "\nDIFO %p returns D type (integer) (size 8)\n%s",
	    (void *)&d, expect_body);
	if (!tap_ok(got != NULL && strcmp(got, want) == 0,
	    "listing matches the illumos layout"))
		printf("# got:\n%s# want:\n%s", got ? got : "(null)", want);
	free(got);
	free(want);

	/* no variable table: no NAME header; strings escaped */
	d.dd_varlen = 0;
	d.dd_len = 2;
	buf[1] = DIF_INSTR_RET(1);
	strs[3] = '"';
	strs[4] = '\n';
	d.dd_rtype.dt_kind = DIF_TYPE_STRING;
	d.dd_rtype.dt_ckind = DIF_CKIND_UNKNOWN;
	d.dd_rtype.dt_flags = DIF_TF_BYREF;
	d.dd_rtype.dt_size = 256;
	buf[0] = DIF_INSTR_SETS(1, 1);
	got = listing(&d);
	n = 512;
	want = malloc(n);
	snprintf(want, n, "\nDIFO %p returns string (unknown) by ref "
	    "(size 256)\nOFF OPCODE      INSTRUCTION\n"
	    "00: 26000101    sets DT_STRING[1], %%r1\t\t! \"he\\\"\\no\"\n"
	    "01: 23000001    ret  %%r1\n\n", (void *)&d);
	if (!tap_ok(got != NULL && strcmp(got, want) == 0,
	    "string return type, escaped string, no vartab"))
		printf("# got:\n%s# want:\n%s", got ? got : "(null)", want);
	free(got);
	free(want);

	tap_str(dif_op_name(DIF_OP_SETX), "setx", "dif_op_name(setx)");
	tap_str(dif_op_name(DIF_OP_ULDUW), "ulduw", "dif_op_name(ulduw)");
	tap_str(dif_op_name(DIF_OP_XLARG), "xlarg", "dif_op_name(xlarg)");
	tap_str(dif_op_name(200), "(illegal opcode)", "dif_op_name(200)");
	tap_str(dif_dis_varname(DIF_VAR_EXECNAME), "execname",
	    "built-in name: execname");
	tap_str(dif_dis_varname(DIF_VAR_CPU), "cpu", "built-in name: cpu");
	tap_ok(dif_dis_varname(0x500) == NULL, "no built-in name for 0x500");
	tap_str(dif_subr_name(DIF_SUBR_INET_NTOA6), "inet_ntoa6",
	    "dif_subr_name(inet_ntoa6)");
	tap_str(dif_subr_name(999), "unknown", "dif_subr_name(999)");
	memset(&t, 0, sizeof(t));
	t.dt_kind = DIF_TYPE_CTF;
	t.dt_ckind = DIF_CKIND_POINTER;
	t.dt_size = 8;
	tap_str(dif_type_str(&t, tbuf, sizeof(tbuf)),
	    "D type (pointer) (size 8)", "dif_type_str(pointer)");
	return tap_done();
}
