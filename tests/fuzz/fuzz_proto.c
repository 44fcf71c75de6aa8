/*
 * fuzz_proto.c: libFuzzer target for what dtraced reads from a client
 * before any daemon logic runs: the framing (dt_peer_get over an
 * arbitrary byte stream) and, for every DT_MSG_PROGRAM it yields, the
 * program decoder and the DIF verifier, exactly as dtd_client.c chains
 * them.  Any input must end in a clean accept or a clean reject.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_proto_verify(const dif_difo_t *dp)
{
	char err[256];

	if (dp != NULL)
		(void)dif_verify(dp, err, sizeof(err));
}

static void
fuzz_proto_program(dt_msg_t *m)
{
	dtp_prog_t *pp;
	char err[256];
	uint32_t i, j, k;

	if ((pp = dt_proto_prog_decode(m, err, sizeof(err))) == NULL)
		return;
	for (i = 0; i < pp->dp_nstmt; i++) {
		const dtp_stmt_t *s = &pp->dp_stmt[i];

		fuzz_proto_verify(s->ds_pred);
		for (j = 0; j < s->ds_nact; j++)
			for (k = 0; k < s->ds_act[j].da_ndifo; k++)
				fuzz_proto_verify(s->ds_act[j].da_difo[k]);
	}
	dt_proto_prog_free(pp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dt_peer_t p;
	dt_msg_t m;

	memset(&p, 0, sizeof(p));
	p.dp_fd = -1;
	p.dp_maxmsg = 1 << 20;
	/* a heap copy of exactly size bytes: ASan sees any overread */
	if ((p.dp_in = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(p.dp_in, data, size);
	p.dp_inlen = p.dp_incap = size;

	while (dt_peer_get(&p, &m) == 1) {
		if (m.dm_type == DT_MSG_PROGRAM)
			fuzz_proto_program(&m);
		else
			while (!m.dm_err && m.dm_off < m.dm_len)
				(void)dt_msg_get_u8(&m);
		dt_msg_free(&m);
	}
	dt_msg_free(&m);
	dt_peer_close(&p);
	return 0;
}
