/*
 * fuzz_cc.c: libFuzzer target for the D compiler.  The input is D program
 * text; it is compiled as dtrace -Z -s would (DTRACE_C_ZDEFS, no daemon).
 * Any text must end in a program or a compile error, never a crash, a
 * hang or a leak.  Every program's DIFOs must pass the daemon's verifier:
 * the compiler must never emit what dtraced would refuse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_cc_check(const dif_difo_t *dp)
{
	char err[256];

	if (dp != NULL && dif_verify(dp, err, sizeof(err)) != 0)
		abort();	/* the compiler made what the daemon refuses */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dtrace_hdl_t *dtp;
	dtrace_prog_t *pgp;
	char *text;
	uint32_t i, j, k;
	int err;

	if (size > 16384)
		return 0;	/* longer text finds nothing shorter text cannot */
	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if ((dtp = dtrace_open(DTRACE_VERSION, DTRACE_O_NODEV, &err)) == NULL) {
		free(text);
		return 0;
	}
	pgp = dtrace_program_strcompile(dtp, text, DTRACE_PROBESPEC_NAME,
	    DTRACE_C_ZDEFS, 0, NULL);
	if (pgp != NULL) {
		const dtp_prog_t *pp = &pgp->dp_prog;

		for (i = 0; i < pp->dp_nstmt; i++) {
			fuzz_cc_check(pp->dp_stmt[i].ds_pred);
			for (j = 0; j < pp->dp_stmt[i].ds_nact; j++)
				for (k = 0; k < pp->dp_stmt[i].ds_act[j].da_ndifo;
				    k++)
					fuzz_cc_check(
					    pp->dp_stmt[i].ds_act[j].da_difo[k]);
		}
	}
	dtrace_close(dtp);
	free(text);
	return 0;
}
