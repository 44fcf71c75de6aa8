/*
 * dt_impl.h: libdtrace's one internal header.  The handle, the program
 * object on the client side, the library errnos and the prototypes of
 * every dt_*.c file, grouped under a comment per file.
 *
 * Sections are owned by concern: the compiler (dt_lex.l, dt_grammar.y,
 * dt_parser.c, dt_cc.c, dt_cg.c, dt_as.c, ...) and the runtime
 * (dt_open.c, dt_options.c, dt_conn.c, dt_work.c, dt_consume.c,
 * dt_printf.c, dt_aggregate.c, dt_error.c).
 */
#ifndef DT_IMPL_H
#define DT_IMPL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "dif.h"
#include "dt_proto.h"
#include "dtrace.h"

/* Library errnos (illumos EDT_* order; text in dt_error.c). */
enum {
	EDT_BASE = 1000,
	EDT_VERSION = EDT_BASE,	/* client is requesting unsupported version */
	EDT_VERSINVAL,		/* version string is invalid or overflows */
	EDT_VERSUNDEF,		/* requested API version is not defined */
	EDT_VERSREDUCED,	/* requested API version has been reduced */
	EDT_CTF,		/* type information error */
	EDT_COMPILER,		/* error in D program compilation */
	EDT_NOTUPREG,		/* insufficient tuple registers */
	EDT_NOMEM,		/* memory allocation failure */
	EDT_INT2BIG,		/* integer limit exceeded */
	EDT_STR2BIG,		/* string limit exceeded */
	EDT_NOMOD,		/* unknown module name */
	EDT_NOPROV,		/* unknown provider name */
	EDT_NOPROBE,		/* unknown probe name */
	EDT_NOSYM,		/* unknown symbol name */
	EDT_NOSYMADDR,		/* no symbol corresponds to address */
	EDT_NOTYPE,		/* unknown type name */
	EDT_NOVAR,		/* unknown variable name */
	EDT_NOAGG,		/* unknown aggregation name */
	EDT_BADSCOPE,		/* improper use of type name scoping operator */
	EDT_BADSPEC,		/* overspecified probe description */
	EDT_BADSPCV,		/* bad macro variable in probe description */
	EDT_BADID,		/* invalid probe identifier */
	EDT_NOTDIR,		/* not a directory */
	EDT_NOSTAB,		/* no symbol table in object file */
	EDT_BADOPT,		/* invalid option name */
	EDT_BADOPTVAL,		/* invalid value for option */
	EDT_BADOPTCTX,		/* option cannot be used from within D */
	EDT_CPPFORK,		/* failed to fork preprocessor */
	EDT_CPPEXEC,		/* failed to exec preprocessor */
	EDT_CPPENT,		/* preprocessor not found */
	EDT_CPPERR,		/* unknown preprocessor error */
	EDT_SYMOFLOW,		/* external symbol table overflow */
	EDT_ACTIVE,		/* operation illegal when tracing is active */
	EDT_DESTRUCTIVE,	/* destructive actions not allowed */
	EDT_NOANON,		/* no anonymous tracing state */
	EDT_ISANON,		/* can't claim anon state and enable probes */
	EDT_ENDTOOBIG,		/* END enablings exceed size of buffer */
	EDT_NOCONV,		/* failed to load type for printf conversion */
	EDT_BADCONV,		/* incomplete printf conversion */
	EDT_BADERROR,		/* invalid library ERROR action */
	EDT_ERRABORT,		/* abort due to error */
	EDT_DROPABORT,		/* abort due to drop */
	EDT_DIRABORT,		/* abort explicitly directed */
	EDT_BADRVAL,		/* invalid return value from callback */
	EDT_BADNORMAL,		/* invalid normalization */
	EDT_BUFTOOSMALL,	/* enabling exceeds size of buffer */
	EDT_BADTRUNC,		/* invalid truncation */
	EDT_BUSY,		/* device busy (active kernel debugger) */
	EDT_ACCESS,		/* insufficient privileges to use DTrace */
	EDT_NOENT,		/* dtrace device not available */
	EDT_BRICKED,		/* abort due to systemic unresponsiveness */
	EDT_HARDWIRE,		/* failed to load language definitions */
	EDT_ELFVERSION,		/* libelf is out-of-date w.r.t libdtrace */
	EDT_NOBUFFERED,		/* attempt to buffer output without handler */
	EDT_UNSTABLE,		/* description matched unstable set of probes */
	EDT_BADSETOPT,		/* invalid setopt library action */
	EDT_BADSTACKPC,		/* invalid stack program counter size */
	EDT_BADAGGVAR,		/* invalid aggregation variable identifier */
	EDT_OVERSION,		/* client is requesting deprecated version */
	/* ours */
	EDT_DAEMON,		/* cannot reach or start dtraced */
	EDT_PROTO,		/* malformed or unexpected message */
	EDT_REMOTE,		/* the daemon refused; text in dt_errmsg */
	EDT_MAX
};

/* Options the handle keeps as numbers (dt_options.c). */
enum {
	DTRACEOPT_BUFSIZE = 0,	/* principal buffer size */
	DTRACEOPT_BUFPOLICY,	/* DTRACEOPT_BUFPOLICY_* */
	DTRACEOPT_DYNVARSIZE,
	DTRACEOPT_AGGSIZE,
	DTRACEOPT_SPECSIZE,
	DTRACEOPT_NSPEC,
	DTRACEOPT_STRSIZE,
	DTRACEOPT_CLEANRATE,
	DTRACEOPT_CPU,
	DTRACEOPT_BUFRESIZE,
	DTRACEOPT_GRABANON,
	DTRACEOPT_FLOWINDENT,
	DTRACEOPT_QUIET,
	DTRACEOPT_STACKFRAMES,
	DTRACEOPT_USTACKFRAMES,
	DTRACEOPT_AGGRATE,
	DTRACEOPT_SWITCHRATE,
	DTRACEOPT_STATUSRATE,
	DTRACEOPT_DESTRUCTIVE,
	DTRACEOPT_STACKINDENT,
	DTRACEOPT_RAWBYTES,
	DTRACEOPT_JSTACKFRAMES,
	DTRACEOPT_JSTACKSTRSIZE,
	DTRACEOPT_AGGSORTKEY,
	DTRACEOPT_AGGSORTREV,
	DTRACEOPT_AGGSORTPOS,
	DTRACEOPT_AGGSORTKEYPOS,
	DTRACEOPT_QUIETRESIZE,
	DTRACEOPT_MAX
};

#define DTRACEOPT_BUFPOLICY_RING	0
#define DTRACEOPT_BUFPOLICY_FILL	1
#define DTRACEOPT_BUFPOLICY_SWITCH	2
#define DTRACEOPT_BUFRESIZE_AUTO	0
#define DTRACEOPT_BUFRESIZE_MANUAL	1

/* Compile-time options kept as flags (dt_options.c sets, compiler reads). */
#define DT_COPT_ERRTAGS		0x1

struct dt_node;
struct dt_idhash;
struct dt_ident;

/*
 * A compiled program on the client side: the wire program plus what the
 * consumer needs to print its records.
 */
struct dtrace_prog {
	dtp_prog_t	dp_prog;	/* what goes to the daemon */
	char		**dp_descs;	/* per statement: description text for
					   "description '...' matched" */
	int		dp_exec;	/* sent to the daemon */
	struct dtrace_prog *dp_next;	/* handle's list of programs */
};

/* An enabled probe as the daemon reported it (dt_work.c). */
typedef struct dt_epid {
	dtrace_eprobedesc_t	de_edesc;
	dtrace_probedesc_t	de_pdesc;
	struct dtrace_prog	*de_prog;
	uint32_t		de_stmt;
} dt_epid_t;

struct dtrace_hdl {
	/* dt_open.c */
	int		dt_version;
	int		dt_oflags;	/* DTRACE_O_* */
	int		dt_errno;	/* last error */
	char		dt_errmsg[1024]; /* text of the last compile/remote error */
	const char	*dt_errtag;	/* last compile error tag, or NULL */

	/* dt_options.c */
	dtrace_optval_t	dt_options[DTRACEOPT_MAX];
	uint32_t	dt_copts;	/* DT_COPT_* */
	char		*dt_socket;	/* -x socket=PATH or NULL */

	/* dt_conn.c: the daemon */
	dt_peer_t	dt_peer;
	int		dt_connected;
	pid_t		dt_daemon;	/* private daemon we started, or 0 */
	uint32_t	dt_ncpu;

	/* compiler (dt_cc.c and friends) */
	struct dt_idhash *dt_globals;	/* global identifiers: variables, builtins */
	struct dt_idhash *dt_aggs;	/* aggregations */
	uint32_t	dt_nextvar;	/* next user global id */
	uint32_t	dt_nextagg;	/* next aggregation id */
	struct dtrace_prog *dt_progs;	/* programs compiled on this handle */

	/* runtime (dt_work.c, dt_consume.c, dt_aggregate.c) */
	dt_epid_t	**dt_epids;	/* indexed by epid */
	uint32_t	dt_nepid;
	dtp_agg_t	**dt_aggdesc;	/* indexed by aggregation id */
	uint32_t	dt_naggdesc;
	struct dt_aggregate *dt_aggregate; /* merged aggregation data */
	int		dt_active;	/* dtrace_go() done */
	int		dt_stopped;	/* dtrace_stop() done */
	int		dt_activity;	/* DT_ACT_* last reported */
	int		dt_exitstatus;	/* status of exit() */
	uint64_t	dt_errors;	/* runtime errors reported */
	uint64_t	*dt_drops;	/* per CPU drops reported */
	uint64_t	*dt_aggdrops;
	int64_t		dt_lastswitch;	/* ns of the last buffer snapshot */
	int64_t		dt_lastagg;	/* ns of the last aggregation snapshot */
	int		dt_prefixdone;	/* dtrace(1) printed the header */
};

/* dt_error.c */
int		dt_set_errno(dtrace_hdl_t *, int);
void		dt_set_errmsg(dtrace_hdl_t *, const char *, const char *, ...);

#endif /* DT_IMPL_H */
