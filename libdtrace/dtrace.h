/*
 * dtrace.h: the public interface of libdtrace, the D compiler and
 * consumer library behind dtrace(1).  The shape follows illumos
 * libdtrace: open a handle, compile programs, exec them (here: send them
 * to dtraced), go, then sleep/work until done, stop, print aggregations.
 */
#ifndef DTRACE_H
#define DTRACE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define DTRACE_VERSION	3	/* library ABI version for dtrace_open() */

typedef struct dtrace_hdl dtrace_hdl_t;
typedef struct dtrace_prog dtrace_prog_t;
typedef int64_t dtrace_optval_t;

#define DTRACEOPT_UNSET	((dtrace_optval_t)-2)

/* dtrace_getopt("oformat"): unset is text */
#define DTRACE_OFORMAT_TEXT	0
#define DTRACE_OFORMAT_JSON	1

/*
 * The dtrace_errno() values dtrace(1) tells apart: nothing matched; the
 * daemon cannot be reached, or went away.
 */
#define DTRACE_ENOPROBE	1012	/* EDT_NOPROBE (dt_impl.h) */
#define DTRACE_EDAEMON	1059	/* EDT_DAEMON: the connection was lost */
#define DTRACE_ENODAEMON 1062	/* EDT_NODAEMON: none could be made */

/* dtrace_open() flags */
#define DTRACE_O_NODEV	0x01	/* do not contact the daemon (e.g. -e, -S only) */

/* Compiler flags (illumos values). */
#define DTRACE_C_DIFV	0x0001	/* print DIF listings (-S) */
#define DTRACE_C_EMPTY	0x0002	/* permit empty programs */
#define DTRACE_C_ZDEFS	0x0004	/* permit descriptions matching no probes (-Z) */
#define DTRACE_C_EATTR	0x0008
#define DTRACE_C_CPP	0x0010	/* run the C preprocessor (-C) */
#define DTRACE_C_KNODEF	0x0020
#define DTRACE_C_UNODEF	0x0040
#define DTRACE_C_PSPEC	0x0080	/* an -n/-P/-m/-f/-i argument */
#define DTRACE_C_ETAGS	0x0100	/* print [D_TAG] in errors */
#define DTRACE_C_ARGREF	0x0200
#define DTRACE_C_DEFARG	0x0800	/* missing $N are 0 / "" */
#define DTRACE_C_NOLIBS	0x1000
#define DTRACE_C_CTYPES	0x2000

typedef enum dtrace_probespec {
	DTRACE_PROBESPEC_NONE = -1,
	DTRACE_PROBESPEC_PROVIDER = 0,
	DTRACE_PROBESPEC_MOD,
	DTRACE_PROBESPEC_FUNC,
	DTRACE_PROBESPEC_NAME
} dtrace_probespec_t;

/* What dtrace_program_exec() reports. */
typedef struct dtrace_proginfo {
	uint32_t	dpi_descs;	/* probe descriptions in the program */
	uint32_t	dpi_matches;	/* probes matched */
	uint32_t	dpi_aggregates;
	uint32_t	dpi_recgens;
} dtrace_proginfo_t;

/* A probe as the daemon named it. */
typedef struct dtrace_probedesc {
	uint32_t	dtpd_id;
	char		dtpd_provider[64];
	char		dtpd_mod[64];
	char		dtpd_func[192];
	char		dtpd_name[64];
	int32_t		dtpd_nargs;	/* its arguments, -1: not known */
} dtrace_probedesc_t;

/* Stability attributes (dtrace -v), in illumos's order. */
#define DTRACE_STABILITY_INTERNAL	0
#define DTRACE_STABILITY_PRIVATE	1
#define DTRACE_STABILITY_OBSOLETE	2
#define DTRACE_STABILITY_EXTERNAL	3
#define DTRACE_STABILITY_UNSTABLE	4
#define DTRACE_STABILITY_EVOLVING	5
#define DTRACE_STABILITY_STABLE		6
#define DTRACE_STABILITY_STANDARD	7
#define DTRACE_STABILITY_MAX		7
#define DTRACE_CLASS_UNKNOWN		0
#define DTRACE_CLASS_CPU		1
#define DTRACE_CLASS_PLATFORM		2
#define DTRACE_CLASS_GROUP		3
#define DTRACE_CLASS_ISA		4
#define DTRACE_CLASS_COMMON		5
#define DTRACE_CLASS_MAX		5

typedef struct dtrace_attribute {
	uint8_t		dtat_name;	/* of identifiers */
	uint8_t		dtat_data;	/* of data semantics */
	uint8_t		dtat_class;	/* dependency class */
} dtrace_attribute_t;

/* What dtrace -lv shows of a probe (dtrace_probe_info). */
#define DTRACE_PROBEINFO_MAXARGS	10
typedef struct dtrace_probeinfo {
	dtrace_attribute_t dtp_attr;	/* of the description */
	dtrace_attribute_t dtp_arga;	/* of the arguments */
	int		dtp_argc;	/* argument types known */
	char		dtp_argv[DTRACE_PROBEINFO_MAXARGS][128];
} dtrace_probeinfo_t;

/*
 * The action a record holds (dtrd_action), in illumos's numbering: the
 * wire protocol's own list (proto/dt_proto.h), token for token, so that
 * a consumer needs no header but this one.
 */
#define DTRACEACT_NONE			0
#define DTRACEACT_DIFEXPR		1	/* trace(), and printf args */
#define DTRACEACT_EXIT			2	/* exit(n): value is n */
#define DTRACEACT_PRINTF		3	/* printf(): see dtp_action */
#define DTRACEACT_PRINTA		4
#define DTRACEACT_LIBACT		5
#define DTRACEACT_TRACEMEM		6
#define DTRACEACT_TRACEMEM_DYNSIZE	7
#define DTRACEACT_PROC			0x0100
#define DTRACEACT_USTACK		(DTRACEACT_PROC + 1)
#define DTRACEACT_JSTACK		(DTRACEACT_PROC + 2)
#define DTRACEACT_USYM			(DTRACEACT_PROC + 3)
#define DTRACEACT_UMOD			(DTRACEACT_PROC + 4)
#define DTRACEACT_UADDR			(DTRACEACT_PROC + 5)
#define DTRACEACT_PROC_DESTRUCTIVE	0x0200
#define DTRACEACT_STOP			(DTRACEACT_PROC_DESTRUCTIVE + 1)
#define DTRACEACT_RAISE			(DTRACEACT_PROC_DESTRUCTIVE + 2)
#define DTRACEACT_SYSTEM		(DTRACEACT_PROC_DESTRUCTIVE + 3)
#define DTRACEACT_FREOPEN		(DTRACEACT_PROC_DESTRUCTIVE + 4)
#define DTRACEACT_KERNEL		0x0400
#define DTRACEACT_STACK			(DTRACEACT_KERNEL + 1)
#define DTRACEACT_SYM			(DTRACEACT_KERNEL + 2)
#define DTRACEACT_MOD			(DTRACEACT_KERNEL + 3)
#define DTRACEACT_KERNEL_DESTRUCTIVE	0x0500
#define DTRACEACT_CHILL			(DTRACEACT_KERNEL_DESTRUCTIVE + 3)
#define DTRACEACT_SPECULATIVE		0x0600
#define DTRACEACT_SPECULATE		(DTRACEACT_SPECULATIVE + 1)
#define DTRACEACT_COMMIT		(DTRACEACT_SPECULATIVE + 2)
#define DTRACEACT_DISCARD		(DTRACEACT_SPECULATIVE + 3)
#define DTRACEACT_AGGREGATION		0x0700
#define DTRACEAGG_COUNT			(DTRACEACT_AGGREGATION + 1)
#define DTRACEAGG_MIN			(DTRACEACT_AGGREGATION + 2)
#define DTRACEAGG_MAX			(DTRACEACT_AGGREGATION + 3)
#define DTRACEAGG_AVG			(DTRACEACT_AGGREGATION + 4)
#define DTRACEAGG_SUM			(DTRACEACT_AGGREGATION + 5)
#define DTRACEAGG_STDDEV		(DTRACEACT_AGGREGATION + 6)
#define DTRACEAGG_QUANTIZE		(DTRACEACT_AGGREGATION + 7)
#define DTRACEAGG_LQUANTIZE		(DTRACEACT_AGGREGATION + 8)
#define DTRACEAGG_LLQUANTIZE		(DTRACEACT_AGGREGATION + 9)

/* One record description inside an enabled probe's data. */
typedef struct dtrace_recdesc {
	uint32_t	dtrd_action;	/* DTRACEACT_* */
	uint32_t	dtrd_size;
	uint32_t	dtrd_offset;
	uint32_t	dtrd_alignment;
	uint32_t	dtrd_format;	/* format index + 1, or 0 */
	uint64_t	dtrd_arg;
	uint32_t	dtrd_type;	/* how to print: DTRACE_REC_* */
} dtrace_recdesc_t;

#define DTRACE_REC_INT		0	/* signed integer of dtrd_size bytes */
#define DTRACE_REC_UINT		1	/* unsigned integer */
#define DTRACE_REC_STRING	2	/* string in dtrd_size bytes */
#define DTRACE_REC_BYTES	3	/* raw bytes */
#define DTRACE_REC_FLOAT	4	/* float or double of dtrd_size bytes */

/* An enabled probe: what an EPID names. */
typedef struct dtrace_eprobedesc {
	uint32_t		dtepd_epid;
	uint32_t		dtepd_probeid;
	uint32_t		dtepd_nrecs;
	uint32_t		dtepd_size;	/* data bytes after the header */
	dtrace_recdesc_t	*dtepd_rec;
} dtrace_eprobedesc_t;

/* One probe firing being consumed. */
typedef struct dtrace_probedata {
	dtrace_hdl_t			*dtpda_handle;
	const dtrace_eprobedesc_t	*dtpda_edesc;
	const dtrace_probedesc_t	*dtpda_pdesc;
	int				dtpda_cpu;
	const char			*dtpda_data;	/* record data */
	uint64_t			dtpda_timestamp;
	char				*dtpda_prefix;	/* flow indent prefix */
	int				dtpda_indent;
	int				dtpda_flow;	/* DTRACEFLOW_* */
} dtrace_probedata_t;

/* -F flowindent: the kind of a probe by its name. */
#define DTRACEFLOW_ENTRY	0
#define DTRACEFLOW_RETURN	1
#define DTRACEFLOW_NONE		2

/* Callback return values. */
#define DTRACE_CONSUME_ERROR	-1	/* error: stop */
#define DTRACE_CONSUME_THIS	0	/* consume this probe/record */
#define DTRACE_CONSUME_NEXT	1	/* advance to the next probe/record */
#define DTRACE_CONSUME_ABORT	2	/* abort consumption */

typedef int dtrace_consume_probe_f(const dtrace_probedata_t *, void *);
typedef int dtrace_consume_rec_f(const dtrace_probedata_t *,
    const dtrace_recdesc_t *, void *);

typedef enum dtrace_workstatus {
	DTRACE_WORKSTATUS_ERROR = -1,
	DTRACE_WORKSTATUS_OKAY,
	DTRACE_WORKSTATUS_DONE
} dtrace_workstatus_t;

/* dtrace_status() */
#define DTRACE_STATUS_NONE	0	/* no status; not yet time */
#define DTRACE_STATUS_OKAY	1	/* status okay */
#define DTRACE_STATUS_EXITED	2	/* exit() was called; tracing stopped */
#define DTRACE_STATUS_FILLED	3	/* fill buffer filled; tracing stopped */
#define DTRACE_STATUS_STOPPED	4	/* tracing already stopped */

/* Handle */
dtrace_hdl_t	*dtrace_open(int, int, int *);
void		dtrace_close(dtrace_hdl_t *);
int		dtrace_errno(dtrace_hdl_t *);
const char	*dtrace_errmsg(dtrace_hdl_t *, int);
int		dtrace_setopt(dtrace_hdl_t *, const char *, const char *);
void		dtrace_sizestr(uint64_t, char *, size_t);
int		dtrace_getopt(dtrace_hdl_t *, const char *, dtrace_optval_t *);

/* Compiler */
dtrace_prog_t	*dtrace_program_strcompile(dtrace_hdl_t *, const char *,
		    dtrace_probespec_t, unsigned int, int, char *const []);
dtrace_prog_t	*dtrace_program_fcompile(dtrace_hdl_t *, FILE *,
		    unsigned int, int, char *const []);
void		dtrace_program_info(dtrace_hdl_t *, dtrace_prog_t *,
		    dtrace_proginfo_t *);
char		*dtrace_program_text(dtrace_hdl_t *, const char *, unsigned int,
		    int, char *const []);
void		dtrace_program_descattr(dtrace_hdl_t *, dtrace_prog_t *,
		    dtrace_attribute_t *);
void		dtrace_program_stmtattr(dtrace_hdl_t *, dtrace_prog_t *,
		    dtrace_attribute_t *);
int		dtrace_program_desc_iter(dtrace_hdl_t *, dtrace_prog_t *,
		    int (*)(dtrace_hdl_t *, const dtrace_probedesc_t *, void *),
		    void *);

/* dtrace -h and -G: <sys/sdt.h> probes from provider definitions */
int		dtrace_sdt_header(dtrace_hdl_t *, const char *, const char *,
		    FILE *, char *, size_t);
int		dtrace_sdt_object(dtrace_hdl_t *, const char *, const char *,
		    const char *, char *, size_t);

/* Tracing */
int		dtrace_program_exec(dtrace_hdl_t *, dtrace_prog_t *,
		    dtrace_proginfo_t *);
int		dtrace_probe_iter(dtrace_hdl_t *, const dtrace_probedesc_t *,
		    int (*)(dtrace_hdl_t *, const dtrace_probedesc_t *, void *),
		    void *);
int		dtrace_probe_info(dtrace_hdl_t *, const dtrace_probedesc_t *,
		    dtrace_probeinfo_t *);
int		dtrace_probe_json(dtrace_hdl_t *, FILE *,
		    const dtrace_probedesc_t *, const dtrace_probeinfo_t *);
const char	*dtrace_stability_name(int);
const char	*dtrace_class_name(int);
int		dtrace_go(dtrace_hdl_t *);
int		dtrace_stop(dtrace_hdl_t *);
void		dtrace_sleep(dtrace_hdl_t *);
int		dtrace_status(dtrace_hdl_t *);
dtrace_workstatus_t dtrace_work(dtrace_hdl_t *, FILE *,
		    dtrace_consume_probe_f *, dtrace_consume_rec_f *, void *);
int		dtrace_aggregate_print(dtrace_hdl_t *, FILE *, void *);
int		dtrace_exit_status(dtrace_hdl_t *);

/*
 * Retained programs (dt_retain.c): -x retain=NAME leaves the program
 * running in dtraced under NAME after dtrace_go(); dtrace_claim() takes
 * one over instead of compiling (snapshot: read it, leave it running).
 */
#define DTRACE_RETAINED_MAXTGT	64
#define DTRACE_RETAINED_ACTIVE	1	/* tracing */
#define DTRACE_RETAINED_DRAINING 2	/* exit() or full: stopping */
#define DTRACE_RETAINED_STOPPED	3	/* END has fired */

typedef struct dtrace_retained {
	char		dtr_name[64];
	uint32_t	dtr_uid;	/* owner */
	int		dtr_state;	/* DTRACE_RETAINED_* */
	const char	*dtr_policy;	/* "ring", "fill", "switch" */
	uint64_t	dtr_bufsize;	/* per CPU (or thread) */
	uint64_t	dtr_aggsize;	/* 0: no aggregations */
	uint64_t	dtr_drops;	/* not yet read: buffer, aggregation */
	uint64_t	dtr_errors;
	uint32_t	dtr_ntargets;
	pid_t		dtr_targets[DTRACE_RETAINED_MAXTGT];
	int		dtr_exited[DTRACE_RETAINED_MAXTGT];
} dtrace_retained_t;

int		dtrace_claim(dtrace_hdl_t *, const char *, int);
const char	*dtrace_claimed(dtrace_hdl_t *);
int		dtrace_retained_iter(dtrace_hdl_t *,
		    int (*)(dtrace_hdl_t *, const dtrace_retained_t *, void *),
		    void *);
int		dtrace_retained_json(dtrace_hdl_t *, FILE *,
		    const dtrace_retained_t *);

/*
 * Target processes (-c, -p).  Unlike illumos these return the pid, not a
 * ps_prochandle: the daemon controls the process.  dtrace_proc_create()
 * returns once the program is held at its entry point; it runs after
 * dtrace_go() has fired BEGIN.  The handler hears of each target's exit
 * (pid, wait status) from inside any later library call.
 * dtrace_proc_backend() says how the daemon traces a target ("ptrace",
 * "uprobe"), once a program was loaded.  A target the daemon let go
 * (it exec'd a program the user may not trace: set-id, file
 * capabilities) runs on untraced; the handler hears of it as of an
 * exit, and dtrace_proc_lost() then says why (NULL for a target that
 * exited).
 */
typedef void dtrace_handle_proc_f(pid_t, int, void *);
pid_t		dtrace_proc_create(dtrace_hdl_t *, const char *,
		    char *const *);
pid_t		dtrace_proc_grab(dtrace_hdl_t *, pid_t);
int		dtrace_handle_proc(dtrace_hdl_t *, dtrace_handle_proc_f *,
		    void *);
const char	*dtrace_proc_backend(dtrace_hdl_t *, pid_t);
const char	*dtrace_proc_lost(dtrace_hdl_t *, pid_t);

/*
 * setopt() in a D program changed an option while tracing: the handler
 * hears of it (option name, new value) when the record is consumed, so
 * that the program can follow (dtrace(1): quiet, flowindent).
 */
typedef void dtrace_handle_setopt_f(const char *, dtrace_optval_t, void *);
int		dtrace_handle_setopt(dtrace_hdl_t *, dtrace_handle_setopt_f *,
		    void *);

#endif /* DTRACE_H */
