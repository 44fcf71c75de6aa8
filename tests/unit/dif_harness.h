/*
 * dif_harness.h: what the DIF VM tests share (test_dif_vm.c,
 * test_dif_vmfast.c): the machine state `ms' each test sets up, a DIFO
 * returning an 8-byte integer around an instruction buffer and its
 * tables, and running it the way the daemon does, verified first.
 * Included once per test program; everything is static.
 */
#ifndef DIF_HARNESS_H
#define DIF_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "dif.h"

static dif_mstate_t ms;

static dif_difo_t
mkdifo(dif_instr_t *buf, uint32_t len, uint64_t *ints, uint32_t nints,
    char *strs, uint32_t nstrs)
{
	dif_difo_t d;

	memset(&d, 0, sizeof(d));
	d.dd_buf = buf;
	d.dd_len = len;
	d.dd_inttab = ints;
	d.dd_intlen = nints;
	d.dd_strtab = strs;
	d.dd_strlen = nstrs;
	d.dd_rtype.dt_kind = DIF_TYPE_CTF;
	d.dd_rtype.dt_ckind = DIF_CKIND_INTEGER;
	d.dd_rtype.dt_size = 8;
	return d;
}

/* Verify then run; a program that fails verification returns 0xdead. */
static uint64_t
run(dif_difo_t *d)
{
	char err[256];

	if (dif_verify(d, err, sizeof(err)) != 0) {
		printf("# verify: %s\n", err);
		return 0xdead;
	}
	return dif_vm_exec(d, &ms);
}

#endif
