/*
 * difbench: DIF VM speed in instructions per second on a realistic clause
 * mix.  The D program below is compiled with libdtrace's compiler; every
 * DIFO of it (predicates, aggregation keys and arguments) then runs
 * through dif_verify() once, as the daemon accepts a program, then through
 * dif_vm_exec() as the daemon's firing path runs them, with a fake host
 * for the built-in variables, for many simulated firings.  The fake host
 * makes loadable the same six regions, in the same order, as the daemon's
 * dtd_host_init() (provider, module, function and probe names, execname
 * and zonename buffers), since every string check walks them.  Nothing is
 * recorded: the aggregation buffers are the daemon's, not the VM's.  The
 * instructions executed are counted from the VM's instruction budget.
 *
 *	difbench [FIRINGS]
 *
 * The goal (issue 3) is at least 200M DIF instructions/s on one core.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt_impl.h"

static const char difbench_prog[] =
	"pid123:a.out:g:entry\n"
	"/arg0 > 100 && probefunc == \"g\"/\n"
	"{\n"
	"	this->k = arg0 % 16;\n"
	"	@s[strjoin(probefunc, \"_x\"), this->k] =\n"
	"	    sum(arg0 * 3 + arg1 / 7 - (arg2 << 2));\n"
	"}\n"
	"pid123:a.out:g:entry\n"
	"/execname != \"nobody\" && (arg1 & 1) == 0/\n"
	"{\n"
	"	@c[execname, substr(probefunc, 0, 1), arg3 ^ arg4] = count();\n"
	"	@q = quantize(arg0 & 0xffff);\n"
	"	@m[strlen(execname) + arg5] = max(arg1 - arg0);\n"
	"}\n";

/* One simulated firing: the probe context the fake host answers from. */
typedef struct difbench_fire {
	uint64_t	df_args[10];
} difbench_fire_t;

static const char difbench_prov[] = "pid123";
static const char difbench_mod[] = "a.out";
static const char difbench_func[] = "g";
static const char difbench_name[] = "entry";
static char difbench_exec[16] = "loop";
static char difbench_zone[16] = "global";

static int
difbench_builtin(void *arg, uint32_t var, uint64_t ndx, uint64_t *valp)
{
	const difbench_fire_t *f = arg;

	switch (var) {
	case DIF_VAR_ARGS:
		if (ndx >= 10)
			return DIF_FLT_ILLOP;
		*valp = f->df_args[ndx];
		return 0;
	case DIF_VAR_PROBEFUNC:
		*valp = (uintptr_t)difbench_func;
		return 0;
	case DIF_VAR_EXECNAME:
		*valp = (uintptr_t)difbench_exec;
		return 0;
	default:
		if (var >= DIF_VAR_ARG0 && var <= DIF_VAR_ARG9) {
			*valp = f->df_args[var - DIF_VAR_ARG0];
			return 0;
		}
		return DIF_FLT_ILLOP;
	}
}

static int
difbench_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	(void)addr;
	(void)buf;
	(void)len;
	return DIF_FLT_BADADDR;
}

static const dif_host_t difbench_host = {
	.dh_builtin = difbench_builtin,
	.dh_uread = difbench_uread,
};

static void
difbench_region(dif_mstate_t *ms, const void *p, size_t size)
{
	ms->dm_regions[ms->dm_nregions].dr_base = (uintptr_t)p;
	ms->dm_regions[ms->dm_nregions].dr_size = size;
	ms->dm_nregions++;
}

/* The largest user variable id of scope sc in dp, plus one, from UBASE. */
static uint32_t
difbench_nvars(const dif_difo_t *dp, int sc, uint32_t n)
{
	uint32_t i;

	for (i = 0; dp != NULL && i < dp->dd_varlen; i++)
		if (dp->dd_vartab[i].dv_scope == sc &&
		    dp->dd_vartab[i].dv_id >= DIF_VAR_OTHER_UBASE &&
		    dp->dd_vartab[i].dv_id - DIF_VAR_OTHER_UBASE + 1 > n)
			n = dp->dd_vartab[i].dv_id - DIF_VAR_OTHER_UBASE + 1;
	return n;
}

/*
 * The figure is taken on the thread's CPU clock: on a shared machine
 * the wall clock also counts the time other processes ran, which is not
 * the VM's.  The wall time is printed too.
 */
static double
difbench_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	static char scratch[16384];
	dtrace_hdl_t *dtp;
	dtrace_prog_t *pgp;
	const dtp_prog_t *pp;
	const dif_difo_t *difos[64];
	int ispred[64];
	dif_vstate_t vs;
	dif_lstate_t ls;
	dif_mstate_t ms = { 0 };
	difbench_fire_t f;
	uint64_t firings, n, v, instrs = 0, taken = 0, sink = 0;
	uint32_t i, j, k, ndifo = 0, nlocal = 0, nglobal = 0;
	double t0, t1, w0, w1;
	FILE *fp;
	int err, d;

	firings = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
	if ((dtp = dtrace_open(DTRACE_VERSION, DTRACE_O_NODEV, &err)) == NULL) {
		fprintf(stderr, "difbench: dtrace_open failed\n");
		return 1;
	}
	if ((fp = fmemopen((void *)difbench_prog, sizeof(difbench_prog) - 1,
	    "r")) == NULL)
		return 1;
	pgp = dtrace_program_fcompile(dtp, fp, DTRACE_C_ZDEFS, 0, NULL);
	fclose(fp);
	if (pgp == NULL) {
		fprintf(stderr, "difbench: %s\n",
		    dtrace_errmsg(dtp, dtrace_errno(dtp)));
		return 1;
	}
	/*
	 * Flatten the program into the order the firing path runs it:
	 * each statement's predicate, then every DIFO of its actions.
	 */
	pp = &pgp->dp_prog;
	for (i = 0; i < pp->dp_nstmt; i++) {
		const dtp_stmt_t *s = &pp->dp_stmt[i];

		if (s->ds_pred != NULL && ndifo < 64) {
			ispred[ndifo] = 1;
			difos[ndifo++] = s->ds_pred;
		}
		for (j = 0; j < s->ds_nact; j++)
			for (k = 0; k < s->ds_act[j].da_ndifo && ndifo < 64;
			    k++) {
				ispred[ndifo] = 0;
				difos[ndifo++] = s->ds_act[j].da_difo[k];
			}
	}
	for (i = 0; i < ndifo; i++) {
		char verr[256];

		if (dif_verify(difos[i], verr, sizeof(verr)) != 0) {
			fprintf(stderr, "difbench: DIFO %u: %s\n", i, verr);
			return 1;
		}
		nlocal = difbench_nvars(difos[i], DIFV_SCOPE_LOCAL, nlocal);
		nglobal = difbench_nvars(difos[i], DIFV_SCOPE_GLOBAL, nglobal);
	}

	memset(&vs, 0, sizeof(vs));
	if (nglobal > 0 &&
	    (vs.dv_globals = calloc(nglobal, sizeof(*vs.dv_globals))) == NULL)
		return 1;
	vs.dv_nglobals = nglobal;
	memset(&ls, 0, sizeof(ls));
	if (nlocal > 0 && dif_dvar_local_init(&ls, nlocal, 256) == -1) {
		fprintf(stderr, "difbench: %s\n", strerror(errno));
		return 1;
	}

	memset(&f, 0, sizeof(f));
	w0 = difbench_now(CLOCK_MONOTONIC);
	t0 = difbench_now(CLOCK_THREAD_CPUTIME_ID);
	for (n = 0; n < firings; n++) {
		/* vary the arguments so the predicates go both ways */
		f.df_args[0] = n;
		f.df_args[1] = n * 7 + 3;
		f.df_args[2] = n >> 3;
		f.df_args[3] = n & 0xff;
		f.df_args[4] = 0x55;
		f.df_args[5] = n & 3;
		if (nlocal > 0)
			dif_dvar_local_reset(&ls);
		for (d = 0; d < (int)ndifo; d++) {
			/* one mstate per statement, as the daemon does */
			if (d == 0 || ispred[d]) {
				if (d != 0)
					dif_mstate_fini(&ms);
				dif_mstate_init(&ms, &difbench_host, &f, &vs,
				    scratch, sizeof(scratch), 256);
				ms.dm_lstate = nlocal > 0 ? &ls : NULL;
				ms.dm_tkey = 1;
				ms.dm_args = f.df_args;	/* as the daemon */
				ms.dm_nargs = 10;
				difbench_region(&ms, difbench_prov,
				    sizeof(difbench_prov));
				difbench_region(&ms, difbench_mod,
				    sizeof(difbench_mod));
				difbench_region(&ms, difbench_func,
				    sizeof(difbench_func));
				difbench_region(&ms, difbench_name,
				    sizeof(difbench_name));
				difbench_region(&ms, difbench_exec,
				    sizeof(difbench_exec));
				difbench_region(&ms, difbench_zone,
				    sizeof(difbench_zone));
			}
			v = dif_vm_exec(difos[d], &ms);
			sink += v;
			instrs += DIF_DEFAULT_BUDGET - ms.dm_budget;
			ms.dm_budget = DIF_DEFAULT_BUDGET;
			if (ms.dm_fault) {
				fprintf(stderr, "difbench: DIFO %d faulted: "
				    "%s at %u\n", d,
				    dif_fault_name(ms.dm_fault),
				    ms.dm_faultpc);
				return 1;
			}
			if (ispred[d]) {
				if (v == 0) {
					/* skip to the next predicate */
					while (d + 1 < (int)ndifo &&
					    !ispred[d + 1])
						d++;
				} else
					taken++;
			}
		}
		dif_mstate_fini(&ms);
	}
	t1 = difbench_now(CLOCK_THREAD_CPUTIME_ID);
	w1 = difbench_now(CLOCK_MONOTONIC);

	printf("difbench: %" PRIu64 " firings, %u DIFOs, %" PRIu64
	    " clauses taken, %" PRIu64 " DIF instructions in %.3f s of CPU"
	    " (%.3f s wall)\n", firings, ndifo, taken, instrs, t1 - t0,
	    w1 - w0);
	printf("DIF VM: %.1f M instructions/s (goal >= 200 M/s): %s\n",
	    instrs / (t1 - t0) / 1e6,
	    instrs / (t1 - t0) >= 200e6 ? "met" : "missed");
	printf("per firing: %.1f instructions, %.0f ns (checksum %" PRIx64
	    ")\n", (double)instrs / firings, (t1 - t0) * 1e9 / firings, sink);
	dif_dvar_local_fini(&ls);
	free(vs.dv_globals);
	dtrace_close(dtp);
	return 0;
}
