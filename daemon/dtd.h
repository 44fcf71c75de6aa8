/*
 * dtd.h: the internal header of dtraced.
 *
 * Threads: one libevent thread (the main thread) owns sockets, timers,
 * clients and consumers, and fires BEGIN, END and ERROR.  The firing
 * path (dtd_ecb.c) runs on other threads too: a traced process's tracer
 * thread (ptrace stops) or drain thread (its uprobe ring) for pid
 * probes, and the profile provider's timer threads (tick-N, profile-N,
 * and the perf samples they drain).  So what it touches is safe to
 * share: probe ECB chains under a per-probe rwlock, per-CPU buffers
 * under a per-CPU lock, consumer activity and counters as atomics; what
 * it reports to the consumer (an exit(), a full buffer) is state and a
 * wake-up of the main thread (dtd_ecb_wakeup), never a call up.
 */
#ifndef DTD_H
#define DTD_H

#include <sys/types.h>
#include <sys/queue.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#include "dif.h"
#include "dt_proto.h"

struct event_base;
struct ft_proc;		/* fasttrap's process model (ft.h) */

#define DTD_DEFAULT_BUFSIZE	(4u << 20)
#define DTD_DEFAULT_AGGSIZE	(4u << 20)
#define DTD_DEFAULT_STRSIZE	256
#define DTD_MAX_BUFSIZE		(1ull << 32)	/* per CPU, per buffer */
/*
 * a record header (12 bytes) in a size of 8-byte units: any less holds
 * nothing; more is the enabling's check
 */
#define DTD_MIN_BUFSIZE		16
#define DTD_DEFAULT_DYNVARSIZE	(1u << 20)
#define DTD_DEFAULT_SPECSIZE	(32u << 10)
#define DTD_MAX_NSPEC		4096

/* Buffer policies: the numbers libdtrace uses (DTRACEOPT_BUFPOLICY_*). */
#define DTD_BUFPOLICY_RING	0
#define DTD_BUFPOLICY_FILL	1
#define DTD_BUFPOLICY_SWITCH	2
#define DTD_BUFRESIZE_AUTO	0	/* DTRACEOPT_BUFRESIZE_* */
#define DTD_BUFRESIZE_MANUAL	1

/*
 * What one consumer's buffers may take in all (principal, aggregation):
 * bufresize=auto lowers sizes to fit, manual refuses.  A limit, not only
 * malloc failing, so that one client cannot take the machine.
 */
#define DTD_MAX_CONSUMER_MEM	(1ull << 30)

/*
 * A consumer's ECBs at most (dtd_consumer.c), and the chunks of its
 * table of record sizes that hold them.
 */
#define DTD_MAX_ECBS		(1u << 20)
#define DTD_RECSZ_CHUNK		4096
#define DTD_RECSZ_NCHUNK	(DTD_MAX_ECBS / DTD_RECSZ_CHUNK)

/* Providers at most (dtd_provider.c's table). */
#define DTD_MAXPROVIDERS	8

/* The probes of the dtrace provider have fixed ids. */
#define DTD_PROBE_BEGIN		1
#define DTD_PROBE_END		2
#define DTD_PROBE_ERROR		3

/*
 * Principal buffers.  A buffer has units: one per CPU, or with
 * bufscope=thread one per traced thread (keyed by tid, created on the
 * thread's first record).  Each unit has its own lock: writers on
 * different units never meet, and a snapshot takes one unit's lock just
 * long enough to swap (switch) or copy out (fill, ring) its data, so a
 * record is either wholly in the data handed out or wholly in the next
 * snapshot.  A record's header (dt_proto.h) does not hold its size: the
 * ring walks its records by the size of their enabled probe ID, which
 * the owner of the buffer gives it (dtd_buf_sizer).
 */
#define DTD_BUFSCOPE_CPU	0
#define DTD_BUFSCOPE_THREAD	1

#define DTD_BUF_DROPPED		(-1)	/* dtd_buf_write: dropped, counted */
#define DTD_BUF_FILLED		(-2)	/* fill policy: full, tracing stops */

#define DTD_BUFF_FULL		0x1	/* fill: a record did not fit */
#define DTD_BUFF_WRAPPED	0x2	/* ring: overwrote its oldest record */

typedef struct dtd_bufcpu {
	pthread_mutex_t	dbc_lock;
	char		*dbc_data[2];	/* switch: two halves; fill, ring: [0] */
	int		dbc_active;	/* switch: the half taking records */
	size_t		dbc_off;	/* bytes used; ring: the write offset */
	size_t		dbc_head;	/* ring: the oldest record */
	size_t		dbc_wrapend;	/* ring: end of the older part, 0: none */
	uint32_t	dbc_flags;	/* DTD_BUFF_* */
	int		dbc_cpu;	/* CPU of the last record */
	pid_t		dbc_tid;	/* thread scope: the thread, 0: others */
	uint64_t	dbc_drops;	/* since the last snapshot */
	char		*dbc_copy;	/* fill, ring: the last snapshot */
} __attribute__((aligned(64))) dtd_bufcpu_t;

/*
 * The size of every record of an enabled probe ID, 0 for an unknown one;
 * called by writers, under a unit's lock, from any thread.
 */
typedef size_t	dtd_buf_recsize_f(void *, uint32_t);

typedef struct dtd_buf {
	int		db_policy;	/* DTD_BUFPOLICY_* */
	int		db_scope;	/* DTD_BUFSCOPE_* */
	int		db_ncpu;	/* cpu scope: units */
	size_t		db_size;	/* bytes per unit (per half) */
	size_t		db_reserve;	/* fill: kept for END */
	int		db_cooldown;	/* atomic: END fires, reserve usable */
	dtd_bufcpu_t	*db_cpu;	/* cpu scope */
	pthread_rwlock_t db_thrlock;	/* thread scope: the table below */
	dtd_bufcpu_t	**db_thr;	/* by creation; [0] takes the overflow */
	uint32_t	db_nthr;
	uint32_t	db_maxthr;	/* units the memory limit allows */
	uint32_t	*db_thash;	/* tid -> index + 1, open addressing */
	uint32_t	db_thashsize;	/* a power of two > 2 * db_maxthr */
	dtd_buf_recsize_f *db_recsize;	/* ring: a record's size by epid */
	void		*db_recarg;
} dtd_buf_t;

typedef struct dtd_bufsnap {
	const char	*dbs_data;	/* valid until the next snapshot */
	size_t		dbs_len;
	uint64_t	dbs_drops;
	uint32_t	dbs_flags;	/* DT_BUFF_* */
	int		dbs_cpu;	/* the unit's CPU, or its last record's */
	pid_t		dbs_tid;	/* thread scope: the unit's thread */
} dtd_bufsnap_t;

/*
 * Aggregation buffers: per CPU, an arena of aggsize bytes holding
 * entries (aggid, key) -> u64 values, with a hash index.  Like the
 * principal buffers they switch: a snapshot hands out what was
 * aggregated since the previous one, and the client adds it to its own
 * totals (as illumos libdtrace does with the kernel's aggregation
 * buffers).
 */
typedef struct dtd_aggcpu {
	pthread_mutex_t	dac_lock;
	char		*dac_data[2];
	uint32_t	*dac_hash[2];	/* bucket -> entry offset + 1 */
	int		dac_active;
	size_t		dac_off;
	uint32_t	dac_nent;
	uint64_t	dac_drops;
} dtd_aggcpu_t;

typedef struct dtd_agg {
	int		da_ncpu;
	size_t		da_size;
	uint32_t	da_nbucket;	/* a power of two */
	dtd_aggcpu_t	*da_cpu;
} dtd_agg_t;

typedef struct dtd_aggsnap {
	const char	*das_data;
	size_t		das_len;
	size_t		das_off;	/* iteration cursor */
	uint32_t	das_nent;
	uint64_t	das_drops;
} dtd_aggsnap_t;

/* Probes and providers. */
typedef struct dtd_probe dtd_probe_t;
typedef struct dtd_ecb dtd_ecb_t;

struct dtd_consumer;

typedef struct dtd_target dtd_target_t;	/* a process (dtd_target.c) */
struct dtd_hit;
struct ft_hit;

/*
 * A provider: its probes and the hooks the generic code calls.  Every
 * hook but dpv_name may be NULL (nothing to do); all run on the main
 * thread but dpv_siteargs.  A provider keeps what it has per consumer
 * in *dtd_provider_state(c, itself), which nothing else reads, and
 * frees it in dpv_drop.  Adding one is a new dtd_prov_<x>.c and a row
 * in dtd_provider.c's table.
 */
typedef struct dtd_provider {
	const char	*dpv_name;
	/* Make the fixed probes, at daemon start.  -1: the daemon fails. */
	int		(*dpv_init)(void);
	/*
	 * Create the probes a description names (on-demand providers), for
	 * the consumer that asks (NULL: the daemon itself).  -1 with err
	 * filled when the description is wrong for this provider.
	 */
	int		(*dpv_provide)(const dtp_probedesc_t *,
			    struct dtd_consumer *, char *, size_t);
	/* First ECB added / last ECB removed. */
	int		(*dpv_enable)(dtd_probe_t *);
	void		(*dpv_disable)(dtd_probe_t *);
	/*
	 * Another ECB is about to be added to p, enabled already: what it
	 * needs of the probe's hits may be more than the others did (a
	 * profile sample's kernel stack).  -1 refuses it.
	 */
	int		(*dpv_addecb)(dtd_probe_t *, const struct dtd_ecb *);
	/*
	 * Does d select p for this consumer?  NULL: the four globs.  Lets
	 * a provider hide probes a consumer may not use (pid: another
	 * client's processes).
	 */
	int		(*dpv_match)(const dtp_probedesc_t *,
			    const dtd_probe_t *, const struct dtd_consumer *);
	/*
	 * A program's -x option name=v: 1 not this provider's, 0 taken,
	 * -1 refused with err.
	 */
	int		(*dpv_option)(struct dtd_consumer *, const char *,
			    uint64_t, char *, size_t);
	/* A program of c is loaded, before its ECBs: -1 refuses it. */
	int		(*dpv_load)(struct dtd_consumer *, const dtp_prog_t *,
			    char *, size_t);
	/* c goes, its ECBs off their probes: free its state. */
	void		(*dpv_drop)(struct dtd_consumer *);
	/* The daemon exits: consumers and targets are gone. */
	void		(*dpv_shutdown)(void);
	/*
	 * Does c's enabling fire in processes it did not grab (profile-N
	 * samples)?  Then it is sent their module maps (dtd_target.c).
	 */
	int		(*dpv_observes)(const struct dtd_consumer *);
	/*
	 * Tracer thread: a thread of a target hit a site of probe
	 * h->dh_probe, one of this provider's; h has the process's context
	 * (dtd_target.c): fill in the probe's arguments.
	 */
	void		(*dpv_siteargs)(struct dtd_hit *, const struct ft_hit *);
	/*
	 * Target t's modules changed, its tracer thread waiting: exec (a
	 * new image, generation oldgen was the old one's), or a library
	 * came or went.  Resolve the probes made in it again.
	 */
	void		(*dpv_retarget)(dtd_target_t *, uint64_t, int);
	/* t is released: forget what was made in it. */
	void		(*dpv_release)(dtd_target_t *);
	/*
	 * Consumer c stops, before its END: fire now the hits that are
	 * still on their way (an asynchronous capture's ring), so that
	 * what happened before the stop is traced.
	 */
	void		(*dpv_flush)(struct dtd_consumer *);
	/*
	 * How many arguments p has, for the compiler's check of args[N]
	 * (PROGRAM_OK, LIST_OK); -1 or NULL: not known.
	 */
	int		(*dpv_nargs)(const dtd_probe_t *);
} dtd_provider_t;

struct dtd_probe {
	uint32_t		dpr_id;
	const dtd_provider_t	*dpr_prov;
	char			*dpr_mod;
	char			*dpr_func;
	char			*dpr_name;
	void			*dpr_arg;	/* the provider's */
	pthread_rwlock_t	dpr_lock;	/* dpr_ecbs */
	TAILQ_HEAD(, dtd_ecb)	dpr_ecbs;	/* in enable order */
	uint32_t		dpr_necb;
	/* the table's (dtd_probe.c) */
	struct dtd_probe	*dpr_chain[2];	/* by id, by names */
	uint32_t		dpr_hash;	/* of the four names */
	struct dtd_probegrp	*dpr_grp;	/* its provider's probes */
	int			dpr_retired;	/* by id alone (see retire) */
	TAILQ_ENTRY(dtd_probe)	dpr_grplink;	/* in id order */
};

struct dtd_consumer;

/* An enabled probe: one statement of one consumer on one probe. */
struct dtd_ecb {
	TAILQ_ENTRY(dtd_ecb)	de_link;	/* on the probe */
	struct dtd_consumer	*de_consumer;
	dtd_probe_t		*de_probe;
	const dtp_prog_t	*de_prog;
	const dtp_stmt_t	*de_stmt;
	uint32_t		de_epid;
	uint32_t		de_stmtidx;	/* within de_prog */
	uint32_t		de_recsize;	/* 0: records nothing */
	const dtp_agg_t		**de_aggs;	/* per action, or NULL */
	int			de_enabled;
};

/*
 * A probe hit, as a backend hands it to the firing path.  BEGIN, END
 * and ERROR name the one consumer they fire for in dh_consumer.
 */
struct dtd_hit;
typedef struct dtd_hit {
	pid_t		dh_pid;
	pid_t		dh_tid;
	int		dh_nothread;	/* no thread context (tick): no self-> */
	/*
	 * The CPU of the hit; -1: not known yet, dh_getcpu tells on first
	 * need (dtd_ecb_hitcpu).  A ptrace hit saves reading it when the
	 * program only aggregates.
	 */
	int		dh_cpu;
	int		(*dh_getcpu)(const struct dtd_hit *);
	uint64_t	dh_timestamp;	/* CLOCK_MONOTONIC ns */
	dtd_probe_t	*dh_probe;
	const uint64_t	*dh_regs;	/* uregs[] by index, or NULL */
	uint32_t	dh_nregs;
	/* Traced memory; NULL: every read faults with DIF_FLT_UPRIV. */
	int		(*dh_uread)(void *, uint64_t, void *, size_t);
	/*
	 * Write traced memory (copyout).  Set only by a backend whose
	 * thread waits while DIF runs (ptrace): the destructive actions
	 * (copyout, stop, raise) act only where it is set.
	 */
	int		(*dh_uwrite)(void *, uint64_t, const void *, size_t);
	void		*dh_uarg;
	uint64_t	dh_args[10];
	/*
	 * Nonzero: args 6 to 9 are not in dh_args but the words at this
	 * address of traced memory (SysV: the stack above the return
	 * address), read through dh_uread only when D asks for them.
	 */
	uint64_t	dh_argsp;
	/*
	 * Memory of the daemon's own that arguments point into (the proc
	 * provider's strings), loadable by DIF; NULL none.
	 */
	const void	*dh_argmem;
	size_t		dh_argmemlen;
	/*
	 * Tasks other than the hit's own that arguments name (procfs.d's
	 * translators, given k, describe dh_subj[k - 1]: its pid, tid,
	 * uid, gid, ppid and execname as set there, the rest from /proc).
	 */
#define DTD_HIT_NSUBJ	3
	const struct dtd_hit *dh_subj[DTD_HIT_NSUBJ];
	struct dtd_consumer *dh_consumer; /* only this consumer, or NULL */
	pid_t		dh_ppid;	/* -1: look up in /proc */
	/*
	 * The parent's ancestors as the hit's record has them (its parent
	 * first, 0 after the last known; NULL: none), for progenyof() of a
	 * process gone, or whose parent is, when the hit fires.
	 */
	const uint32_t	*dh_anc;
	int		dh_nanc;
	uid_t		dh_uid;		/* (uid_t)-1: look up in /proc */
	gid_t		dh_gid;
	const char	*dh_execname;	/* NULL: /proc/PID/comm */
	/*
	 * curpsinfo's pr_psargs and pr_dmodel as the process's exec made
	 * them, kept by its target; NULL and 0: read /proc at first use
	 */
	const char	*dh_psargs;
	int		dh_dmodel;
	/*
	 * The hit shows a process no consumer chose (a profile sample of
	 * whatever ran): it fires only for root consumers and those whose
	 * uid is dh_uid and, where dh_visible is set, that it allows.
	 */
	int		dh_private;
	int		(*dh_visible)(const struct dtd_hit *, uid_t, gid_t);
	/*
	 * The user stack at the hit: at most max program counters, the
	 * hit's own first; returns how many.  NULL: no user context.
	 */
	int		(*dh_ustack)(const struct dtd_hit *, uint64_t *,
			    uint32_t);
	void		*dh_ustackarg;
	/*
	 * The kernel stack at the hit, for stack(): its program counters,
	 * the hit's own first.  None: no kernel context (pid and USDT hits,
	 * BEGIN, END, tick, a sample taken in user mode).
	 */
	const uint64_t	*dh_kpcs;
	uint32_t	dh_nkpcs;
	/*
	 * errno: the C errno of the thread that hit, 0 or a DIF_FLT_*
	 * code.  NULL: errno is 0 (no user thread).
	 */
	int		(*dh_errno)(const struct dtd_hit *, uint64_t *);
} dtd_hit_t;

/* A consumer's options (dtd_consumer_option). */
typedef struct dtd_opts {
	uint64_t	do_bufsize;
	uint64_t	do_aggsize;
	uint32_t	do_strsize;
	int		do_bufpolicy;
	int		do_bufresize;	/* DTD_BUFRESIZE_* */
	int		do_bufscope;	/* DTD_BUFSCOPE_* */
	int		do_cpu;		/* -1: all */
	uint64_t	do_dynvarsize;	/* dynamic variables (a later issue) */
	uint64_t	do_specsize;	/* speculations: dtd_spec.c */
	uint32_t	do_nspec;
	uint64_t	do_cleanrate;	/* ns */
	int		do_destructive;	/* -w */
	uint32_t	do_maxframes;	/* dtrace-utils': caps ustackdepth */
} dtd_opts_t;

/*
 * A consumer's activity while its BEGIN runs, inside GO: only BEGIN (and
 * ERROR, for BEGIN's faults) fire for it, so that BEGIN comes before
 * every other probe, as in illumos.  The main thread is inside GO, so no
 * client ever sees this state; it becomes DT_ACT_ACTIVE once BEGIN is
 * done (unless BEGIN called exit()).
 */
#define	DTD_ACT_WARMUP	100

/* What a client has asked for. */
typedef struct dtd_consumer {
	pid_t		dc_pid;		/* the client (SO_PEERCRED) */
	uid_t		dc_uid;
	gid_t		dc_gid;
	char		dc_execname[32];
	pid_t		dc_ppid;

	dtp_prog_t	**dc_progs;
	uint32_t	dc_nprog;
	dtd_ecb_t	**dc_ecbs;	/* by epid - 1 */
	uint32_t	dc_necb;
	uint32_t	dc_ecbcap;
	/*
	 * Record size by epid - 1, in chunks that never move, for the
	 * ring buffers' writers (dtd_consumer_recsize) while late ECBs
	 * are added and dc_ecbs is reallocated; atomic pointers.
	 */
	uint32_t	*dc_recsz[DTD_RECSZ_NCHUNK];
	const dtp_agg_t	**dc_aggs;	/* by aggregation id */
	uint32_t	dc_naggs;

	dtd_opts_t	dc_opts;	/* options, from the programs' dp_opt */

	dif_vstate_t	dc_vstate;
	dtd_buf_t	dc_buf;
	dtd_agg_t	dc_agg;
	int		dc_hasbuf;
	int		dc_hasagg;
	struct dtd_specs *dc_spec;	/* speculations, from GO; or NULL */
	uint64_t	dc_specused;	/* specsize GO allocated (GO_OK) */
	int		dc_enabled;	/* ECBs are on their probes */

	int		dc_activity;	/* DT_ACT_* or DTD_ACT_WARMUP; atomic */
	int		dc_exitstatus;
	int		dc_reason;	/* DT_REASON_*: why it is draining */
	int		dc_begincpu;	/* where BEGIN and END ran: their */
	int		dc_endcpu;	/* units are read first and last */
	int		dc_begunread;	/* BEGIN's unit was read first */
	uint64_t	dc_bufused;	/* sizes GO allocated (GO_OK) */
	uint64_t	dc_aggused;
	uint64_t	dc_errors;	/* atomic; cumulative */
	uint32_t	dc_nlocals;	/* this-> slots its programs use (GO) */
	int		dc_notify;	/* atomic: NOTIFY the client */
	void		*dc_targets;	/* dtd_target.c: its processes */
	void		*dc_provstate[DTD_MAXPROVIDERS]; /* each provider's,
					   dtd_provider_state() */
	TAILQ_ENTRY(dtd_consumer) dc_link;	/* every consumer (main thread) */
	/*
	 * Its programs have destructive actions (stop, raise, system,
	 * copyout, copyoutstr): GO refuses them unless the client is root
	 * and asked with -w (illumos: EACCES, "Destructive actions not
	 * allowed"); then dc_allowdestr lets the firing path act.
	 */
	int		dc_destructive;
	int		dc_allowdestr;
	int		dc_refs;	/* holders: its client, the retained
					   table, clients that claimed it or
					   read a snapshot (main thread) */
	struct dtd_retained *dc_retained; /* its name in the retained
					   table (dtd_retain.c), or NULL */
	int		dc_limited;	/* charged to its uid (dtd_limit.c) */
	uint64_t	dc_limprograms;	/* what it was charged for */
	uint64_t	dc_limprobes;
	uint64_t	dc_limmemory;
} dtd_consumer_t;

/* The internal snapshot flag: read, consume nothing (dtd_consumer_snap). */
#define DTD_SNAP_PEEK		0x100

/* dtd_log.c */
void		log_init(int, int);
int		log_file(const char *);
void		log_reopen(void);
void		log_close(void);
void		log_setverbose(int);
int		log_getverbose(void);
void		log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void		log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void		log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void		log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void		fatal(const char *, ...)
		    __attribute__((format(printf, 1, 2), noreturn));
void		fatalx(const char *, ...)
		    __attribute__((format(printf, 1, 2), noreturn));

/*
 * dtd_limit.c: per-client and per-uid limits (dtraced -L), root exempt.
 * Defaults: a client may have 64 programs, 250000 enabled probes (the
 * ceiling of illumos's fasttrap) and 256m of buffers; all the consumers
 * of one uid together 256 programs, 500000 probes and 1g, and 64
 * connections.  Every client, root's too, may have 16m of output queued
 * beyond one snapshot of its buffers, and may leave output unread for
 * 60 seconds.
 */
#define DTD_LIMIT_PROGRAMS	64
#define DTD_LIMIT_PROBES	250000
#define DTD_LIMIT_MEMORY	(256ull << 20)
#define DTD_LIMIT_USER_PROGRAMS	256
#define DTD_LIMIT_USER_PROBES	500000
#define DTD_LIMIT_USER_MEMORY	(1ull << 30)
#define DTD_LIMIT_USER_CONNS	64
#define DTD_LIMIT_OUTPUT	(16ull << 20)
#define DTD_LIMIT_OUTPUT_TIMEOUT 60

typedef struct dtd_limits {
	uint64_t	dl_programs;	/* per client */
	uint64_t	dl_probes;
	uint64_t	dl_memory;
	uint64_t	dl_uprograms;	/* per uid */
	uint64_t	dl_uprobes;
	uint64_t	dl_umemory;
	uint64_t	dl_uconns;
	uint64_t	dl_output;	/* per client, root's too */
	uint64_t	dl_outtimeout;	/* seconds */
} dtd_limits_t;

int		dtd_limit_parse(const char *, char *, size_t);
const dtd_limits_t *dtd_limit_get(void);
void		dtd_limit_enforce(int);
int		dtd_limit_enforcing(void);
void		dtd_limit_describe(char *, size_t, int);
int		dtd_limit_connect(uid_t, uint64_t, char *, size_t);
int		dtd_limit_output(uint64_t *, int *);
int		dtd_limit_program(const dtd_consumer_t *, char *, size_t);
uint64_t	dtd_limit_probes(const dtd_consumer_t *, uint64_t, int *);
void		dtd_limit_probes_err(const dtd_consumer_t *, int, char *,
		    size_t);
uint64_t	dtd_limit_memory(const dtd_consumer_t *, uint64_t, int *);
void		dtd_limit_memory_err(const dtd_consumer_t *, int, char *,
		    size_t);
void		dtd_limit_charge(dtd_consumer_t *, uint64_t, uint64_t,
		    uint64_t);
void		dtd_limit_uncharge(dtd_consumer_t *);

/* dtd_systemd.c */
int		dtd_systemd_listen_fd(void);
int		dtd_systemd_notify(const char *);

/* dtd_control.c */
extern struct event_base *dtd_base;
int		dtd_control_open(const char *);
void		dtd_control_listen(int);
const char	*dtd_control_sockpath(void);
void		dtd_control_close(void);

/* dtd_client.c */
int		dtd_client_init(void);
void		dtd_client_create(int, int);
void		dtd_client_shutdown(void);
int		dtd_client_count(void);

/*
 * dtd_retain.c: retained programs, a flight recorder in the daemon.  A
 * consumer whose client sent DT_MSG_RETAIN outlives its connection under
 * a name; DT_MSG_CLAIM hands it to another client of the same uid (or
 * root), to stop and print (claim) or to read and leave running
 * (snapshot).  Programs in the configuration directory are retained at
 * start by a dtrace(1) the daemon runs against its own socket.
 */
#define DTD_RETAIN_MAX		64	/* in all */
#define DTD_RETAIN_MAX_UID	8	/* per uid other than root */
#define DTD_RETAIN_MAXOPT	64	/* client options kept */
#define DTD_RETAIN_OPTLEN	32	/* an option name, with the NUL */
#define DTD_RETAIN_CONFDIR	SYSCONFDIR "/dtraced"

typedef struct dtd_retained dtd_retained_t;

int		dtd_retain_add(dtd_consumer_t *, const char *, dt_msg_t *,
		    int, char *, size_t);
void		dtd_retain_cancel(dtd_consumer_t *);
dtd_consumer_t	*dtd_retain_claim(const char *, uid_t, int, dt_msg_t *,
		    char *, size_t);
void		dtd_retain_list(uid_t, dt_msg_t *);
void		dtd_retain_tend(void);
void		dtd_retain_shutdown(void);
void		dtd_retain_load(const char *, const char *);
void		dtd_retain_exported(void (*)(const char *, dtd_consumer_t *,
		    void *), void *);

/* dtd_consumer.c */
dtd_consumer_t	*dtd_consumer_create(pid_t, uid_t, gid_t);
void		dtd_consumer_free(dtd_consumer_t *);
void		dtd_consumer_hold(dtd_consumer_t *);
void		dtd_consumer_release(dtd_consumer_t *);
int		dtd_consumer_program(dtd_consumer_t *, dtp_prog_t *,
		    dt_msg_t *, char *, size_t);
int		dtd_consumer_go(dtd_consumer_t *, char *, size_t);
int		dtd_consumer_stop(dtd_consumer_t *, char *, size_t);
int		dtd_consumer_snap(dtd_consumer_t *, uint32_t,
		    int (*)(void *, dt_msg_t *), void *);
int		dtd_consumer_activity(const dtd_consumer_t *);
int		dtd_consumer_uses(const dtd_consumer_t *,
		    const dtd_provider_t *);
dtd_consumer_t	*dtd_consumer_next(dtd_consumer_t *);
void		dtd_consumer_rematch(dtd_consumer_t *, const char *);
size_t		dtd_consumer_recsize(void *, uint32_t);
int		dtd_consumer_announce(dtd_consumer_t *, uint32_t,
		    int (*)(void *, dt_msg_t *), void *);
int		dtd_consumer_option(dtd_consumer_t *, const char *, uint64_t,
		    char *, size_t);

/* dtd_validate.c */
int		dtd_validate_program(const dtd_consumer_t *, const dtp_prog_t *,
		    char *, size_t);
const dtp_agg_t	*dtd_validate_findagg(const dtd_consumer_t *,
		    const dtp_prog_t *, uint64_t);
int		dtd_validate_records(const dtp_stmt_t *);

/* dtd_probe.c */
void		dtd_probe_encode(dt_msg_t *, const dtd_probe_t *);
int		dtd_probe_init(void);
void		dtd_probe_fini(void);
dtd_probe_t	*dtd_probe_create(const dtd_provider_t *, const char *,
		    const char *, const char *, void *);
dtd_probe_t	*dtd_probe_lookup(uint32_t);
dtd_probe_t	*dtd_probe_find(const char *, const char *, const char *,
		    const char *);
int		dtd_probe_glob(const char *, const char *);
int		dtd_probe_match(const dtp_probedesc_t *, const dtd_probe_t *);
int		dtd_probe_iter(const dtp_probedesc_t *, dtd_consumer_t *,
		    int (*)(dtd_probe_t *, void *), void *, char *, size_t);
void		dtd_probe_seterrcode(uint32_t);
uint32_t	dtd_probe_geterrcode(void);
int		dtd_probe_enable(dtd_probe_t *, dtd_ecb_t *);
void		dtd_probe_disable(dtd_probe_t *, dtd_ecb_t *);
uint32_t	dtd_probe_count(void);
void		dtd_probe_destroy(dtd_probe_t *);
void		dtd_probe_destroy_prov(const dtd_provider_t *,
		    int (*)(const dtd_probe_t *, void *), void *);
void		dtd_probe_retire(dtd_probe_t *);
void		dtd_probe_walk_prov(const dtd_provider_t *,
		    void (*)(dtd_probe_t *, void *), void *);

/*
 * dtd_provider.c: the providers' table, and the generic code's calls of
 * their hooks.  The providers themselves (dtd_prov_<x>.c) are named
 * only in the table.
 */
const dtd_provider_t *dtd_provider_nth(size_t);
int		dtd_provider_init(void);
void		**dtd_provider_state(struct dtd_consumer *,
		    const dtd_provider_t *);
int		dtd_provider_option(dtd_consumer_t *, const char *, uint64_t,
		    char *, size_t);
int		dtd_provider_load(dtd_consumer_t *, const dtp_prog_t *, char *,
		    size_t);
void		dtd_provider_drop(dtd_consumer_t *);
void		dtd_provider_shutdown(void);
int		dtd_provider_observes(const dtd_consumer_t *);
void		dtd_provider_retarget(dtd_target_t *, uint64_t, int);
void		dtd_provider_release(dtd_target_t *);
void		dtd_provider_flush(dtd_consumer_t *);

/* profile-N, tick-N: their names (dtd_prov_profile.c), for unit tests */
#define DTD_PROFILE_TICK	1
#define DTD_PROFILE_PROFILE	2
#define DTD_PROFILE_MIN_NS	200000ull	/* illumos: 200us */
int		dtd_prov_profile_parse(const char *, int *, uint64_t *);

/*
 * dtd_sample.c: perf sampling for profile-N.  The provider's timer
 * thread of each CPU owns a sampler (opened and closed on the main
 * thread; follow and drain on its own thread).
 */
#define DTD_SAMPLE_CPU		1	/* every CPU's samples */
#define DTD_SAMPLE_TASK		2	/* the samples of the targets */
typedef struct dtd_sampler dtd_sampler_t;
dtd_sampler_t	*dtd_sample_open_cpu(dtd_probe_t *, int, uint64_t,
		    uint32_t);
dtd_sampler_t	*dtd_sample_open_task(dtd_probe_t *, int, uint64_t,
		    uint32_t, int *);
void		dtd_sample_close(dtd_sampler_t *);
int		dtd_sample_fd(const dtd_sampler_t *);
void		dtd_sample_follow(dtd_sampler_t *);
uint64_t	dtd_sample_drain(dtd_sampler_t *);
void		dtd_sample_retarget(void);
void		dtd_sample_start(int);
void		dtd_sample_stop(int);
uint64_t	dtd_sample_idlepc(void);
struct ft_perfhit;
void		dtd_sample_fire_user(dtd_hit_t *,
		    const struct ft_perfhit *);

/*
 * dtd_kcap.c: the kernel capture of system calls and process events,
 * held by the providers that fire from it (syscall, proc).  ku_rec,
 * ku_drop and ku_idle run on its drain thread (or a stopping consumer's
 * flush): every record, whatever the holder wants; n records lost on
 * cpu; the pass is over, at CLOCK_MONOTONIC time t (UINT64_MAX at a
 * flush: whatever a holder held back fires now).
 */
struct ft_bpfsysrec;
struct ft_bpfsys;
typedef struct dtd_kcapuser {
	void		(*ku_rec)(const struct ft_bpfsysrec *);
	void		(*ku_drop)(int, uint64_t);
	/* after each pass over the ring: the time (NULL: nothing to do) */
	void		(*ku_idle)(uint64_t);
} dtd_kcapuser_t;
int		dtd_kcap_hold(const dtd_kcapuser_t *);
int		dtd_kcap_holds(const dtd_kcapuser_t *);
void		dtd_kcap_rele(const dtd_kcapuser_t *);
int		dtd_kcap_want(const dtd_kcapuser_t *, uint32_t, uint32_t);
void		dtd_kcap_drain(void);
void		dtd_kcap_flush(void);
struct ft_bpfsys *dtd_kcap_get(void);
void		dtd_kcap_charge(dtd_probe_t *const *, size_t, int, uint64_t);
int		dtd_kcap_visible(const struct ft_bpfsysrec *, uid_t, gid_t);
/* what a clause on a probe of theirs needs of the records */
#define DTD_KCAP_NEED_STACK	1	/* ustack(), ucaller... */
#define DTD_KCAP_NEED_MEM	2	/* copyin(), copyinstr()... */
#define DTD_KCAP_NEED_ANC	4	/* progenyof() */
#define DTD_KCAP_NEED_CREDS	8	/* a consumer that is not root */
int		dtd_kcap_ecbneeds(const struct dtd_ecb *);
int		dtd_kcap_needs(const dtd_probe_t *);
void		dtd_kcap_setneeds(int);

/*
 * dtd_target.c: the processes traced (targets, shared by the consumers
 * that grabbed them) and observed (sampled, not traced); their
 * privilege checks, exits, module maps and the DT_MSG_PROC notices.
 */
#define DTD_TARGET_SB_MODS	1	/* dtd_target_sideband() */
#define DTD_TARGET_SB_EXEC	2
#define DTD_TARGET_SB_EXIT	3
int		dtd_target_grab(dtd_consumer_t *, pid_t, int, int, int,
		    char *, size_t);
void		dtd_target_commit(dtd_consumer_t *);
void		dtd_target_run(dtd_consumer_t *);
void		dtd_target_keep(dtd_consumer_t *);
void		dtd_target_drop(dtd_consumer_t *);
void		dtd_target_shutdown(void);
uint32_t	dtd_target_list(const dtd_consumer_t *, pid_t *, int *,
		    uint32_t);
int		dtd_target_report(dtd_consumer_t *,
		    int (*)(void *, dt_msg_t *), void *);
int		dtd_target_modmaps(dtd_consumer_t *,
		    int (*)(void *, dt_msg_t *), void *);
int		dtd_target_obsmaps(dtd_consumer_t *,
		    int (*)(void *, dt_msg_t *), void *);
dtd_target_t	*dtd_target_iter(const dtd_consumer_t *, uint32_t *);
dtd_target_t	*dtd_target_of(const dtd_consumer_t *, pid_t);
pid_t		dtd_target_pid(const dtd_target_t *);
uint64_t	dtd_target_gen(const dtd_target_t *);
uint64_t	dtd_target_born(const dtd_target_t *);
struct ft_proc	*dtd_target_proc(const dtd_target_t *);
int		dtd_target_live(const dtd_target_t *);
int		dtd_target_created(const dtd_target_t *);
int		dtd_target_backend(const dtd_consumer_t *,
		    const dtd_target_t *);
void		dtd_target_setbackend(dtd_consumer_t *, dtd_target_t *, int);
int		dtd_target_attach(dtd_target_t *, int, size_t, char *, size_t);
dtd_target_t	*dtd_target_observe(pid_t);
void		dtd_target_rele(dtd_target_t *);
void		dtd_target_sideband(pid_t, int);
void		dtd_target_gc(int);
int		dtd_target_visible(const struct dtd_hit *, uid_t, gid_t);
uid_t		dtd_target_uidof(pid_t);
struct ft_unwind *dtd_target_unwind(const dtd_target_t *);
uint64_t	dtd_target_modgen(const dtd_target_t *);
uid_t		dtd_target_uid(const dtd_target_t *);

/* dtd_ecb.c */
void		dtd_ecb_onwake(void (*)(void));
void		dtd_ecb_wakeup(void);
void		dtd_ecb_drain(dtd_consumer_t *, int, int);
uint64_t	dtd_ecb_now(void);
int		dtd_ecb_cpu(void);
int		dtd_ecb_hitcpu(const dtd_hit_t *);
void		dtd_ecb_fire(const dtd_hit_t *);
void		dtd_ecb_hit_self(dtd_hit_t *, dtd_probe_t *);
void		dtd_ecb_hit_consumer(dtd_hit_t *, dtd_probe_t *,
		    dtd_consumer_t *);

/* dtd_host.c */
extern const dif_host_t dtd_host;
int		dtd_host_status(pid_t, const char *, long *, long *);
void		dtd_host_psargs(pid_t, char *, size_t);
int		dtd_host_dmodel(pid_t);
typedef struct dtd_fire {
	const dtd_hit_t	*df_hit;
	const dtd_ecb_t	*df_ecb;
	char		df_execname[32];
	char		df_zonename[8];
	int		df_execdone;
	int		df_procdone;
	pid_t		df_ppid;
	uid_t		df_uid;
	gid_t		df_gid;
	/*
	 * __psinfo[] (procfs.d), read from /proc in groups, each on its
	 * first use in the firing: DTD_PS_* bits say which are read.
	 */
	int		df_psdone;
	uint64_t	df_pssubj;	/* whose they are: 0, or dh_subj */
	int64_t		df_ps[DIF_PSINFO_MAX + 1];
	struct {
		char	dfs_psargs[80];	/* illumos's PRARGSZ, with the NUL */
		char	dfs_clname[8];
		char	dfs_fname[16];	/* illumos's PRFNSZ: execname */
		/* timestruc_t's: seconds, nanoseconds */
		int64_t	dfs_start[2], dfs_time[2];
		int64_t	dfs_lstart[2], dfs_ltime[2];
	} df_psstr;
} dtd_fire_t;
void		dtd_host_init(dtd_fire_t *, const dtd_hit_t *,
		    const dtd_ecb_t *, dif_mstate_t *);

/* dtd_buf.c */
size_t		dtd_buf_halves(int);
int		dtd_buf_init(dtd_buf_t *, int, int, size_t);
int		dtd_buf_init_thread(dtd_buf_t *, int, size_t, uint32_t);
void		dtd_buf_fini(dtd_buf_t *);
void		dtd_buf_reserve(dtd_buf_t *, size_t);
void		dtd_buf_sizer(dtd_buf_t *, dtd_buf_recsize_f *, void *);
void		dtd_buf_cooldown(dtd_buf_t *);
int		dtd_buf_write(dtd_buf_t *, int, pid_t, const void *, size_t);
int		dtd_buf_write_recs(dtd_buf_t *, int, pid_t, const void *,
		    size_t);
void		dtd_buf_drop(dtd_buf_t *, int, uint64_t);
int		dtd_buf_nunits(dtd_buf_t *);
int		dtd_buf_unitof(dtd_buf_t *, int, pid_t);
int		dtd_buf_snap(dtd_buf_t *, int, dtd_bufsnap_t *);
int		dtd_buf_peek(dtd_buf_t *, int, dtd_bufsnap_t *);
uint64_t	dtd_buf_drops(dtd_buf_t *);

/* dtd_agg.c */
#define DTD_AGGENT_HDRSIZE	24	/* next, aggid, keysize, valsize, hash */
int		dtd_agg_init(dtd_agg_t *, int, size_t);
void		dtd_agg_fini(dtd_agg_t *);
int		dtd_agg_update(dtd_agg_t *, int, const dtp_agg_t *,
		    const void *, uint32_t, uint64_t, uint64_t);
int64_t		dtd_agg_quantize_value(int);
int		dtd_agg_quantize_bucket(int64_t);
int		dtd_agg_lquantize_bucket(const dtp_agg_t *, int64_t);
int		dtd_agg_llquantize_bucket(const dtp_agg_t *, int64_t);
void		dtd_agg_snap(dtd_agg_t *, int, dtd_aggsnap_t *);
void		dtd_agg_peek(dtd_agg_t *, int, dtd_aggsnap_t *);
int		dtd_agg_copy(dtd_agg_t *, dtd_aggsnap_t *);
uint64_t	dtd_agg_drops(dtd_agg_t *);
int		dtd_agg_next(dtd_aggsnap_t *, uint32_t *, const void **,
		    uint32_t *, const uint64_t **, uint32_t *);

/*
 * dtd_om.c: the text of a metrics scrape, OpenMetrics or the Prometheus
 * text format.
 */
struct evbuffer;
#define DTD_OM_COUNTER		1
#define DTD_OM_GAUGE		2
#define DTD_OM_HISTOGRAM	3
#define DTD_OM_NAMELEN		256	/* a metric name, with the NUL */

typedef struct dtd_om {
	struct evbuffer	*om_out;
	int		om_openmetrics;	/* else the Prometheus format */
	int		om_type;	/* the family's DTD_OM_* */
	int		om_nlabel;	/* of the sample being written */
	uint64_t	om_nsample;
	int		om_err;		/* out of memory on the way */
	size_t		om_len;		/* bytes in om_buf */
	char		om_buf[16384];	/* gathered for om_out */
} dtd_om_t;

void		dtd_om_init(dtd_om_t *, struct evbuffer *, int);
int		dtd_om_name(char *, size_t, const char *, const char *,
		    const char *);
void		dtd_om_family(dtd_om_t *, const char *, int, const char *);
void		dtd_om_sample(dtd_om_t *, const char *, const char *);
void		dtd_om_label(dtd_om_t *, const char *, const char *, size_t);
void		dtd_om_value(dtd_om_t *, const char *);
void		dtd_om_value_i64(dtd_om_t *, int64_t);
void		dtd_om_value_u64(dtd_om_t *, uint64_t);
void		dtd_om_end(dtd_om_t *);
void		dtd_om_flush(dtd_om_t *);
const char	*dtd_om_content_type(const dtd_om_t *);

/*
 * dtd_metrics.c: the aggregations of retained programs that asked for
 * export, served over HTTP to a metrics scraper (dtraced -M, or the
 * metrics line of CONFDIR/dtraced.conf); off unless asked.
 */
#define DTD_METRICS_CONF	"dtraced.conf"
#define DTD_METRICS_ADDR	"127.0.0.1"
int		dtd_metrics_listen(const char *, char *, size_t);
int		dtd_metrics_config(const char *, char *, size_t);
int		dtd_metrics_start(struct event_base *, char *, size_t);
void		dtd_metrics_stop(void);
int		dtd_metrics_write(dtd_om_t *);

/* dtd_spec.c: speculations, in illumos's states */
#define DTD_SPEC_INACTIVE	0
#define DTD_SPEC_ACTIVE		1
#define DTD_SPEC_ACTIVEONE	2
#define DTD_SPEC_ACTIVEMANY	3
#define DTD_SPEC_COMMITTING	4
#define DTD_SPEC_COMMITTINGMANY	5
#define DTD_SPEC_DISCARDING	6
#define DTD_DEFAULT_CLEANRATE	(1000000000ull / 101)	/* illumos: 101 Hz */
#define DTD_MIN_CLEANRATE	200000ull		/* illumos: 5000 Hz */
#define DTD_MAX_CLEANRATE	(60ull * 1000000000ull)

typedef struct dtd_spec {
	pthread_mutex_t	ds_lock;
	int		ds_state;	/* DTD_SPEC_* */
	int		ds_owner;	/* ACTIVEONE: the CPU with records */
	uint64_t	ds_busysince;	/* COMMITTINGMANY, DISCARDING */
	char		**ds_buf;	/* per CPU, specsize bytes, lazily */
	size_t		*ds_off;	/* per CPU: bytes used */
} dtd_spec_t;

typedef struct dtd_specs {
	uint32_t	dss_nspec;
	int		dss_ncpu;
	size_t		dss_size;	/* per speculation, per CPU */
	uint64_t	dss_cleanrate;	/* ns a busy buffer stays busy */
	dtd_spec_t	*dss_spec;
	uint64_t	dss_drops;	/* atomic, cumulative */
	uint64_t	dss_busy;	/* failed: buffers still busy */
	uint64_t	dss_unavail;	/* failed: none available */
} dtd_specs_t;

int		dtd_spec_init(dtd_specs_t *, uint32_t, int, size_t, uint64_t);
void		dtd_spec_fini(dtd_specs_t *);
void		dtd_spec_clean(dtd_specs_t *, uint64_t);
uint32_t	dtd_spec_alloc(dtd_specs_t *, uint64_t);
int		dtd_spec_valid(const dtd_specs_t *, uint64_t);
int		dtd_spec_write(dtd_specs_t *, uint64_t, int, const void *,
		    size_t);
int		dtd_spec_commit(dtd_specs_t *, uint64_t, int, dtd_buf_t *,
		    pid_t, uint64_t);
void		dtd_spec_discard(dtd_specs_t *, uint64_t, int, uint64_t);
int		dtd_spec_state(dtd_specs_t *, uint64_t);

#endif /* DTD_H */
