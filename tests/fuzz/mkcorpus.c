/*
 * mkcorpus.c: makes the seed corpora of fuzz_proto and fuzz_dif from D
 * scripts.  For each script given, it writes the framed DT_MSG_PROGRAM
 * stream dtrace(1) would send (OUTDIR/proto/NAME) and each DIFO in its
 * wire encoding (OUTDIR/dif/NAME.N).  The D text itself seeds fuzz_cc.
 *
 *	mkcorpus OUTDIR script.d ...
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

static int
mkcorpus_write(const char *path, const void *buf, size_t len)
{
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL ||
	    fwrite(buf, 1, len, fp) != len || fclose(fp) != 0) {
		fprintf(stderr, "mkcorpus: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
mkcorpus_difo(const char *dir, const char *name, int *n, const dif_difo_t *dp)
{
	char path[4096];
	dt_msg_t m;
	int rv;

	if (dp == NULL)
		return 0;
	dt_msg_init(&m, 0);
	dt_proto_difo_encode(&m, dp);
	snprintf(path, sizeof(path), "%s/dif/%s.%d", dir, name, (*n)++);
	rv = m.dm_err ? -1 : mkcorpus_write(path, m.dm_data, m.dm_len);
	dt_msg_free(&m);
	return rv;
}

static int
mkcorpus_one(const char *dir, const char *script)
{
	dtrace_hdl_t *dtp;
	dtrace_prog_t *pgp;
	const dtp_prog_t *pp;
	char path[4096], *copy, *name;
	dt_peer_t peer;
	dt_msg_t m;
	FILE *fp;
	uint32_t i, j, k;
	int err, n = 0, rv = -1;

	if ((copy = strdup(script)) == NULL)
		return -1;
	name = basename(copy);
	if ((dtp = dtrace_open(DTRACE_VERSION, DTRACE_O_NODEV, &err)) == NULL)
		goto out;
	if ((fp = fopen(script, "r")) == NULL) {
		dtrace_close(dtp);
		goto out;
	}
	pgp = dtrace_program_fcompile(dtp, fp, DTRACE_C_ZDEFS, 0, NULL);
	fclose(fp);
	if (pgp == NULL) {
		rv = 0;		/* an err.* test: its text still seeds fuzz_cc */
		dtrace_close(dtp);
		goto out;
	}
	pp = &pgp->dp_prog;
	for (i = 0; i < pp->dp_nstmt; i++) {
		if (mkcorpus_difo(dir, name, &n, pp->dp_stmt[i].ds_pred) == -1)
			goto fail;
		for (j = 0; j < pp->dp_stmt[i].ds_nact; j++)
			for (k = 0; k < pp->dp_stmt[i].ds_act[j].da_ndifo; k++)
				if (mkcorpus_difo(dir, name, &n,
				    pp->dp_stmt[i].ds_act[j].da_difo[k]) == -1)
					goto fail;
	}
	/* the framed message, as dt_peer_send queues it for the socket */
	memset(&peer, 0, sizeof(peer));
	peer.dp_fd = -1;
	dt_msg_init(&m, DT_MSG_PROGRAM);
	dt_proto_prog_encode(&m, pp);
	if (dt_peer_send(&peer, &m) == 0) {
		snprintf(path, sizeof(path), "%s/proto/%s", dir, name);
		rv = mkcorpus_write(path, peer.dp_out, peer.dp_outlen);
	}
	dt_msg_free(&m);
	dt_peer_close(&peer);
fail:
	dtrace_close(dtp);
out:
	free(copy);
	return rv;
}

int
main(int argc, char *argv[])
{
	int i, rv = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: mkcorpus OUTDIR script.d ...\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		if (mkcorpus_one(argv[1], argv[i]) == -1)
			rv = 1;
	return rv;
}
