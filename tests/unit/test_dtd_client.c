/*
 * test_dtd_client.c: drive a private dtraced (-f) through a whole
 * session over a socketpair, with hand-assembled DIF: state errors,
 * rejected programs, BEGIN records, exit(), a fault firing ERROR, END,
 * aggregations, and the drop of a client that sends garbage.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_proto.h"
#include "tap.h"

static dt_peer_t peer;

static pid_t
spawn(const char *path)
{
	char fdarg[16];
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		exit(1);
	if ((pid = fork()) == 0) {
		dup2(sv[1], 3);
		snprintf(fdarg, sizeof(fdarg), "%d", 3);
		execl(path, "dtraced", "-f", fdarg, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	dt_peer_init(&peer, sv[0], DT_MSG_MAXDAEMON);
	return pid;
}

static dif_difo_t *
difo(const dif_instr_t *ins, uint32_t n, uint64_t iv, const char *str,
    int kind, uint32_t size)
{
	dif_difo_t *d = calloc(1, sizeof(*d));

	d->dd_buf = malloc(n * sizeof(dif_instr_t));
	memcpy(d->dd_buf, ins, n * sizeof(dif_instr_t));
	d->dd_len = n;
	d->dd_inttab = malloc(sizeof(uint64_t));
	d->dd_inttab[0] = iv;
	d->dd_intlen = 1;
	if (str != NULL) {
		d->dd_strlen = strlen(str) + 1;
		d->dd_strtab = strdup(str);
	}
	if (kind == DIF_TYPE_STRING) {
		d->dd_rtype.dt_kind = DIF_TYPE_STRING;
		d->dd_rtype.dt_flags = DIF_TF_BYREF;
	} else {
		d->dd_rtype.dt_kind = DIF_TYPE_CTF;
		d->dd_rtype.dt_ckind = DIF_CKIND_INTEGER;
	}
	d->dd_rtype.dt_size = size;
	return d;
}

static dif_difo_t *
dconst(uint64_t v)
{
	dif_instr_t i[] = { DIF_INSTR_SETX(0, 1), DIF_INSTR_RET(1) };

	return difo(i, 2, v, NULL, DIF_TYPE_CTF, 8);
}

static dif_difo_t *
dvar(uint32_t var, int kind)
{
	dif_instr_t i[] = { DIF_INSTR_LDV(DIF_OP_LDGS, var, 1),
	    DIF_INSTR_RET(1) };

	return difo(i, 2, 0, NULL, kind, kind == DIF_TYPE_STRING ? 256 : 8);
}

static void
act(dtp_action_t *a, uint32_t kind, uint32_t size, uint32_t off,
    uint64_t arg, dif_difo_t *d)
{
	memset(a, 0, sizeof(*a));
	a->da_kind = kind;
	a->da_size = size;
	a->da_offset = off;
	a->da_align = size >= 8 ? 8 : size ? size : 1;
	a->da_arg = arg;
	if (d != NULL) {
		a->da_ndifo = 1;
		a->da_difo = calloc(1, sizeof(*a->da_difo));
		a->da_difo[0] = d;
	}
}

static void
stmt(dtp_stmt_t *s, const char *prov, const char *name, uint32_t nact,
    uint32_t size)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->ds_desc.dpd_provider, prov);
	strcpy(s->ds_desc.dpd_name, name);
	s->ds_nact = nact;
	s->ds_act = calloc(nact, sizeof(dtp_action_t));
	s->ds_size = size;
}

static void
sendmsg_(dt_msg_t *m)
{
	if (dt_peer_request(&peer, m) == -1)
		tap_ok(0, "send %s", dt_msg_type_name(m->dm_type));
	dt_msg_free(m);
}

static void
sendempty(uint16_t type)
{
	dt_msg_t m;

	dt_msg_init(&m, type);
	sendmsg_(&m);
}

static void
sendprog(const dtp_prog_t *p)
{
	dt_msg_t m;

	dt_msg_init(&m, DT_MSG_PROGRAM);
	dt_proto_prog_encode(&m, p);
	sendmsg_(&m);
}

static int
recvmsg_(dt_msg_t *m)
{
	return dt_peer_recv(&peer, m) == 1;
}

/* Expect DT_MSG_ERROR whose text contains want. */
static void
experror(const char *want, const char *what)
{
	dt_msg_t m;
	char text[4200];

	if (!recvmsg_(&m) || m.dm_type != DT_MSG_ERROR) {
		tap_ok(0, "%s: ERROR", what);
		dt_msg_free(&m);
		return;
	}
	(void)dt_msg_get_u32(&m);
	dt_msg_get_strbuf(&m, text, sizeof(text));
	tap_ok(strstr(text, want) != NULL, "%s: \"%s\"", what, text);
	dt_msg_free(&m);
}

static void
exptype(uint16_t type, dt_msg_t *m)
{
	if (!recvmsg_(m)) {
		tap_ok(0, "receive %s", dt_msg_type_name(type));
		dt_msg_init(m, 0);
		return;
	}
	tap_ok(m->dm_type == type, "got %s (want %s)",
	    dt_msg_type_name(m->dm_type), dt_msg_type_name(type));
}

static uint64_t
le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static dtp_prog_t *
goodprog(void)
{
	dtp_prog_t *p = calloc(1, sizeof(*p));
	dif_instr_t bad[] = { DIF_INSTR_SETX(0, 1),
	    DIF_INSTR_LOAD(DIF_OP_LDUW, 1, 2), DIF_INSTR_RET(2) };
	dtp_stmt_t *s;

	p->dp_nopt = 1;
	p->dp_opt = calloc(1, sizeof(dtp_opt_t));
	p->dp_opt[0].do_name = strdup("bufsize");
	p->dp_opt[0].do_value = 4096;

	p->dp_nagg = 2;
	p->dp_agg = calloc(2, sizeof(dtp_agg_t));
	p->dp_agg[0].dg_id = 0;
	p->dp_agg[0].dg_kind = DTRACEAGG_COUNT;
	p->dp_agg[0].dg_name = strdup("c");
	p->dp_agg[0].dg_nkeys = 1;
	p->dp_agg[0].dg_keys = calloc(1, sizeof(dtp_aggkey_t));
	p->dp_agg[0].dg_keys[0].dk_kind = DTP_KEY_STRING;
	p->dp_agg[0].dg_keys[0].dk_size = 16;
	p->dp_agg[1].dg_id = 1;
	p->dp_agg[1].dg_kind = DTRACEAGG_SUM;
	p->dp_agg[1].dg_name = strdup("");

	p->dp_nstmt = 5;
	p->dp_stmt = s = calloc(5, sizeof(dtp_stmt_t));
	/* 0: BEGIN { trace(*(uint32_t *)8); }: faults */
	stmt(&s[0], "dtrace", "BEGIN", 1, 8);
	act(&s[0].ds_act[0], DTRACEACT_DIFEXPR, 8, 0, 0,
	    difo(bad, 3, 8, NULL, DIF_TYPE_CTF, 8));
	/* 1: BEGIN /0/ { trace(99); } */
	stmt(&s[1], "", "BEGIN", 1, 8);
	s[1].ds_pred = dconst(0);
	act(&s[1].ds_act[0], DTRACEACT_DIFEXPR, 8, 0, 0, dconst(99));
	/* 2: BEGIN { trace(42); trace("hi"); exit(3); } */
	stmt(&s[2], "dtrace", "BEGIN", 3, 28);
	act(&s[2].ds_act[0], DTRACEACT_DIFEXPR, 8, 0, 0, dconst(42));
	{
		dif_instr_t i[] = { DIF_INSTR_SETS(0, 1), DIF_INSTR_RET(1) };

		act(&s[2].ds_act[1], DTRACEACT_DIFEXPR, 16, 8, 0,
		    difo(i, 2, 0, "hi", DIF_TYPE_STRING, 256));
	}
	act(&s[2].ds_act[2], DTRACEACT_EXIT, 4, 24, 0, dconst(3));
	/* 3: END { @c[probename] = count(); @ = sum(5); trace(7); } */
	stmt(&s[3], "dtrace", "END", 3, 8);
	act(&s[3].ds_act[0], DTRACEAGG_COUNT, 0, 0, 0,
	    dvar(DIF_VAR_PROBENAME, DIF_TYPE_STRING));
	act(&s[3].ds_act[1], DTRACEAGG_SUM, 0, 0, 1, dconst(5));
	act(&s[3].ds_act[2], DTRACEACT_DIFEXPR, 8, 0, 0, dconst(7));
	/* 4: ERROR { trace(arg1); trace(arg2); trace(arg4); } */
	stmt(&s[4], "dtrace", "ERROR", 3, 24);
	act(&s[4].ds_act[0], DTRACEACT_DIFEXPR, 8, 0, 0,
	    dvar(DIF_VAR_ARG1, DIF_TYPE_CTF));
	act(&s[4].ds_act[1], DTRACEACT_DIFEXPR, 8, 8, 0,
	    dvar(DIF_VAR_ARG2, DIF_TYPE_CTF));
	act(&s[4].ds_act[2], DTRACEACT_DIFEXPR, 8, 16, 0,
	    dvar(DIF_VAR_ARG4, DIF_TYPE_CTF));
	return p;
}

static dtp_prog_t *
oneprog(const char *optname, uint64_t optval, dif_difo_t *d)
{
	dtp_prog_t *p = calloc(1, sizeof(*p));

	if (optname != NULL) {
		p->dp_nopt = 1;
		p->dp_opt = calloc(1, sizeof(dtp_opt_t));
		p->dp_opt[0].do_name = strdup(optname);
		p->dp_opt[0].do_value = optval;
	}
	p->dp_nstmt = 1;
	p->dp_stmt = calloc(1, sizeof(dtp_stmt_t));
	stmt(&p->dp_stmt[0], "dtrace", "BEGIN", 1, 8);
	act(&p->dp_stmt[0].ds_act[0], DTRACEACT_DIFEXPR, 8, 0, 0,
	    d != NULL ? d : dconst(1));
	return p;
}

static void
snapshot(uint32_t what, uint8_t *buf, size_t *buflen, uint32_t *act,
    uint32_t *status, uint64_t *errors, dt_msg_t *agg)
{
	dt_msg_t m;
	const void *data;

	*buflen = 0;
	dt_msg_init(agg, 0);
	dt_msg_init(&m, DT_MSG_SNAP);
	dt_msg_put_u32(&m, what);
	sendmsg_(&m);
	for (;;) {
		if (!recvmsg_(&m)) {
			tap_ok(0, "snapshot reply");
			return;
		}
		if (m.dm_type == DT_MSG_BUF) {
			(void)dt_msg_get_u32(&m);
			tap_is(dt_msg_get_u64(&m), 0, "no drops");
			(void)dt_msg_get_u32(&m);
			data = dt_msg_get_bytes(&m, m.dm_len - m.dm_off);
			memcpy(buf + *buflen, data, m.dm_len - 16);
			*buflen += m.dm_len - 16;
		} else if (m.dm_type == DT_MSG_AGG) {
			/* the tests read one CPU's: keep the last */
			dt_msg_free(agg);
			*agg = m;
			continue;
		} else if (m.dm_type == DT_MSG_SNAP_END) {
			*act = dt_msg_get_u32(&m);
			*status = dt_msg_get_u32(&m);
			*errors = dt_msg_get_u64(&m);
			dt_msg_free(&m);
			return;
		} else
			tap_ok(0, "unexpected %s", dt_msg_type_name(m.dm_type));
		dt_msg_free(&m);
	}
}

/* profile:::tick-10ms { @ = count(); } for a while; it must have fired. */
static void
ticksession(const char *path)
{
	uint8_t buf[4096];
	uint32_t activity, status, n, nent;
	uint64_t errors, total = 0;
	dtp_prog_t *p = calloc(1, sizeof(*p));
	dt_msg_t m, agg;
	size_t len;
	pid_t pid;
	int st;

	pid = spawn(path);
	dt_msg_init(&m, DT_MSG_HELLO);
	dt_msg_put_u32(&m, (uint32_t)getpid());
	sendmsg_(&m);
	exptype(DT_MSG_HELLO_OK, &m);
	dt_msg_free(&m);

	p->dp_nagg = 1;
	p->dp_agg = calloc(1, sizeof(dtp_agg_t));
	p->dp_agg[0].dg_kind = DTRACEAGG_COUNT;
	p->dp_agg[0].dg_name = strdup("");
	p->dp_nstmt = 1;
	p->dp_stmt = calloc(1, sizeof(dtp_stmt_t));
	stmt(&p->dp_stmt[0], "", "tick-10ms", 1, 0);
	act(&p->dp_stmt[0].ds_act[0], DTRACEAGG_COUNT, 0, 0, 0, NULL);
	sendprog(p);
	dt_proto_prog_free(p);
	exptype(DT_MSG_PROGRAM_OK, &m);
	n = dt_msg_get_u32(&m);
	tap_is(n, 1, "tick-10ms: one probe");
	tap_is(dt_msg_get_u32(&m), 1, "epid 1");
	(void)dt_msg_get_u32(&m);
	tap_ok(dt_msg_get_u32(&m) > 3, "a new probe id");
	dt_msg_free(&m);

	sendempty(DT_MSG_GO);
	exptype(DT_MSG_GO_OK, &m);
	dt_msg_free(&m);
	usleep(300000);
	sendempty(DT_MSG_STOP);
	exptype(DT_MSG_STOP_OK, &m);
	dt_msg_free(&m);
	snapshot(DT_SNAP_BUF | DT_SNAP_AGG, buf, &len, &activity, &status,
	    &errors, &agg);
	tap_is(len, 0, "an aggregation-only clause records nothing");
	if (agg.dm_type == DT_MSG_AGG) {
		(void)dt_msg_get_u32(&agg);
		(void)dt_msg_get_u64(&agg);
		nent = dt_msg_get_u32(&agg);
		if (nent == 1) {
			(void)dt_msg_get_u32(&agg);
			(void)dt_msg_get_u32(&agg);
			(void)dt_msg_get_u32(&agg);
			total = dt_msg_get_u64(&agg);
		}
	}
	dt_msg_free(&agg);
	tap_ok(total > 0, "tick-10ms fired (%llu times)",
	    (unsigned long long)total);
	dt_peer_close(&peer);
	tap_is(waitpid(pid, &st, 0), pid, "daemon exited on hangup");
}

int
main(void)
{
	const char *top = getenv("top_builddir");
	char path[4096], name[32], text[128];
	uint8_t buf[65536];
	size_t len;
	uint32_t activity, status, i, n;
	uint64_t errors;
	dtp_prog_t *p;
	dt_msg_t m, agg;
	int st, ncpu;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/daemon/dtraced", top ? top : ".");
	if (access(path, X_OK) != 0) {
		tap_skip_all("daemon/dtraced not built");
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);

	/* A peer that does not open with HELLO is dropped. */
	pid = spawn(path);
	sendprog(p = oneprog(NULL, 0, NULL));
	dt_proto_prog_free(p);
	tap_is(dt_peer_recv(&peer, &m), 0, "PROGRAM before HELLO: dropped");
	tap_ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "PROGRAM before HELLO: -f daemon exits 0");
	dt_peer_close(&peer);

	pid = spawn(path);

	dt_msg_init(&m, DT_MSG_HELLO);
	dt_msg_put_u32(&m, (uint32_t)getpid());
	sendmsg_(&m);
	exptype(DT_MSG_HELLO_OK, &m);
	ncpu = (int)dt_msg_get_u32(&m);
	tap_is(ncpu, sysconf(_SC_NPROCESSORS_CONF), "ncpu");
	tap_is(dt_msg_get_u32(&m), pid, "daemon pid");
	tap_ok(dt_msg_done(&m), "HELLO_OK exact");
	dt_msg_free(&m);

	sendempty(DT_MSG_STOP);
	experror("not started", "STOP before GO");

	/* retained programs: there are none; a -f daemon retains nothing */
	sendempty(DT_MSG_RETAINED);
	exptype(DT_MSG_RETAINED_OK, &m);
	tap_is(dt_msg_get_u32(&m), 0, "RETAINED_OK: none");
	tap_ok(dt_msg_done(&m), "RETAINED_OK exact");
	dt_msg_free(&m);
	dt_msg_init(&m, DT_MSG_CLAIM);
	dt_msg_put_str(&m, "");
	dt_msg_put_u32(&m, DT_CLAIM_SNAPSHOT);
	sendmsg_(&m);
	experror("no retained programs", "CLAIM with none there");
	dt_msg_init(&m, DT_MSG_CLAIM);
	dt_msg_put_str(&m, "rec");
	dt_msg_put_u32(&m, 0);
	sendmsg_(&m);
	experror("no retained program named rec", "CLAIM rec");
	dt_msg_init(&m, DT_MSG_RETAIN);
	dt_msg_put_str(&m, "rec");
	dt_msg_put_u32(&m, 0);
	sendmsg_(&m);
	experror("need a shared dtraced", "RETAIN on a -f daemon");

	sendprog(p = oneprog("nosuchopt", 1, NULL));
	dt_proto_prog_free(p);
	experror("unknown option \"nosuchopt\"", "unknown option");
	sendprog(p = oneprog("bufpolicy", 9, NULL));
	dt_proto_prog_free(p);
	experror("invalid bufpolicy 9", "bufpolicy 9");
	sendprog(p = oneprog("bufresize", 2, NULL));
	dt_proto_prog_free(p);
	experror("invalid bufresize 2", "bufresize 2");
	sendempty(DT_MSG_STATUS);
	experror("not started", "STATUS before GO");
	{
		dif_instr_t ret9[] = { DIF_INSTR_RET(9) };

		sendprog(p = oneprog(NULL, 0, difo(ret9, 1, 0, NULL,
		    DIF_TYPE_CTF, 8)));
		dt_proto_prog_free(p);
		experror("invalid DIF", "bad register rejected");
	}
	p = oneprog(NULL, 0, NULL);
	p->dp_stmt[0].ds_act[0].da_size = 3;
	sendprog(p);
	dt_proto_prog_free(p);
	experror("integer of 3 bytes", "odd integer size rejected");
	p = oneprog(NULL, 0, NULL);
	p->dp_stmt[0].ds_act[0].da_offset = 4;
	p->dp_stmt[0].ds_act[0].da_align = 4;
	sendprog(p);
	dt_proto_prog_free(p);
	experror("outside the record", "action outside its record");

	sendprog(p = goodprog());
	dt_proto_prog_free(p);
	exptype(DT_MSG_PROGRAM_OK, &m);
	n = dt_msg_get_u32(&m);
	tap_is(n, 5, "5 enabled probes");
	for (i = 0; i < n && i < 5; i++) {
		static const uint32_t probe[] = { 1, 1, 1, 2, 3 };
		static const char *pname[] = { "BEGIN", "BEGIN", "BEGIN",
		    "END", "ERROR" };
		uint32_t epid = dt_msg_get_u32(&m), si = dt_msg_get_u32(&m);
		uint32_t id = dt_msg_get_u32(&m), nargs;
		char prov[64], mod[64], func[192];

		dt_msg_get_strbuf(&m, prov, sizeof(prov));
		dt_msg_get_strbuf(&m, mod, sizeof(mod));
		dt_msg_get_strbuf(&m, func, sizeof(func));
		dt_msg_get_strbuf(&m, name, sizeof(name));
		nargs = dt_msg_get_u32(&m);
		tap_ok(epid == i + 1 && si == i && id == probe[i] &&
		    strcmp(prov, "dtrace") == 0 && mod[0] == '\0' &&
		    func[0] == '\0' && strcmp(name, pname[i]) == 0 &&
		    nargs == UINT32_MAX,
		    "epid %u: stmt %u, probe %u dtrace:::%s", epid, si, id, name);
	}
	tap_ok(dt_msg_done(&m), "PROGRAM_OK exact");
	dt_msg_free(&m);

	sendempty(DT_MSG_GO);
	exptype(DT_MSG_GO_OK, &m);
	tap_is(dt_msg_get_u64(&m), 4096, "GO_OK: bufsize 4096 in use");
	tap_is(dt_msg_get_u64(&m), 4u << 20, "GO_OK: aggsize 4m in use");
	(void)dt_msg_get_u64(&m);
	(void)dt_msg_get_u64(&m);
	tap_ok(dt_msg_done(&m), "GO_OK exact");
	dt_msg_free(&m);
	exptype(DT_MSG_NOTIFY, &m);
	tap_is(dt_msg_get_u32(&m), DT_ACT_DRAINING, "NOTIFY: draining");
	tap_is(dt_msg_get_u32(&m), DT_REASON_EXIT, "NOTIFY: because of exit()");
	dt_msg_free(&m);
	sendempty(DT_MSG_STATUS);
	exptype(DT_MSG_STATUS_OK, &m);
	tap_is(dt_msg_get_u32(&m), DT_ACT_DRAINING, "STATUS_OK: draining");
	tap_is(dt_msg_get_u32(&m), DT_REASON_EXIT, "STATUS_OK: exit()");
	dt_msg_free(&m);
	sendempty(DT_MSG_GO);
	experror("already started", "second GO");

	snapshot(DT_SNAP_BUF, buf, &len, &activity, &status, &errors, &agg);
	/* 12-byte headers: u32 epid, the timestamp's high and low halves */
	tap_is(len, 36 + 40, "ERROR record + BEGIN record (rounded to 4)");
	if (len == 76) {
		tap_is(le(buf, 4), 5, "first record: ERROR's epid 5");
		tap_is(le(buf + 12, 8), 1, "arg1 = faulting epid 1");
		tap_is(le(buf + 20, 8), 1, "arg2 = action #1");
		tap_is(le(buf + 28, 8), DIF_FLT_BADADDR, "arg4 = BADADDR");
		tap_is(le(buf + 36, 4), 3, "second record: epid 3");
		tap_is(le(buf + 48, 8), 42, "trace(42)");
		tap_ok(memcmp(buf + 56, "hi\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
		    16) == 0, "trace(\"hi\") NUL-padded");
		tap_is(le(buf + 72, 4), 3, "exit(3) recorded");
		tap_ok(le(buf + 4, 4) << 32 | le(buf + 8, 4),
		    "a timestamp, high half first");
		tap_ok((le(buf + 4, 4) << 32 | le(buf + 8, 4)) <=
		    (le(buf + 40, 4) << 32 | le(buf + 44, 4)),
		    "timestamps ordered");
	}
	tap_is(activity, DT_ACT_DRAINING, "SNAP_END: draining");
	tap_is(status, 3, "SNAP_END: exit status 3");
	tap_is(errors, 1, "SNAP_END: 1 error");
	dt_msg_free(&agg);

	sendempty(DT_MSG_STOP);
	exptype(DT_MSG_STOP_OK, &m);
	dt_msg_free(&m);
	snapshot(DT_SNAP_BUF | DT_SNAP_AGG, buf, &len, &activity, &status,
	    &errors, &agg);
	tap_is(len, 20, "END record");
	tap_is(le(buf, 4), 4, "END's epid 4");
	tap_is(le(buf + 12, 8), 7, "trace(7)");
	tap_is(activity, DT_ACT_STOPPED, "SNAP_END: stopped");
	tap_ok(agg.dm_type == DT_MSG_AGG, "one AGG message");
	if (agg.dm_type == DT_MSG_AGG) {
		(void)dt_msg_get_u32(&agg);
		tap_is(dt_msg_get_u64(&agg), 0, "no aggregation drops");
		tap_is(dt_msg_get_u32(&agg), 2, "2 entries");
		for (i = 0; i < 2; i++) {
			uint32_t id = dt_msg_get_u32(&agg);
			uint32_t ks = dt_msg_get_u32(&agg);
			uint32_t vs = dt_msg_get_u32(&agg);
			const uint8_t *k = dt_msg_get_bytes(&agg, ks);
			const uint8_t *v = dt_msg_get_bytes(&agg, vs);

			if (k == NULL || v == NULL)
				break;
			if (id == 0)
				tap_ok(ks == 16 && memcmp(k, "END", 4) == 0 &&
				    vs == 8 && le(v, 8) == 1,
				    "@c[\"END\"] = 1");
			else
				tap_ok(id == 1 && ks == 0 && vs == 8 &&
				    le(v, 8) == 5, "@ = sum(5) = 5");
		}
		tap_ok(dt_msg_done(&agg), "AGG exact");
	}
	dt_msg_free(&agg);
	sendempty(DT_MSG_STOP);
	experror("already stopped", "second STOP");

	/*
	 * garbage: a header with a wrong version (65535) drops us, after
	 * an error that names both versions, and -f exits
	 */
	memset(buf, 0xff, 12);
	tap_is(write(peer.dp_fd, buf, 12), 12, "send garbage");
	snprintf(text, sizeof(text), "dtraced speaks protocol %u, not 65535",
	    (unsigned int)DT_PROTO_VERSION);
	experror(text, "a header of version 65535");
	tap_ok(dt_peer_recv(&peer, &m) == 0, "daemon hung up on garbage");
	tap_is(waitpid(pid, &st, 0), pid, "daemon exited");
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "with status 0");
	dt_peer_close(&peer);
	ticksession(path);
	return tap_done();
}
