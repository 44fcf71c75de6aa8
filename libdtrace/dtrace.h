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

/* The dtrace_errno() value dtrace(1) tells apart: nothing matched. */
#define DTRACE_ENOPROBE	1012	/* EDT_NOPROBE (dt_impl.h) */

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
} dtrace_probedesc_t;

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
int		dtrace_getopt(dtrace_hdl_t *, const char *, dtrace_optval_t *);

/* Compiler */
dtrace_prog_t	*dtrace_program_strcompile(dtrace_hdl_t *, const char *,
		    dtrace_probespec_t, unsigned int, int, char *const []);
dtrace_prog_t	*dtrace_program_fcompile(dtrace_hdl_t *, FILE *,
		    unsigned int, int, char *const []);
void		dtrace_program_info(dtrace_hdl_t *, dtrace_prog_t *,
		    dtrace_proginfo_t *);

/* Tracing */
int		dtrace_program_exec(dtrace_hdl_t *, dtrace_prog_t *,
		    dtrace_proginfo_t *);
int		dtrace_probe_iter(dtrace_hdl_t *, const dtrace_probedesc_t *,
		    int (*)(dtrace_hdl_t *, const dtrace_probedesc_t *, void *),
		    void *);
int		dtrace_go(dtrace_hdl_t *);
int		dtrace_stop(dtrace_hdl_t *);
void		dtrace_sleep(dtrace_hdl_t *);
int		dtrace_status(dtrace_hdl_t *);
dtrace_workstatus_t dtrace_work(dtrace_hdl_t *, FILE *,
		    dtrace_consume_probe_f *, dtrace_consume_rec_f *, void *);
int		dtrace_aggregate_print(dtrace_hdl_t *, FILE *, void *);
int		dtrace_exit_status(dtrace_hdl_t *);

/*
 * Target processes (-c, -p).  Unlike illumos these return the pid, not a
 * ps_prochandle: the daemon controls the process.  dtrace_proc_create()
 * returns once the program is held at its entry point; it runs after
 * dtrace_go() has fired BEGIN.  The handler hears of each target's exit
 * (pid, wait status) from inside any later library call.
 */
typedef void dtrace_handle_proc_f(pid_t, int, void *);
pid_t		dtrace_proc_create(dtrace_hdl_t *, const char *,
		    char *const *);
pid_t		dtrace_proc_grab(dtrace_hdl_t *, pid_t);
int		dtrace_handle_proc(dtrace_hdl_t *, dtrace_handle_proc_f *,
		    void *);

#endif /* DTRACE_H */
