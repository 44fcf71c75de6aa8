/*
 * dt_proto.h: THE wire protocol between dtrace(1)/libdtrace and dtraced,
 * and the compiled-program object that travels over it.
 *
 * Every message is a 12-byte header followed by a payload:
 *
 *	u32 length	payload bytes (not counting the header)
 *	u16 type	DT_MSG_*
 *	u16 version	DT_PROTO_VERSION; any other value drops the peer
 *	u32 flags	DT_MSGF_*
 *
 * All integers are little-endian and fixed-width; payloads are written
 * and read field by field with dt_msg_put_* and dt_msg_get_* (dt_msg.c),
 * never as C structs.  Strings are u32 length + bytes, no NUL.  A file
 * descriptor (a pidfd naming a target) travels as SCM_RIGHTS with the
 * first byte of the message that has DT_MSGF_FD.
 *
 * Bump DT_PROTO_VERSION whenever a payload below changes.
 */
#ifndef DT_PROTO_H
#define DT_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dif.h"

/*
 * 9: stack() (DTP_KEY_STACK keys, DTRACEACT_STACK records), which
 * daemons of 8 built before it refuse as a bad program.
 */
#define DT_PROTO_VERSION	10

#define DT_MSG_HDRSIZE		12
#define DT_MSGF_FD		0x1	/* one fd is attached */

/* Largest payload either side accepts. */
#define DT_MSG_MAXCLIENT	(16u << 20)	/* client -> daemon */
#define DT_MSG_MAXDAEMON	(1u << 30)	/* daemon -> client */

/*
 * Message types, numbered in ranges by concern.  Each is listed with its
 * direction and payload.  Requests are answered in order, by their *_OK
 * reply or by DT_MSG_ERROR; DT_MSG_NOTIFY and DT_MSG_PROC may arrive at any time.
 */
enum dt_msgtype {
	/* 100: handshake */
	DT_MSG_HELLO = 100,	/* c->d: u32 client pid */
	DT_MSG_HELLO_OK,	/* d->c: u32 ncpu, u32 daemon pid */

	/* 200: programs and tracing state */
	DT_MSG_PROGRAM = 200,	/* c->d: a dtp_prog (dt_proto_prog_encode) */
	DT_MSG_PROGRAM_OK,	/* d->c: u32 nepid, then nepid x
				 *   { u32 epid, u32 stmt, u32 probe id,
				 *     str provider, str module, str function,
				 *     str name, u32 nargs (the probe's
				 *     arguments, ~0 if not known) } */
	DT_MSG_GO,		/* c->d: (empty): fire BEGIN, start tracing */
	DT_MSG_GO_OK,		/* d->c: u64 bufsize, u64 aggsize,
				 *   u64 specsize, u64 dynvarsize: the
				 *   sizes in use (bufresize=auto may have
				 *   lowered them) */
	DT_MSG_STOP,		/* c->d: (empty): fire END, stop tracing */
	DT_MSG_STOP_OK,		/* d->c: (empty) */
	DT_MSG_LIST,		/* c->d: str prov, str mod, str func, str name */
	DT_MSG_LIST_OK,		/* d->c: u32 n, then n x { u32 id, str prov,
				 *   str mod, str func, str name, u32 nargs } */
	DT_MSG_STATUS,		/* c->d: (empty): how is tracing? */
	DT_MSG_STATUS_OK,	/* d->c: u32 activity, u32 reason */
	DT_MSG_RETAIN,		/* c->d: str name, u32 nopt, then nopt x
				 *   { str option, u64 value }: after the
				 *   programs, before GO: the program stays
				 *   in the daemon, named, when this client
				 *   goes; the options are the client's own
				 *   (quiet, aggsortkey ...), kept for the
				 *   claim and not interpreted */
	DT_MSG_RETAIN_OK,	/* d->c: (empty) */
	DT_MSG_CLAIM,		/* c->d: str name ("": the caller's only
				 *   one), u32 flags (DT_CLAIM_*): take over
				 *   a retained program (READY, nothing sent
				 *   yet); SNAP, STOP, STATUS follow */
	DT_MSG_CLAIM_OK,	/* d->c: str name, u32 activity,
				 *   u64 bufsize, u64 aggsize, u64 specsize,
				 *   u64 dynvarsize (as GO_OK),
				 *   u32 nopt x { str option, u64 value } (as
				 *   RETAIN sent them), u32 nprog x { u32 len,
				 *   len bytes: a dtp_prog as PROGRAM carries
				 *   it }, u32 nepid x
				 *   { u32 epid, u32 prog, u32 stmt, u32 probe
				 *   id, str provider, str module, str
				 *   function, str name } */
	DT_MSG_RETAINED,	/* c->d: (empty): list retained programs */
	DT_MSG_RETAINED_OK,	/* d->c: u32 n, then n x { str name, u32 uid,
				 *   u32 activity, u32 policy, u64 bufsize,
				 *   u64 aggsize, u64 drops, u64 errors,
				 *   u32 ntarget x { u32 pid, u32 exited } }:
				 *   those of the
				 *   caller's uid (root: all) */

	/* 300: data */
	DT_MSG_SNAP = 300,	/* c->d: u32 what (DT_SNAP_*) */
	DT_MSG_BUF,		/* d->c: u32 cpu, u64 drops, u32 flags
				 *   (DT_BUFF_*), [u32 tid if DT_BUFF_THREAD],
				 *   then the records */
	DT_MSG_AGG,		/* d->c: u32 cpu, u64 drops, u32 nent, then
				 *   nent x { u32 aggid, u32 keysize,
				 *   u32 valsize, key bytes, value bytes } */
	DT_MSG_SNAP_END,	/* d->c: u32 activity (DT_ACT_*),
				 *   u32 exit status, u64 errors,
				 *   u64 dynvar drops, u32 reason,
				 *   u64 speculative drops, u64 failed
				 *   speculations (busy), u64 failed
				 *   speculations (unavailable); counts
				 *   are cumulative */
	DT_MSG_NOTIFY,		/* d->c: u32 activity, u32 reason: tracing
				 *   state changed (exit(), fill); snapshot
				 *   now */

	/* 400: errors */
	DT_MSG_ERROR = 400,	/* d->c: u32 code (EDT_* or errno), str text */

	/* 500: traced processes (the pid provider) */
	DT_MSG_GRAB = 500,	/* c->d: u32 pid, u32 flags (DT_GRAB_*), with
				 *   a pidfd naming pid: trace it (before
				 *   GO).  DT_GRAB_CREATE: pid is the
				 *   client's child, about to execve(); the
				 *   daemon holds it at its entry point, or
				 *   where DT_GRAB_EVALMASK says */
	DT_MSG_GRAB_OK,		/* d->c: u32 pid: traced (CREATE: seized;
				 *   the client may now let it exec) */
	DT_MSG_PROC,		/* d->c, any time: u32 pid, u32 event
				 *   (DT_PROC_*), u32 wait status (EXITED),
				 *   backend (BACKEND) or reason (LOST) */
	DT_MSG_MODMAP,		/* d->c, any time before records that need
				 *   it: u32 pid, u32 n, then n x { u64 lo,
				 *   u64 hi, u64 bias, u32 flags
				 *   (DT_MODMAP_*), str path, str name
				 *   (the module's in probes and stacks:
				 *   the executable's as it was run), u32
				 *   nsyms, nsyms x { u64 addr, u64 size,
				 *   str name }: the functions its IFUNCs
				 *   chose, which its file may not name }:
				 *   the objects mapped in a target
				 *   (ustack(), usym() symbols are the
				 *   client's work); replaces the pid's
				 *   previous map */
	DT_MSG_ECBS,		/* d->c, any time before records of them:
				 *   u32 n, then n x { u32 epid, u32 program
				 *   (the consumer's, in PROGRAM order), u32
				 *   stmt, then the probe as PROGRAM_OK has
				 *   it }: ECBs made while tracing, on probes
				 *   that appeared (a library loaded, an
				 *   exec) */
};

#define DT_GRAB_CREATE	0x1
/* with CREATE: where the daemon holds it (-x evaltime); 0 is postinit */
#define DT_GRAB_EVALMASK	0x6
#define DT_GRAB_EVALSHIFT	1
#define DT_GRAB_EXEC		(1 << DT_GRAB_EVALSHIFT)
#define DT_GRAB_PREINIT		(2 << DT_GRAB_EVALSHIFT)
#define DT_GRAB_MAIN		(3 << DT_GRAB_EVALSHIFT)

/* DT_MSG_CLAIM flags */
#define DT_CLAIM_SNAPSHOT	0x1	/* read it, leave it running */

/* A retained program's name: [A-Za-z0-9_.-], not starting with '.' or '-' */
#define DT_RETAIN_NAMELEN	64	/* with the NUL */	/* -c: hold the child at its entry point */

/* DT_MSG_MODMAP module flags */
#define DT_MODMAP_EXEC	0x1	/* the executable (a.out) */

/*
 * DT_MSG_ERROR codes of a probe description a provider refuses, that the
 * compiler reports with a tag of its own (-xerrtags); other errors are
 * errno values.
 */
#define DT_ERR_PDESC_OFF	0x10001	/* an offset outside its function */
#define DT_ERR_PDESC_ALIGN	0x10002	/* an offset inside an instruction */

/* DT_MSG_PROC events */
#define DT_PROC_HELD	1	/* a CREATE target is at its entry point */
#define DT_PROC_EXITED	2	/* the target is gone; status as waitpid() */
#define DT_PROC_BACKEND	3	/* how it is traced (DT_BACKEND_*); sent
				 * before the PROGRAM_OK that chose it */
#define DT_PROC_LOST	4	/* no longer traced, and never again: the
				 * third word says why (DT_LOST_*); it
				 * runs on untraced */

/* DT_PROC_LOST reasons */
#define DT_LOST_SETID	1	/* it exec'd what the client may not trace
				 * (set-id, file capabilities, not dumpable) */

#define DT_BACKEND_PTRACE	0
#define DT_BACKEND_UPROBE	1
#define DT_BACKEND_INLINE	2	/* uprobes, and jmps at function entries */

/* DT_MSG_SNAP: what to fetch */
#define DT_SNAP_BUF	0x1	/* principal buffers (switch them) */
#define DT_SNAP_AGG	0x2	/* aggregation buffers */

/* DT_MSG_BUF flags */
#define DT_BUFF_WRAPPED	0x1	/* ring buffer wrapped */
#define DT_BUFF_FULL	0x2	/* fill buffer filled */
#define DT_BUFF_THREAD	0x4	/* bufscope=thread: a tid follows flags */

/* Why a consumer is draining (STATUS_OK, SNAP_END, NOTIFY). */
#define DT_REASON_NONE	0
#define DT_REASON_EXIT	1	/* exit() */
#define DT_REASON_FILL	2	/* a fill buffer filled */

/* Consumer activity (DT_MSG_SNAP_END, DT_MSG_NOTIFY). */
#define DT_ACT_INACTIVE	0	/* program loaded, not started */
#define DT_ACT_ACTIVE	1	/* tracing */
#define DT_ACT_DRAINING	2	/* exit() or a full fill buffer: stop now */
#define DT_ACT_STOPPED	3	/* END has fired */

/*
 * Buffer records.  Each record starts with a 12-byte header, as
 * illumos's dtrace_rechdr_t: u32 epid, then the timestamp as two u32
 * halves, high then low, so that a header needs only 4-byte alignment.
 * The ECB's data follows it, laid out by its actions' offsets (which
 * count from the end of the header), and the whole record is rounded up
 * to 4 bytes, as illumos aligns a record of 4-byte values to its EPID's
 * 4 (an int printf()'s record and an exit()'s are 16 bytes each, and
 * fit 32).  A record is thus 4-aligned in a buffer and an 8-byte value
 * in it may be too: headers and values are read and written bytewise
 * (memcpy, dt_proto_rechdr_*), never through wider pointers.  A record
 * does not carry its size: every record of an enabled probe ID has the
 * same, 12 + its statement's ds_size rounded, which both sides know
 * (the daemon's ring buffers walk records by it).  An epid of
 * DTRACE_EPIDNONE ends the data.
 */
#define DTRACE_EPIDNONE		0
#define DTRACE_RECHDR_SIZE	12	/* u32 epid, u32 ts high, u32 ts low */
#define DTRACE_RECROUND(x)	(((x) + 3) & ~(uint64_t)3)

/*
 * Action kinds (illumos DTRACEACT_* numbering).  libdtrace's dtrace.h
 * gives its consumers the same list, token for token (a C compiler
 * accepts only an identical redefinition where both are included, and
 * tests/unit/test_dt_acts compares the two).
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

/*
 * printa() and the library actions (clear, trunc, normalize, denormalize)
 * are acted on by the consumer where their record lies in the buffer;
 * the daemon only records them.  printa(): one PRINTA action per
 * aggregation, da_arg = aggregation id | (format index + 1) << 32 (0:
 * no format); the first of them has da_nargs = the number of
 * aggregations.  A LIBACT action has da_arg = aggregation id |
 * DTP_LIBACT_* << 32, and trunc() and normalize() record their value.
 * setopt(name[, value]) is two LIBACT actions, SETOPT recording the
 * option's name and SETOPTVAL its value (nothing when there is none);
 * their aggregation id is 0.
 */
#define DTP_LIBACT_CLEAR	1
#define DTP_LIBACT_TRUNC	2
#define DTP_LIBACT_NORMALIZE	3
#define DTP_LIBACT_DENORMALIZE	4
#define DTP_LIBACT_SETOPT	5
#define DTP_LIBACT_SETOPTVAL	6
#define DTP_LIBACT_FTRUNCATE	7	/* ftruncate(): the output file */

/*
 * ustack(nframes, strsize): da_arg = nframes | strsize << 32 (illumos's
 * DTRACE_USTACK_ARG); the record is u64 pid, then nframes u64 program
 * counters, 0 past the last frame, then strsize bytes (helper strings:
 * zero here).  usym(), ufunc() (both DTRACEACT_USYM), umod() and
 * uaddr(): one DIFO computes the address; the record is u64 pid, u64
 * address.  As aggregation keys the same layouts are key elements of
 * kinds DTP_KEY_USTACK (dk_size = (nframes + 1) * 8) and DTP_KEY_USYM,
 * DTP_KEY_UMOD, DTP_KEY_UADDR (dk_size 16); their DIFO (ustack: one
 * that returns 0) computes the address.
 *
 * stack(nframes), the kernel stack: da_arg = nframes, no DIFO; the
 * record is nframes u64 program counters, 0 past the last frame (none
 * at all where the hit has no kernel stack).  As a key, DTP_KEY_STACK
 * with dk_size = nframes * 8 and a DIFO that returns 0.
 */
#define DTRACE_USTACK_NFRAMES(x)	((uint32_t)((x) & UINT32_MAX))
#define DTRACE_USTACK_STRSIZE(x)	((uint32_t)((x) >> 32))
#define DTRACE_USTACK_ARG(n, s)	((uint64_t)(n) | (uint64_t)(s) << 32)
#define DTRACE_USTACK_MAXFRAMES		1024
#define DTRACE_STACK_MAXFRAMES		1024

#define DTRACEACT_ISAGG(k)	(((k) & 0xff00) == DTRACEACT_AGGREGATION)

/* Probe description field sizes (illumos). */
#define DTRACE_PROVNAMELEN	64
#define DTRACE_MODNAMELEN	64
#define DTRACE_FUNCNAMELEN	192
#define DTRACE_NAMELEN		64

typedef struct dtp_probedesc {
	char	dpd_provider[DTRACE_PROVNAMELEN];
	char	dpd_mod[DTRACE_MODNAMELEN];
	char	dpd_func[DTRACE_FUNCNAMELEN];
	char	dpd_name[DTRACE_NAMELEN];
} dtp_probedesc_t;

/*
 * One action of a statement.  An action that records data puts da_size
 * bytes at da_offset in the ECB's record (after the record header);
 * da_difo[0] computes the value (a by-ref value is copied, strings are
 * NUL-padded to da_size).  An aggregating action records nothing in the
 * principal buffer: da_arg is the aggregation id, da_difo[0..nkeys-1]
 * compute the key and da_difo[nkeys..] the function's arguments.
 *
 * printf() is numbered as in illumos, one action per argument: the
 * PRINTF action (da_arg = format index, da_nargs = number of value
 * arguments) records the first argument, or a dummy int when there is
 * none, and the other da_nargs - 1 arguments are the DIFEXPR actions
 * that follow it.
 */
typedef struct dtp_action {
	uint32_t	da_kind;	/* DTRACEACT_* / DTRACEAGG_* */
	uint32_t	da_size;	/* record bytes */
	uint32_t	da_offset;	/* record offset */
	uint32_t	da_align;	/* record alignment */
	uint64_t	da_arg;		/* kind-specific */
	uint32_t	da_nargs;	/* printf: its value arguments */
	uint32_t	da_ndifo;
	dif_difo_t	**da_difo;
} dtp_action_t;

#define DTP_STMT_ERRHANDLER	0x1	/* libdtrace's own ERROR reporter */

/* A statement: a probe description, a predicate, its actions. */
typedef struct dtp_stmt {
	dtp_probedesc_t	ds_desc;
	uint32_t	ds_flags;	/* DTP_STMT_* */
	dif_difo_t	*ds_pred;	/* NULL: always */
	uint32_t	ds_nact;
	dtp_action_t	*ds_act;
	uint32_t	ds_size;	/* record data bytes (after the header) */
} dtp_stmt_t;

/* Aggregation key element kinds. */
#define DTP_KEY_INT	0	/* signed integer of dk_size bytes */
#define DTP_KEY_UINT	1	/* unsigned integer */
#define DTP_KEY_STRING	2	/* NUL-padded string of dk_size bytes */
#define DTP_KEY_USTACK	3	/* ustack(): u64 pid, then pcs */
#define DTP_KEY_USYM	4	/* usym(), ufunc(): u64 pid, u64 address */
#define DTP_KEY_UMOD	5	/* umod() */
#define DTP_KEY_UADDR	6	/* uaddr() */
#define DTP_KEY_SYM	7	/* sym(), func(): as USYM, a kernel address */
#define DTP_KEY_MOD	8	/* mod(): as UMOD, a kernel address */
#define DTP_KEY_STACK	9	/* stack(): pcs, no pid */

/*
 * dk_name: what the key expression names (execname, pid, ufunc, the
 * member or variable), "" when it names nothing; dtraced labels the
 * aggregation's exported metrics with it.
 */
#define DT_PROTO_KEYNAMELEN	64	/* with the NUL */
typedef struct dtp_aggkey {
	uint32_t	dk_kind;	/* DTP_KEY_* */
	uint32_t	dk_size;
	char		*dk_name;	/* or NULL: "" */
} dtp_aggkey_t;

/*
 * An aggregation.  Its key is the concatenation of its key elements,
 * each 8-aligned; its value is an array of u64 whose meaning depends on
 * the function: count/sum/min/max: 1; avg: 2 (count, total); stddev: 4
 * (count, total, sum of squares as 128 bits, low word first);
 * quantize/lquantize/llquantize: their buckets (dt_proto_agg_nbuckets).
 * dg_params: lquantize { lo, hi, step }, llquantize { factor, lo, hi,
 * steps }; the optional increment is an argument, not a parameter.
 */
#define DT_PROTO_QUANTIZE_NBUCKETS	127	/* 63 negative, 0, 63 positive */
#define DT_PROTO_QUANTIZE_ZERO		63	/* the bucket of 0 */
#define DT_PROTO_MAXBUCKETS		(1 << 22)

typedef struct dtp_agg {
	uint32_t	dg_id;		/* consumer-wide aggregation id */
	uint32_t	dg_kind;	/* DTRACEAGG_* */
	char		*dg_name;	/* without '@'; "" for @ */
	uint32_t	dg_nkeys;
	dtp_aggkey_t	*dg_keys;
	uint64_t	dg_params[4];	/* lquantize/llquantize parameters */
} dtp_agg_t;

/* An option the daemon needs, already parsed by libdtrace. */
typedef struct dtp_opt {
	char		*do_name;	/* "bufsize", "strsize", ... */
	uint64_t	do_value;
} dtp_opt_t;

/* A compiled program: what one DT_MSG_PROGRAM carries. */
typedef struct dtp_prog {
	uint32_t	dp_nstmt;
	dtp_stmt_t	*dp_stmt;
	uint32_t	dp_nagg;
	dtp_agg_t	*dp_agg;
	uint32_t	dp_nfmt;
	char		**dp_fmt;	/* printf/printa formats */
	uint32_t	dp_nopt;
	dtp_opt_t	*dp_opt;
} dtp_prog_t;

/* A message being built or read. */
typedef struct dt_msg {
	uint16_t	dm_type;
	uint8_t		*dm_data;	/* payload */
	size_t		dm_len;
	size_t		dm_cap;
	size_t		dm_off;		/* read cursor */
	int		dm_err;		/* sticky: no memory / read past end */
	int		dm_fd;		/* attached fd or -1 */
} dt_msg_t;

/* One end of a connection. */
typedef struct dt_peer {
	int		dp_fd;
	size_t		dp_maxmsg;	/* largest payload accepted */
	uint8_t		*dp_in;		/* bytes read, not yet consumed */
	size_t		dp_inlen;
	size_t		dp_incap;
	int		dp_infd[4];	/* fds received, not yet claimed */
	int		dp_ninfd;
	uint8_t		*dp_out;	/* bytes queued to send */
	size_t		dp_outlen;
	size_t		dp_outcap;
	size_t		dp_outoff;
	int		dp_outfd[4];	/* fd to send with byte dp_outfdat[i] */
	size_t		dp_outfdat[4];
	int		dp_noutfd;
	pid_t		dp_pid;		/* SO_PEERCRED at dt_peer_init */
	uid_t		dp_uid;
	gid_t		dp_gid;
	int		dp_timeout;	/* ms dt_peer_recv and dt_peer_request
					   wait for the peer to move; 0:
					   for ever */
	uint16_t	dp_version;	/* of a header refused as another
					   protocol's, else 0 */
} dt_peer_t;

/* dt_msg.c */
void		dt_msg_init(dt_msg_t *, uint16_t);
void		dt_msg_free(dt_msg_t *);
void		dt_msg_put_u8(dt_msg_t *, uint8_t);
void		dt_msg_put_u16(dt_msg_t *, uint16_t);
void		dt_msg_put_u32(dt_msg_t *, uint32_t);
void		dt_msg_put_u64(dt_msg_t *, uint64_t);
void		dt_msg_put_bytes(dt_msg_t *, const void *, size_t);
void		dt_msg_put_str(dt_msg_t *, const char *);
void		*dt_msg_reserve(dt_msg_t *, size_t);
uint8_t		dt_msg_get_u8(dt_msg_t *);
uint16_t	dt_msg_get_u16(dt_msg_t *);
uint32_t	dt_msg_get_u32(dt_msg_t *);
uint64_t	dt_msg_get_u64(dt_msg_t *);
const void	*dt_msg_get_bytes(dt_msg_t *, size_t);
char		*dt_msg_get_strdup(dt_msg_t *, size_t);
int		dt_msg_get_strbuf(dt_msg_t *, char *, size_t);
int		dt_msg_done(const dt_msg_t *);
const char	*dt_msg_type_name(uint32_t);
int		dt_msg_check(uint16_t, uint16_t, uint32_t, uint32_t, size_t);

/* dt_peer.c */
int		dt_peer_init(dt_peer_t *, int, size_t);
void		dt_peer_close(dt_peer_t *);
ssize_t		dt_peer_read(dt_peer_t *);
int		dt_peer_get(dt_peer_t *, dt_msg_t *);
int		dt_peer_send(dt_peer_t *, const dt_msg_t *);
int		dt_peer_flush(dt_peer_t *);
int		dt_peer_recv(dt_peer_t *, dt_msg_t *);
int		dt_peer_request(dt_peer_t *, const dt_msg_t *);
size_t		dt_peer_queued(const dt_peer_t *);

/* dt_proto.c: the program object */
/* dt_aggval.c */
void		dt_aggval_zero(uint32_t, uint64_t *, uint32_t);
void		dt_aggval_fold(uint32_t, uint64_t *, const uint64_t *,
		    uint32_t);
uint64_t	dt_aggval_stddev(const uint64_t *, uint64_t);

void		dt_proto_prog_encode(dt_msg_t *, const dtp_prog_t *);
dtp_prog_t	*dt_proto_prog_decode(dt_msg_t *, char *, size_t);
void		dt_proto_prog_fini(dtp_prog_t *);
void		dt_proto_prog_free(dtp_prog_t *);
void		dt_proto_difo_encode(dt_msg_t *, const dif_difo_t *);
dif_difo_t	*dt_proto_difo_decode(dt_msg_t *);
size_t		dt_proto_agg_valsize(const dtp_agg_t *);
size_t		dt_proto_agg_keysize(const dtp_agg_t *);
int		dt_proto_agg_nbuckets(const dtp_agg_t *);
int64_t		dt_proto_llq_mul(int64_t, uint64_t);
int64_t		dt_proto_llq_pow(uint64_t, uint64_t);
int		dt_proto_retain_name_ok(const char *);
void		dt_proto_rechdr_put(void *, uint32_t, uint64_t);
void		dt_proto_rechdr_get(const void *, uint32_t *, uint64_t *);

#endif /* DT_PROTO_H */
