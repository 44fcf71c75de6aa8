/*
 * dt_impl.h: libdtrace's one internal header.  The handle, the program
 * object on the client side, the library errnos and the prototypes of
 * every dt_*.c file, grouped under a comment per file.
 *
 * Sections are owned by concern: the compiler (dt_cpp.c, dt_lex.l,
 * dt_grammar.y, dt_parser.c, dt_decl.c, dt_ident.c, dt_cc.c, dt_cg.c,
 * dt_as.c, ...) and the runtime (dt_open.c, dt_options.c, dt_conn.c,
 * dt_program.c for sending programs, dt_work.c for go, stop and the
 * work loop, dt_proc.c for target processes, dt_retain.c, dt_consume.c,
 * dt_printf.c, dt_aggregate.c, dt_error.c, dt_usym.c for user symbols,
 * dt_probe.c for listing probes and what dtrace -lv shows).
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
	EDT_NODAEMON,		/* no connection to dtraced could be made */
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
	DTRACEOPT_BUFSCOPE,	/* DTRACEOPT_BUFSCOPE_* (ours) */
	DTRACEOPT_OFORMAT,	/* DTRACEOPT_OFORMAT_* (FreeBSD's name) */
	DTRACEOPT_BACKEND,	/* DTRACEOPT_BACKEND_* (ours) */
	DTRACEOPT_UPROBEBUFSIZE, /* the uprobe backend's ring (ours) */
	DTRACEOPT_EXPORT,	/* a retained program's metrics (ours) */
	DTRACEOPT_AGGHIST,	/* count(), sum()...: histograms of keys */
	DTRACEOPT_AGGPACK,	/* quantize(), lquantize(): a line a key */
	DTRACEOPT_AGGZOOM,	/* bars scaled to the largest bucket */
	DTRACEOPT_MAXFRAMES,	/* cap on stack frames (dtrace-utils') */
	DTRACEOPT_NORESOLVE,	/* user addresses as mod:0xoff (theirs) */
	DTRACEOPT_MAX
};

#define DTRACEOPT_BUFPOLICY_RING	0
#define DTRACEOPT_BUFPOLICY_FILL	1
#define DTRACEOPT_BUFPOLICY_SWITCH	2
#define DTRACEOPT_BUFRESIZE_AUTO	0
#define DTRACEOPT_BUFRESIZE_MANUAL	1
#define DTRACEOPT_BUFSCOPE_CPU		0
#define DTRACEOPT_BUFSCOPE_THREAD	1
#define DTRACEOPT_BACKEND_AUTO		0
#define DTRACEOPT_BACKEND_PTRACE	1
#define DTRACEOPT_BACKEND_UPROBE	2
#define DTRACEOPT_BACKEND_INLINE	3
#define DTRACEOPT_OFORMAT_TEXT		DTRACE_OFORMAT_TEXT
#define DTRACEOPT_OFORMAT_JSON		DTRACE_OFORMAT_JSON

/* -x oformat=json: records, aggregations, drops and errors as JSON lines */
#define DT_JSON(dtp)	((dtp)->dt_options[DTRACEOPT_OFORMAT] == \
			    DTRACEOPT_OFORMAT_JSON)

/* -x encoding: the characters of aggpack's bars (unset: by $TERM) */
#define DT_ENCODING_UNSET	0
#define DT_ENCODING_ASCII	1
#define DT_ENCODING_UTF8	2

/* Compile-time options kept as flags (dt_options.c sets, compiler reads). */
#define DT_COPT_ERRTAGS		0x1
#define DT_COPT_ZDEFS		0x2	/* descriptions may match no probe */
#define DT_COPT_DEFARGS		0x4	/* missing $N are 0 / "" */
#define DT_COPT_DROPTAGS	0x8	/* drop messages carry [DTRACEDROP_*] */
#define DT_COPT_CPP		0x10	/* -C: run cpp over programs */
#define DT_COPT_CPPHDRS		0x20	/* -H: cpp lists included files */
#define DT_COPT_NOLIBS		0x40	/* no D libraries (dt_lib.c) */
#define DT_COPT_ARGREF		0x80	/* unreferenced $N allowed */
#define DT_COPT_CORE		0x100	/* -x core: dtrace(1) dumps core at exit */

struct dt_node;
struct dt_idhash;
struct dt_ident;

/*
 * A compiled program on the client side: the wire program plus what the
 * consumer needs to print its records.
 */
/*
 * A statement's stability (dtrace -v): the least attributes of what it
 * uses, and the parts of its probe's provider whose attributes it takes
 * (probeprov ... args[]), which only its description resolves.
 */
#define DT_ATTR_PPROV	0x1
#define DT_ATTR_PMOD	0x2
#define DT_ATTR_PFUNC	0x4
#define DT_ATTR_PNAME	0x8
#define DT_ATTR_PARGS	0x10
typedef struct dt_stmtattr {
	dtrace_attribute_t sa_attr;
	uint32_t	sa_mask;	/* DT_ATTR_P* */
} dt_stmtattr_t;

struct dtrace_prog {
	dtp_prog_t	dp_prog;	/* what goes to the daemon */
	int		dp_exec;	/* sent to the daemon */
	uint32_t	dp_seq;		/* then: the consumer's program number */
	dt_stmtattr_t	*dp_sattr;	/* per statement of dp_prog (-v) */
	uint32_t	dp_nsattr;
	struct dtrace_prog *dp_next;	/* handle's list of programs */
};

/* An enabled probe as the daemon reported it (dt_program.c). */
typedef struct dt_epid {
	dtrace_eprobedesc_t	de_edesc;
	dtrace_probedesc_t	de_pdesc;
	struct dtrace_prog	*de_prog;
	uint32_t		de_stmt;
	uint32_t		*de_nargs;	/* per record: printf args that follow */
} dt_epid_t;

struct dtrace_hdl {
	/* dt_open.c */
	int		dt_version;
	int		dt_oflags;	/* DTRACE_O_* */
	int		dt_errno;	/* last error */
	char		dt_errmsg[1024]; /* text of the last compile/remote error */
	const char	*dt_errtag;	/* last compile error tag, or NULL */
	uint32_t	dt_errcode;	/* DT_MSG_ERROR's code (EDT_REMOTE) */

	/* dt_options.c */
	dtrace_optval_t	dt_options[DTRACEOPT_MAX];
	uint32_t	dt_copts;	/* DT_COPT_* */
	char		*dt_socket;	/* -x socket=PATH or NULL */
	char		*dt_retain;	/* -x retain=NAME or NULL */
	int		dt_grabsnap;	/* -x grab=snapshot */
	uint32_t	dt_evaltime;	/* -x evaltime: DT_GRAB_EXEC.. or 0 */
	uint32_t	dt_vmax;	/* -x version: D version, 0 latest */
	int		dt_stdc;	/* -X, -x stdc: 'a' (default) c s t */
	int		dt_encoding;	/* -x encoding: DT_ENCODING_* */

	/* dt_conn.c: the daemon */
	dt_peer_t	dt_peer;
	int		dt_connected;
	pid_t		dt_daemon;	/* private daemon we started, or 0 */
	uint32_t	dt_ncpu;

	/* compiler (dt_cc.c and friends) */
	struct dt_idhash *dt_globals;	/* global identifiers: variables, builtins */
	struct dt_idhash *dt_aggs;	/* aggregations */
	uint32_t	dt_nextvar;	/* next user global id */
	uint32_t	dt_nexttls;	/* next self-> id (own id space) */
	uint32_t	dt_nextlocal;	/* next this-> id (own id space) */
	uint32_t	dt_nextagg;	/* next aggregation id */
	struct dtrace_prog *dt_progs;	/* programs compiled on this handle */
	uint32_t	dt_nexec;	/* programs sent (dp_seq) */
	struct dt_type	*dt_types;	/* declared and derived types (dt_decl.c) */
	struct dt_tdef	*dt_tdefs;	/* typedefs the programs declared */
	char		**dt_cpp_argv;	/* -D, -U, -I for cpp (dt_cpp.c) */
	int		dt_cpp_argc;
	char		*dt_cpp_path;	/* -x cpppath, or NULL: "cpp" */
	char		**dt_libdirs;	/* -L, -x libdir (dt_lib.c) */
	int		dt_nlibdirs;
	int		dt_libsdone;	/* the libraries were loaded */
	struct dt_lib	*dt_libs;	/* the libraries of the path */
	int		dt_nlibs;
	const char	*dt_libcur;	/* path of the library compiling */
	void		*dt_libmem;	/* the libraries' parse trees */
	struct dt_xlator *dt_libxlators; /* the libraries' translators */

	/* runtime (dt_program.c, dt_work.c, dt_consume.c, dt_aggregate.c) */
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
	int		dt_indent;	/* -F: current flow indent */
	uint32_t	dt_flowepid;	/* -F: EPID of the last firing */
	uint32_t	dt_flowprobe;	/* -F: its probe ID */
	uint32_t	dt_flownext;	/* -F: EPID of the next record */
	FILE		*dt_ofp;	/* oformat=json: where drops go (the
					   stream dtrace_work() writes to) */
	/* runtime, more (dt_work.c, dt_conn.c) */
	int		dt_execd;	/* a program was sent: options frozen */
	int		dt_private;	/* the daemon is our private one */
	struct dtrace_prog *dt_errprog;	/* the library's ERROR handler */
	int64_t		dt_laststatus;	/* ns of the last status check */
	int		dt_notified;	/* a NOTIFY arrived since the last work */
	int		dt_draining;	/* the daemon reported exit()/fill */
	int		dt_reason;	/* DT_REASON_* it reported */
	uint64_t	dt_dyndrops;	/* dynamic variable drops reported */
	uint64_t	dt_specdrops[3]; /* speculative drops, failures busy,
					    unavailable: reported */
	/* dt_proc.c: traced processes (-c, -p); the first is $target */
	struct dt_proc	*dt_procs;
	int		dt_nprocs;
	char		**dt_pscanned;	/* provider globs scanned for (dt_pscan) */
	int		dt_npscanned;
	pid_t		dt_dpid;	/* the daemon's, from HELLO_OK */
	dtrace_handle_proc_f *dt_prochdlr;
	void		*dt_procarg;
	dtrace_handle_setopt_f *dt_setopthdlr;	/* setopt() (dt_consume.c) */
	void		*dt_setoptarg;
	int		dt_freopen_fd;	/* freopen(): the output it replaced */
	/* dt_usym.c: targets' module maps, for naming user addresses */
	struct dt_usym_proc *dt_usyms;
	/* dt_ksym.c: /proc/kallsyms's text symbols, read on first use */
	struct dt_ksym_tab *dt_ksyms;
	/* dt_dwarf.c: the targets' own types, per build-id */
	struct dt_dwarf	*dt_dwarf;
	/* dt_retain.c: a claimed retained program */
	char		dt_claimed[DT_RETAIN_NAMELEN];	/* its name, or "" */
	int		dt_snapshot;	/* only read: never stopped */
};

/*
 * A target process: grabbed (-p) or created (-c), or grabbed because a
 * probe description's provider named it (pid1234: dt_proc_named).
 */
typedef struct dt_proc {
	pid_t		dpr_pid;
	int		dpr_created;	/* our child (-c) */
	int		dpr_named;	/* by a provider: not $target */
	int		dpr_held;	/* the daemon holds it at its entry */
	int		dpr_exited;
	int		dpr_status;	/* wait status, once exited */
	int		dpr_lost;	/* let go: DT_LOST_*, or 0 */
	int		dpr_backend;	/* DT_BACKEND_* + 1, 0 not told yet */
} dt_proc_t;

/* dt_json.c: -x oformat=json's one writer */
#define DT_JSON_MAXDEPTH	16
typedef struct dt_json {
	FILE		*dj_fp;
	int		dj_depth;
	int		dj_key;		/* a key was just written */
	uint8_t		dj_more[DT_JSON_MAXDEPTH]; /* something at depth */
} dt_json_t;

void		dt_json_init(dt_json_t *, FILE *);
void		dt_json_object_begin(dt_json_t *);
void		dt_json_object_end(dt_json_t *);
void		dt_json_array_begin(dt_json_t *);
void		dt_json_array_end(dt_json_t *);
void		dt_json_newline(dt_json_t *);
void		dt_json_key(dt_json_t *, const char *);
void		dt_json_string(dt_json_t *, const char *, size_t);
void		dt_json_int(dt_json_t *, int64_t);
void		dt_json_uint(dt_json_t *, uint64_t);
void		dt_json_double(dt_json_t *, double);
void		dt_json_bytes(dt_json_t *, const unsigned char *, size_t);
void		dt_json_values(dt_json_t *, const char *, size_t);
void		dt_json_kstring(dt_json_t *, const char *, const char *);
void		dt_json_kint(dt_json_t *, const char *, int64_t);
void		dt_json_kuint(dt_json_t *, const char *, uint64_t);
int		dt_json_error(const dt_json_t *);
void		dt_json_beginline(dt_json_t *, FILE *, const char *);
int		dt_json_endline(dt_json_t *);

/* dt_proc.c */
void		dt_proc_event(dtrace_hdl_t *, dt_msg_t *);
void		dt_proc_fini(dtrace_hdl_t *);
int		dt_proc_named(dtrace_hdl_t *, const char *);
int		dt_pscan(const char *, pid_t, int (*)(void *, pid_t), void *);
pid_t		dt_proc_target(const dtrace_hdl_t *);

/* dt_usym.c */
/*
 * A function's name, for its preferred one: one per address, sorted by
 * address (dt_usym_alias_cmp); the name is libdwfl's string.
 */
typedef struct dt_usym_alias {
	const char	*al_name;
	uint64_t	al_addr;
	uint64_t	al_size;
	uint8_t		al_bind;	/* STB_* */
	uint8_t		al_hidden;	/* a hidden (compat) version */
} dt_usym_alias_t;

int		dt_usym_alias_cmp(const void *, const void *);
#define DT_USYM_ADDR	0	/* mod`func+0xoff: ustack(), uaddr(), %A */
#define DT_USYM_FUNC	1	/* mod`func: usym(), ufunc() */
#define DT_USYM_MOD	2	/* mod: umod() */
#define DT_USYM_KERNEL	0x10	/* or'ed: a kernel address (dt_ksym.c) */
int		dt_usym_acthow(uint32_t);
int		dt_usym_keyhow(uint32_t);
void		dt_usym_modmap(dtrace_hdl_t *, dt_msg_t *);
void		dt_usym_name(dtrace_hdl_t *, pid_t, uint64_t, int, char *,
		    size_t);
int		dt_usym_print_stack(dtrace_hdl_t *, FILE *, const char *,
		    uint32_t, int);
int		dt_usym_print_sym(dtrace_hdl_t *, FILE *, const char *, int);
void		dt_usym_recname(dtrace_hdl_t *, const char *, int, char *,
		    size_t);
void		dt_usym_json_stack(dtrace_hdl_t *, dt_json_t *,
		    const char *, uint32_t, int);
uint64_t	dt_usym_start(dtrace_hdl_t *, pid_t, uint64_t, int);
int		dt_usym_argtypes(dtrace_hdl_t *, pid_t, const char *,
		    const char *, char (*)[128], int);
pid_t		dt_usym_target(const dtrace_hdl_t *);
int		dt_usym_modpaths(dtrace_hdl_t *, pid_t,
		    int (*)(const char *, int, void *), void *);
void		dt_usym_fini(dtrace_hdl_t *);

/* dt_ksym.c: kernel addresses, how is DT_USYM_* without the flag */
void		dt_ksym_name(dtrace_hdl_t *, uint64_t, int, char *, size_t);
uint64_t	dt_ksym_start(dtrace_hdl_t *, uint64_t, int);
void		dt_ksym_fini(dtrace_hdl_t *);

/*
 * compiler: lexer, grammar, parse tree, identifiers, code generator and
 * assembler.  Everything below is private to the D compiler stages.
 */
#include <setjmp.h>
#include "dt_errtags.h"

/*
 * dt_decl.c: the D type system.  Built-in types are static; the types a
 * program declares (struct, union, enum, typedef) and the derived types
 * (pointers, arrays) live on the handle's dt_types list, created once and
 * shared by every later compile.  A type is compared by identity: the
 * same struct tag or derived shape always yields the same dt_type_t.
 */
#define DT_TK_VOID	0
#define DT_TK_INT	1
#define DT_TK_STRING	2
#define DT_TK_PTR	3	/* dt_base points to; NULL: void * */
#define DT_TK_STRUCT	4	/* dt_members */
#define DT_TK_UNION	5	/* dt_members, each at offset 0 */
#define DT_TK_ENUM	6	/* an int; dt_members are the enumerators */
#define DT_TK_ARRAY	7	/* dt_nelems of dt_base */
#define DT_TK_FLOAT	8	/* float, double, long double: no arithmetic */
#define DT_TK_FUNC	9	/* returns dt_base; dt_members are the
				   parameters (dm_type), dt_nelems of them,
				   dt_signed: varargs; size 0 */
#define DT_TK_OPAQUE	10	/* a target's type D cannot represent
				   (dt_dwarf.c): dt_name says what; any
				   use of its value is an error */

struct dt_type;

/* A struct or union member, or an enumerator (dm_value). */
typedef struct dt_member {
	char		*dm_name;
	const struct dt_type *dm_type;
	uint32_t	dm_off;		/* byte offset of the member (bit-field:
					   of its storage unit) */
	uint8_t		dm_bitoff;	/* bit-field: bits above dm_off */
	uint8_t		dm_bits;	/* bit-field width; 0 if none */
	int64_t		dm_value;	/* enumerator value */
	uint8_t		dm_flags;	/* DT_MF_* */
	struct dt_member *dm_next;
} dt_member_t;

#define DT_MF_ANON	0x1	/* a member of an anonymous struct or union
				   member, reachable through the outer one
				   (C11); print() shows it where it is */

typedef struct dt_type {
	const char	*dt_name;	/* "int", "struct foo *", "char [16]" */
	uint8_t		dt_kind;	/* DT_TK_* */
	uint32_t	dt_size;	/* bytes (0 for string: strsize) */
	uint8_t		dt_signed;	/* integers: signed */
	uint8_t		dt_rank;	/* integers: conversion rank */
	uint32_t	dt_align;	/* alignment; 0: dt_size (scalars) */
	const struct dt_type *dt_base;	/* pointer: pointee; array: element */
	uint32_t	dt_nelems;	/* array: elements */
	uint8_t		dt_user;	/* DT_TU_*: the traced program's */
	dt_member_t	*dt_members;	/* struct, union, enum */
	int		dt_defined;	/* struct, union, enum: body seen */
	uint64_t	dt_bitpos;	/* struct being declared: next bit */
	unsigned int	dt_gen;		/* compile that created it */
	struct dt_type	*dt_next;	/* handle's list (dt_types) */
} dt_type_t;

/*
 * dt_user: a type of the traced program (dt_dwarf.c); a pointer of it
 * points into the traced process, and what it points to is copied in
 * where D reads it (dt_parser.c, dt_node_user_*).
 */
#define DT_TU_TYPE	1	/* a target's type */
#define DT_TU_PTR	2	/* a pointer into the target */

/* A typedef the program declared (built-in ones are in dt_decl.c). */
typedef struct dt_tdef {
	char		*td_name;
	const dt_type_t	*td_type;
	unsigned int	td_gen;
	struct dt_tdef	*td_next;
} dt_tdef_t;

/* A type specifier being built by the grammar: "unsigned long long" */
#define DT_DCLASS_NONE		0
#define DT_DCLASS_TYPEDEF	1
#define DT_DCLASS_SELF		2
#define DT_DCLASS_THIS		3
#define DT_DCLASS_EXTERN	4
#define DT_DCLASS_AUTO		5	/* C's, none of them D's: */
#define DT_DCLASS_REGISTER	6	/* refused (D_DECL_BADCLASS) */
#define DT_DCLASS_STATIC	7

typedef struct dt_typespec {
	int		ts_char, ts_short, ts_int, ts_long;
	int		ts_signed, ts_unsigned, ts_void, ts_string;
	int		ts_float, ts_double;
	int		ts_class;	/* DT_DCLASS_*; -1: two of them */
	const dt_type_t	*ts_name;	/* a typedef name, a struct, union
					   or enum specifier, or NULL */
	int		ts_line;	/* where the list became invalid */
	int		ts_sline;	/* a struct body's line: its brace */
} dt_typespec_t;

/*
 * A declarator: the name it declares and how to derive its type from
 * the specifiers, in order (int *a[4]: pointer, then array of 4;
 * int (*fp)(int): function of int, then pointer).
 */
#define DT_DOP_PTR	1
#define DT_DOP_ARRAY	2	/* do_n elements */
#define DT_DOP_ASSOC	3	/* associative array: do_keys */
#define DT_DOP_FUNC	4	/* function of do_keys (type nodes);
				   do_n 1: varargs */

typedef struct dt_dop {
	int		do_kind;	/* DT_DOP_* */
	uint64_t	do_n;
	struct dt_node	*do_keys;	/* DT_DOP_ASSOC: type nodes */
	struct dt_dop	*do_next;
} dt_dop_t;

typedef struct dt_declr {
	char		*dd_name;	/* NULL: abstract (a type name) */
	dt_dop_t	*dd_ops;
	struct dt_node	*dd_bits;	/* bit-field width expression */
	int		dd_line;
	struct dt_declr	*dd_next;	/* next in a declarator list */
} dt_declr_t;

extern const dt_type_t dt_type_void, dt_type_char, dt_type_schar,
    dt_type_uchar, dt_type_short, dt_type_ushort, dt_type_int,
    dt_type_uint, dt_type_long, dt_type_ulong, dt_type_llong,
    dt_type_ullong, dt_type_string, dt_type_float, dt_type_double,
    dt_type_ldouble;

struct dt_pcb;
const char	*dt_probe_proc_argtype(const char *, int);
int		dt_probe_proc_globtype(const char *, int, const char **);
const dt_type_t	*dt_decl_lookup(const char *);
const dt_type_t	*dt_decl_lookup_any(dtrace_hdl_t *, const char *);
const dt_type_t	*dt_decl_type(const dt_typespec_t *, const char **, int *);
const dt_type_t	*dt_decl_promote(const dt_type_t *);
/* uregs[] indices from here on name registers Linux does not keep */
#define DT_UREGS_NONE	64
const dt_type_t	*dt_decl_result(const dt_type_t *, const dt_type_t *);
const dt_type_t	*dt_decl_arith(const dt_type_t *, const dt_type_t *);
void		dt_decl_rtype(dtrace_hdl_t *, const dt_type_t *, dif_type_t *);
uint32_t	dt_decl_strsize(dtrace_hdl_t *);
uint32_t	dt_decl_align(const dt_type_t *);
const dt_type_t	*dt_decl_ptr(struct dt_pcb *, const dt_type_t *);
const dt_type_t	*dt_decl_array(struct dt_pcb *, const dt_type_t *, uint64_t,
		    int);
dt_type_t	*dt_decl_sou_begin(struct dt_pcb *, int, const char *, int);
const dt_type_t	*dt_decl_sou_ref(struct dt_pcb *, int, const char *, int);
void		dt_decl_member(struct dt_pcb *, const dt_typespec_t *,
		    dt_declr_t *);
const dt_type_t	*dt_decl_sou_end(struct dt_pcb *);
dt_type_t	*dt_decl_enum_begin(struct dt_pcb *, const char *, int);
void		dt_decl_enumerator(struct dt_pcb *, char *, struct dt_node *,
		    int);
const dt_type_t	*dt_decl_enum_end(struct dt_pcb *);
const dt_type_t	*dt_decl_spec(struct dt_pcb *, const dt_typespec_t *, int);
const dt_type_t	*dt_decl_derive(struct dt_pcb *, const dt_type_t *,
		    const dt_declr_t *);
void		dt_decl_declare(struct dt_pcb *, const dt_typespec_t *,
		    dt_declr_t *, int);
const dt_member_t *dt_decl_member_lookup(const dt_type_t *, const char *);
int		dt_decl_is_scalar(const dt_type_t *);
int		dt_decl_is_integral(const dt_type_t *);
int		dt_decl_is_byref(const dt_type_t *);
int		dt_decl_is_sou_key(const dt_type_t *);
int		dt_decl_ptrcompat(const dt_type_t *, const dt_type_t *);
uint32_t	dt_decl_pointee_size(const dt_type_t *);
void		dt_decl_rollback(dtrace_hdl_t *, unsigned int);
void		dt_decl_destroy(dtrace_hdl_t *);
char		*dt_decl_cname(const dt_type_t *, const char *);
const dt_type_t	*dt_decl_tname(struct dt_pcb *, const char *);

/*
 * dt_dwarf.c: the traced program's types from its DWARF (lookups by
 * name, enumerators, args[] of pid probes); dt_dwarf_print for print().
 */
const dt_type_t	*dt_dwarf_lookup(dtrace_hdl_t *, const char *, int);
int		dt_dwarf_hasmod(dtrace_hdl_t *, const char *);
int		dt_dwarf_enumerator(dtrace_hdl_t *, const char *, int64_t *,
		    const dt_type_t **);
void		dt_dwarf_check(struct dt_pcb *, int, const dt_type_t *,
		    const char *);
const dt_type_t	*dt_dwarf_argtype(struct dt_pcb *, int, char *, size_t);
const dt_type_t	*dt_dwarf_userptr(dtrace_hdl_t *, const dt_type_t *);
/*
 * print(): its first record, the address, has this in the high word of
 * dtrd_arg and the printed type's number in the low one; the object's
 * bytes are the next record.
 */
#define DT_PRINT_MAGIC	0x7072696eu
/*
 * print() of an array or a floating-point value: its one record, the
 * value's bytes, has this in the high word of dtrd_arg and the type's
 * number in the low one (dt_dwarf_printv).
 */
#define DT_PRINTV_MAGIC	0x7072766cu
int		dt_dwarf_ptype(dtrace_hdl_t *, const dt_type_t *, uint32_t *);
int		dt_dwarf_print(dtrace_hdl_t *, FILE *, uint32_t, const char *,
		    const char *, size_t);
int		dt_dwarf_printv(dtrace_hdl_t *, FILE *, uint32_t, const char *,
		    size_t);
void		dt_dwarf_fini(dtrace_hdl_t *);

/* dt_ident.c: identifiers in hash tables hanging off the handle */
#define DT_IDENT_SCALAR		0	/* scalar variable */
#define DT_IDENT_ARRAY		1	/* built-in array (args[] ...) */
#define DT_IDENT_ACTFUNC	2	/* action: trace(), printf() ... */
#define DT_IDENT_AGGFUNC	3	/* aggregating function: count() ... */
#define DT_IDENT_AGG		4	/* an aggregation @name */
#define DT_IDENT_ASSOC		5	/* associative array a[k], self->a[k] */
#define DT_IDENT_FUNC		6	/* subroutine: strlen() (DIF_SUBR_*) */
#define DT_IDENT_ENUMR		7	/* enumerator: di_value of type di_type */
#define DT_IDENT_INLINE		8	/* inline: di_inline, freed with the
					   compile that made it */

#define DT_IDFLG_BUILTIN	0x01	/* built-in variable (read-only) */
#define DT_IDFLG_KERNEL		0x02	/* kernel-only: rejected */
#define DT_IDFLG_UNSUP		0x04	/* known, not supported yet */
#define DT_IDFLG_REF		0x08	/* referenced */
#define DT_IDFLG_MOD		0x10	/* assigned */
#define DT_IDFLG_LIB		0x20	/* a D library's: kept by the handle */
#define DT_IDFLG_XLATE		0x40	/* inline of a bare xlate: uncooked */

/* Action codes for DT_IDENT_ACTFUNC (di_id). */
#define DT_ACT_TRACE		1
#define DT_ACT_PRINTF		2
#define DT_ACT_EXIT		3
#define DT_ACT_TRACEMEM		4
#define DT_ACT_PRINT		5	/* print(): dt_cc.c, dt_dwarf.c */
#define DT_ACT_SPECULATE	10	/* speculations: dt_cc.c */
#define DT_ACT_COMMIT		11
#define DT_ACT_DISCARD		12
#define DT_ACT_PRINTA		20	/* aggregation actions: dt_cc.c */
#define DT_ACT_CLEAR		21
#define DT_ACT_TRUNC		22
#define DT_ACT_NORMALIZE	23
#define DT_ACT_DENORMALIZE	24
#define DT_ACT_SETOPT		25
#define DT_ACT_USTACK		30	/* stacks and symbols: dt_cc.c */
#define DT_ACT_USYM		31
#define DT_ACT_UFUNC		32
#define DT_ACT_UMOD		33
#define DT_ACT_UADDR		34
#define DT_ACT_STACK		35	/* the kernel's (dt_ksym.c) */
#define DT_ACT_JSTACK		36	/* ustack() with jstack's defaults */
#define DT_ACT_SYM		37	/* kernel addresses (dt_ksym.c) */
#define DT_ACT_FUNC		38
#define DT_ACT_MOD		39
#define DT_ACT_STOP		40	/* destructive: dt_cc.c */
#define DT_ACT_RAISE		41
#define DT_ACT_SYSTEM		42
#define DT_ACT_FREOPEN		43
#define DT_ACT_FTRUNCATE	44
#define DT_ACT_CHILL		45

typedef struct dt_ident {
	char		*di_name;
	int		di_kind;	/* DT_IDENT_* */
	uint32_t	di_flags;	/* DT_IDFLG_* */
	uint32_t	di_id;		/* variable id, action, agg function, agg id */
	const dt_type_t	*di_type;	/* variables: type */
	int		di_nargs;	/* functions: args; aggregations: keys */
	uint32_t	di_aggfunc;	/* aggregations: DTRACEAGG_* */
	const dt_type_t	**di_keys;	/* aggregations, arrays: key types;
					   subroutines: parameter types */
	int		di_minargs;	/* subroutines: required arguments */
	uint8_t		di_scope;	/* user variables: DIFV_SCOPE_* */
	unsigned int	di_gen;		/* compile that created it */
	int64_t		di_value;	/* enumerators: value */
	struct dt_node	*di_inline;	/* inlines: the cooked expression, or
					   with parameters the parsed one */
	struct dt_node	*di_iparams;	/* inline name[type a, ...]: type
					   nodes, each dn_string its name */
	uint32_t	di_vers;	/* built-ins: the D version that
					   brought it, 0 for 1.0 */
	struct dt_ident	*di_next;	/* hash chain */
} dt_ident_t;

typedef struct dt_idhash {
	dt_ident_t	**dh_hash;
	uint32_t	dh_nbuckets;
	uint32_t	dh_nelems;
	uint32_t	dh_vmax;	/* lookups hide di_vers above it;
					   0 hides nothing */
} dt_idhash_t;

dt_idhash_t	*dt_idhash_create(uint32_t);
void		dt_idhash_destroy(dt_idhash_t *);
dt_ident_t	*dt_idhash_lookup(dt_idhash_t *, const char *);
dt_ident_t	*dt_idhash_lookup_subr(dt_idhash_t *, const char *);
dt_ident_t	*dt_idhash_insert(dt_idhash_t *, const char *, int, uint32_t,
		    uint32_t, const dt_type_t *);
void		dt_idhash_rollback(dt_idhash_t *, unsigned int);
void		dt_idhash_drop_kind(dt_idhash_t *, int);
void		dt_idhash_keep_gen(dt_idhash_t *, unsigned int);
uint32_t	dt_idhash_hashstr(const char *);
int		dt_ident_init(dtrace_hdl_t *);
int		dt_ident_version(dtrace_hdl_t *, const char *);
const char	*dt_ident_aggfunc_name(uint32_t);
void		dt_ident_attr(dtrace_hdl_t *, const char *, dtrace_attribute_t *,
		    uint32_t *);
void		dt_ident_attrmin(dtrace_attribute_t *, const dtrace_attribute_t *);

int		dt_probe_provattr(dtrace_hdl_t *, const dtrace_probedesc_t *,
		    dtrace_attribute_t *);

/* dt_parser.c: the parse tree */
#define DT_INTF_U	0x1	/* integer constant: u suffix */
#define DT_INTF_L	0x2	/* l suffix */
#define DT_INTF_LL	0x4	/* ll suffix */
#define DT_INTF_NDEC	0x8	/* octal or hex */
#define DT_INTF_NEG	0x10	/* negative value (macro argument) */

#define DT_NODE_INT	1	/* integer constant */
#define DT_NODE_STRING	2	/* string literal */
#define DT_NODE_IDENT	3	/* identifier, not yet resolved */
#define DT_NODE_VAR	4	/* variable (dn_ident) */
#define DT_NODE_AGG	5	/* @name[keys] (dn_ident once cooked) */
#define DT_NODE_FUNC	6	/* call: dn_string(dn_args) */
#define DT_NODE_OP1	7	/* unary operator dn_op on dn_child */
#define DT_NODE_OP2	8	/* binary operator on dn_left, dn_right */
#define DT_NODE_OP3	9	/* dn_expr ? dn_left : dn_right */
#define DT_NODE_TYPE	10	/* a type name (sizeof, cast) */
#define DT_NODE_PDESC	11	/* probe description text */
#define DT_NODE_CLAUSE	12	/* dn_pdescs / dn_pred / dn_acts */
#define DT_NODE_XLMEMB	13	/* translator member: dn_string = dn_left */

#define DT_NF_LVALUE	0x1	/* node is an lvalue */
#define DT_NF_WRITABLE	0x2	/* lvalue may be assigned */
#define DT_NF_COOKED	0x4
#define DT_NF_MEMORY	0x8	/* lvalue in memory: *p, p[i], p->m, s.m */
#define DT_NF_BITFIELD	0x10	/* a bit-field member (dn_member) */
#define DT_NF_DONE	0x20	/* cooked, and put under a rewrite: cooking
				   it again leaves it (dt_node_user_*) */
#define DT_NF_XLSTR	0x40	/* an xlate's store of a string into a
				   char array member (the = and the
				   member): its bytes and NUL */
#define DT_NF_SUBR	0x80	/* a FUNC the compiler wrote: the built-in
				   subroutine of that name, always */

typedef struct dt_node {
	int		dn_kind;	/* DT_NODE_* */
	int		dn_op;		/* operator token */
	int		dn_line;	/* source line */
	int		dn_flags;	/* DT_NF_* */
	int		dn_reg;		/* register holding the value (cg) */
	const dt_type_t	*dn_type;	/* type once cooked */
	uint64_t	dn_value;	/* DT_NODE_INT */
	char		*dn_string;	/* literal, identifier, pdesc text */
	dt_ident_t	*dn_ident;	/* DT_NODE_VAR, DT_NODE_AGG */
	struct dt_node	*dn_left;	/* OP2, OP3; OP1 operand; cast/sizeof */
	struct dt_node	*dn_right;	/* OP2, OP3 */
	struct dt_node	*dn_expr;	/* OP3 condition; clause predicate */
	struct dt_node	*dn_args;	/* FUNC args, AGG keys; clause pdescs */
	struct dt_node	*dn_acts;	/* clause statements */
	struct dt_node	*dn_list;	/* next in a list */
	struct dt_node	*dn_link;	/* every node of a compile, for freeing */
	const dt_member_t *dn_member;	/* OP2 -> and .: the member */
} dt_node_t;

/* dt_cg.c / dt_as.c: one DIF object being generated */
typedef struct dt_irnode {
	dif_instr_t	di_instr;
	uint32_t	di_label;	/* branch target label, or DT_LBL_NONE */
} dt_irnode_t;

#define DT_LBL_NONE	0xffffffffu

typedef struct dt_irlist {
	dt_irnode_t	*dl_buf;
	uint32_t	dl_len, dl_cap;
	uint32_t	*dl_labels;	/* label -> instruction index */
	uint32_t	dl_nlabels, dl_labcap;
	uint64_t	*dl_ints;	/* integer table */
	uint32_t	dl_nints, dl_intcap;
	char		*dl_strs;	/* string table */
	uint32_t	dl_strlen, dl_strcap;
	dif_var_t	*dl_vars;	/* variable table */
	uint32_t	dl_nvars, dl_varcap;
} dt_irlist_t;

/* dt_regset.c */
typedef struct dt_regset {
	uint32_t	dr_busy;	/* bit per register; %r0 always busy */
	int		dr_nregs;
} dt_regset_t;

/*
 * A translator, "translator T < U *P > { m = expr; ... };": visible to
 * the rest of the compile that declares it.  Member expressions stay
 * uncooked until an xlate names them; P is then replaced by the operand.
 */
typedef struct dt_xlator {
	const dt_type_t	*dx_to;		/* T: a struct or union */
	const dt_type_t	*dx_from;	/* U * (or the type of P) */
	char		*dx_param;	/* P */
	dt_node_t	*dx_members;	/* DT_NODE_XLMEMB list */
	struct dt_xlator *dx_next;
} dt_xlator_t;

/* The parser control block: the state of one compile. */
typedef struct dt_pcb {
	dtrace_hdl_t	*pcb_hdl;
	void		*pcb_scanner;	/* flex scanner */
	unsigned int	pcb_cflags;	/* DTRACE_C_* */
	dtrace_probespec_t pcb_pspec;	/* what a short description names */
	FILE		*pcb_fileptr;	/* compiling a file (-s), else NULL */
	int		pcb_argc;
	char *const	*pcb_argv;
	uint8_t		*pcb_argref;	/* per macro argument: referenced */
	jmp_buf		pcb_jmpbuf;	/* compile errors longjmp here */
	int		pcb_braces;	/* lexer: { depth inside a clause */
	int		pcb_eof;	/* lexer: reached end of input */
	int		pcb_inpred;	/* cooking a clause's predicate */
	int		pcb_parens;	/* lexer: ( not yet closed */
	dt_node_t	*pcb_root;	/* clause list */
	dt_node_t	*pcb_nodes;	/* all nodes (dn_link) */
	void		*pcb_mem;	/* other allocations */
	unsigned int	pcb_gen;	/* identifier generation */
	dt_irlist_t	pcb_ir;		/* DIFO being generated */
	dt_regset_t	pcb_regs;
	struct dtrace_prog *pcb_prog;	/* program being built */
	/* dt_decl.c: struct, union and enum bodies being declared */
	dt_type_t	*pcb_sou[16];	/* nested struct/union bodies */
	int		pcb_nsou;
	dt_type_t	*pcb_enum;	/* enum body being declared */
	int64_t		pcb_enumval;	/* value of its next enumerator */
	dt_xlator_t	*pcb_xlators;	/* translators (dt_parser.c) */
	int		pcb_lasttok;	/* lexer: the token returned last */
	int		pcb_prevtok;	/* and the one before it */
	uint32_t	pcb_cstmt;	/* the clause's first statement */
	uint32_t	pcb_ncstmt;	/* and how many (its descriptions) */
	const char	*pcb_lib;	/* compiling this D library, or NULL */
} dt_pcb_t;

/* dt_lex.l */
int		dt_lex_init(dt_pcb_t *, const char *, FILE *);
void		dt_lex_fini(dt_pcb_t *);
int		dt_lex_lineno(dt_pcb_t *);
const char	*dt_lex_text(dt_pcb_t *);
void		dt_lex_setline(dt_pcb_t *, int);

/* dt_grammar.y */
int		dt_grammar_parse(dt_pcb_t *);

/* dt_parser.c */
void		dt_parser_error(dt_pcb_t *, int, dt_errtag_t, const char *, ...)
		    __attribute__((format(printf, 4, 5), noreturn));
void		dt_parser_error_tag(dt_pcb_t *, int, const char *,
		    const char *, ...)
		    __attribute__((format(printf, 4, 5), noreturn));
void		*dt_parser_alloc(dt_pcb_t *, size_t);
char		*dt_parser_strdup(dt_pcb_t *, const char *);
void		dt_parser_free(dt_pcb_t *);
void		dt_parser_keep(dt_pcb_t *);
void		dt_parser_fini(dtrace_hdl_t *);
dt_node_t	*dt_node_int(dt_pcb_t *, uint64_t, int);
dt_node_t	*dt_node_string(dt_pcb_t *, char *);
dt_node_t	*dt_node_ident(dt_pcb_t *, char *);
dt_node_t	*dt_node_agg(dt_pcb_t *, char *);
dt_node_t	*dt_node_dvar(dt_pcb_t *, int, char *);
dt_node_t	*dt_node_type(dt_pcb_t *, const dt_typespec_t *);
dt_node_t	*dt_node_func(dt_pcb_t *, dt_node_t *, dt_node_t *);
dt_node_t	*dt_node_index(dt_pcb_t *, dt_node_t *, dt_node_t *);
dt_node_t	*dt_node_op1(dt_pcb_t *, int, dt_node_t *);
dt_node_t	*dt_node_op2(dt_pcb_t *, int, dt_node_t *, dt_node_t *);
dt_node_t	*dt_node_op3(dt_pcb_t *, dt_node_t *, dt_node_t *, dt_node_t *);
dt_node_t	*dt_node_sizeof(dt_pcb_t *, dt_node_t *);
dt_node_t	*dt_node_pdesc(dt_pcb_t *, char *);
dt_node_t	*dt_node_pdesc_id(dt_pcb_t *, dt_node_t *);
dt_node_t	*dt_node_clause(dt_pcb_t *, dt_node_t *, dt_node_t *, dt_node_t *);
dt_node_t	*dt_node_link(dt_node_t *, dt_node_t *);
void		dt_node_program(dt_pcb_t *, dt_node_t *);
dt_node_t	*dt_node_cook(dt_pcb_t *, dt_node_t *);
dt_ident_t	*dt_node_declare(dt_pcb_t *, int, const char *, int, int,
		    const dt_type_t *);
int64_t		dt_node_intconst(dt_pcb_t *, dt_node_t *, const char *, int);
dt_node_t	*dt_node_member(dt_pcb_t *, int, dt_node_t *, char *);
dt_node_t	*dt_node_offsetof(dt_pcb_t *, dt_node_t *, char *);
dt_node_t	*dt_node_typename(dt_pcb_t *, const dt_type_t *);
int		dt_node_is_scalar(const dt_node_t *);
void		dt_node_inline_decl(dt_pcb_t *, const dt_typespec_t *,
		    dt_declr_t *, dt_node_t *);
dt_node_t	*dt_node_xlator_member(dt_pcb_t *, char *, dt_node_t *);
void		dt_node_xlator_decl(dt_pcb_t *, dt_node_t *, dt_node_t *,
		    char *, dt_node_t *);
int		dt_node_is_ptr(const dt_node_t *);
dt_node_t	*dt_node_print_obj(dt_pcb_t *, dt_node_t *);
void		dt_node_stringof(dt_pcb_t *, dt_node_t *);
const char	*dt_node_opname(int);
int		dt_node_is_int(const dt_node_t *);
int		dt_node_is_string(const dt_node_t *);

/* dt_regset.c */
void		dt_regset_init(dt_regset_t *, int);
int		dt_regset_alloc(dt_pcb_t *);
void		dt_regset_free(dt_pcb_t *, int);

/* dt_cg.c */
void		dt_cg(dt_pcb_t *, dt_node_t *);

/* dt_as.c */
void		dt_as_init(dt_irlist_t *);
void		dt_as_fini(dt_irlist_t *);
void		dt_as_emit(dt_pcb_t *, dif_instr_t, uint32_t);
uint32_t	dt_as_label(dt_pcb_t *);
void		dt_as_label_here(dt_pcb_t *, uint32_t);
uint32_t	dt_as_intern(dt_pcb_t *, uint64_t);
uint32_t	dt_as_string(dt_pcb_t *, const char *);
void		dt_as_var(dt_pcb_t *, const dt_ident_t *, uint16_t);
dif_difo_t	*dt_as(dt_pcb_t *, const dif_type_t *);
dif_difo_t	*dt_as_difo_dup(const dif_difo_t *);

/* dt_pragma.c */
void		dt_pragma(dt_pcb_t *, int, const char *);

/* dt_cpp.c */
int		dt_cpp_add_arg(dtrace_hdl_t *, const char *, const char *);
int		dt_cpp_set_path(dtrace_hdl_t *, const char *);
FILE		*dt_cpp_run(dtrace_hdl_t *, const char *, FILE *);
void		dt_cpp_fini(dtrace_hdl_t *);

/* dt_cc.c */
#define DT_MACRO_INT	1	/* macro value is an integer */
#define DT_MACRO_STR	2	/* macro value is text */
#define DT_MACRO_PDESC	3	/* text, for a probe description */
int		dt_cc_macro(dt_pcb_t *, int, const char *, int, char **,
		    int64_t *);
void		dt_cc_destroy(dtrace_hdl_t *);
void		dt_cc_prog_free(dtrace_prog_t *);
void		dt_cc_prog_drop(dtrace_hdl_t *, dtrace_prog_t *);
dtrace_prog_t	*dt_cc_compile_lib(dtrace_hdl_t *, FILE *);

/* dt_lib.c */
int		dt_lib_adddir(dtrace_hdl_t *, const char *);
int		dt_lib_load(dtrace_hdl_t *);
int		dt_lib_loaded(dtrace_hdl_t *, const char *);
void		dt_lib_fini(dtrace_hdl_t *);

/* dt_printf.c (runtime): compile-time check of a printf() format */
int		dt_printf_check(dtrace_hdl_t *, const char *, int,
		    const dif_type_t *, const char *const *, const char **,
		    char *, size_t);
void		dt_printf_stacktype(dif_type_t *);
int		dt_printa_check(dtrace_hdl_t *, const char *, int,
		    const dif_type_t *, uint32_t, const char **, char *,
		    size_t);

/* dt_open.c */
int64_t		dt_open_now(void);

/* dt_options.c */
int		dt_options_parse_size(const char *, dtrace_optval_t *);
int		dt_options_parse_rate(const char *, dtrace_optval_t *);
int		dt_options_export(dtrace_hdl_t *,
		    int (*)(dtrace_hdl_t *, const char *, uint64_t, void *),
		    void *);
void		dt_options_import(dtrace_hdl_t *, const char *, uint64_t);

/* dt_conn.c */
int		dt_conn_open(dtrace_hdl_t *);
void		dt_conn_close(dtrace_hdl_t *);
int		dt_conn_send(dtrace_hdl_t *, dt_msg_t *);
int		dt_conn_recv(dtrace_hdl_t *, dt_msg_t *);
int		dt_conn_request(dtrace_hdl_t *, dt_msg_t *, uint16_t, dt_msg_t *);
int		dt_conn_wait(dtrace_hdl_t *, int);
int		dt_conn_error(dtrace_hdl_t *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

/* dt_program.c */
dt_epid_t	*dt_program_epid(dtrace_hdl_t *, uint32_t);
void		dt_program_fini(dtrace_hdl_t *);
dt_epid_t	*dt_program_epid_create(struct dtrace_prog *, uint32_t);
void		dt_program_epid_free(dt_epid_t *);
int		dt_program_epid_insert(dtrace_hdl_t *, uint32_t,
		    dt_epid_t *);
dt_epid_t	*dt_program_epid_add(dtrace_hdl_t *, struct dtrace_prog *,
		    uint32_t, uint32_t, const dtrace_probedesc_t *);
int		dt_program_aggs(dtrace_hdl_t *, struct dtrace_prog *);
void		dt_program_ecbs(dtrace_hdl_t *, dt_msg_t *);
int		dt_program_errhandler(dtrace_hdl_t *);

/* dt_probe.c */
void		dt_probe_decode(dt_msg_t *, dtrace_probedesc_t *);

/* dt_retain.c */
int		dt_retain_send(dtrace_hdl_t *);

/* dt_consume.c */
int		dt_consume_buf(dtrace_hdl_t *, FILE *, int, const char *,
		    size_t, dtrace_consume_probe_f *, dtrace_consume_rec_f *,
		    void *);
int		dt_consume_datum(dtrace_hdl_t *, FILE *,
		    const dtrace_recdesc_t *, const char *, int);
int		dt_consume_bytes(dtrace_hdl_t *, FILE *,
		    const unsigned char *, size_t, int, int);
void		dt_consume_drops(dtrace_hdl_t *, int, uint64_t, int);
void		dt_consume_thrdrops(dtrace_hdl_t *, int, uint64_t);
void		dt_consume_json_drop(dtrace_hdl_t *, const char *,
		    const char *, const char *, int64_t, uint64_t,
		    const char *);

/* dt_printf.c (runtime): formatting a printf() record at consume time */
int		dt_printf_format(dtrace_hdl_t *, FILE *, const char *,
		    const dtrace_recdesc_t *, int, const char *);

/*
 * printa() formats: pa_print prints aggregation number i of pa_naggs
 * (dt_aggregate.c) with the C format cfmt ("%...ll" + conversion).
 */
typedef struct dt_printf_agg {
	int		pa_naggs;
	int		(*pa_print)(dtrace_hdl_t *, FILE *, const char *, int,
			    void *);
	void		*pa_arg;
} dt_printf_agg_t;

int		dt_printf_aformat(dtrace_hdl_t *, FILE *, const char *,
		    const dtrace_recdesc_t *, int, const char *,
		    const dt_printf_agg_t *);

/* dt_aggregate.c */
int		dt_aggregate_merge(dtrace_hdl_t *, dt_msg_t *);
int		dt_aggregate_printa(dtrace_hdl_t *, FILE *, const char *,
		    const uint32_t *, int);
int		dt_aggregate_libact(dtrace_hdl_t *, uint32_t, uint32_t,
		    int64_t);
void		dt_aggregate_fini(dtrace_hdl_t *);
int		dt_aggregate_json(dtrace_hdl_t *, dt_json_t *, uint32_t);
int		dt_aggregate_printa_json(dtrace_hdl_t *, dt_json_t *,
		    const char *, const uint32_t *, int);

/* dt_error.c */
int		dt_set_errno(dtrace_hdl_t *, int);
void		dt_set_errmsg(dtrace_hdl_t *, const char *, const char *, ...);

#endif /* DT_IMPL_H */
