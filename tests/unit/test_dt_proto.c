/*
 * test_dt_proto.c: the wire protocol: program round trip, framing over a
 * real socket with fd passing, and rejection of malformed input.
 */
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_proto.h"
#include "tap.h"

static dif_difo_t *
mkdifo(uint64_t val)
{
	dif_difo_t *dp = calloc(1, sizeof(*dp));

	dp->dd_len = 2;
	dp->dd_buf = calloc(2, sizeof(dif_instr_t));
	dp->dd_buf[0] = DIF_INSTR_SETX(0, 1);
	dp->dd_buf[1] = DIF_INSTR_RET(1);
	dp->dd_intlen = 1;
	dp->dd_inttab = calloc(1, sizeof(uint64_t));
	dp->dd_inttab[0] = val;
	dp->dd_strlen = 4;
	dp->dd_strtab = malloc(4);
	memcpy(dp->dd_strtab, "abc", 4);
	dp->dd_varlen = 1;
	dp->dd_vartab = calloc(1, sizeof(dif_var_t));
	dp->dd_vartab[0].dv_name = 0;
	dp->dd_vartab[0].dv_id = DIF_VAR_OTHER_UBASE;
	dp->dd_vartab[0].dv_kind = DIFV_KIND_SCALAR;
	dp->dd_vartab[0].dv_flags = DIFV_F_MOD;
	dp->dd_vartab[0].dv_type.dt_size = 4;
	dp->dd_rtype.dt_ckind = DIF_CKIND_INTEGER;
	dp->dd_rtype.dt_flags = DIF_TF_SIGNED;
	dp->dd_rtype.dt_size = 4;
	return dp;
}

static dtp_prog_t *
mkprog(void)
{
	dtp_prog_t *pp = calloc(1, sizeof(*pp));
	dtp_stmt_t *sp;
	dtp_action_t *ap;

	pp->dp_nopt = 1;
	pp->dp_opt = calloc(1, sizeof(dtp_opt_t));
	pp->dp_opt[0].do_name = strdup("bufsize");
	pp->dp_opt[0].do_value = 4 << 20;
	pp->dp_nfmt = 1;
	pp->dp_fmt = calloc(1, sizeof(char *));
	pp->dp_fmt[0] = strdup("hello %d\n");
	pp->dp_nagg = 1;
	pp->dp_agg = calloc(1, sizeof(dtp_agg_t));
	pp->dp_agg[0].dg_id = 1;
	pp->dp_agg[0].dg_kind = DTRACEAGG_SUM;
	pp->dp_agg[0].dg_name = strdup("n");
	pp->dp_agg[0].dg_nkeys = 2;
	pp->dp_agg[0].dg_keys = calloc(2, sizeof(dtp_aggkey_t));
	pp->dp_agg[0].dg_keys[0].dk_kind = DTP_KEY_STRING;
	pp->dp_agg[0].dg_keys[0].dk_size = 13;
	pp->dp_agg[0].dg_keys[0].dk_name = strdup("execname");
	pp->dp_agg[0].dg_keys[1].dk_kind = DTP_KEY_INT;
	pp->dp_agg[0].dg_keys[1].dk_size = 8;
	pp->dp_nstmt = 1;
	pp->dp_stmt = sp = calloc(1, sizeof(dtp_stmt_t));
	strcpy(sp->ds_desc.dpd_provider, "dtrace");
	strcpy(sp->ds_desc.dpd_name, "BEGIN");
	sp->ds_pred = mkdifo(1);
	sp->ds_size = 8;
	sp->ds_nact = 2;
	sp->ds_act = ap = calloc(2, sizeof(dtp_action_t));
	ap[0].da_kind = DTRACEACT_PRINTF;
	ap[0].da_nargs = 1;
	ap[1].da_kind = DTRACEACT_DIFEXPR;
	ap[1].da_size = 4;
	ap[1].da_align = 4;
	ap[1].da_ndifo = 1;
	ap[1].da_difo = calloc(1, sizeof(dif_difo_t *));
	ap[1].da_difo[0] = mkdifo(42);
	return pp;
}

static void
test_roundtrip(void)
{
	dtp_prog_t *pp = mkprog(), *qp;
	dt_msg_t m;
	char err[128];

	dt_msg_init(&m, DT_MSG_PROGRAM);
	dt_proto_prog_encode(&m, pp);
	tap_is(m.dm_err, 0, "program encodes");
	qp = dt_proto_prog_decode(&m, err, sizeof(err));
	tap_ok(qp != NULL, "program decodes (%s)", err);
	if (qp == NULL)
		return;
	tap_str(qp->dp_opt[0].do_name, "bufsize", "option name");
	tap_is(qp->dp_opt[0].do_value, 4 << 20, "option value");
	tap_str(qp->dp_fmt[0], "hello %d\n", "format");
	tap_is(qp->dp_agg[0].dg_kind, DTRACEAGG_SUM, "aggregation kind");
	tap_is(qp->dp_agg[0].dg_keys[0].dk_size, 13, "key size");
	tap_str(qp->dp_agg[0].dg_keys[0].dk_name, "execname", "key name");
	tap_str(qp->dp_agg[0].dg_keys[1].dk_name, "", "no key name: empty");
	tap_is(dt_proto_agg_keysize(&qp->dp_agg[0]), 24, "key bytes 8-aligned");
	tap_is(dt_proto_agg_valsize(&qp->dp_agg[0]), 8, "sum value bytes");
	tap_str(qp->dp_stmt[0].ds_desc.dpd_name, "BEGIN", "probe name");
	tap_str(qp->dp_stmt[0].ds_desc.dpd_mod, "", "empty module");
	tap_is(qp->dp_stmt[0].ds_pred->dd_buf[0], DIF_INSTR_SETX(0, 1),
	    "predicate instruction");
	tap_is(qp->dp_stmt[0].ds_act[1].da_difo[0]->dd_inttab[0], 42,
	    "action integer table");
	tap_str(qp->dp_stmt[0].ds_act[1].da_difo[0]->dd_strtab, "abc",
	    "string table");
	tap_is(qp->dp_stmt[0].ds_act[1].da_difo[0]->dd_rtype.dt_flags,
	    DIF_TF_SIGNED, "return type flags");
	tap_is(qp->dp_stmt[0].ds_act[0].da_nargs, 1, "printf nargs");
	dt_proto_prog_free(qp);

	/* Every truncation of a valid program is rejected, never crashes. */
	{
		size_t len = m.dm_len, cut;
		int rejected = 0;

		for (cut = 0; cut < len; cut++) {
			dt_msg_t t;

			dt_msg_init(&t, DT_MSG_PROGRAM);
			dt_msg_put_bytes(&t, m.dm_data, cut);
			qp = dt_proto_prog_decode(&t, err, sizeof(err));
			if (qp == NULL)
				rejected++;
			dt_proto_prog_free(qp);
			dt_msg_free(&t);
		}
		tap_is(rejected, len, "all %zu truncations rejected", len);
	}

	/* Trailing bytes are rejected. */
	{
		dt_msg_t t;

		dt_msg_init(&t, DT_MSG_PROGRAM);
		dt_msg_put_bytes(&t, m.dm_data, m.dm_len);
		dt_msg_put_u8(&t, 0);
		qp = dt_proto_prog_decode(&t, err, sizeof(err));
		tap_ok(qp == NULL && strstr(err, "trailing") != NULL,
		    "trailing garbage rejected (%s)", err);
		dt_msg_free(&t);
	}

	/* Random byte flips: decode either fails or yields a program. */
	{
		int i, ok = 0;

		srandom(1);
		for (i = 0; i < 20000; i++) {
			dt_msg_t t;
			int k;

			dt_msg_init(&t, DT_MSG_PROGRAM);
			dt_msg_put_bytes(&t, m.dm_data, m.dm_len);
			for (k = 0; k < 1 + i % 4; k++)
				t.dm_data[random() % t.dm_len] = random();
			qp = dt_proto_prog_decode(&t, err, sizeof(err));
			dt_proto_prog_free(qp);
			dt_msg_free(&t);
			ok++;
		}
		tap_is(ok, 20000, "20000 mutated programs decoded or rejected");
	}
	dt_msg_free(&m);
	dt_proto_prog_free(pp);
}

static void
test_framing(void)
{
	dt_peer_t a, b;
	dt_msg_t m, r;
	int sv[2], pfd[2], rv;
	char buf[8];

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	tap_is(dt_peer_init(&a, sv[0], DT_MSG_MAXCLIENT), 0, "peer init");
	dt_peer_init(&b, sv[1], DT_MSG_MAXCLIENT);
	tap_is(a.dp_pid, getpid(), "SO_PEERCRED pid");
	tap_is(a.dp_uid, getuid(), "SO_PEERCRED uid");

	dt_msg_init(&m, DT_MSG_HELLO);
	dt_msg_put_u32(&m, 1234);
	tap_is(dt_peer_request(&a, &m), 0, "send HELLO");
	dt_msg_free(&m);
	rv = dt_peer_recv(&b, &r);
	tap_is(rv, 1, "receive a message");
	tap_is(r.dm_type, DT_MSG_HELLO, "type HELLO");
	tap_is(dt_msg_get_u32(&r), 1234, "payload");
	tap_ok(dt_msg_done(&r), "payload consumed exactly");
	tap_ok(dt_msg_get_u32(&r) == 0 && r.dm_err == EPROTO,
	    "reading past the end is an error");
	dt_msg_free(&r);

	/* Two messages in one write are split. */
	dt_msg_init(&m, DT_MSG_GO);
	dt_peer_send(&a, &m);
	dt_peer_send(&a, &m);
	dt_peer_flush(&a);
	dt_msg_free(&m);
	tap_is(dt_peer_recv(&b, &r), 1, "first of two");
	tap_is(r.dm_type, DT_MSG_GO, "GO");
	dt_msg_free(&r);
	tap_is(dt_peer_recv(&b, &r), 1, "second of two");
	dt_msg_free(&r);

	/*
	 * A peer that stops answering: the wait ends after dp_timeout
	 * (the client's socket is non-blocking), also in the middle of a
	 * message, and the bytes read so far are kept.
	 */
	{
		int fl = fcntl(sv[1], F_GETFL);

		fcntl(sv[1], F_SETFL, fl | O_NONBLOCK);
		b.dp_timeout = 50;
		rv = dt_peer_recv(&b, &r);
		tap_ok(rv == -1 && errno == ETIMEDOUT,
		    "a silent peer: ETIMEDOUT after dp_timeout");
		dt_msg_init(&m, DT_MSG_GO);
		dt_peer_send(&a, &m);
		dt_peer_flush(&a);
		dt_msg_free(&m);
		rv = dt_peer_recv(&b, &r);
		tap_is(rv, 1, "then a message arrives: received");
		dt_msg_free(&r);
		{
			/* a GO's header: half, a timeout, the rest */
			uint8_t go[12] = { 0, 0, 0, 0, DT_MSG_GO & 0xff,
			    DT_MSG_GO >> 8, DT_PROTO_VERSION & 0xff,
			    DT_PROTO_VERSION >> 8, 0, 0, 0, 0 };

			write(sv[0], go, 6);
			rv = dt_peer_recv(&b, &r);
			tap_ok(rv == -1 && errno == ETIMEDOUT,
			    "half a header, then silence: ETIMEDOUT");
			write(sv[0], go + 6, 6);
		}
		rv = dt_peer_recv(&b, &r);
		tap_ok(rv == 1 && r.dm_type == DT_MSG_GO,
		    "the rest of it: the whole message");
		dt_msg_free(&r);
		b.dp_timeout = 0;
		fcntl(sv[1], F_SETFL, fl);
	}

	/* A wrong version drops the peer. */
	{
		uint8_t bad[12] = { 4, 0, 0, 0, 100, 0, 99, 0, 0, 0, 0, 0 };

		write(sv[0], bad, sizeof(bad));
		write(sv[0], "\0\0\0\0", 4);
		rv = dt_peer_recv(&b, &r);
		tap_ok(rv == -1 && errno == EPROTO, "bad version rejected");
	}
	dt_peer_close(&a);
	dt_peer_close(&b);

	/* Oversized, undersized, unknown type, unexpected fd. */
	{
		static const struct {
			uint8_t	h[12];
			int	err;
			const char *what;
		} cases[] = {
			{ { 0, 0, 0, 2, 0xc8, 0, DT_PROTO_VERSION, 0, 0, 0, 0, 0 },
			    EMSGSIZE,
			    "32 MiB PROGRAM" },
			{ { 2, 0, 0, 0, 100, 0, DT_PROTO_VERSION, 0, 0, 0, 0, 0 },
			    EMSGSIZE,
			    "short HELLO" },
			{ { 0, 0, 0, 0, 0x39, 0x05, DT_PROTO_VERSION, 0, 0, 0, 0, 0 },
			    EPROTO,
			    "unknown type" },
			{ { 0, 0, 0, 0, 0xca, 0, DT_PROTO_VERSION, 0, 1, 0, 0, 0 },
			    EPROTO,
			    "fd flag on GO" },
			{ { 0, 0, 0, 0, 0xca, 0, DT_PROTO_VERSION, 0, 2, 0, 0, 0 },
			    EPROTO,
			    "unknown flag" },
		};
		size_t i;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
			dt_peer_init(&b, sv[1], DT_MSG_MAXCLIENT);
			write(sv[0], cases[i].h, 12);
			errno = 0;
			rv = dt_peer_recv(&b, &r);
			tap_ok(rv == -1 && errno == cases[i].err, "%s rejected",
			    cases[i].what);
			close(sv[0]);
			dt_peer_close(&b);
		}
	}

	/* EOF in the middle of a message is an error, not a message. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	dt_peer_init(&b, sv[1], DT_MSG_MAXCLIENT);
	write(sv[0], "\4\0\0\0\144\0\1\0\0\0\0\0\1", 13);
	close(sv[0]);
	rv = dt_peer_recv(&b, &r);
	tap_ok(rv == -1 && errno == EPROTO, "truncated message at EOF");
	dt_peer_close(&b);

	/* An empty stream is a clean close. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	dt_peer_init(&b, sv[1], DT_MSG_MAXCLIENT);
	close(sv[0]);
	tap_is(dt_peer_recv(&b, &r), 0, "clean EOF");
	dt_peer_close(&b);

	/* An fd is refused on types that do not carry one. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	dt_peer_init(&a, sv[0], DT_MSG_MAXCLIENT);
	dt_peer_init(&b, sv[1], DT_MSG_MAXCLIENT);
	pipe(pfd);
	dt_msg_init(&m, DT_MSG_GO);
	m.dm_fd = pfd[0];
	dt_peer_request(&a, &m);
	m.dm_fd = -1;
	dt_msg_free(&m);
	rv = dt_peer_recv(&b, &r);
	tap_ok(rv == -1 && errno == EPROTO, "fd on a message without one");
	tap_is(b.dp_ninfd, 1, "the fd was received and held");
	close(pfd[0]);
	close(pfd[1]);
	(void)buf;
	dt_peer_close(&a);
	dt_peer_close(&b);
}

int
main(void)
{
	test_roundtrip();
	test_framing();
	return tap_done();
}
