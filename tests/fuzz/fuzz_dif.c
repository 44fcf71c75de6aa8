/*
 * fuzz_dif.c: libFuzzer target for the DIF verifier and VM.  The input is
 * one DIFO in its wire encoding (dt_proto_difo_encode), so the seeds are
 * the DIFOs the compiler makes for the D tests.  A DIFO must either be
 * rejected by dif_verify() or run to completion (result or fault) under
 * dif_vm_exec() with a fake host that, like the daemon's, gives every
 * built-in a value and lets user reads hit a small fake address space.
 * Accepted DIFOs are also disassembled, as dtrace -S would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_USER_BASE	0x10000ULL
#define FUZZ_USER_SIZE	4096
#define FUZZ_STRSIZE	256
#define FUZZ_MAXVAR	65536	/* as the daemon's DTD_MAX_VARSIZE bound */

static unsigned char fuzz_dif_user[FUZZ_USER_SIZE];
/* arg0..arg9 as fuzz_dif_builtin gives them (DIF_VAR_ARG0 & 0xff is 6) */
static const uint64_t fuzz_dif_args[10] = {
	FUZZ_USER_BASE + 6, FUZZ_USER_BASE + 7, FUZZ_USER_BASE + 8,
	FUZZ_USER_BASE + 9, FUZZ_USER_BASE + 10, FUZZ_USER_BASE + 11,
	FUZZ_USER_BASE + 12, FUZZ_USER_BASE + 13, FUZZ_USER_BASE + 14,
	FUZZ_USER_BASE + 15,
};
static char fuzz_dif_name[] = "fuzzprog";
static FILE *fuzz_dif_null;

static int
fuzz_dif_builtin(void *arg, uint32_t var, uint64_t ndx, uint64_t *valp)
{
	switch (var) {
	case DIF_VAR_EXECNAME:
	case DIF_VAR_PROBEPROV:
	case DIF_VAR_PROBEMOD:
	case DIF_VAR_PROBEFUNC:
	case DIF_VAR_PROBENAME:
		*valp = (uint64_t)(uintptr_t)fuzz_dif_name;
		return 0;
	case DIF_VAR_ARGS:
	case DIF_VAR_UREGS:
		if (ndx >= 32)
			return DIF_FLT_ILLOP;
		*valp = FUZZ_USER_BASE + ndx * 8;
		return 0;
	}
	*valp = FUZZ_USER_BASE + (var & 0xff);
	return 0;
}

static int
fuzz_dif_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	if (addr < FUZZ_USER_BASE || addr - FUZZ_USER_BASE > FUZZ_USER_SIZE ||
	    len > FUZZ_USER_SIZE - (addr - FUZZ_USER_BASE))
		return DIF_FLT_BADADDR;
	memcpy(buf, fuzz_dif_user + (addr - FUZZ_USER_BASE), len);
	return 0;
}

static const dif_host_t fuzz_dif_host = { fuzz_dif_builtin, fuzz_dif_uread };

/* Global storage sized the way dtd_consumer.c sizes it. */
static int
fuzz_dif_globals(const dif_difo_t *dp, dif_vstate_t *vs)
{
	uint32_t i, n, size;

	n = dif_dvar_maxid(dp, DIFV_SCOPE_GLOBAL);
	if (n == 0)
		return 0;
	if ((vs->dv_globals = calloc(n, sizeof(dif_gvar_t))) == NULL)
		return -1;
	vs->dv_nglobals = n;
	for (i = 0; i < dp->dd_varlen; i++) {
		const dif_var_t *v = &dp->dd_vartab[i];
		dif_gvar_t *g;

		if (v->dv_scope != DIFV_SCOPE_GLOBAL ||
		    v->dv_kind != DIFV_KIND_SCALAR ||
		    v->dv_id < DIF_VAR_OTHER_UBASE || v->dv_id > DIF_VAR_OTHER_MAX)
			continue;
		size = 0;
		if (v->dv_type.dt_kind == DIF_TYPE_STRING)
			size = v->dv_type.dt_size ? v->dv_type.dt_size :
			    FUZZ_STRSIZE;
		else if (v->dv_type.dt_flags & DIF_TF_BYREF)
			size = v->dv_type.dt_size;
		if (size > FUZZ_MAXVAR)
			return -1;	/* the daemon refuses the program */
		g = &vs->dv_globals[v->dv_id - DIF_VAR_OTHER_UBASE];
		if (size <= g->dg_size)
			continue;
		free(g->dg_data);
		if ((g->dg_data = calloc(1, size)) == NULL)
			return -1;
		g->dg_size = size;
	}
	return 0;
}

static void
fuzz_dif_run(const dif_difo_t *dp)
{
	static char scratch[FUZZ_STRSIZE * 8];
	dif_vstate_t vs;
	dif_lstate_t ls;
	dif_mstate_t ms;
	uint32_t i, nloc;
	int pass;

	memset(&vs, 0, sizeof(vs));
	memset(&ls, 0, sizeof(ls));
	if (fuzz_dif_globals(dp, &vs) == -1 ||
	    dif_dvar_init(&vs, 64 * 1024) == -1)
		goto out;
	nloc = dif_dvar_maxid(dp, DIFV_SCOPE_LOCAL);
	if (nloc > 0 && dif_dvar_local_init(&ls, nloc, FUZZ_STRSIZE) == -1)
		goto out;
	/* twice: the second run sees what the first stored */
	for (pass = 0; pass < 2; pass++) {
		dif_mstate_init(&ms, &fuzz_dif_host, NULL, &vs, scratch,
		    sizeof(scratch), FUZZ_STRSIZE);
		ms.dm_budget = 1 << 16;
		ms.dm_regions[0].dr_base = (uintptr_t)fuzz_dif_name;
		ms.dm_regions[0].dr_size = sizeof(fuzz_dif_name);
		ms.dm_nregions = 1;
		ms.dm_tkey = 4242;
		/* the second pass reads the arguments in place */
		if (pass == 1) {
			ms.dm_args = fuzz_dif_args;
			ms.dm_nargs = 10;
		}
		if (nloc > 0) {
			dif_dvar_local_reset(&ls);
			ms.dm_lstate = &ls;
		}
		(void)dif_vm_exec(dp, &ms);
		dif_mstate_fini(&ms);
	}
out:
	if (nloc > 0)
		dif_dvar_local_fini(&ls);
	dif_dvar_fini(&vs);
	for (i = 0; i < vs.dv_nglobals; i++)
		free(vs.dv_globals[i].dg_data);
	free(vs.dv_globals);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dif_difo_t *dp;
	dt_msg_t m;
	char err[256];

	if (fuzz_dif_null == NULL &&
	    (fuzz_dif_null = fopen("/dev/null", "w")) == NULL)
		abort();
	dt_msg_init(&m, 0);
	if ((m.dm_data = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(m.dm_data, data, size);
	m.dm_len = m.dm_cap = size;
	dp = dt_proto_difo_decode(&m);
	dt_msg_free(&m);
	if (dp == NULL)
		return 0;
	if (dif_verify(dp, err, sizeof(err)) == 0) {
		dif_dis(dp, fuzz_dif_null);
		fuzz_dif_run(dp);
	}
	dif_difo_free(dp);
	return 0;
}
