/*
 * dif.h: the D Intermediate Format.
 *
 * The instruction set follows illumos DIF as a matter of fact (opcode
 * numbers, encodings, register file, variable and subroutine ids), so
 * that `dtrace -S` listings read like the ones DTrace users know.  This
 * component does no I/O of its own: the traced process's memory and the
 * probe context are reached through the dif_host_t callbacks.
 *
 * Files: dif_vm.c (interpreter), dif_verify.c (validation of untrusted
 * DIFOs), dif_dis.c (disassembler), dif_subr.c (subroutines), dif_dvar.c
 * (dynamic and clause-local variable storage).
 */
#ifndef DIF_H
#define DIF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint32_t dif_instr_t;

/* Register file: %r0 always reads 0; tuple stack of DIF_DTR_NREGS. */
#define DIF_DIR_NREGS	8
#define DIF_DTR_NREGS	8

/* Encoding: opcode in bits 31-24, then r1, r2, rd. */
#define DIF_INSTR_OP(i)		(((i) >> 24) & 0xff)
#define DIF_INSTR_R1(i)		(((i) >> 16) & 0xff)
#define DIF_INSTR_R2(i)		(((i) >> 8) & 0xff)
#define DIF_INSTR_RD(i)		((i) & 0xff)
#define DIF_INSTR_RS(i)		((i) & 0xff)
#define DIF_INSTR_LABEL(i)	((i) & 0xffffff)
#define DIF_INSTR_VAR(i)	(((i) >> 8) & 0xffff)
#define DIF_INSTR_INTEGER(i)	(((i) >> 8) & 0xffff)
#define DIF_INSTR_STRING(i)	(((i) >> 8) & 0xffff)
#define DIF_INSTR_SUBR(i)	(((i) >> 8) & 0xffff)
#define DIF_INSTR_TYPE(i)	(((i) >> 16) & 0xff)
#define DIF_INSTR_XLREF(i)	(((i) >> 8) & 0xffff)

#define DIF_INSTR_FMT(op, r1, r2, d) \
	((dif_instr_t)(((uint32_t)(op) << 24) | ((r1) << 16) | ((r2) << 8) | (d)))
#define DIF_INSTR_NOT(r1, d)		DIF_INSTR_FMT(DIF_OP_NOT, r1, 0, d)
#define DIF_INSTR_MOV(r1, d)		DIF_INSTR_FMT(DIF_OP_MOV, r1, 0, d)
#define DIF_INSTR_CMP(op, r1, r2)	DIF_INSTR_FMT(op, r1, r2, 0)
#define DIF_INSTR_TST(r1)		DIF_INSTR_FMT(DIF_OP_TST, r1, 0, 0)
#define DIF_INSTR_BRANCH(op, label)	\
	((dif_instr_t)(((uint32_t)(op) << 24) | (label)))
#define DIF_INSTR_LOAD(op, r1, d)	DIF_INSTR_FMT(op, r1, 0, d)
#define DIF_INSTR_STORE(op, r1, d)	DIF_INSTR_FMT(op, r1, 0, d)
#define DIF_INSTR_SETX(i, d) \
	((dif_instr_t)(((uint32_t)DIF_OP_SETX << 24) | ((i) << 8) | (d)))
#define DIF_INSTR_SETS(s, d) \
	((dif_instr_t)(((uint32_t)DIF_OP_SETS << 24) | ((s) << 8) | (d)))
#define DIF_INSTR_RET(d)		DIF_INSTR_FMT(DIF_OP_RET, 0, 0, d)
#define DIF_INSTR_NOP			DIF_INSTR_FMT(DIF_OP_NOP, 0, 0, 0)
#define DIF_INSTR_POPTS			DIF_INSTR_FMT(DIF_OP_POPTS, 0, 0, 0)
#define DIF_INSTR_FLUSHTS		DIF_INSTR_FMT(DIF_OP_FLUSHTS, 0, 0, 0)
/* LDGA/LDTA: the array id in the r1 field, the index register in r2 (illumos). */
#define DIF_INSTR_LDA(op, v, r, d)	DIF_INSTR_FMT(op, v, r, d)
#define DIF_INSTR_LDV(op, v, d) \
	((dif_instr_t)(((uint32_t)(op) << 24) | ((v) << 8) | (d)))
#define DIF_INSTR_STV(op, v, rs) \
	((dif_instr_t)(((uint32_t)(op) << 24) | ((v) << 8) | (rs)))
#define DIF_INSTR_CALL(s, d) \
	((dif_instr_t)(((uint32_t)DIF_OP_CALL << 24) | ((s) << 8) | (d)))
#define DIF_INSTR_PUSHTS(op, t, r2, rs)	DIF_INSTR_FMT(op, t, r2, rs)
#define DIF_INSTR_ALLOCS(r1, d)		DIF_INSTR_FMT(DIF_OP_ALLOCS, r1, 0, d)
#define DIF_INSTR_COPYS(r1, r2, d)	DIF_INSTR_FMT(DIF_OP_COPYS, r1, r2, d)

/* Opcodes (illumos numbering). */
#define DIF_OP_OR	1	/* or	r1, r2, rd */
#define DIF_OP_XOR	2	/* xor	r1, r2, rd */
#define DIF_OP_AND	3	/* and	r1, r2, rd */
#define DIF_OP_SLL	4	/* sll	r1, r2, rd */
#define DIF_OP_SRL	5	/* srl	r1, r2, rd */
#define DIF_OP_SUB	6	/* sub	r1, r2, rd */
#define DIF_OP_ADD	7	/* add	r1, r2, rd */
#define DIF_OP_MUL	8	/* mul	r1, r2, rd */
#define DIF_OP_SDIV	9	/* sdiv	r1, r2, rd */
#define DIF_OP_UDIV	10	/* udiv	r1, r2, rd */
#define DIF_OP_SREM	11	/* srem	r1, r2, rd */
#define DIF_OP_UREM	12	/* urem	r1, r2, rd */
#define DIF_OP_NOT	13	/* not	r1, rd */
#define DIF_OP_MOV	14	/* mov	r1, rd */
#define DIF_OP_CMP	15	/* cmp	r1, r2 */
#define DIF_OP_TST	16	/* tst	r1 */
#define DIF_OP_BA	17	/* ba	label */
#define DIF_OP_BE	18	/* be	label */
#define DIF_OP_BNE	19	/* bne	label */
#define DIF_OP_BG	20	/* bg	label */
#define DIF_OP_BGU	21	/* bgu	label */
#define DIF_OP_BGE	22	/* bge	label */
#define DIF_OP_BGEU	23	/* bgeu	label */
#define DIF_OP_BL	24	/* bl	label */
#define DIF_OP_BLU	25	/* blu	label */
#define DIF_OP_BLE	26	/* ble	label */
#define DIF_OP_BLEU	27	/* bleu	label */
#define DIF_OP_LDSB	28	/* ldsb	[r1], rd */
#define DIF_OP_LDSH	29	/* ldsh	[r1], rd */
#define DIF_OP_LDSW	30	/* ldsw	[r1], rd */
#define DIF_OP_LDUB	31	/* ldub	[r1], rd */
#define DIF_OP_LDUH	32	/* lduh	[r1], rd */
#define DIF_OP_LDUW	33	/* lduw	[r1], rd */
#define DIF_OP_LDX	34	/* ldx	[r1], rd */
#define DIF_OP_RET	35	/* ret	rd */
#define DIF_OP_NOP	36	/* nop */
#define DIF_OP_SETX	37	/* setx	intindex, rd */
#define DIF_OP_SETS	38	/* sets	strindex, rd */
#define DIF_OP_SCMP	39	/* scmp	r1, r2 */
#define DIF_OP_LDGA	40	/* ldga	var, ri, rd */
#define DIF_OP_LDGS	41	/* ldgs	var, rd */
#define DIF_OP_STGS	42	/* stgs	var, rs */
#define DIF_OP_LDTA	43	/* ldta	var, ri, rd */
#define DIF_OP_LDTS	44	/* ldts	var, rd */
#define DIF_OP_STTS	45	/* stts	var, rs */
#define DIF_OP_SRA	46	/* sra	r1, r2, rd */
#define DIF_OP_CALL	47	/* call	subr, rd */
#define DIF_OP_PUSHTR	48	/* pushtr type, rs, rr */
#define DIF_OP_PUSHTV	49	/* pushtv type, rs, rv */
#define DIF_OP_POPTS	50	/* popts */
#define DIF_OP_FLUSHTS	51	/* flushts */
#define DIF_OP_LDGAA	52	/* ldgaa var, rd */
#define DIF_OP_LDTAA	53	/* ldtaa var, rd */
#define DIF_OP_STGAA	54	/* stgaa var, rs */
#define DIF_OP_STTAA	55	/* sttaa var, rs */
#define DIF_OP_LDLS	56	/* ldls	var, rd */
#define DIF_OP_STLS	57	/* stls	var, rs */
#define DIF_OP_ALLOCS	58	/* allocs r1, rd */
#define DIF_OP_COPYS	59	/* copys  r1, r2, rd */
#define DIF_OP_STB	60	/* stb	r1, [rd] */
#define DIF_OP_STH	61	/* sth	r1, [rd] */
#define DIF_OP_STW	62	/* stw	r1, [rd] */
#define DIF_OP_STX	63	/* stx	r1, [rd] */
#define DIF_OP_ULDSB	64	/* uldsb [r1], rd: load from the traced process */
#define DIF_OP_ULDSH	65
#define DIF_OP_ULDSW	66
#define DIF_OP_ULDUB	67
#define DIF_OP_ULDUH	68
#define DIF_OP_ULDUW	69
#define DIF_OP_ULDX	70
#define DIF_OP_RLDSB	71	/* rldsb [r1], rd: restricted load */
#define DIF_OP_RLDSH	72
#define DIF_OP_RLDSW	73
#define DIF_OP_RLDUB	74
#define DIF_OP_RLDUH	75
#define DIF_OP_RLDUW	76
#define DIF_OP_RLDX	77
#define DIF_OP_XLATE	78	/* xlate xlrindex, rd */
#define DIF_OP_XLARG	79	/* xlarg xlrindex, rd */
#define DIF_OP_MAX	79

#define DIF_INTOFF_MAX	0xffff	/* highest integer table index */
#define DIF_STROFF_MAX	0xffff	/* highest string table offset */
#define DIF_REGISTER_MAX 0xff
#define DIF_VARIABLE_MAX 0xffff
#define DIF_SUBROUTINE_MAX 0xffff

/* Variable ids. */
#define DIF_VAR_ARRAY_MIN	0x0000	/* built-in arrays */
#define DIF_VAR_ARRAY_UBASE	0x0080	/* first user array */
#define DIF_VAR_ARRAY_MAX	0x00ff
#define DIF_VAR_OTHER_MIN	0x0100	/* built-in scalars */
#define DIF_VAR_OTHER_UBASE	0x0500	/* first user scalar */
#define DIF_VAR_OTHER_MAX	0xffff

#define DIF_VAR_ARGS		0x0000	/* args[] */
#define DIF_VAR_REGS		0x0001	/* regs[] (kernel: not supported) */
#define DIF_VAR_UREGS		0x0002	/* uregs[] */
/*
 * __psinfo[S << DIF_PSINFO_SUBJSHIFT | DIF_PSINFO_*]: what procfs.d's
 * translators make psinfo_t and lwpsinfo_t of, for subject S: 0 the
 * process and thread that hit the probe, else a task a probe's argument
 * names (the proc provider's, 1 to DTD_HIT_NSUBJ: the translator's
 * pointer).  The indices are the library's: procfs.d spells them as
 * numbers.
 */
#define DIF_VAR_PSINFO		0x0003

#define DIF_PSINFO_PGID		0	/* process group */
#define DIF_PSINFO_SID		1	/* session */
#define DIF_PSINFO_EUID		2
#define DIF_PSINFO_EGID		3
#define DIF_PSINFO_NLWP		4	/* threads */
#define DIF_PSINFO_DMODEL	5	/* PR_MODEL_ILP32 (1), PR_MODEL_LP64 (2) */
#define DIF_PSINFO_PSARGS	6	/* string: arguments, 80 bytes */
#define DIF_PSINFO_PRI		7	/* the thread's kernel priority */
#define DIF_PSINFO_CLNAME	8	/* string: its scheduling class */
#define DIF_PSINFO_TTYDEV	9	/* controlling tty, or (dev_t)-1 */
#define DIF_PSINFO_ARGC		10	/* argc, on the initial stack */
#define DIF_PSINFO_ARGV		11	/* the address of argv[] there */
#define DIF_PSINFO_ENVP		12	/* and of envp[] */
#define DIF_PSINFO_START	13	/* address of the process's start time */
#define DIF_PSINFO_TIME		14	/* and of its CPU time (timestruc_t) */
#define DIF_PSINFO_SIZE		15	/* its address space, in Kbytes */
#define DIF_PSINFO_RSSIZE	16	/* its resident set, in Kbytes */
#define DIF_PSINFO_LSTART	17	/* address of the thread's start time */
#define DIF_PSINFO_LTIME	18	/* and of its CPU time */
#define DIF_PSINFO_FNAME	19	/* address of execname in 16 bytes */
#define DIF_PSINFO_PID		20	/* the ids: pid, ppid, uid, gid, tid */
#define DIF_PSINFO_PPID		21
#define DIF_PSINFO_UID		22
#define DIF_PSINFO_GID		23
#define DIF_PSINFO_TID		24
#define DIF_PSINFO_ONPRO	25	/* the CPU it runs on, or -1 */
#define DIF_PSINFO_STATE	26	/* illumos's S* of the thread, and */
#define DIF_PSINFO_SNAME	27	/* its letter */
#define DIF_PSINFO_MAX		27
#define DIF_PSINFO_SUBJSHIFT	8
#define DIF_VAR_CURTHREAD	0x0100	/* kernel-only */
#define DIF_VAR_TIMESTAMP	0x0101
#define DIF_VAR_VTIMESTAMP	0x0102
#define DIF_VAR_IPL		0x0103	/* kernel-only */
#define DIF_VAR_EPID		0x0104
#define DIF_VAR_ID		0x0105
#define DIF_VAR_ARG0		0x0106
#define DIF_VAR_ARG1		0x0107
#define DIF_VAR_ARG2		0x0108
#define DIF_VAR_ARG3		0x0109
#define DIF_VAR_ARG4		0x010a
#define DIF_VAR_ARG5		0x010b
#define DIF_VAR_ARG6		0x010c
#define DIF_VAR_ARG7		0x010d
#define DIF_VAR_ARG8		0x010e
#define DIF_VAR_ARG9		0x010f
#define DIF_VAR_STACKDEPTH	0x0110	/* kernel-only */
#define DIF_VAR_CALLER		0x0111	/* kernel-only */
#define DIF_VAR_PROBEPROV	0x0112
#define DIF_VAR_PROBEMOD	0x0113
#define DIF_VAR_PROBEFUNC	0x0114
#define DIF_VAR_PROBENAME	0x0115
#define DIF_VAR_PID		0x0116
#define DIF_VAR_TID		0x0117
#define DIF_VAR_EXECNAME	0x0118
#define DIF_VAR_ZONENAME	0x0119
#define DIF_VAR_WALLTIMESTAMP	0x011a
#define DIF_VAR_USTACKDEPTH	0x011b
#define DIF_VAR_UCALLER		0x011c
#define DIF_VAR_PPID		0x011d
#define DIF_VAR_UID		0x011e
#define DIF_VAR_GID		0x011f
#define DIF_VAR_ERRNO		0x0120
#define DIF_VAR_CPU		0x0121	/* ours: the CPU of the hit */
#define DIF_VAR_BUILTIN_MAX	0x0121

/* Subroutine ids (illumos numbering). */
#define DIF_SUBR_RAND			0
#define DIF_SUBR_MUTEX_OWNED		1
#define DIF_SUBR_MUTEX_OWNER		2
#define DIF_SUBR_MUTEX_TYPE_ADAPTIVE	3
#define DIF_SUBR_MUTEX_TYPE_SPIN	4
#define DIF_SUBR_RW_READ_HELD		5
#define DIF_SUBR_RW_WRITE_HELD		6
#define DIF_SUBR_RW_ISWRITER		7
#define DIF_SUBR_COPYIN			8
#define DIF_SUBR_COPYINSTR		9
#define DIF_SUBR_SPECULATION		10
#define DIF_SUBR_PROGENYOF		11
#define DIF_SUBR_STRLEN			12
#define DIF_SUBR_COPYOUT		13
#define DIF_SUBR_COPYOUTSTR		14
#define DIF_SUBR_ALLOCA			15
#define DIF_SUBR_BCOPY			16
#define DIF_SUBR_COPYINTO		17
#define DIF_SUBR_MSGDSIZE		18
#define DIF_SUBR_MSGSIZE		19
#define DIF_SUBR_GETMAJOR		20
#define DIF_SUBR_GETMINOR		21
#define DIF_SUBR_DDI_PATHNAME		22
#define DIF_SUBR_STRJOIN		23
#define DIF_SUBR_LLTOSTR		24
#define DIF_SUBR_BASENAME		25
#define DIF_SUBR_DIRNAME		26
#define DIF_SUBR_CLEANPATH		27
#define DIF_SUBR_STRCHR			28
#define DIF_SUBR_STRRCHR		29
#define DIF_SUBR_STRSTR			30
#define DIF_SUBR_STRTOK			31
#define DIF_SUBR_SUBSTR			32
#define DIF_SUBR_INDEX			33
#define DIF_SUBR_RINDEX			34
#define DIF_SUBR_HTONS			35
#define DIF_SUBR_HTONL			36
#define DIF_SUBR_HTONLL			37
#define DIF_SUBR_NTOHS			38
#define DIF_SUBR_NTOHL			39
#define DIF_SUBR_NTOHLL			40
#define DIF_SUBR_INET_NTOP		41
#define DIF_SUBR_INET_NTOA		42
#define DIF_SUBR_INET_NTOA6		43
#define DIF_SUBR_TOUPPER		44
#define DIF_SUBR_TOLOWER		45
#define DIF_SUBR_GETF			46
#define DIF_SUBR_JSON			47
#define DIF_SUBR_STRTOLL		48
#define DIF_SUBR_MAX			48

/* Types: kind, C kind, flags, size. */
#define DIF_TYPE_CTF	0	/* a D (C) type; dt_ckind tells which */
#define DIF_TYPE_STRING	1	/* a D string */

#define DIF_CKIND_UNKNOWN	0
#define DIF_CKIND_INTEGER	1
#define DIF_CKIND_FLOAT		2
#define DIF_CKIND_POINTER	3
#define DIF_CKIND_ARRAY		4
#define DIF_CKIND_FUNCTION	5
#define DIF_CKIND_STRUCT	6
#define DIF_CKIND_UNION		7
#define DIF_CKIND_ENUM		8

#define DIF_TF_BYREF	0x1	/* value is a pointer to dt_size bytes */
#define DIF_TF_SIGNED	0x2	/* integer is signed */

typedef struct dif_type {
	uint8_t		dt_kind;	/* DIF_TYPE_* */
	uint8_t		dt_ckind;	/* DIF_CKIND_* */
	uint8_t		dt_flags;	/* DIF_TF_* */
	uint8_t		dt_pad;
	uint32_t	dt_size;	/* bytes */
} dif_type_t;

/* Variable table entries. */
#define DIFV_KIND_ARRAY		0
#define DIFV_KIND_SCALAR	1

#define DIFV_SCOPE_GLOBAL	0
#define DIFV_SCOPE_THREAD	1
#define DIFV_SCOPE_LOCAL	2

#define DIFV_F_REF	0x1	/* read */
#define DIFV_F_MOD	0x2	/* written */

typedef struct dif_var {
	uint32_t	dv_name;	/* string table offset of the name */
	uint32_t	dv_id;		/* DIF_VAR_* or user id */
	uint8_t		dv_kind;	/* DIFV_KIND_* */
	uint8_t		dv_scope;	/* DIFV_SCOPE_* */
	uint16_t	dv_flags;	/* DIFV_F_* */
	dif_type_t	dv_type;
} dif_var_t;

/* A DIF object: one compiled expression (predicate or action value). */
typedef struct dif_difo {
	dif_instr_t	*dd_buf;	/* instructions */
	uint32_t	dd_len;
	uint64_t	*dd_inttab;	/* integer table */
	uint32_t	dd_intlen;
	char		*dd_strtab;	/* string table */
	uint32_t	dd_strlen;
	dif_var_t	*dd_vartab;	/* variables referenced */
	uint32_t	dd_varlen;
	dif_type_t	dd_rtype;	/* type of the returned value */
} dif_difo_t;

/* Limits the verifier enforces. */
#define DIF_MAXINSTRS	65536
#define DIF_MAXINTTAB	65536
#define DIF_MAXSTRTAB	(1 << 20)
#define DIF_MAXVARS	4096
#define DIF_MAXSTRSIZE	65536	/* largest strsize */

/* Faults (illumos DTRACEFLT_* numbering). */
#define DIF_FLT_UNKNOWN		0
#define DIF_FLT_BADADDR		1
#define DIF_FLT_BADALIGN	2
#define DIF_FLT_ILLOP		3
#define DIF_FLT_DIVZERO		4
#define DIF_FLT_NOSCRATCH	5
#define DIF_FLT_KPRIV		6
#define DIF_FLT_UPRIV		7
#define DIF_FLT_TUPOFLOW	8
#define DIF_FLT_BADSTACK	9
#define DIF_FLT_LIBRARY		1000

/*
 * The host: what the VM needs from the probe context.  The daemon fills
 * one in per backend; unit tests fill one in with fakes of their own.
 * Each returns 0 on success or a DIF_FLT_* code.
 */
typedef struct dif_host {
	/*
	 * A built-in scalar (DIF_VAR_OTHER_MIN..) or array element (args[],
	 * uregs[]).  A string built-in (probefunc, execname...) yields an
	 * address the host has made loadable through dm_regions.
	 */
	int	(*dh_builtin)(void *arg, uint32_t var, uint64_t ndx, uint64_t *valp);
	/* Read len bytes of the traced process's memory at addr. */
	int	(*dh_uread)(void *arg, uint64_t addr, void *buf, size_t len);
	/*
	 * speculation(): a free speculation's id in *idp, or 0 when none
	 * is free (the host counts that failure).  NULL: always 0.
	 */
	int	(*dh_speculation)(void *arg, uint64_t *idp);
	/*
	 * Write len bytes of the traced process's memory at addr
	 * (copyout(), copyoutstr(): destructive).  NULL: they fault.
	 */
	int	(*dh_uwrite)(void *arg, uint64_t addr, const void *buf,
		    size_t len);
	/*
	 * progenyof(pid): *resultp = 1 if the process that hit the probe
	 * is pid or one of its descendants, else 0.  NULL: always 0.
	 */
	int	(*dh_progenyof)(void *arg, uint64_t pid, uint64_t *resultp);
} dif_host_t;

/* Storage for one global scalar. */
typedef struct dif_gvar {
	uint64_t	dg_value;	/* integer value, or 0 */
	char		*dg_data;	/* by-ref storage (strings), NULL otherwise */
	uint32_t	dg_size;	/* size of dg_data */
	uint8_t		dg_set;		/* ever assigned */
} dif_gvar_t;

/* The dynamic variable space of one consumer (dif_dvar.c). */
typedef struct dif_dvar_space dif_dvar_space_t;

/* Variable storage one consumer owns. */
typedef struct dif_vstate {
	dif_gvar_t	*dv_globals;	/* indexed by id - DIF_VAR_OTHER_UBASE */
	uint32_t	dv_nglobals;
	/*
	 * Thread-local variables and associative arrays: dif_dvar_init()
	 * sets it up with dynvarsize bytes.  With none, loads yield 0 and
	 * stores of non-zero values are lost (and cannot be counted).
	 */
	dif_dvar_space_t *dv_dynvars;
} dif_vstate_t;

/*
 * Clause-local variables (this->x) of one probe firing, across all the
 * clauses of that firing.  A firing runs on one thread, so the host
 * keeps one per tracer thread (and consumer), sizes it with
 * dif_dvar_local_init() and calls dif_dvar_local_reset() before the
 * first clause of each firing: the reset is O(1), it advances dl_gen.
 */
typedef struct dif_lstate {
	uint64_t	*dl_value;	/* by id - DIF_VAR_OTHER_UBASE */
	uint32_t	*dl_setgen;	/* the firing that last set dl_value[i] */
	char		*dl_data;	/* by-ref values: dl_ssize bytes each */
	uint32_t	dl_nvars;
	uint32_t	dl_ssize;
	uint32_t	dl_gen;		/* the current firing, never 0 */
	/*
	 * strtok()'s string (dl_ssize bytes, which DIF cannot load) and
	 * where strtok(NULL, ...) resumes in it, for the firing dl_tokgen
	 * (0: none): a firing's clauses share it (dif_subr.c).
	 */
	char		*dl_tok;
	uint32_t	dl_toklen;
	uint32_t	dl_tokoff;
	uint32_t	dl_tokgen;
} dif_lstate_t;

/*
 * One element of a dynamic variable's key: an integer, or dk_size bytes
 * at dk_value (a string's bytes without its NUL, or a by-ref value).
 */
typedef struct dif_dkey {
	uint64_t	dk_value;
	uint32_t	dk_size;
	uint32_t	dk_byref;
} dif_dkey_t;

/* Key elements of one dynamic variable: the tuple plus the thread key. */
#define DIF_DVAR_MAXKEYS	(DIF_DTR_NREGS + 1)

/* Memory regions the VM may read in its own address space. */
#define DIF_MAXREGIONS	8
typedef struct dif_region {
	uintptr_t	dr_base;
	size_t		dr_size;
} dif_region_t;

/*
 * A dynamic variable's storage lent to one firing: a load of a struct,
 * union or array held in a thread-local or associative array yields
 * the variable's own bytes, as illumos hands them out, so that a[k].m
 * and self->s.m are written in place.  The entry is held (dif_dvar.c)
 * until dif_mstate_fini(), so that another thread deleting it meanwhile
 * frees nothing this firing can still reach; the VM loads and stores
 * there only within the bytes lent.
 */
#define DIF_MAXDREFS	32
typedef struct dif_dref {
	void		*dr_ent;	/* the entry held */
	uintptr_t	dr_base;	/* its value */
	size_t		dr_size;
} dif_dref_t;

/* Machine state for one probe firing (shared by all DIFOs of that firing). */
typedef struct dif_mstate {
	const dif_host_t *dm_host;
	void		*dm_hostarg;
	dif_vstate_t	*dm_vstate;
	char		*dm_scratch;	/* per-firing scratch (strings, alloca) */
	size_t		dm_scratch_size;
	size_t		dm_scratch_used;
	uint32_t	dm_strsize;	/* the strsize option: the most
					   characters of a string, stored
					   in strsize + 1 bytes with its
					   NUL */
	uint64_t	dm_budget;	/* instructions left before DIF_FLT_ILLOP */
	/* set by the VM on a fault */
	int		dm_fault;	/* DIF_FLT_* or 0 */
	uint64_t	dm_illval;	/* offending address */
	uint32_t	dm_faultpc;	/* index of the faulting instruction */
	/* extra regions the host allows (e.g. a record being built) */
	dif_region_t	dm_regions[DIF_MAXREGIONS];
	/*
	 * dynamic variables lent to this firing (see dif_dref_t); only
	 * read below dm_ndrefs, so dif_mstate_init() leaves it (and
	 * dm_regions) as it was
	 */
	dif_dref_t	dm_drefs[DIF_MAXDREFS];
	int		dm_nregions;
	int		dm_ndrefs;
	/*
	 * Set by the host after dif_mstate_init().  dm_tkey keys self->
	 * variables: the tid of the thread that hit the probe (tids are
	 * unique system-wide while the thread lives; a host tracing across
	 * pid namespaces may fold more in).  0 means the firing has no
	 * thread context (tick, BEGIN...): self-> loads then yield 0 and
	 * stores do nothing.  dm_lstate holds this-> variables; NULL makes
	 * LDLS/STLS fault.
	 */
	uint64_t	dm_tkey;
	dif_lstate_t	*dm_lstate;
	/*
	 * Also set by the host, optionally: the hit's first dm_nargs
	 * arguments (at most 10) as an array, which the VM then reads in
	 * place for argN and args[N], N < dm_nargs, rather than asking
	 * dh_builtin (the most frequent built-ins, and a call each).  The
	 * others, or all when dm_nargs is 0, dh_builtin answers.
	 */
	const uint64_t	*dm_args;
	uint32_t	dm_nargs;
	/*
	 * strtok() state: where the next strtok(NULL, ...) resumes and the
	 * end of that string.  It lives in the mstate, so it belongs to
	 * one firing on one thread (illumos keeps it per CPU for the same
	 * reason); dif_mstate_init() clears it, and it is re-checked with
	 * dif_vm_canload() before use since it may point into scratch.
	 */
	uint64_t	dm_strtok;
	uint64_t	dm_strtok_limit;
} dif_mstate_t;

/* Default instruction budget dif_mstate_init gives one probe firing. */
#define DIF_DEFAULT_BUDGET	(1u << 22)

/* dif_vm.c */
void		dif_mstate_init(dif_mstate_t *, const dif_host_t *, void *,
		    dif_vstate_t *, char *, size_t, uint32_t);
/*
 * The end of what an mstate ran: gives back the dynamic variables lent
 * to it.  A host calls it once its DIFOs are done with what they
 * returned (a record copied out); one that does not keeps deleted
 * variables allocated until dif_dvar_fini().
 */
void		dif_mstate_fini(dif_mstate_t *);
uint64_t	dif_vm_exec(const dif_difo_t *, dif_mstate_t *);
int		dif_vm_canload(const dif_mstate_t *, const dif_difo_t *,
		    uint64_t, size_t);
size_t		dif_vm_strlen(const dif_mstate_t *, const dif_difo_t *,
		    uint64_t, size_t);
int		dif_vm_strload(const dif_mstate_t *, const dif_difo_t *,
		    uint64_t, size_t, size_t *);
const char	*dif_fault_name(int);
void		dif_difo_free(dif_difo_t *);
/* for dif_subr.c: scratch allocation and the store checks */
void		*dif_vm_scratch_alloc(dif_mstate_t *, size_t, size_t);
void		*dif_vm_scratch_take(dif_mstate_t *, size_t, size_t);
int		dif_vm_canstore(const dif_mstate_t *, uint64_t, size_t);
int		dif_vm_inscratch(const dif_mstate_t *, uint64_t, size_t);

/* dif_verify.c */
int		dif_verify(const dif_difo_t *, char *, size_t);

/*
 * dif_dvar.c: the dynamic variable space (thread-local variables and
 * associative arrays) and clause-local storage.  dif_dvar_init sizes a
 * consumer's space to dynvarsize bytes; dif_dvar_drops returns (and with
 * reset != 0 clears) the number of stores dropped for lack of space.
 * dif_dvar_thread_exit frees the self-> variables of a thread that is
 * gone.  dif_dvar_load returns 1 and the value if the variable exists,
 * 0 if not (an integer in *valp, or vsize bytes copied into buf);
 * dif_dvar_store stores (vsize 0: the integer val; else len <= vsize
 * bytes at buf, the rest zeroed), deletes (val 0, or buf NULL or len
 * 0), and returns -1 for a drop.
 */
int		dif_dvar_init(dif_vstate_t *, size_t);
void		dif_dvar_fini(dif_vstate_t *);
uint64_t	dif_dvar_drops(dif_vstate_t *, int);
size_t		dif_dvar_used(const dif_vstate_t *);
uint64_t	dif_dvar_count(const dif_vstate_t *);
void		dif_dvar_thread_exit(dif_vstate_t *, uint64_t);
int		dif_dvar_load(dif_vstate_t *, uint32_t, uint8_t,
		    const dif_dkey_t *, int, uint64_t *, void *, size_t);
int		dif_dvar_store(dif_vstate_t *, uint32_t, uint8_t,
		    const dif_dkey_t *, int, uint64_t, const void *, size_t,
		    size_t);
/*
 * dif_dvar_ref: the storage of a by-ref variable (vsize bytes) held for
 * the caller, its address in *datap and its size in *sizep; NULL if the
 * variable does not exist.  dif_dvar_unref gives back what it returned,
 * and frees an entry deleted meanwhile.
 */
void		*dif_dvar_ref(dif_vstate_t *, uint32_t, uint8_t,
		    const dif_dkey_t *, int, size_t, void **, size_t *);
void		dif_dvar_unref(dif_vstate_t *, void *);
int		dif_dvar_local_init(dif_lstate_t *, uint32_t, uint32_t);
void		dif_dvar_local_reset(dif_lstate_t *);
void		dif_dvar_local_fini(dif_lstate_t *);
uint32_t	dif_dvar_maxid(const dif_difo_t *, uint8_t);

/* dif_dis.c */
const char	*dif_op_name(uint32_t);
char		*dif_type_str(const dif_type_t *, char *, size_t);
void		dif_dis(const dif_difo_t *, FILE *);
const char	*dif_dis_varname(uint32_t);	/* built-in variable name or NULL */

/* dif_subr.c: called by the VM for DIF_OP_CALL with the tuple stack */
uint64_t	dif_subr_call(uint32_t, const uint64_t *, int,
		    const dif_difo_t *, dif_mstate_t *);
int		dif_subr_supported(uint32_t);
const char	*dif_subr_name(uint32_t);	/* "strlen", or "unknown" */

#endif /* DIF_H */
