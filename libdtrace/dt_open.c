/*
 * dt_open.c: creating and destroying a libdtrace handle.
 *
 * A handle starts with the option defaults dtrace(1) users see (illumos
 * kernel defaults, plus the 4m bufsize and aggsize dtrace(1) sets before
 * it parses options).  The daemon is not contacted here: dt_conn_open()
 * does that on the first request that needs it, so that -e and -S work
 * without a daemon.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt_impl.h"

#define DT_NANOSEC	1000000000LL

static const struct dt_open_default {
	int		od_option;
	dtrace_optval_t	od_value;
} dt_open_defaults[] = {
	{ DTRACEOPT_BUFSIZE,		4 << 20 },
	{ DTRACEOPT_AGGSIZE,		4 << 20 },
	{ DTRACEOPT_BUFPOLICY,		DTRACEOPT_BUFPOLICY_SWITCH },
	{ DTRACEOPT_BUFRESIZE,		DTRACEOPT_BUFRESIZE_AUTO },
	{ DTRACEOPT_STRSIZE,		256 },
	{ DTRACEOPT_NSPEC,		1 },
	{ DTRACEOPT_SPECSIZE,		32 << 10 },
	{ DTRACEOPT_DYNVARSIZE,		1 << 20 },
	{ DTRACEOPT_SWITCHRATE,		DT_NANOSEC },
	{ DTRACEOPT_AGGRATE,		DT_NANOSEC },
	{ DTRACEOPT_STATUSRATE,		DT_NANOSEC },
	/* the older illumos/FreeBSD default, 101 Hz */
	{ DTRACEOPT_CLEANRATE,		DT_NANOSEC / 101 },
	{ DTRACEOPT_STACKFRAMES,	20 },
	{ DTRACEOPT_USTACKFRAMES,	20 },
	{ DTRACEOPT_STACKINDENT,	14 },
	{ DTRACEOPT_JSTACKFRAMES,	50 },
	{ DTRACEOPT_JSTACKSTRSIZE,	512 },
	{ DTRACEOPT_CPU,		-1 },
};

int64_t
dt_open_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * DT_NANOSEC + ts.tv_nsec;
}

dtrace_hdl_t *
dtrace_open(int version, int flags, int *errp)
{
	dtrace_hdl_t *dtp;
	size_t i;

	if (version <= 0 || version > DTRACE_VERSION) {
		if (errp != NULL)
			*errp = EDT_VERSION;
		return NULL;
	}
	if ((dtp = calloc(1, sizeof(*dtp))) == NULL) {
		if (errp != NULL)
			*errp = EDT_NOMEM;
		return NULL;
	}
	dtp->dt_version = version;
	dtp->dt_oflags = flags;
	dtp->dt_peer.dp_fd = -1;
	dtp->dt_freopen_fd = -1;
	for (i = 0; i < DTRACEOPT_MAX; i++)
		dtp->dt_options[i] = DTRACEOPT_UNSET;
	for (i = 0; i < sizeof(dt_open_defaults) / sizeof(dt_open_defaults[0]);
	    i++)
		dtp->dt_options[dt_open_defaults[i].od_option] =
		    dt_open_defaults[i].od_value;
	dtp->dt_activity = DT_ACT_INACTIVE;
	return dtp;
}

void
dtrace_close(dtrace_hdl_t *dtp)
{
	struct dtrace_prog *pgp, *next;

	if (dtp == NULL)
		return;
	dt_conn_close(dtp);
	dt_program_fini(dtp);
	dt_aggregate_fini(dtp);
	dt_cc_destroy(dtp);
	for (pgp = dtp->dt_progs; pgp != NULL; pgp = next) {
		next = pgp->dp_next;
		dt_cc_prog_free(pgp);
	}
	dtp->dt_progs = NULL;
	dt_proc_fini(dtp);
	dt_usym_fini(dtp);
	dt_ksym_fini(dtp);
	dt_dwarf_fini(dtp);
	free(dtp->dt_socket);
	free(dtp->dt_retain);
	free(dtp->dt_drops);
	free(dtp->dt_aggdrops);
	free(dtp);
}
