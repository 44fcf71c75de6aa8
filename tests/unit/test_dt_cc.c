/*
 * test_dt_cc.c: the D compiler, end to end without a daemon.  Compiles
 * snippets with libdtrace, checks the statements, actions, records and
 * aggregations it produces, verifies every DIFO, and runs expression
 * DIFOs through the DIF VM with a fake probe context.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"
#include "tap.h"

static dtrace_hdl_t *g_dtp;

#define NGLOBALS	64
static dif_gvar_t g_gvars[NGLOBALS];
static char g_gdata[NGLOBALS][256];
static dif_vstate_t g_vstate = {
	.dv_globals = g_gvars,
	.dv_nglobals = NGLOBALS,
};
static char g_scratch[8192];
/* self-> key and this-> storage of the fake firing (test_dynvars) */
static uint64_t g_tkey = 1;
static dif_lstate_t g_lstate;
/* strings the fake host hands out, in a region the VM may read */
static char g_strings[64] = "prov\0mod\0func\0name\0exe";
static const char *const g_names[] = { g_strings, g_strings + 5,
    g_strings + 9, g_strings + 14, g_strings + 19 };

static int
fake_builtin(void *arg, uint32_t var, uint64_t ndx, uint64_t *valp)
{

	switch (var) {
	case DIF_VAR_ARG0: *valp = (uint64_t)-5; return 0;
	case DIF_VAR_ARG1: *valp = 7; return 0;
	case DIF_VAR_PID: *valp = 4242; return 0;
	case DIF_VAR_TIMESTAMP: *valp = 123456789; return 0;
	case DIF_VAR_PROBEPROV: case DIF_VAR_PROBEMOD: case DIF_VAR_PROBEFUNC:
	case DIF_VAR_PROBENAME: case DIF_VAR_EXECNAME:
		*valp = (uint64_t)(uintptr_t)g_names[var == DIF_VAR_EXECNAME ?
		    4 : var - DIF_VAR_PROBEPROV];
		return 0;
	default: *valp = 0; return 0;
	}
}

static int
fake_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	return DIF_FLT_BADADDR;
}

static const dif_host_t g_host = {
	.dh_builtin = fake_builtin,
	.dh_uread = fake_uread,
};

static void
reset_globals(void)
{
	int i;

	memset(g_gvars, 0, sizeof(g_gvars));
	for (i = 0; i < NGLOBALS; i++) {
		g_gvars[i].dg_data = g_gdata[i];
		g_gvars[i].dg_size = sizeof(g_gdata[i]);
	}
}

/*
 * Compile without a daemon: descriptions are not matched against probes
 * here (-Z), that is the end-to-end tests' business.
 */
static dtrace_prog_t *
compile(const char *s, unsigned flags, int argc, char *const argv[])
{
	return dtrace_program_strcompile(g_dtp, s, DTRACE_PROBESPEC_NAME,
	    flags | DTRACE_C_ZDEFS, argc, argv);
}

/* The same from a file, as -s does: errors then carry line numbers. */
static dtrace_prog_t *
compile_file(const char *s)
{
	dtrace_prog_t *pgp;
	FILE *fp;

	if (*s == '\0')
		return compile(s, 0, 0, NULL);
	if ((fp = fmemopen((void *)s, strlen(s), "r")) == NULL)
		return NULL;
	pgp = dtrace_program_fcompile(g_dtp, fp, DTRACE_C_ZDEFS, 0, NULL);
	fclose(fp);
	return pgp;
}

static int
verify_prog(dtrace_prog_t *pgp)
{
	const dtp_prog_t *pp = &pgp->dp_prog;
	char err[256];
	uint32_t i, j, k;

	for (i = 0; i < pp->dp_nstmt; i++) {
		const dtp_stmt_t *sp = &pp->dp_stmt[i];

		if (sp->ds_pred != NULL && dif_verify(sp->ds_pred, err,
		    sizeof(err)) != 0) {
			printf("# predicate: %s\n", err);
			return -1;
		}
		for (j = 0; j < sp->ds_nact; j++) {
			for (k = 0; k < sp->ds_act[j].da_ndifo; k++) {
				if (dif_verify(sp->ds_act[j].da_difo[k], err,
				    sizeof(err)) != 0) {
					printf("# action %u difo %u: %s\n", j,
					    k, err);
					dif_dis(sp->ds_act[j].da_difo[k], stdout);
					return -1;
				}
			}
		}
	}
	return 0;
}

/*
 * Run every DIFO of statement 0 in order (sharing the globals) and return
 * the value of the last recording action; *faultp gets any fault.
 */
static uint64_t
run_stmt(dtrace_prog_t *pgp, uint32_t stmt, int *faultp)
{
	const dtp_stmt_t *sp = &pgp->dp_prog.dp_stmt[stmt];
	dif_mstate_t ms;
	uint64_t v = 0, r;
	uint32_t j, k;

	*faultp = 0;
	dif_dvar_local_reset(&g_lstate);	/* one statement, one firing */
	for (j = 0; j < sp->ds_nact; j++) {
		for (k = 0; k < sp->ds_act[j].da_ndifo; k++) {
			dif_mstate_init(&ms, &g_host, NULL, &g_vstate,
			    g_scratch, sizeof(g_scratch), 256);
			ms.dm_tkey = g_tkey;
			ms.dm_lstate = &g_lstate;
			ms.dm_regions[0].dr_base = (uintptr_t)g_strings;
			ms.dm_regions[0].dr_size = sizeof(g_strings);
			ms.dm_nregions = 1;
			r = dif_vm_exec(sp->ds_act[j].da_difo[k], &ms);
			/* what it returned stays readable: nothing deleted */
			dif_mstate_fini(&ms);
			if (ms.dm_fault != 0) {
				*faultp = ms.dm_fault;
				return 0;
			}
			if (sp->ds_act[j].da_size != 0)
				v = r;
		}
	}
	return v;
}

/* Compile "BEGIN { body }" and return the value its last record holds. */
static int
eval_body(const char *body, uint64_t *vp, dif_type_t *rtp)
{
	char buf[1024];
	dtrace_prog_t *pgp;
	const dtp_stmt_t *sp;
	int fault;

	snprintf(buf, sizeof(buf), "BEGIN { %s }", body);
	if ((pgp = compile(buf, 0, 0, NULL)) == NULL) {
		printf("# compile \"%s\": %s\n", body,
		    dtrace_errmsg(g_dtp, dtrace_errno(g_dtp)));
		return -1;
	}
	if (verify_prog(pgp) != 0)
		return -1;
	reset_globals();
	*vp = run_stmt(pgp, 0, &fault);
	if (fault != 0) {
		printf("# fault %d\n", fault);
		return -1;
	}
	sp = &pgp->dp_prog.dp_stmt[0];
	if (rtp != NULL && sp->ds_nact > 0)
		*rtp = sp->ds_act[sp->ds_nact - 1].da_difo[0]->dd_rtype;
	return 0;
}

static void
check_expr(const char *expr, int64_t want, int size, int sign)
{
	char body[512];
	dif_type_t rt;
	uint64_t v;
	int64_t got;

	snprintf(body, sizeof(body), "trace(%s);", expr);
	memset(&rt, 0, sizeof(rt));
	if (eval_body(body, &v, &rt) != 0) {
		tap_ok(0, "%s", expr);
		return;
	}
	/* the record holds size bytes */
	got = (int64_t)v;
	if (rt.dt_flags & DIF_TF_SIGNED) {
		if (rt.dt_size == 4)
			got = (int32_t)v;
		else if (rt.dt_size == 2)
			got = (int16_t)v;
		else if (rt.dt_size == 1)
			got = (int8_t)v;
	} else {
		if (rt.dt_size == 4)
			got = (uint32_t)v;
		else if (rt.dt_size == 2)
			got = (uint16_t)v;
		else if (rt.dt_size == 1)
			got = (uint8_t)v;
	}
	if (!tap_ok(got == want && (int)rt.dt_size == size &&
	    !!(rt.dt_flags & DIF_TF_SIGNED) == sign, "%s == %" PRId64, expr,
	    want))
		printf("#   got %" PRId64 " size %u signed %d\n", got,
		    rt.dt_size, !!(rt.dt_flags & DIF_TF_SIGNED));
}

static void
check_body(const char *body, int64_t want)
{
	uint64_t v;

	if (eval_body(body, &v, NULL) != 0) {
		tap_ok(0, "%s", body);
		return;
	}
	tap_is((int64_t)v, want, "%s", body);
}

static void
check_string(const char *body, const char *want)
{
	uint64_t v;

	if (eval_body(body, &v, NULL) != 0) {
		tap_ok(0, "%s", body);
		return;
	}
	tap_str((const char *)(uintptr_t)v, want, "%s", body);
}

static void
check_error(const char *prog, const char *tag, const char *msg)
{
	dtrace_prog_t *pgp = compile_file(prog);
	char name[256];
	const char *m;
	size_t i;

	for (i = 0; prog[i] != '\0' && i < sizeof(name) - 1; i++)
		name[i] = prog[i] == '\n' ? ' ' : prog[i];
	name[i] = '\0';
	prog = name;

	if (pgp != NULL) {
		tap_ok(0, "error %s: compiled: %s", tag ? tag : "", prog);
		return;
	}
	m = dtrace_errmsg(g_dtp, dtrace_errno(g_dtp));
	if (!tap_ok(g_dtp->dt_errtag != NULL && (tag == NULL ||
	    strcmp(g_dtp->dt_errtag, tag) == 0) &&
	    (msg == NULL || strstr(m, msg) != NULL), "error %s: %s", tag ? tag : "(any)", prog))
		printf("#   got [%s] %s\n", g_dtp->dt_errtag ?
		    g_dtp->dt_errtag : "(none)", m);
}

static void
test_layout(void)
{
	dtrace_prog_t *pgp;
	const dtp_prog_t *pp;
	const dtp_stmt_t *sp;
	dtrace_proginfo_t info;

	pgp = compile("BEGIN { trace(1); }", 0, 0, NULL);
	tap_ok(pgp != NULL, "trace(1) compiles");
	if (pgp == NULL)
		return;
	pp = &pgp->dp_prog;
	tap_is(pp->dp_nstmt, 1, "one statement");
	sp = &pp->dp_stmt[0];
	tap_str(sp->ds_desc.dpd_name, "BEGIN", "BEGIN is the name");
	tap_str(sp->ds_desc.dpd_provider, "", "provider empty");
	tap_ok(sp->ds_pred == NULL, "no predicate");
	tap_is(sp->ds_nact, 1, "one action");
	tap_is(sp->ds_act[0].da_kind, DTRACEACT_DIFEXPR, "DIFEXPR");
	tap_is(sp->ds_act[0].da_size, 4, "int record is 4 bytes");
	tap_is(sp->ds_act[0].da_align, 4, "aligned 4");
	tap_is(sp->ds_size, 4, "record rounded to 4 (dt_proto.h)");
	tap_ok(verify_prog(pgp) == 0, "verifies");

	pgp = compile("syscall::open*:entry, tick-10ms, a:b\n"
	    "/pid == 1/\n{\n\ttrace(\"hi\");\n\ttrace(timestamp);\n"
	    "\ttrace((char)1);\n\texit(0);\n}\n", 0, 0, NULL);
	tap_ok(pgp != NULL, "multi-description clause compiles");
	if (pgp == NULL)
		return;
	pp = &pgp->dp_prog;
	tap_is(pp->dp_nstmt, 3, "three statements");
	tap_str(pp->dp_stmt[0].ds_desc.dpd_provider, "syscall", "provider");
	tap_str(pp->dp_stmt[0].ds_desc.dpd_func, "open*", "func glob");
	tap_str(pp->dp_stmt[1].ds_desc.dpd_name, "tick-10ms", "tick name");
	tap_str(pp->dp_stmt[2].ds_desc.dpd_func, "a", "a:b func");
	tap_str(pp->dp_stmt[2].ds_desc.dpd_name, "b", "a:b name");
	sp = &pp->dp_stmt[1];
	tap_ok(sp->ds_pred != NULL && sp->ds_pred != pp->dp_stmt[0].ds_pred,
	    "each statement has its own predicate copy");
	tap_is(sp->ds_nact, 4, "four actions");
	tap_is(sp->ds_act[0].da_size, 257, "string record strsize + NUL");
	tap_is(sp->ds_act[0].da_difo[0]->dd_rtype.dt_kind, DIF_TYPE_STRING,
	    "string rtype");
	tap_is(sp->ds_act[1].da_offset, 264, "uint64 at 264");
	tap_is(sp->ds_act[1].da_size, 8, "uint64 size 8");
	tap_is(sp->ds_act[1].da_difo[0]->dd_rtype.dt_flags, 0, "unsigned");
	tap_is(sp->ds_act[2].da_offset, 272, "char at 272");
	tap_is(sp->ds_act[2].da_size, 1, "char size 1");
	tap_is(sp->ds_act[3].da_kind, DTRACEACT_EXIT, "exit action");
	tap_is(sp->ds_act[3].da_offset, 276, "exit at 276");
	tap_is(sp->ds_size, 280, "size 280");
	tap_ok(verify_prog(pgp) == 0, "verifies");
	dtrace_program_info(g_dtp, pgp, &info);
	tap_is(info.dpi_descs, 3, "dpi_descs");
	tap_is(info.dpi_recgens, 12, "dpi_recgens");

	pgp = compile("BEGIN { printf(\"%d %s\\n\", 1, \"x\"); x = 1; }",
	    0, 0, NULL);
	tap_ok(pgp != NULL, "printf compiles");
	if (pgp == NULL)
		return;
	sp = &pgp->dp_prog.dp_stmt[0];
	tap_is(sp->ds_nact, 3, "printf's 2 args + assignment");
	tap_is(sp->ds_act[0].da_kind, DTRACEACT_PRINTF,
	    "the first argument is the PRINTF action");
	tap_is(sp->ds_act[0].da_nargs, 2, "2 args");
	tap_str(pgp->dp_prog.dp_fmt[sp->ds_act[0].da_arg], "%d %s\n",
	    "format kept");
	tap_is(sp->ds_act[0].da_offset, 0, "arg 1 at 0");
	tap_is(sp->ds_act[1].da_kind, DTRACEACT_DIFEXPR, "arg 2 DIFEXPR");
	tap_is(sp->ds_act[1].da_offset, 4, "arg 2 at 4");
	tap_is(sp->ds_act[2].da_size, 0, "assignment records nothing");
	tap_is(sp->ds_size, 264, "size 264");

	pgp = compile("BEGIN { printf(\"hi\\n\"); }", 0, 0, NULL);
	sp = pgp != NULL ? &pgp->dp_prog.dp_stmt[0] : NULL;
	tap_ok(sp != NULL && sp->ds_nact == 1 &&
	    sp->ds_act[0].da_kind == DTRACEACT_PRINTF &&
	    sp->ds_act[0].da_nargs == 0 && sp->ds_act[0].da_size == 4 &&
	    sp->ds_act[0].da_ndifo == 1 &&
	    sp->ds_act[0].da_difo[0]->dd_len == 1 &&
	    sp->ds_act[0].da_difo[0]->dd_buf[0] == DIF_INSTR_RET(0),
	    "printf without arguments records a dummy int from ret %%r0");

	pgp = compile("BEGIN, END {}\nBEGIN", 0, 0, NULL);
	tap_ok(pgp != NULL && pgp->dp_prog.dp_nstmt == 3 &&
	    pgp->dp_prog.dp_stmt[0].ds_nact == 0 &&
	    pgp->dp_prog.dp_stmt[2].ds_nact == 0, "empty bodies");

	pgp = dtrace_program_strcompile(g_dtp, "syscall",
	    DTRACE_PROBESPEC_PROVIDER, DTRACE_C_ZDEFS, 0, NULL);
	tap_ok(pgp != NULL && strcmp(pgp->dp_prog.dp_stmt[0].ds_desc.
	    dpd_provider, "syscall") == 0, "-P spec fills the provider");
}

static void
test_aggs(void)
{
	dtrace_prog_t *pgp;
	const dtp_prog_t *pp;
	const dtp_action_t *ap;

	pgp = compile("BEGIN { @c[probefunc, pid] = count(); @s = sum(arg1);"
	    " @[\"x\"] = count(); @c[\"a\", 2] = count(); }", 0, 0, NULL);
	tap_ok(pgp != NULL, "aggregations compile");
	if (pgp == NULL)
		return;
	pp = &pgp->dp_prog;
	tap_is(pp->dp_nagg, 3, "three aggregations");
	tap_str(pp->dp_agg[0].dg_name, "c", "@c");
	tap_is(pp->dp_agg[0].dg_kind, DTRACEAGG_COUNT, "count");
	tap_is(pp->dp_agg[0].dg_nkeys, 2, "two keys");
	tap_is(pp->dp_agg[0].dg_keys[0].dk_kind, DTP_KEY_STRING, "string key");
	tap_is(pp->dp_agg[0].dg_keys[0].dk_size, 257, "strsize + NUL");
	tap_is(pp->dp_agg[0].dg_keys[1].dk_kind, DTP_KEY_INT, "int key");
	tap_is(pp->dp_agg[0].dg_keys[1].dk_size, 4,
	    "pid_t key at its size, as illumos records it");
	tap_is(pp->dp_agg[1].dg_kind, DTRACEAGG_SUM, "sum");
	tap_str(pp->dp_agg[2].dg_name, "", "@ is unnamed");
	ap = &pp->dp_stmt[0].ds_act[0];
	tap_is(ap->da_kind, DTRACEAGG_COUNT, "count action");
	tap_is(ap->da_arg, pp->dp_agg[0].dg_id, "id");
	tap_is(ap->da_ndifo, 2, "key DIFOs");
	tap_is(ap->da_difo[1]->dd_rtype.dt_size, 4, "int key DIFO size 4");
	ap = &pp->dp_stmt[0].ds_act[1];
	tap_is(ap->da_ndifo, 1, "sum arg DIFO");
	tap_is(pp->dp_stmt[0].ds_size, 0, "no record data");
	tap_ok(verify_prog(pgp) == 0, "verifies");

	pgp = compile("END { @c[\"z\", 1] = count(); @n = count(); }", 0, 0,
	    NULL);
	tap_ok(pgp != NULL && pgp->dp_prog.dp_nagg == 1 &&
	    strcmp(pgp->dp_prog.dp_agg[0].dg_name, "n") == 0,
	    "second program lists only new aggregations");
	check_error("BEGIN { @c[1, 2] = count(); }", "D_AGG_MDIM", "key #1");
	check_error("BEGIN { @c[\"a\"] = count(); }", "D_AGG_MDIM", NULL);
	check_error("BEGIN { @c[\"a\", 1] = sum(1); }", "D_AGG_REDEF", NULL);
	check_error("BEGIN { @q = lquantize(1, 10, 0); }", "D_LQUANT_MISMATCH",
	    NULL);
	check_error("BEGIN { @q = trace(1); }", "D_AGG_FUNC", NULL);
	check_error("BEGIN { @q = sum(); }", "D_PROTO_LEN",
	    "sum( ) prototype mismatch: 0 args passed, 1 expected");
	check_error("BEGIN { x = count(); }", "D_AGG_FUNC", NULL);
	check_error("BEGIN { trace(@c); }", "D_TRACE_DYN", NULL);
	pgp = compile("BEGIN { @fresh = count(); @bad = lquantize(1, 0, 0); }",
	    0, 0, NULL);
	pgp = compile("BEGIN { @fresh = sum(1); }", 0, 0, NULL);
	tap_ok(pgp != NULL, "failed compile takes its aggregations back");
}

static void
test_exprs(void)
{
	check_expr("1 + 2 * 3", 7, 4, 1);
	check_expr("(1 + 2) * 3", 9, 4, 1);
	check_expr("10 - 4 - 3", 3, 4, 1);
	check_expr("-7 / 2", -3, 4, 1);
	check_expr("-7 % 3", -1, 4, 1);
	check_expr("7u / 2", 3, 4, 0);
	/* folded on 64 bits as illumos folds: the record keeps the low half */
	check_expr("-2 / 2u", 0xffffffffLL, 4, 0);
	check_expr("1 << 4 | 1", 17, 4, 1);
	check_expr("-16 >> 2", -4, 4, 1);
	check_expr("0xf0 ^ 0xff", 15, 4, 1);
	check_expr("~0", -1, 4, 1);
	check_expr("!5", 0, 4, 1);
	check_expr("0x7fffffff", 0x7fffffff, 4, 1);
	check_expr("0xffffffff", 0xffffffffLL, 4, 0);
	check_expr("4294967296", 4294967296LL, 8, 1);
	check_expr("010", 8, 4, 1);
	check_expr("5ul", 5, 8, 0);
	check_expr("'a'", 97, 4, 1);
	check_expr("'\\n'", 10, 4, 1);
	check_expr("sizeof (int)", 4, 8, 0);
	check_expr("sizeof (long long)", 8, 8, 0);
	check_expr("sizeof (string)", 256, 8, 0);
	check_expr("sizeof (int (*)[3])", 8, 8, 0);
	check_expr("sizeof (int *[4])", 32, 8, 0);
	check_expr("sizeof (int (*[2])[3])", 16, 8, 0);
	check_expr("sizeof (void (*)(int, char *, ...))", 8, 8, 0);
	check_expr("(char)257", 1, 1, 1);
	check_expr("(unsigned char)-1", 255, 1, 0);
	check_expr("(short)70000", 4464, 2, 1);
	check_expr("1 < 2", 1, 4, 1);
	check_expr("2 <= 1", 0, 4, 1);
	check_expr("-1 < 1u", 0, 4, 1);
	check_expr("1 ? 10 : 20", 10, 4, 1);
	check_expr("0 ^^ 1", 1, 4, 1);
	check_expr("1 ^^ 1", 0, 4, 1);
	check_expr("0 || 0", 0, 4, 1);
	check_expr("2 && 3", 1, 4, 1);

	/* the same, at run time through the VM */
	check_expr("arg0 + arg1", 2, 8, 1);
	check_expr("arg0 / 2", -2, 8, 1);
	check_expr("(uint64_t)arg0 / 2", 0x7ffffffffffffffdLL, 8, 0);
	check_expr("arg0 % arg1", -5, 8, 1);
	check_expr("arg0 >> 1", -3, 8, 1);
	check_expr("(uint64_t)arg0 >> 60", 15, 8, 0);
	check_expr("arg1 << 2 | 1", 29, 8, 1);
	check_expr("arg0 < arg1", 1, 4, 1);
	check_expr("(uint64_t)arg0 < arg1", 0, 4, 1);
	check_expr("arg0 == -5", 1, 4, 1);
	check_expr("arg0 != -5", 0, 4, 1);
	check_expr("arg1 >= 7 && arg0 <= -5", 1, 4, 1);
	check_expr("arg1 > 7 || arg0 > 0", 0, 4, 1);
	check_expr("arg1 ^^ arg0", 0, 4, 1);
	check_expr("!arg1", 0, 4, 1);
	check_expr("-arg1", -7, 8, 1);
	check_expr("~arg1", -8, 8, 1);
	check_expr("arg1 > 3 ? arg1 * 2 : 0", 14, 8, 1);
	check_expr("arg1 < 3 ? 1 : 2", 2, 4, 1);
	check_expr("(int)arg0", -5, 4, 1);
	check_expr("(unsigned int)arg0", 0xfffffffbLL, 4, 0);
	check_expr("(char)(arg1 + 250)", 1, 1, 1);
	check_expr("pid", 4242, 4, 1);
	check_expr("timestamp", 123456789, 8, 0);
	check_expr("probefunc == \"func\"", 1, 4, 1);
	check_expr("\"abc\" < \"abd\"", 1, 4, 1);
	check_expr("execname != \"exe\"", 0, 4, 1);
	check_expr("(arg1, 3)", 3, 4, 1);
	check_expr("(unsigned)arg1 - 8 > 0", 1, 4, 1);
	check_expr("(unsigned)arg1 - 8", 0xffffffffLL, 4, 0);
	check_expr("1 + (2 + (3 + (4 + (5 + (6 + arg1)))))", 28, 8, 1);
	check_error("BEGIN { trace(1 + (2 + (3 + (4 + (5 + (6 + (7 + (arg1 "
	    "+ 1)))))))); }", "D_REGS", NULL);

	check_body("x = 5; trace(x + 1);", 6);
	check_body("x = 5; x += 3; x *= 2; trace(x);", 16);
	check_body("x = 17; x /= 3; x %= 4; x <<= 3; x |= 1; x ^= 3; "
	    "x &= 0xff; x >>= 1; trace(x);", 5);
	check_body("y = 1; trace(y++);", 1);
	check_body("y = 1; y++; trace(y);", 2);
	check_body("y = 1; trace(++y);", 2);
	check_body("y = 1; trace(--y);", 0);
	check_body("y = 1; y--; y--; trace(y);", -1);
	check_body("i = 2147483647; i++; trace(i);", -2147483648LL);
	check_body("c = (char)127; c++; trace(c);", -128);
	check_body("a = b = 3; trace(a + b);", 6);
	/* ++ and -- declare a new global as = does (an int from 0) */
	check_body("k2++; ++k2; trace(k2);", 2);
	check_body("k3 = 0; k3 += 5; k3 *= 3; trace(k3);", 15);
	/* op= reads its left side first, as illumos: it must exist */
	check_error("BEGIN { k5 += 5; }", "D_VAR_UNDEF", NULL);
	check_body("trace(k4--);", 0);
	check_body("l = arg0; l = 4294967296; trace(l);", 4294967296LL);
	check_body("n = 1; n = 4294967297; trace(n);", 1);
	check_string("s = \"hello\"; trace(s);", "hello");
	check_string("s = probename; trace(s);", "name");
	check_body("s = \"b\"; trace(s > \"a\");", 1);
	check_string("trace(arg1 > 0 ? \"pos\" : \"neg\");", "pos");
}

static void
test_errors(void)
{
	check_error("BEGIN { trace(zz); }", "D_IDENT_UNDEF",
	    "line 1: failed to resolve zz: Unknown variable name");
	check_error("BEGIN\n{\n\ttrace(1);\n\ttrace(1 +);\n}\n", "D_SYNTAX",
	    "line 4: syntax error near \")\"");
	check_error("BEGIN { trace(1) ", "D_SYNTAX", "end of input");
	check_error("", "D_EMPTY", "empty D program translation unit");
	check_error("BEGIN { trace(1 / 0); }", "D_DIV_ZERO",
	    "expression contains division by zero");
	check_error("BEGIN { trace(arg0 % 0); }", "D_DIV_ZERO", NULL);
	check_error("BEGIN { trace(1, 2); }", "D_PROTO_LEN",
	    "trace( ) prototype mismatch: 2 args passed, 1 expected");
	check_error("BEGIN { trace(\"a\" + 1); }", "D_OP_ARITH", NULL);
	check_error("BEGIN { trace(\"a\" & 1); }", "D_OP_INT", NULL);
	check_error("BEGIN { trace(\"a\" == 1); }", "D_OP_INCOMPAT", NULL);
	check_error("BEGIN { trace(!\"a\"); }", "D_OP_SCALAR", NULL);
	check_error("BEGIN { 1 = 2; }", "D_OP_LVAL", NULL);
	check_error("BEGIN { pid = 2; }", "D_OP_WRITE", NULL);
	check_error("BEGIN { q = 1; q = \"s\"; }", "D_OP_INCOMPAT", NULL);
	check_error("BEGIN { trace(curthread); }", "D_VAR_UNSUP", NULL);
	check_error("BEGIN { trace(args[10]); }", "D_PROTO_ARG", NULL);
	check_error("BEGIN { trace(ipl); }", "D_VAR_UNSUP", NULL);
	check_error("BEGIN { trace(sizeof (int (int))); }", "D_SIZEOF_TYPE",
	    "cannot apply sizeof to an expression of function type: "
	    "int (int)");
	check_error("BEGIN { foo(); }", "D_FUNC_UNDEF", NULL);
	/* a bad list of specifiers is reported where it went bad */
	check_error("#pragma D option quiet\n\nunsigned struct s\n{\n"
	    "\tint a;\n};\nBEGIN { }", "D_DECL_COMBO", "line 4: ");
	check_error("long\nlong\nstring x;\nBEGIN { }", NULL, "line 3: ");
	check_error("BEGIN { trace(trace(1)); }", "D_ACT_EXPR", NULL);
	check_error("BEGIN { printa(@a); }", "D_PRINTA_AGGBAD", NULL);
	check_error("BEGIN { printf(1); }", "D_PROTO_ARG", NULL);
	check_error("BEGIN { printf(probefunc); }", "D_PRINTF_ARG_FMT", NULL);
	check_error("BEGIN { printf(\"%d\\n\"); }", NULL, NULL);
	check_error("BEGIN /\"x\"/ { }", "D_PRED_SCALAR", NULL);
	check_error("a:b:c:d:e { }", "D_PDESC_INVAL", NULL);
	check_error("BEGIN { trace(09); }", "D_INT_DIGIT", NULL);
	check_error("BEGIN { trace(99999999999999999999); }", "D_INT_OFLOW",
	    NULL);
	check_error("BEGIN { trace(\"abc\n\"); }", "D_STR_NL", NULL);
	check_error("BEGIN { trace(''); }", "D_CHR_NULL", NULL);
	check_error("BEGIN { trace((int)\"1\"); }", "D_CAST_INVAL", NULL);
	check_error("BEGIN { trace((signed string)1); }", "D_DECL_COMBO",
	    NULL);
	check_error("BEGIN { s2 = \"a\"; s2++; }", "D_OP_SCALAR", NULL);
	check_error("#pragma D option\nBEGIN { }", "D_PRAGMA_MALFORM", NULL);
	check_error("#pragma D option nosuchoption=1\nBEGIN { }",
	    "D_PRAGMA_OPTSET", "line 1:");
	check_error("#pragma D attributes x\nBEGIN { }", "D_PRAGMA_MALFORM",
	    NULL);
	check_error("#pragma D nosuchpragma x\nBEGIN { }", "D_PRAGMA_INVAL",
	    NULL);
	check_error("#foo\nBEGIN { }", "D_PRAGCTL_INVAL", NULL);
	check_error("BEGIN { trace(1); } /* open", "D_SYNTAX", NULL);
	check_error("BEGIN { trace(self->x); }", "D_VAR_UNDEF", NULL);
	check_error("\n\n\nBEGIN { trace(undef3); }", "D_IDENT_UNDEF",
	    "line 4:");
	check_error("BEGIN { exit(\"a\"); }", "D_PROTO_ARG", NULL);
	check_error("BEGIN { trace(1 +\n\n zz); }", "D_IDENT_UNDEF",
	    "line 3:");
}

static void
test_macros(void)
{
	/* $1: a pid above Linux's limit, that no process has to grab */
	char *const argv[] = { "script.d", "4194305", "foo", "-3" };
	char body[128];
	dtrace_prog_t *pgp;
	uint64_t v;
	int fault;

	pgp = compile("BEGIN { trace($1 + $3); trace($$2); trace(foo); }",
	    DTRACE_C_ARGREF, 4, argv);
	tap_ok(pgp == NULL && g_dtp->dt_errtag != NULL &&
	    strcmp(g_dtp->dt_errtag, "D_IDENT_UNDEF") == 0,
	    "$2 is the identifier foo");
	pgp = compile("BEGIN { x = $1 + $3; trace(x); }", 0, 4, argv);
	tap_ok(pgp == NULL && strcmp(g_dtp->dt_errtag, "D_MACRO_UNUSED") ==
	    0, "unreferenced argument is an error");
	pgp = compile("pid$1:::entry { x = $1 + $3; trace(x); trace($$2); }",
	    0, 4, argv);
	tap_ok(pgp != NULL, "macros compile");
	if (pgp != NULL) {
		tap_str(pgp->dp_prog.dp_stmt[0].ds_desc.dpd_provider,
		    "pid4194305", "pid$1 expands");
		reset_globals();
		v = run_stmt(pgp, 0, &fault);
		tap_ok(fault == 0, "runs");
		tap_str((const char *)(uintptr_t)v, "foo", "$$2");
	}
	pgp = compile("BEGIN { trace($4); }", 0, 4, argv);
	tap_ok(pgp == NULL && strcmp(g_dtp->dt_errtag, "D_MACRO_UNDEF") == 0 &&
	    strstr(g_dtp->dt_errmsg, "macro argument $4 is not defined"),
	    "missing $4");
	pgp = compile("BEGIN { trace($5); trace($$6); }", DTRACE_C_DEFARG |
	    DTRACE_C_ARGREF, 4, argv);
	tap_ok(pgp != NULL, "defaultargs");
	pgp = compile("pid$target:::entry { }", 0, 1, argv);
	tap_ok(pgp == NULL && strcmp(g_dtp->dt_errtag, "D_MACRO_UNDEF") == 0,
	    "$target undefined");
	snprintf(body, sizeof(body), "trace($pid == %d);", (int)getpid());
	check_body(body, 1);
}

/* The variable table entry of name in the first DIFO of statement 0. */
static const dif_var_t *
find_var(dtrace_prog_t *pgp, const char *name)
{
	const dif_difo_t *dp = pgp->dp_prog.dp_stmt[0].ds_act[0].da_difo[0];
	uint32_t i;

	for (i = 0; i < dp->dd_varlen; i++) {
		if (strcmp(dp->dd_strtab + dp->dd_vartab[i].dv_name,
		    name) == 0)
			return &dp->dd_vartab[i];
	}
	return NULL;
}

static void
test_dynvars(void)
{
	const dif_var_t *v;
	dtrace_prog_t *pgp;

	check_body("self->dx = 5; trace(self->dx + 1);", 6);
	check_body("self->dy = 1; self->dy++; self->dy *= 7; trace(self->dy);",
	    14);
	check_string("self->ds = \"thr\"; trace(self->ds);", "thr");
	check_body("this->lv = 3; this->lv++; trace(this->lv);", 4);
	check_string("this->ls = \"loc\"; trace(this->ls);", "loc");
	check_body("da[1, \"k\"] = 7; da[1, \"k\"] += 3; trace(da[1, \"k\"]);",
	    10);
	check_body("db[2] = 5; ++db[2]; trace(db[2]++ + db[2]);", 13);
	check_string("dc[\"a\"] = \"hi\"; dc[\"b\"] = \"ho\"; trace(dc[\"a\"]);",
	    "hi");
	check_body("dd[1] = 2; dd[dd[1]] = 9; trace(dd[2] + dd[3]);", 9);
	check_body("de[1] = 5; de[1] = 0; trace(de[1]);", 0);
	check_body("self->ea[\"x\", 2] = 4; trace(self->ea[\"x\", 2]);", 4);
	/* an int key is converted to the key type of the first use */
	check_body("df[(char)1] = 8; trace(df[257]);", 8);
	/* the thread key tells threads apart */
	check_body("self->dt = 42; trace(self->dt);", 42);
	g_tkey = 2;
	check_body("self->dt = self->dt + 1; trace(self->dt);", 1);
	g_tkey = 1;
	check_body("self->dt = self->dt + 1; trace(self->dt);", 43);
	/* this-> does not outlive its firing */
	check_body("this->lv = this->lv + 1; trace(this->lv);", 1);

	pgp = compile("BEGIN { self->follow = 1; }", 0, 0, NULL);
	v = pgp != NULL ? find_var(pgp, "follow") : NULL;
	tap_ok(v != NULL && v->dv_kind == DIFV_KIND_SCALAR &&
	    v->dv_scope == DIFV_SCOPE_THREAD && v->dv_flags == DIFV_F_MOD &&
	    v->dv_id >= DIF_VAR_OTHER_UBASE, "self->follow: scl tls w");
	pgp = compile("BEGIN { trace(dg[\"k\"] = 1); }", 0, 0, NULL);
	v = pgp != NULL ? find_var(pgp, "dg") : NULL;
	tap_ok(v != NULL && v->dv_kind == DIFV_KIND_ARRAY &&
	    v->dv_scope == DIFV_SCOPE_GLOBAL, "dg[]: arr glb");
	pgp = compile("BEGIN { this->tl = 1; trace(this->tl); }", 0, 0, NULL);
	v = pgp != NULL ? find_var(pgp, "tl") : NULL;
	tap_ok(v != NULL && v->dv_kind == DIFV_KIND_SCALAR &&
	    v->dv_scope == DIFV_SCOPE_LOCAL && v->dv_flags == DIFV_F_MOD,
	    "this->tl: scl lcl w");

	check_error("BEGIN { trace(self->nope); }", "D_VAR_UNDEF",
	    "self->nope has not yet been declared or assigned");
	check_error("BEGIN { trace(this->nope); }", "D_VAR_UNDEF", NULL);
	check_error("BEGIN { trace(nope[1]); }", "D_VAR_UNDEF", NULL);
	check_error("BEGIN { dh[1, 2] = 1; dh[1] = 2; }", "D_PROTO_LEN",
	    "dh[ ] prototype mismatch: 1 arg passed, 2 expected");
	check_error("BEGIN { di[1] = 1; di[\"s\"] = 2; }", "D_PROTO_ARG", NULL);
	check_error("BEGIN { this->dj[1] = 1; }", "D_DECL_LOCASSC", NULL);
	check_error("BEGIN { dk = 1; dk[1] = 2; }", "D_IDENT_BADREF", NULL);
	check_error("BEGIN { dl[1] = 1; trace(dl); }", "D_IDENT_BADREF", NULL);
	check_error("BEGIN { self->dm = 1; self->dm = \"s\"; }",
	    "D_OP_INCOMPAT", NULL);
	check_error("BEGIN { dn[1,2,3,4,5,6,7,8,9] = 1; }", "D_KEY_TYPE", NULL);
	/* a failed compile takes its declarations back */
	check_body("dh[1, 2] = 6; trace(dh[1, 2]);", 6);
}

/* Subroutine calls: prototypes, result types, nesting, faults. */
static void
test_subrs(void)
{
	dtrace_prog_t *pgp;
	int fault;

	check_expr("strlen(\"hello\")", 5, 8, 0);
	check_expr("strlen(strjoin(substr(\"hello\", 1), \"xy\"))", 6, 8, 0);
	check_expr("index(\"abcabc\", \"c\", 3)", 5, 4, 1);
	check_expr("rindex(\"abc\", \"z\")", -1, 4, 1);
	check_expr("strtoll(\"-12\")", -12, 8, 1);
	check_expr("htons(0x1234)", 0x3412, 2, 0);
	check_expr("ntohl(0x11223344)", 0x44332211, 4, 0);
	check_expr("sizeof (rand())", 4, 8, 0);
	check_string("trace(strjoin(\"a\", \"b\"));", "ab");
	check_string("trace(basename(dirname(\"/a/b/c\")));", "b");
	check_string("trace(lltostr(-7));", "-7");
	check_string("trace(toupper(substr(\"hello\", -2)));", "LO");
	/* the tuple stack is flushed before each call's arguments */
	check_string("sk[\"k\"] = 1; trace(strjoin(lltostr(sk[\"k\"]), "
	    "\"x\"));", "1x");

	check_error("BEGIN { trace(strlen(\"a\", \"b\")); }", "D_PROTO_LEN",
	    "strlen( ) prototype mismatch: 2 args passed, 1 expected");
	check_error("BEGIN { trace(substr(\"a\")); }", "D_PROTO_LEN",
	    "1 arg passed, at least 2 expected");
	check_error("BEGIN { trace(strlen(1)); }", "D_PROTO_ARG",
	    "strlen( ) argument #1 is incompatible with prototype:\n"
	    "\tprototype: const char *\n\t argument: int");
	check_error("BEGIN { trace(progenyof(\"1\")); }", "D_PROTO_ARG",
	    NULL);

	/* copyinstr() of an address the process does not have */
	pgp = compile("BEGIN { trace(copyinstr(8)); }", 0, 0, NULL);
	tap_ok(pgp != NULL && verify_prog(pgp) == 0, "copyinstr compiles");
	if (pgp != NULL) {
		(void)run_stmt(pgp, 0, &fault);
		tap_is(fault, DIF_FLT_BADADDR, "copyinstr(8) faults BADADDR");
	}
}

/* ustack(), usym() and friends, destructive actions: their layouts */
static void
test_stacks(void)
{
	dtrace_prog_t *pgp;
	const dtp_prog_t *pp;
	const dtp_stmt_t *sp;
	const dtp_action_t *ap;
	const dif_difo_t *dp;
	uint32_t i;
	int calls;

	pgp = compile("BEGIN { ustack(); ustack(5, 100); uaddr(arg0); "
	    "usym(arg0); ufunc(arg0); umod(arg0); }", 0, 0, NULL);
	tap_ok(pgp != NULL, "ustack and symbol actions compile");
	if (pgp == NULL)
		return;
	sp = &pgp->dp_prog.dp_stmt[0];
	tap_is(sp->ds_nact, 6, "six actions");
	ap = sp->ds_act;
	tap_ok(ap[0].da_kind == DTRACEACT_USTACK && ap[0].da_ndifo == 0 &&
	    DTRACE_USTACK_NFRAMES(ap[0].da_arg) == 20 &&
	    DTRACE_USTACK_STRSIZE(ap[0].da_arg) == 0 &&
	    ap[0].da_size == 21 * 8, "ustack(): ustackframes (20) frames");
	tap_ok(ap[1].da_kind == DTRACEACT_USTACK &&
	    DTRACE_USTACK_NFRAMES(ap[1].da_arg) == 5 &&
	    DTRACE_USTACK_STRSIZE(ap[1].da_arg) == 100 &&
	    ap[1].da_size == 6 * 8 + 100 && ap[1].da_offset % 8 == 0,
	    "ustack(5, 100): pid, 5 pcs, 100 bytes of strings");
	tap_ok(ap[2].da_kind == DTRACEACT_UADDR &&
	    ap[3].da_kind == DTRACEACT_USYM &&
	    ap[4].da_kind == DTRACEACT_USYM &&
	    ap[5].da_kind == DTRACEACT_UMOD,
	    "uaddr, usym, ufunc (as usym), umod");
	for (i = 2; i < 6; i++) {
		if (ap[i].da_size != 16 || ap[i].da_ndifo != 1 ||
		    ap[i].da_offset % 8 != 0)
			break;
	}
	tap_is(i, 6, "each records pid and address, 8-aligned");
	tap_ok(verify_prog(pgp) == 0, "verifies");

	g_dtp->dt_options[DTRACEOPT_USTACKFRAMES] = 7;
	pgp = compile("BEGIN { @stk[ustack(), usym(arg0), 1] = count(); "
	    "@stku[umod(arg1), uaddr(arg1)] = sum(1); "
	    "@stkd[ustack()] = count(); }",
	    0, 0, NULL);
	g_dtp->dt_options[DTRACEOPT_USTACKFRAMES] = 20;
	tap_ok(pgp != NULL, "stacks and symbols as aggregation keys");
	if (pgp == NULL)
		return;
	pp = &pgp->dp_prog;
	tap_ok(pp->dp_nagg == 3 && pp->dp_agg[0].dg_nkeys == 3 &&
	    pp->dp_agg[0].dg_keys[0].dk_kind == DTP_KEY_USTACK &&
	    pp->dp_agg[0].dg_keys[0].dk_size == 8 * 8 &&
	    pp->dp_agg[0].dg_keys[1].dk_kind == DTP_KEY_USYM &&
	    pp->dp_agg[0].dg_keys[1].dk_size == 16 &&
	    pp->dp_agg[0].dg_keys[2].dk_kind == DTP_KEY_INT,
	    "@[ustack(), usym(), 1]: a stack of ustackframes (7), a symbol, "
	    "an int");
	tap_ok(pp->dp_agg[1].dg_keys[0].dk_kind == DTP_KEY_UMOD &&
	    pp->dp_agg[1].dg_keys[1].dk_kind == DTP_KEY_UADDR,
	    "@u[umod(), uaddr()]");
	tap_ok(verify_prog(pgp) == 0, "verifies");
	check_error("BEGIN { @stkx[ustack()] = count(); }\n"
	    "BEGIN { @stkx[usym(1)] = count(); }", "D_AGG_MDIM", "key #1");
	check_error("BEGIN { @stky[ustack()] = count(); }\n"
	    "BEGIN { @stky[1] = count(); }", "D_AGG_MDIM", "key #1");
	check_error("BEGIN { ustack(0); }", "D_USTACK_FRAMES",
	    "ustack( ) argument #1 must be a non-zero positive integer "
	    "constant");
	check_error("BEGIN { ustack(arg0); }", "D_USTACK_FRAMES", NULL);
	check_error("BEGIN { ustack(1, -1); }", "D_USTACK_STRSIZE",
	    "ustack( ) argument #2 must be a positive integer constant");
	check_error("BEGIN { ustack(1, 2, 3); }", "D_PROTO_LEN",
	    "ustack( ) prototype mismatch: 3 args passed, at most 2 "
	    "expected");
	check_error("BEGIN { ustack(1, \"x\"); }", "D_PROTO_ARG",
	    "ustack( ) argument #2 is incompatible with prototype:\n"
	    "\tprototype: uint32_t\n\t argument: string");
	check_error("BEGIN { stack(0); }", "D_STACK_SIZE",
	    "stack( ) argument #1 must be a non-zero positive integer "
	    "constant");
	check_error("BEGIN { stack(\"x\"); }", "D_PROTO_ARG",
	    "stack( ) argument #1 is incompatible with prototype:\n"
	    "\tprototype: uint32_t\n\t argument: string");
	check_error("BEGIN { stack(1, 2); }", "D_PROTO_LEN",
	    "stack( ) prototype mismatch: 2 args passed, at most 1 "
	    "expected");

	/* stack(): nframes pcs, stackframes by default, maxframes caps */
	g_dtp->dt_options[DTRACEOPT_STACKFRAMES] = 6;
	pgp = compile("BEGIN { stack(); stack(3); stack(5000); "
	    "@kst[stack(), stack(2), 1] = count(); }", 0, 0, NULL);
	g_dtp->dt_options[DTRACEOPT_STACKFRAMES] = 20;
	tap_ok(pgp != NULL, "stack() as actions and keys");
	if (pgp == NULL)
		return;
	sp = &pgp->dp_prog.dp_stmt[0];
	ap = sp->ds_act;
	pp = &pgp->dp_prog;
	tap_ok(sp->ds_nact == 4 && ap[0].da_kind == DTRACEACT_STACK &&
	    ap[0].da_ndifo == 0 && ap[0].da_arg == 6 &&
	    ap[0].da_size == 6 * 8 && ap[1].da_arg == 3 &&
	    ap[1].da_size == 3 * 8 && ap[1].da_offset % 8 == 0 &&
	    ap[2].da_arg == DTRACE_STACK_MAXFRAMES &&
	    ap[2].da_size == DTRACE_STACK_MAXFRAMES * 8,
	    "stack(): stackframes (6) pcs; stack(3): 3; stack(5000): 1024");
	tap_ok(pp->dp_nagg == 1 && pp->dp_agg[0].dg_nkeys == 3 &&
	    pp->dp_agg[0].dg_keys[0].dk_kind == DTP_KEY_STACK &&
	    pp->dp_agg[0].dg_keys[0].dk_size == 6 * 8 &&
	    pp->dp_agg[0].dg_keys[1].dk_kind == DTP_KEY_STACK &&
	    pp->dp_agg[0].dg_keys[1].dk_size == 2 * 8 &&
	    pp->dp_agg[0].dg_keys[2].dk_kind == DTP_KEY_INT,
	    "@[stack(), stack(2), 1]: stacks of 6 and 2 pcs, an int");
	tap_ok(verify_prog(pgp) == 0, "verifies");
	g_dtp->dt_options[DTRACEOPT_MAXFRAMES] = 4;
	pgp = compile("BEGIN { stack(); stack(9); stack(2); }", 0, 0, NULL);
	g_dtp->dt_options[DTRACEOPT_MAXFRAMES] = DTRACEOPT_UNSET;
	ap = pgp != NULL ? pgp->dp_prog.dp_stmt[0].ds_act : NULL;
	tap_ok(ap != NULL && ap[0].da_arg == 4 && ap[1].da_arg == 4 &&
	    ap[2].da_arg == 2, "maxframes=4 caps stack() and stack(9)");
	check_error("BEGIN { @kst2[stack()] = count(); }\n"
	    "BEGIN { @kst2[ustack()] = count(); }", "D_AGG_MDIM", "key #1");

	check_error("BEGIN { panic(1); }", "D_PROTO_LEN",
	    "panic( ) prototype mismatch: 1 arg passed, 0 expected");
	check_error("BEGIN { progenyof(trace(1)); }", "D_PROTO_ARG",
	    "progenyof( ) argument #1 is incompatible with prototype:\n"
	    "\tprototype: pid_t\n\t argument: void");
	check_error("BEGIN { usym(); }", "D_PROTO_LEN",
	    "usym( ) prototype mismatch: 0 args passed, 1 expected");
	check_error("BEGIN { umod(\"x\"); }", "D_PROTO_ARG",
	    "umod( ) argument #1 is incompatible with prototype:\n"
	    "\tprototype: uintptr_t\n\t argument: string");
	check_error("BEGIN { trace(ustackdepth + ufunc(1)); }", "D_ACT_EXPR",
	    NULL);

	pgp = compile("BEGIN { stop(); raise(9); system(\"echo %d\", 1); "
	    "copyout(copyin(1, 2), 3, 2); copyoutstr(\"s\", 4, 2); }",
	    0, 0, NULL);
	tap_ok(pgp != NULL, "destructive actions compile (-w is the daemon's)");
	if (pgp == NULL)
		return;
	sp = &pgp->dp_prog.dp_stmt[0];
	ap = sp->ds_act;
	tap_ok(sp->ds_nact == 5 && ap[0].da_kind == DTRACEACT_STOP &&
	    ap[0].da_ndifo == 0 && ap[1].da_kind == DTRACEACT_RAISE &&
	    ap[1].da_ndifo == 1 && ap[1].da_size == 0 &&
	    ap[2].da_kind == DTRACEACT_SYSTEM && ap[2].da_nargs == 1 &&
	    strcmp(pgp->dp_prog.dp_fmt[ap[2].da_arg], "echo %d") == 0,
	    "stop, raise(9), system() with its format like printf");
	for (calls = 0, i = 3; i < 5 && i < sp->ds_nact; i++) {
		uint32_t j;

		dp = ap[i].da_difo[0];
		for (j = 0; j < dp->dd_len; j++) {
			if (DIF_INSTR_OP(dp->dd_buf[j]) == DIF_OP_CALL &&
			    DIF_INSTR_SUBR(dp->dd_buf[j]) ==
			    (i == 3 ? DIF_SUBR_COPYOUT : DIF_SUBR_COPYOUTSTR))
				calls++;
		}
	}
	tap_is(calls, 2, "copyout, copyoutstr: calls of their subroutines");
	tap_ok(verify_prog(pgp) == 0, "verifies");
	check_error("BEGIN { speculate(1); raise(1); }", "D_ACT_SPEC",
	    "destructive actions may not follow speculate( )");
	check_error("BEGIN { raise(\"x\"); }", "D_PROTO_ARG",
	    "raise( ) argument #1 is incompatible with prototype");
	check_error("BEGIN { stop(1); }", "D_PROTO_LEN",
	    "stop( ) prototype mismatch: 1 arg passed, 0 expected");
}

int
main(void)
{
	int err;

	if ((g_dtp = dtrace_open(DTRACE_VERSION, DTRACE_O_NODEV, &err)) ==
	    NULL) {
		printf("Bail out! dtrace_open: %d\n", err);
		return 1;
	}
	test_layout();
	test_exprs();
	test_aggs();
	test_errors();
	test_macros();
	test_stacks();
	if (dif_dvar_init(&g_vstate, 1 << 20) != 0 ||
	    dif_dvar_local_init(&g_lstate, 64, 256) != 0) {
		printf("Bail out! dynamic variable space\n");
		return 1;
	}
	test_dynvars();
	test_subrs();	/* after the dynamic variable space is set up */
	dif_dvar_local_fini(&g_lstate);
	dif_dvar_fini(&g_vstate);
	dtrace_close(g_dtp);
	return tap_done();
}
