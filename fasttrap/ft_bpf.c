/*
 * ft_bpf.c: fasttrap's BPF programs, maps and rings, over raw bpf(2):
 * the kernel side of the uprobe backend (ft_bpf_*), and the system call
 * capture of the syscall provider (ft_bpf_sys_*, at the end).  The two
 * share the emitters of a record's scratch, its stack copy, its output
 * into a ring and the count of the lost ones, and the ring's reader.
 *
 * The uprobe capture.  One capture program, a ring and a lost-sample
 * counter per traced process (ft_bpf_t), and uprobe_multi links (one
 * per file, holding all of that file's probe offsets, filtered by pid,
 * cookie = the site's runtime address) that run the program on each
 * hit.  The program only captures: the registers, tid, time
 * (CLOCK_MONOTONIC), cpu, cookie, the thread's %fs base (from its
 * task_struct, at the offset the kernel's BTF gives: ft_btf.c), its
 * errno (at the offset ft_bpf_tlsoff() gives) and up to FT_BPF_STACK
 * bytes of user stack at %rsp (fewer where the stack ends, or where
 * ft_bpf_stack() says the users read less), into a BPF ring buffer.
 * The record is built in a per-CPU scratch and output at its length, so
 * that a shallow stack costs the ring less (a record with a full copy
 * is some 8 KiB).  It outputs without waking the reader unless the ring
 * is more than half full (a wakeup per record is an IPI, dearer than
 * the record); the reader polls as well.  A record that does not fit is
 * counted in a per-CPU array instead, so that records + lost == hits,
 * exactly.
 *
 * Cost (tests/triggers/deep, `deep calls D N', a busy 2-CPU machine,
 * best of 5, against the 256-byte copy before it in the same run): a
 * hit of @ = count() went from 2.4-2.7 us to 2.9-3.3 us; one of
 * @[ustack(100)] = count() from 7.6 us to 4.7 us (the walk no longer
 * reads the live process).  Copies of at most 4 KiB and 16 KiB cost
 * 1.9 and 2.3-3.2 us where 8 KiB cost 1.8-2.0, and at 16 KiB the 8 MiB
 * ring dropped samples that 8 KiB did not.  8 KiB holds some hundred
 * frames of ordinary C.
 *
 * The gate.  The links outlive an exec (a library such as libc is the
 * same file in the new image, and the pid filter still matches), and
 * the drain thread hears of the exec after the fact: hits of the new
 * image, set-id or not, must not be captured before the daemon has
 * decided that the process may still be traced.  An array of two
 * words does it in the kernel: the exec program adds one to word 0 (the
 * execs) before it writes its record; the capture program captures only
 * while word 1 (the execs the daemon accepted, ft_bpf_gate()) equals
 * word 0.  A hit it turns away is not a lost sample: it never counted.
 *
 * Debian 12's <linux/bpf.h> (6.1) predates uprobe_multi (Linux 6.6): the
 * attach type and the link_create fields are defined here, in
 * struct ft_bpf_linkattr, laid out as the kernel's union bpf_attr.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include <linux/bpf.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

/* from Linux 6.6's <linux/bpf.h> */
#define	FT_BPF_TRACE_UPROBE_MULTI	48

/* BPF_LINK_CREATE for uprobe_multi, as in union bpf_attr */
struct ft_bpf_linkattr {
	uint32_t	la_progfd;
	uint32_t	la_targetfd;
	uint32_t	la_attachtype;
	uint32_t	la_flags;
	uint64_t	la_path;
	uint64_t	la_offsets;
	uint64_t	la_refctr;
	uint64_t	la_cookies;
	uint32_t	la_cnt;
	uint32_t	la_umflags;
	uint32_t	la_pid;
	uint32_t	la_pad;
};

/* A BPF ring buffer, mapped: its consumer page ours, the data twice. */
typedef struct ft_bpfring {
	int		fr_fd;		/* BPF_MAP_TYPE_RINGBUF or -1 */
	size_t		fr_size;	/* data bytes, a power of 2 */
	size_t		fr_page;
	volatile uint64_t *fr_cons;	/* consumer position (ours) */
	volatile uint64_t *fr_prod;	/* producer position */
	uint8_t		*fr_data;	/* the ring, mapped twice */
} ft_bpfring_t;

/*
 * What a capture program writes with: its ring, its count of lost
 * records, its scratch and its configuration (ft_bpf_cap_*).
 */
typedef struct ft_bpfcap {
	ft_bpfring_t	fc_ring;
	int		fc_lost;	/* BPF_MAP_TYPE_PERCPU_ARRAY, 1 u64 */
	int		fc_scratch;	/* BPF_MAP_TYPE_PERCPU_ARRAY, 1 record
					   and its busy word */
	int		fc_conf;	/* BPF_MAP_TYPE_ARRAY, 4 u64: (uprobe)
					   errno's offset from %fs base (0
					   unknown), the stack copy's bound,
					   (system calls) ancestry wanted,
					   credentials wanted */
	int		fc_ncpu;
} ft_bpfcap_t;

struct ft_bpf {
	ft_bpfcap_t	fb_cap;
	int		fb_execprog;	/* sched_process_exec, one process */
	int		fb_exec;	/* its raw tracepoint */
	int		fb_gate;	/* BPF_MAP_TYPE_ARRAY, 2 u64: execs
					   seen, execs accepted */
	int		fb_cur;		/* BPF_MAP_TYPE_ARRAY, u32 by file
					   tag: the generation that fires */
	int		fb_prog;
};

static long
ft_bpf_sys(int cmd, void *attr, size_t len)
{
	return syscall(SYS_bpf, cmd, attr, len);
}

/* Instructions. */
#define	I(code, d, s, o, i)	((struct bpf_insn){ (code), (d), (s), (o), (i) })
#define	MOV64R(d, s)	I(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define	MOV64I(d, i)	I(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define	ADD64I(d, i)	I(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define	ADD64R(d, s)	I(BPF_ALU64 | BPF_ADD | BPF_X, d, s, 0, 0)
#define	LDX64(d, s, o)	I(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define	STX64(d, s, o)	I(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define	STX32(d, s, o)	I(BPF_STX | BPF_MEM | BPF_W, d, s, o, 0)
#define	ST32(d, o, i)	I(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define	XADD64(d, s, o)	I(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
#define	CMPXCHG64(d, s, o) \
			I(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_CMPXCHG)
#define	CALL(f)		I(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define	JEQI(d, i, o)	I(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define	JLEI(d, i, o)	I(BPF_JMP | BPF_JLE | BPF_K, d, 0, o, i)
#define	JLER(d, s, o)	I(BPF_JMP | BPF_JLE | BPF_X, d, s, o, 0)
#define	JGTI(d, i, o)	I(BPF_JMP | BPF_JGT | BPF_K, d, 0, o, i)
#define	JSLEI(d, i, o)	I(BPF_JMP | BPF_JSLE | BPF_K, d, 0, o, i)
#define	SUB64R(d, s)	I(BPF_ALU64 | BPF_SUB | BPF_X, d, s, 0, 0)
#define	JA(o)		I(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define	JNEI(d, i, o)	I(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define	JNER(d, s, o)	I(BPF_JMP | BPF_JNE | BPF_X, d, s, o, 0)
#define	AND64I(d, i)	I(BPF_ALU64 | BPF_AND | BPF_K, d, 0, 0, i)
#define	XOR64I(d, i)	I(BPF_ALU64 | BPF_XOR | BPF_K, d, 0, 0, i)
#define	RSH64I(d, i)	I(BPF_ALU64 | BPF_RSH | BPF_K, d, 0, 0, i)
#define	LSH64I(d, i)	I(BPF_ALU64 | BPF_LSH | BPF_K, d, 0, 0, i)
#define	LDX32(d, s, o)	I(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define	STX32R(d, s, o)	I(BPF_STX | BPF_MEM | BPF_W, d, s, o, 0)
#define	EXIT()		I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* two slots: load a map's descriptor, which the kernel turns to its address */
#define	LDMAP(d, fd)	I(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), \
			I(0, 0, 0, 0, 0)

#define	R0	0
#define	R1	1
#define	R2	2
#define	R3	3
#define	R4	4
#define	R6	6
#define	R7	7
#define	R8	8
#define	R9	9
#define	R10	10

/*
 * The daemon's pid namespace, where it is not the initial one (in a
 * container): the kernel's get_current_pid_tgid() numbers threads as
 * the initial namespace does, not as the daemon knows them.  Both 0 in
 * the initial namespace, where that helper is right (and cheaper).
 */
#define	FT_BPF_INITPIDNS	0xeffffffcU	/* the kernel's PROC_PID_INIT_INO */
static pthread_once_t	ft_bpf_nsonce = PTHREAD_ONCE_INIT;
static uint64_t		ft_bpf_nsdev;
static uint64_t		ft_bpf_nsino;

static void
ft_bpf_nsinit(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) == -1 ||
	    st.st_ino == FT_BPF_INITPIDNS)
		return;
	/* the kernel's dev_t, not stat's encoding of it */
	ft_bpf_nsdev = ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev);
	ft_bpf_nsino = st.st_ino;
}

/* Is the daemon in a pid namespace of its own (see above)? */
int
ft_bpf_pidns(void)
{
	pthread_once(&ft_bpf_nsonce, ft_bpf_nsinit);
	return ft_bpf_nsino != 0;
}

/*
 * Emit at insn[n]: R0 = the current thread's tgid << 32 | tid in the
 * daemon's numbers.  In a pid namespace, the namespace's helper, with
 * fp-32 for its answer (0, 0 for a thread of another namespace: it is
 * none of ours).  R1-R5 clobbered.  Returns the new n.
 */
static int
ft_bpf_pidtgid(struct bpf_insn *insn, int n)
{
	if (!ft_bpf_pidns()) {
		insn[n++] = CALL(BPF_FUNC_get_current_pid_tgid);
		return n;
	}
	insn[n++] = I(BPF_LD | BPF_DW | BPF_IMM, R1, 0, 0,
	    (int32_t)(uint32_t)ft_bpf_nsdev);
	insn[n++] = I(0, 0, 0, 0, (int32_t)(uint32_t)(ft_bpf_nsdev >> 32));
	insn[n++] = I(BPF_LD | BPF_DW | BPF_IMM, R2, 0, 0,
	    (int32_t)(uint32_t)ft_bpf_nsino);
	insn[n++] = I(0, 0, 0, 0, (int32_t)(uint32_t)(ft_bpf_nsino >> 32));
	insn[n++] = MOV64R(R3, R10);
	insn[n++] = ADD64I(R3, -32);
	insn[n++] = MOV64I(R4, 8);
	/* struct bpf_pidns_info: pid, then tgid, as the plain helper's */
	insn[n++] = CALL(BPF_FUNC_get_ns_current_pid_tgid);
	insn[n++] = LDX64(R0, R10, -32);
	return n;
}

/* struct pt_regs index of %rsp: the user_regs_struct order */
#define	FT_BPF_RSP	19

/* Load a program of n instructions, GPL-licensed: its fd, or -1. */
static int
ft_bpf_load(int type, uint32_t expected, const struct bpf_insn *insn, int n,
    const char *name)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = (uint32_t)type;
	a.expected_attach_type = expected;
	a.insns = (uint64_t)(uintptr_t)insn;
	a.insn_cnt = (uint32_t)n;
	a.license = (uint64_t)(uintptr_t)"GPL";
	snprintf(a.prog_name, sizeof(a.prog_name), "%s", name);
	return (int)ft_bpf_sys(BPF_PROG_LOAD, &a, sizeof(a));
}

/* Emit at insn[n] the two slots that load map fd into reg: the next n. */
static int
ft_bpf_ldmap(struct bpf_insn *insn, int n, int reg, int fd)
{
	struct bpf_insn ld[2] = { LDMAP(reg, fd) };

	insn[n++] = ld[0];
	insn[n++] = ld[1];
	return n;
}

/*
 * Emit at insn[n] a lookup of the 32-bit key (kept at fp-4) in map fd:
 * r0 is then the value's address, or 0, which the caller tests where
 * it needs to.  Returns the next n.
 */
static int
ft_bpf_lookup(struct bpf_insn *insn, int n, int fd, int32_t key)
{
	insn[n++] = ST32(R10, -4, key);
	insn[n++] = MOV64R(R2, R10);
	insn[n++] = ADD64I(R2, -4);
	n = ft_bpf_ldmap(insn, n, R1, fd);
	insn[n++] = CALL(BPF_FUNC_map_lookup_elem);
	return n;
}

/*
 * Emit at insn[n] the copy of the user stack into the record at r7,
 * from the user %rsp in r8: the rest of %rsp's page, then the pages
 * above while they can be read, up to the bound in word 1 of map conf
 * (no more than the clauses use) and at most FT_BPF_STACK bytes, into
 * the record's stack at stkoff, its length at stklenoff.  A copy ends
 * where the stack's mapping does (the top of a shallow stack) or at the
 * bound; nothing beyond it is ever read for the unwinder.  The bound is
 * kept at fp-16 across the calls, the size of a read at fp-24.  r9 is
 * then the bytes copied.  Returns the next n.
 */
static int
ft_bpf_emit_stack(struct bpf_insn *insn, int n, int conf, int16_t stkoff,
    int16_t stklenoff)
{
	int i, jstk[FT_BPF_STACK / FT_BPF_PAGE];
	int jstkz[FT_BPF_STACK / FT_BPF_PAGE], jnone[2];

#define	EMIT(x)	(insn[n++] = (x))
	n = ft_bpf_lookup(insn, n, conf, 1);
	EMIT(MOV64I(R4, 0));
	EMIT(JEQI(R0, 0, 1));
	EMIT(LDX64(R4, R0, 0));
	EMIT(JLEI(R4, FT_BPF_STACK, 1));
	EMIT(MOV64I(R4, FT_BPF_STACK));
	EMIT(STX64(R10, R4, -16));
	EMIT(MOV64R(R2, R8));
	EMIT(AND64I(R2, FT_BPF_PAGE - 1));
	EMIT(XOR64I(R2, FT_BPF_PAGE - 1));
	EMIT(ADD64I(R2, 1));		/* 1..page: to %rsp's page's end */
	EMIT(JLER(R2, R4, 1));
	EMIT(MOV64R(R2, R4));		/* the bound is nearer */
	jnone[0] = n;
	EMIT(JEQI(R2, 0, 0));		/* patched: to nostack */
	jnone[1] = n;
	EMIT(JGTI(R2, FT_BPF_PAGE, 0));	/* patched: to nostack (never) */
	EMIT(MOV64R(R9, R2));
	EMIT(MOV64R(R3, R8));
	EMIT(MOV64R(R1, R7));
	EMIT(ADD64I(R1, stkoff));
	EMIT(CALL(BPF_FUNC_probe_read_user));
	jstk[0] = n;
	EMIT(JNEI(R0, 0, 0));			/* patched: to nostack */
	for (i = 1; i < FT_BPF_STACK / FT_BPF_PAGE; i++) {
		/* r9: the bytes copied so far; r2: a page, or what is left */
		EMIT(LDX64(R2, R10, -16));
		EMIT(SUB64R(R2, R9));
		jstkz[i] = n;
		EMIT(JSLEI(R2, 0, 0));		/* patched: to stkend */
		EMIT(JLEI(R2, FT_BPF_PAGE, 1));
		EMIT(MOV64I(R2, FT_BPF_PAGE));
		EMIT(STX64(R10, R2, -24));
		EMIT(MOV64R(R1, R7));
		EMIT(ADD64I(R1, stkoff));
		EMIT(ADD64R(R1, R9));
		EMIT(MOV64R(R3, R8));
		EMIT(ADD64R(R3, R9));
		EMIT(CALL(BPF_FUNC_probe_read_user));
		jstk[i] = n;
		EMIT(JNEI(R0, 0, 0));		/* patched: to stkend */
		EMIT(LDX64(R2, R10, -24));
		EMIT(ADD64R(R9, R2));
	}
	/* stkend: */
	for (i = 1; i < FT_BPF_STACK / FT_BPF_PAGE; i++) {
		insn[jstk[i]].off = (int16_t)(n - jstk[i] - 1);
		insn[jstkz[i]].off = (int16_t)(n - jstkz[i] - 1);
	}
	EMIT(JA(1));
	/* nostack: */
	insn[jstk[0]].off = (int16_t)(n - jstk[0] - 1);
	insn[jnone[0]].off = (int16_t)(n - jnone[0] - 1);
	insn[jnone[1]].off = (int16_t)(n - jnone[1] - 1);
	EMIT(MOV64I(R9, 0));
	EMIT(STX32(R7, R9, stklenoff));
#undef EMIT
	return n;
}

/*
 * Emit at insn[n] the output of the record at r7 into ring: its first
 * stkoff bytes and the r9 bytes of stack after them, waking the reader
 * only when the ring is more than half full (a wakeup per record is an
 * IPI, dearer than the record; the reader polls as well); then the
 * scratch's busy word at busyoff is cleared and the program returns.
 * *jfull is the jump to take when the ring had no room, for the caller
 * to patch (to its count of lost records).  Returns the next n.
 */
static int
ft_bpf_emit_output(struct bpf_insn *insn, int n, const ft_bpfring_t *ring,
    int32_t stkoff, int16_t busyoff, int *jfull)
{
#define	EMIT(x)	(insn[n++] = (x))
	n = ft_bpf_ldmap(insn, n, R1, ring->fr_fd);
	EMIT(MOV64I(R2, BPF_RB_AVAIL_DATA));
	EMIT(CALL(BPF_FUNC_ringbuf_query));
	EMIT(MOV64I(R4, BPF_RB_NO_WAKEUP));
	EMIT(JLEI(R0, (int32_t)(ring->fr_size / 2), 1));
	EMIT(MOV64I(R4, BPF_RB_FORCE_WAKEUP));
	n = ft_bpf_ldmap(insn, n, R1, ring->fr_fd);
	EMIT(MOV64R(R2, R7));
	EMIT(MOV64R(R3, R9));
	EMIT(ADD64I(R3, stkoff));
	EMIT(CALL(BPF_FUNC_ringbuf_output));
	EMIT(MOV64I(R1, 0));
	EMIT(STX64(R7, R1, busyoff));			/* not busy */
	*jfull = n;
	EMIT(JNEI(R0, 0, 0));			/* patched: to lost */
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
#undef EMIT
	return n;
}

/*
 * Emit at insn[n]: take this CPU's scratch (of map scratch: a record
 * and its busy word at busyoff) into r7.  A capture preempted by
 * another on the same CPU must not have its scratch overwritten: the
 * busy word is taken with a compare-and-exchange, and a capture that
 * finds it taken counts as lost.  jlost[0], jlost[1]: the jumps to
 * patch to the count of lost records.  Returns the next n.
 */
static int
ft_bpf_emit_scratch(struct bpf_insn *insn, int n, int scratch,
    int16_t busyoff, int *jlost)
{
#define	EMIT(x)	(insn[n++] = (x))
	n = ft_bpf_lookup(insn, n, scratch, 0);
	jlost[0] = n;
	EMIT(JEQI(R0, 0, 0));				/* patched: to lost */
	EMIT(MOV64R(R7, R0));
	EMIT(MOV64I(R0, 0));
	EMIT(MOV64I(R1, 1));
	EMIT(CMPXCHG64(R7, R1, busyoff));
	jlost[1] = n;
	EMIT(JNEI(R0, 0, 0));				/* patched: to lost */
#undef EMIT
	return n;
}

/*
 * Emit at insn[n]: read size bytes at the kernel address in r3 plus off
 * (an offset from the BTF) to register dreg (r7: the record; r10: the
 * program's stack) plus doff.  r0-r5 are clobbered; a read that fails
 * leaves zeros there.  Returns the next n.
 */
static int
ft_bpf_emit_kread(struct bpf_insn *insn, int n, long off, int dreg,
    int32_t doff, int32_t size)
{
#define	EMIT(x)	(insn[n++] = (x))
	EMIT(ADD64I(R3, (int32_t)off));
	EMIT(MOV64R(R1, dreg));
	EMIT(ADD64I(R1, doff));
	EMIT(MOV64I(R2, size));
	EMIT(CALL(BPF_FUNC_probe_read_kernel));
#undef EMIT
	return n;
}

/* Emit at insn[n] the count of a lost record on this CPU, and return. */
static int
ft_bpf_emit_lost(struct bpf_insn *insn, int n, int lost)
{
	int jout;

#define	EMIT(x)	(insn[n++] = (x))
	n = ft_bpf_lookup(insn, n, lost, 0);
	jout = n;
	EMIT(JEQI(R0, 0, 0));
	EMIT(MOV64I(R1, 1));
	EMIT(XADD64(R0, R1, 0));
	insn[jout].off = (int16_t)(n - jout - 1);
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
#undef EMIT
	return n;
}

/* Point the jump at insn[j] to insn[to]. */
static void
ft_bpf_patch(struct bpf_insn *insn, int j, int to)
{
	insn[j].off = (int16_t)(to - j - 1);
}

static int
ft_bpf_prog(ft_bpf_t *fb, char *err, size_t errlen)
{
	struct bpf_insn insn[200 + 16 * (FT_BPF_STACK / FT_BPF_PAGE)];
	int n = 0, i, jlost[2], jfull, jgate[3], jtag, jcur[2];
	long fsoff;

#define	EMIT(x)	(insn[n++] = (x))
	EMIT(MOV64R(R6, R1));				/* r6 = ctx */
	/*
	 * A link's generation (FT_BPF_COOKIE): a hit fires only through
	 * the links of its file's current one, so that while a file's new
	 * link replaces the old (both in place until the old is closed) a
	 * hit is recorded once.  An untagged cookie always fires.
	 */
	EMIT(CALL(BPF_FUNC_get_attach_cookie));
	EMIT(MOV64R(R8, R0));
	EMIT(RSH64I(R8, FT_BPF_TAGSHIFT));
	jtag = n;
	EMIT(JEQI(R8, 0, 0));			/* patched: untagged */
	EMIT(MOV64R(R1, R8));
	EMIT(AND64I(R1, FT_BPF_NFILES - 1));
	EMIT(STX32R(R10, R1, -4));
	EMIT(MOV64R(R2, R10));
	EMIT(ADD64I(R2, -4));
	n = ft_bpf_ldmap(insn, n, R1, fb->fb_cur);
	EMIT(CALL(BPF_FUNC_map_lookup_elem));
	jcur[0] = n;
	EMIT(JEQI(R0, 0, 0));			/* patched: to shut */
	EMIT(LDX32(R1, R0, 0));
	EMIT(RSH64I(R8, FT_BPF_GENSHIFT));
	jcur[1] = n;
	EMIT(JNER(R8, R1, 0));			/* patched: to shut */
	ft_bpf_patch(insn, jtag, n);
	/* the gate: nothing of an image the daemon has not accepted */
	for (i = 0; i < 2; i++) {
		n = ft_bpf_lookup(insn, n, fb->fb_gate, i);
		jgate[i] = n;
		EMIT(JEQI(R0, 0, 0));		/* patched: to shut */
		EMIT(LDX64(i == 0 ? R7 : R1, R0, 0));
	}
	jgate[2] = n;
	EMIT(JNER(R1, R7, 0));			/* patched: to shut */
	/*
	 * The record is built in this CPU's scratch, then copied into the
	 * ring at its size (the header and br_stklen bytes).
	 */
	n = ft_bpf_emit_scratch(insn, n, fb->fb_cap.fc_scratch,
	    (int16_t)sizeof(ft_bpfrec_t), jlost);
	for (i = 0; i < FT_BPF_NREGS; i++) {
		EMIT(LDX64(R1, R6, i * 8));
		EMIT(STX64(R7, R1, (int16_t)(offsetof(ft_bpfrec_t,
		    br_regs) + i * 8)));
	}
	n = ft_bpf_pidtgid(insn, n);
	EMIT(STX64(R7, R0, offsetof(ft_bpfrec_t, br_pidtgid)));
	EMIT(CALL(BPF_FUNC_ktime_get_ns));
	EMIT(STX64(R7, R0, offsetof(ft_bpfrec_t, br_time)));
	EMIT(CALL(BPF_FUNC_get_smp_processor_id));
	EMIT(STX32(R7, R0, offsetof(ft_bpfrec_t, br_cpu)));
	EMIT(MOV64R(R1, R6));
	EMIT(CALL(BPF_FUNC_get_attach_cookie));
	EMIT(LSH64I(R0, 64 - FT_BPF_TAGSHIFT));	/* the address alone */
	EMIT(RSH64I(R0, 64 - FT_BPF_TAGSHIFT));
	EMIT(STX64(R7, R0, offsetof(ft_bpfrec_t, br_cookie)));
	/*
	 * The thread's %fs base, from its task_struct (0 if unknown), and
	 * errno at that base plus fc_conf's offset, as it is at the hit.
	 */
	if ((fsoff = ft_btf_fsbase_off()) > 0 && fsoff < INT32_MAX) {
		EMIT(CALL(BPF_FUNC_get_current_task));
		EMIT(MOV64R(R3, R0));
		n = ft_bpf_emit_kread(insn, n, fsoff, R7,
		    offsetof(ft_bpfrec_t, br_fsbase), 8);
		n = ft_bpf_lookup(insn, n, fb->fb_cap.fc_conf, 0);
		EMIT(JEQI(R0, 0, 13));			/* to noerr */
		EMIT(LDX64(R3, R0, 0));
		EMIT(JEQI(R3, 0, 11));			/* to noerr */
		EMIT(LDX64(R1, R7, offsetof(ft_bpfrec_t, br_fsbase)));
		EMIT(JEQI(R1, 0, 9));			/* to noerr */
		EMIT(ADD64R(R3, R1));
		EMIT(MOV64R(R1, R7));
		EMIT(ADD64I(R1, offsetof(ft_bpfrec_t, br_errno)));
		EMIT(MOV64I(R2, 4));
		EMIT(CALL(BPF_FUNC_probe_read_user));
		EMIT(MOV64I(R1, 1));
		EMIT(JEQI(R0, 0, 1));
		EMIT(MOV64I(R1, 0));
		EMIT(JA(1));
		/* noerr: */
		EMIT(MOV64I(R1, 0));
		EMIT(STX32(R7, R1, offsetof(ft_bpfrec_t, br_errok)));
	} else {
		EMIT(MOV64I(R1, 0));
		EMIT(STX64(R7, R1, offsetof(ft_bpfrec_t, br_fsbase)));
		EMIT(STX32(R7, R1, offsetof(ft_bpfrec_t, br_errok)));
	}
	/* the user stack as it is at the hit, as the daemon bounds it */
	EMIT(LDX64(R8, R6, FT_BPF_RSP * 8));
	n = ft_bpf_emit_stack(insn, n, fb->fb_cap.fc_conf,
	    offsetof(ft_bpfrec_t, br_stack), offsetof(ft_bpfrec_t, br_stklen));
	n = ft_bpf_emit_output(insn, n, &fb->fb_cap.fc_ring,
	    offsetof(ft_bpfrec_t, br_stack), (int16_t)sizeof(ft_bpfrec_t),
	    &jfull);
	/* shut: an image not accepted (yet), a link not current */
	for (i = 0; i < 3; i++)
		ft_bpf_patch(insn, jgate[i], n);
	ft_bpf_patch(insn, jcur[0], n);
	ft_bpf_patch(insn, jcur[1], n);
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
	/* lost: count it on this CPU */
	ft_bpf_patch(insn, jlost[0], n);
	ft_bpf_patch(insn, jlost[1], n);
	ft_bpf_patch(insn, jfull, n);
	n = ft_bpf_emit_lost(insn, n, fb->fb_cap.fc_lost);
#undef EMIT

	if ((fb->fb_prog = ft_bpf_load(BPF_PROG_TYPE_KPROBE,
	    FT_BPF_TRACE_UPROBE_MULTI, insn, n, "dtraced_uprobe")) == -1) {
		int e = errno;

		snprintf(err, errlen, "cannot load the capture program: %s",
		    strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

static int
ft_bpf_map(int type, uint32_t ksize, uint32_t vsize, uint32_t max,
    const char *name)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = (uint32_t)type;
	a.key_size = ksize;
	a.value_size = vsize;
	a.max_entries = max;
	snprintf(a.map_name, sizeof(a.map_name), "%s", name);
	return (int)ft_bpf_sys(BPF_MAP_CREATE, &a, sizeof(a));
}

/*
 * The possible CPUs, as per-CPU maps count them: the highest number in
 * /sys/devices/system/cpu/possible ("0-3", "0,2-5"), plus one.
 */
static int
ft_bpf_ncpu(void)
{
	char buf[256], *p;
	int fd, n = 0, v;
	ssize_t r;

	if ((fd = open("/sys/devices/system/cpu/possible",
	    O_RDONLY | O_CLOEXEC)) != -1) {
		r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (r > 0) {
			buf[r] = '\0';
			for (p = buf; *p != '\0'; p++) {
				if (*p < '0' || *p > '9')
					continue;
				v = (int)strtol(p, &p, 10);
				if (v + 1 > n)
					n = v + 1;
				if (*p == '\0')
					break;
			}
		}
	}
	if (n < 1 && (n = (int)sysconf(_SC_NPROCESSORS_CONF)) < 1)
		n = 1;
	return n;
}

/* Unmap and close ring r (what of it is open). */
static void
ft_bpf_ring_close(ft_bpfring_t *r)
{
	if (r->fr_data != NULL)
		munmap((void *)r->fr_prod, r->fr_page + 2 * r->fr_size);
	if (r->fr_cons != NULL)
		munmap((void *)r->fr_cons, r->fr_page);
	if (r->fr_fd >= 0)
		close(r->fr_fd);
	memset(r, 0, sizeof(*r));
	r->fr_fd = -1;
}

/*
 * Create and map ring r of ringsize bytes, rounded up to a power of two
 * of at least a page.  0, or -1 with errno and err filled (r closed).
 */
static int
ft_bpf_ring_open(ft_bpfring_t *r, size_t ringsize, char *err, size_t errlen)
{
	void *p;
	int e;

	memset(r, 0, sizeof(*r));
	r->fr_page = (size_t)sysconf(_SC_PAGESIZE);
	for (r->fr_size = r->fr_page; r->fr_size < ringsize &&
	    r->fr_size < ((size_t)1 << 30); r->fr_size <<= 1)
		;
	if ((r->fr_fd = ft_bpf_map(BPF_MAP_TYPE_RINGBUF, 0, 0,
	    (uint32_t)r->fr_size, "dtraced_ring")) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot create a BPF ring: %s",
		    strerror(e));
		goto fail;
	}
	if ((p = mmap(NULL, r->fr_page, PROT_READ | PROT_WRITE, MAP_SHARED,
	    r->fr_fd, 0)) == MAP_FAILED) {
		e = errno;
		snprintf(err, errlen, "cannot map the BPF ring: %s",
		    strerror(e));
		goto fail;
	}
	r->fr_cons = p;
	if ((p = mmap(NULL, r->fr_page + 2 * r->fr_size, PROT_READ,
	    MAP_SHARED, r->fr_fd, (off_t)r->fr_page)) == MAP_FAILED) {
		e = errno;
		snprintf(err, errlen, "cannot map the BPF ring: %s",
		    strerror(e));
		goto fail;
	}
	r->fr_prod = p;
	r->fr_data = (uint8_t *)p + r->fr_page;
	return 0;
fail:
	ft_bpf_ring_close(r);
	errno = e;
	return -1;
}

/*
 * Hand every complete record of ring r to fn with its length, oldest
 * first, and free its room; a record fn returns 1 for stays, and the
 * drain ends there.  Returns the number of records.
 */
static size_t
ft_bpf_ring_drain(ft_bpfring_t *r, int (*fn)(void *, const void *,
    uint32_t), void *arg)
{
	uint64_t cons, prod, mask = r->fr_size - 1;
	size_t n = 0;

	cons = __atomic_load_n(r->fr_cons, __ATOMIC_RELAXED);
	prod = __atomic_load_n(r->fr_prod, __ATOMIC_ACQUIRE);
	while (cons < prod) {
		uint32_t *hdr = (uint32_t *)(void *)(r->fr_data +
		    (cons & mask));
		uint32_t h = __atomic_load_n(hdr, __ATOMIC_ACQUIRE), len;

		if (h & BPF_RINGBUF_BUSY_BIT)
			break;
		len = h & ~(uint32_t)(BPF_RINGBUF_BUSY_BIT |
		    BPF_RINGBUF_DISCARD_BIT);
		if (!(h & BPF_RINGBUF_DISCARD_BIT)) {
			if (fn(arg, hdr + 2, len) == 1)
				break;
			n++;
		}
		cons += (len + BPF_RINGBUF_HDR_SZ + 7) & ~(uint64_t)7;
		__atomic_store_n(r->fr_cons, cons, __ATOMIC_RELEASE);
		if (cons >= prod)
			prod = __atomic_load_n(r->fr_prod, __ATOMIC_ACQUIRE);
	}
	return n;
}

/* Samples lost so far on each CPU of map fd (cumulative): the count. */
static int
ft_bpf_percpu(int fd, int ncpu, uint64_t *v, int max)
{
	union bpf_attr a;
	uint64_t *all;
	uint32_t key = 0;
	int i, n;

	/* one 8-byte value per possible CPU */
	if ((all = calloc((size_t)ncpu, 8)) == NULL)
		return -1;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)all;
	if (ft_bpf_sys(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)) == -1) {
		free(all);
		return -1;
	}
	n = ncpu < max ? ncpu : max;
	for (i = 0; i < n; i++)
		v[i] = all[i];
	free(all);
	return n;
}

/* Element key of the array map fd: the value at v.  0, or -1 with errno. */
static int
ft_bpf_update(int fd, uint32_t key, const void *v)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)v;
	a.flags = BPF_ANY;
	return ft_bpf_sys(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)) == 0 ? 0 : -1;
}

/* Word key of the array map fd (of u64 values): v.  0, or -1. */
static int
ft_bpf_set(int fd, uint32_t key, uint64_t v)
{
	return ft_bpf_update(fd, key, &v);
}

/* Close what of c is open. */
static void
ft_bpf_cap_close(ft_bpfcap_t *c)
{
	if (c->fc_lost >= 0)
		close(c->fc_lost);
	if (c->fc_conf >= 0)
		close(c->fc_conf);
	if (c->fc_scratch >= 0)
		close(c->fc_scratch);
	ft_bpf_ring_close(&c->fc_ring);
	c->fc_lost = c->fc_conf = c->fc_scratch = -1;
}

/*
 * Open c: a ring of ringsize bytes (rounded up to a power of two of at
 * least a page), the lost count, a scratch of a record of recsize bytes
 * and its busy word, the configuration; maps named as names[] says
 * (lost, scratch, conf).  0, or -1 with errno and err (c closed).
 */
static int
ft_bpf_cap_open(ft_bpfcap_t *c, size_t ringsize, size_t recsize,
    const char *const names[3], char *err, size_t errlen)
{
	int e;

	c->fc_lost = c->fc_scratch = c->fc_conf = -1;
	c->fc_ncpu = ft_bpf_ncpu();
	if (ft_bpf_ring_open(&c->fc_ring, ringsize, err, errlen) == -1)
		return -1;
	if ((c->fc_lost = ft_bpf_map(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1,
	    names[0])) == -1 ||
	    (c->fc_scratch = ft_bpf_map(BPF_MAP_TYPE_PERCPU_ARRAY, 4,
	    (uint32_t)recsize + 8, 1, names[1])) == -1 ||
	    (c->fc_conf = ft_bpf_map(BPF_MAP_TYPE_ARRAY, 4, 8, 4,
	    names[2])) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot create a BPF map: %s",
		    strerror(e));
		ft_bpf_cap_close(c);
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * Copy at most len bytes of the user stack into each record of c from
 * now on (0: none; more than FT_BPF_STACK: FT_BPF_STACK).  0, or -1.
 */
static int
ft_bpf_cap_stack(ft_bpfcap_t *c, size_t len)
{
	return ft_bpf_set(c->fc_conf, 1, len > FT_BPF_STACK ? FT_BPF_STACK :
	    (uint64_t)len);
}

/*
 * Attach program prog to the raw tracepoint named tp: the link's
 * descriptor (closing it detaches), or -1 with errno.
 */
static int
ft_bpf_rawtp(const char *tp, int prog)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (uint64_t)(uintptr_t)tp;
	a.raw_tracepoint.prog_fd = (uint32_t)prog;
	return (int)ft_bpf_sys(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof(a));
}

void
ft_bpf_close(ft_bpf_t *fb)
{
	if (fb == NULL)
		return;
	if (fb->fb_exec >= 0)
		close(fb->fb_exec);
	if (fb->fb_execprog >= 0)
		close(fb->fb_execprog);
	if (fb->fb_prog >= 0)
		close(fb->fb_prog);
	if (fb->fb_gate >= 0)
		close(fb->fb_gate);
	if (fb->fb_cur >= 0)
		close(fb->fb_cur);
	ft_bpf_cap_close(&fb->fb_cap);
	free(fb);
}

/*
 * The capture program and its maps for one process; ringsize is rounded
 * up to a power of two of at least a page.
 */
ft_bpf_t *
ft_bpf_open(size_t ringsize, char *err, size_t errlen)
{
	static const char *const names[3] = { "dtraced_lost",
	    "dtraced_scratch", "dtraced_conf" };
	ft_bpf_t *fb;
	int e;

	if ((fb = calloc(1, sizeof(*fb))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	fb->fb_prog = fb->fb_gate = fb->fb_cur = -1;
	fb->fb_execprog = fb->fb_exec = -1;
	if (ft_bpf_cap_open(&fb->fb_cap, ringsize, sizeof(ft_bpfrec_t),
	    names, err, errlen) == -1) {
		e = errno;
		free(fb);
		errno = e;
		return NULL;
	}
	if ((fb->fb_gate = ft_bpf_map(BPF_MAP_TYPE_ARRAY, 4, 8, 2,
	    "dtraced_gate")) == -1 || (fb->fb_cur = ft_bpf_map(
	    BPF_MAP_TYPE_ARRAY, 4, 4, FT_BPF_NFILES, "dtraced_cur")) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot create a BPF map: %s",
		    strerror(e));
		goto fail;
	}
	/* the whole copy until the daemon says what its clauses use */
	if (ft_bpf_set(fb->fb_cap.fc_conf, 1, FT_BPF_STACK) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot set a BPF map: %s",
		    strerror(e));
		goto fail;
	}
	if (ft_bpf_prog(fb, err, errlen) == -1) {
		e = errno;
		goto fail;
	}
	return fb;
fail:
	ft_bpf_close(fb);
	errno = e;
	return NULL;
}

/*
 * Tell the capture program where errno is: off from the %fs base (0:
 * unknown, nothing captured).  0, or -1 with errno.
 */
int
ft_bpf_tlsoff(ft_bpf_t *fb, int64_t off)
{
	return ft_bpf_set(fb->fb_cap.fc_conf, 0, (uint64_t)off);
}

/*
 * Copy at most len bytes of the user stack into each sample from now on
 * (0: none; more than FT_BPF_STACK: FT_BPF_STACK).  0, or -1 with errno.
 */
int
ft_bpf_stack(ft_bpf_t *fb, size_t len)
{
	return ft_bpf_cap_stack(&fb->fb_cap, len);
}

/*
 * Open the gate to the image of the nexec-th exec (0: the image traced
 * first): the capture program captures while the execs seen are
 * nexec.  If another exec came meanwhile, the gate stays shut until its
 * own record is drained and accepted.  0, or -1 with errno.
 */
int
ft_bpf_gate(ft_bpf_t *fb, uint64_t nexec)
{
	return ft_bpf_set(fb->fb_gate, 1, nexec);
}

/*
 * Hear of process pid's execve(): a record with cookie FT_BPF_EXEC (no
 * registers, no stack) from the sched_process_exec raw tracepoint, once
 * the new image is loaded and its credentials committed, before it
 * runs (the process does not wait for us); first, the gate shuts.
 * 0, or -1 with errno.
 */
int
ft_bpf_exec(ft_bpf_t *fb, pid_t pid)
{
	struct bpf_insn insn[96];
	struct bpf_insn ldc[2] = {
		I(BPF_LD | BPF_DW | BPF_IMM, R1, 0, 0, (int32_t)FT_BPF_EXEC),
		I(0, 0, 0, 0, (int32_t)(FT_BPF_EXEC >> 32))
	};
	int n = 0, jout, jlost, jgate, e;

#define	EMIT(x)	(insn[n++] = (x))
	n = ft_bpf_pidtgid(insn, n);
	EMIT(RSH64I(R0, 32));
	jout = n;
	EMIT(JNEI(R0, (int32_t)pid, 0));		/* patched: to out */
	/* shut the gate (word 0: one more exec), even if no room follows */
	n = ft_bpf_lookup(insn, n, fb->fb_gate, 0);
	jgate = n;
	EMIT(JEQI(R0, 0, 0));			/* patched: to ring */
	EMIT(MOV64I(R1, 1));
	EMIT(XADD64(R0, R1, 0));
	insn[jgate].off = (int16_t)(n - jgate - 1);
	n = ft_bpf_ldmap(insn, n, R1, fb->fb_cap.fc_ring.fr_fd);
	EMIT(MOV64I(R2, (int32_t)offsetof(ft_bpfrec_t, br_stack)));
	EMIT(MOV64I(R3, 0));
	EMIT(CALL(BPF_FUNC_ringbuf_reserve));
	jlost = n;
	EMIT(JEQI(R0, 0, 0));				/* patched: to out */
	EMIT(MOV64R(R7, R0));
	insn[n++] = ldc[0];
	insn[n++] = ldc[1];
	EMIT(STX64(R7, R1, offsetof(ft_bpfrec_t, br_cookie)));
	EMIT(MOV64I(R1, 0));
	EMIT(STX32(R7, R1, offsetof(ft_bpfrec_t, br_stklen)));
	n = ft_bpf_pidtgid(insn, n);
	EMIT(STX64(R7, R0, offsetof(ft_bpfrec_t, br_pidtgid)));
	EMIT(CALL(BPF_FUNC_ktime_get_ns));
	EMIT(STX64(R7, R0, offsetof(ft_bpfrec_t, br_time)));
	EMIT(CALL(BPF_FUNC_get_smp_processor_id));
	EMIT(STX32(R7, R0, offsetof(ft_bpfrec_t, br_cpu)));
	EMIT(MOV64R(R1, R7));
	EMIT(MOV64I(R2, BPF_RB_FORCE_WAKEUP));
	EMIT(CALL(BPF_FUNC_ringbuf_submit));
	insn[jout].off = insn[jlost].off = 0;
	insn[jout].off = (int16_t)(n - jout - 1);
	insn[jlost].off = (int16_t)(n - jlost - 1);
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
#undef EMIT

	if ((fb->fb_execprog = ft_bpf_load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	    insn, n, "dtraced_exec")) == -1)
		return -1;
	if ((fb->fb_exec = ft_bpf_rawtp("sched_process_exec",
	    fb->fb_execprog)) == -1) {
		e = errno;
		close(fb->fb_execprog);
		fb->fb_execprog = -1;
		errno = e;
		return -1;
	}
	return 0;
}

/* The descriptor to poll for records (readable when the ring wakes us). */
int
ft_bpf_fd(const ft_bpf_t *fb)
{
	return fb->fb_cap.fc_ring.fr_fd;
}

/*
 * A uprobe_multi link: the program on n offsets of the file at path,
 * for process pid only.  Returns its descriptor (closing it removes the
 * uprobes), or -1 with errno (524, ENOTSUPP: an offset the kernel
 * refuses; the whole link fails).
 */
int
ft_bpf_link(ft_bpf_t *fb, const char *path, const uint64_t *offs,
    const uint64_t *cookies, uint32_t n, pid_t pid)
{
	struct ft_bpf_linkattr a;

	memset(&a, 0, sizeof(a));
	a.la_progfd = (uint32_t)fb->fb_prog;
	a.la_attachtype = FT_BPF_TRACE_UPROBE_MULTI;
	a.la_path = (uint64_t)(uintptr_t)path;
	a.la_offsets = (uint64_t)(uintptr_t)offs;
	a.la_cookies = (uint64_t)(uintptr_t)cookies;
	a.la_cnt = n;
	a.la_pid = (uint32_t)pid;
	return (int)ft_bpf_sys(BPF_LINK_CREATE, &a, sizeof(a));
}

/*
 * The generation of file tag `file' whose links fire (FT_BPF_COOKIE):
 * one store, so that of an old and a new link of a file exactly one
 * fires.  0, or -1 with errno.
 */
int
ft_bpf_current(ft_bpf_t *fb, uint32_t file, uint32_t gen)
{
	return ft_bpf_update(fb->fb_cur, file & (FT_BPF_NFILES - 1), &gen);
}

/* ft_bpf_drain: a record whose stack fits in its length, to fn. */
typedef struct ft_bpf_drainarg {
	void	(*da_fn)(void *, const ft_bpfrec_t *);
	void	*da_arg;
	uint64_t da_until;
} ft_bpf_drainarg_t;

static int
ft_bpf_drainrec(void *arg, const void *rec, uint32_t len)
{
	const ft_bpf_drainarg_t *da = arg;
	const ft_bpfrec_t *r = rec;

	if (len >= offsetof(ft_bpfrec_t, br_stack) &&
	    r->br_stklen <= len - offsetof(ft_bpfrec_t, br_stack)) {
		if (r->br_time > da->da_until)
			return 1;
		da->da_fn(da->da_arg, r);
	}
	return 0;
}

/*
 * Hand every complete record to fn, oldest first, and free its room,
 * up to the first one timed after until (it stays, for the next drain).
 * Returns the number of records.
 */
size_t
ft_bpf_drain(ft_bpf_t *fb, void (*fn)(void *, const ft_bpfrec_t *),
    void *arg, uint64_t until)
{
	ft_bpf_drainarg_t da = { fn, arg, until };

	return ft_bpf_ring_drain(&fb->fb_cap.fc_ring, ft_bpf_drainrec, &da);
}

/* Samples lost so far on each CPU (cumulative); returns the CPU count. */
int
ft_bpf_lost(const ft_bpf_t *fb, uint64_t *v, int max)
{
	return ft_bpf_percpu(fb->fb_cap.fc_lost, fb->fb_cap.fc_ncpu, v, max);
}

/*
 * The system call capture.  Two programs, on sys_enter (its arguments:
 * the registers, the number) and sys_exit (the registers, the return
 * value; the number is the registers' orig_ax), over one ring, one
 * scratch and lost count per CPU, one conf (the stack bound in word 1),
 * and the want array: FT_BPF_SYS_* by system call number.  A call is
 * turned away before anything is copied when the daemon does not want
 * it, when the daemon made it (its own calls would feed its reading of
 * the ring), or when its thread is of another pid namespace than the
 * daemon's; once the registers are copied, when it was made in 32-bit
 * mode (its numbers are another table's).  Records + lost == the calls
 * wanted, as in the uprobe capture.
 */
struct ft_bpfsys {
	ft_bpfcap_t	fs_cap;
	int		fs_want;	/* BPF_MAP_TYPE_ARRAY: u32 by nr */
	int		fs_prog[2];	/* entry, return */
	int		fs_tp[2];	/* their raw tracepoints */
	int		fs_evprog[FT_BPF_NEV];	/* process events, */
	int		fs_evtp[FT_BPF_NEV];	/* once asked for */
	int		fs_evon;
};

#define	JSGTI(d, i, o)	I(BPF_JMP | BPF_JSGT | BPF_K, d, 0, o, i)

/* struct pt_regs indexes: orig_ax, cs; the user code segment */
#define	FT_BPF_ORIGAX	15
#define	FT_BPF_CS	17
#define	FT_BPF_USER64CS	0x33

/*
 * Emit at insn[n] the copy of the memory the call names, as the want
 * word (kept at fp-56) says (FT_BPF_SYS_CAPTURE), into the record at
 * r7, whose registers are copied.  r8, r9 are free.  Returns the next n.
 */
static int
ft_bpf_syscap(struct bpf_insn *insn, int n, int ret)
{
	int jno[10], nno = 0, jbuf, jdone, i;

#define	EMIT(x)	(insn[n++] = (x))
	EMIT(MOV64I(R1, 0));
	EMIT(STX32(R7, R1, offsetof(ft_bpfsysrec_t, sr_caplen)));
	EMIT(STX32(R7, R1, offsetof(ft_bpfsysrec_t, sr_capstr)));
	EMIT(LDX64(R9, R10, -56));
	EMIT(MOV64R(R2, R9));
	if (!ret) {
		EMIT(AND64I(R2, FT_BPF_SYS_CAPTURE | FT_BPF_SYS_CAPRET));
		jno[nno++] = n;
		EMIT(JNEI(R2, FT_BPF_SYS_CAPTURE, 0));
	} else {
		/* at return: CAPRET's, or CAPEXIT's second copy */
		EMIT(AND64I(R2, FT_BPF_SYS_CAPTURE));
		jno[nno++] = n;
		EMIT(JEQI(R2, 0, 0));
		EMIT(MOV64R(R2, R9));
		EMIT(AND64I(R2, FT_BPF_SYS_CAPRET | FT_BPF_SYS_CAPEXIT));
		jno[nno++] = n;
		EMIT(JEQI(R2, 0, 0));
	}
	/* r3: the address, the register PTR's value */
	EMIT(MOV64R(R2, R9));
	EMIT(RSH64I(R2, 8));
	EMIT(AND64I(R2, 31));
	jno[nno++] = n;
	EMIT(JGTI(R2, FT_BPF_NREGS - 1, 0));
	EMIT(LSH64I(R2, 3));
	EMIT(ADD64R(R2, R7));
	EMIT(LDX64(R3, R2, offsetof(ft_bpfsysrec_t, sr_regs)));
	EMIT(STX64(R7, R3, offsetof(ft_bpfsysrec_t, sr_capaddr)));
	EMIT(MOV64R(R4, R9));
	EMIT(RSH64I(R4, 24));
	jbuf = n;
	EMIT(JNEI(R4, FT_BPF_SYS_STR, 0));		/* patched: to buf */
	EMIT(MOV64R(R1, R7));
	EMIT(ADD64I(R1, offsetof(ft_bpfsysrec_t, sr_cap)));
	EMIT(MOV64I(R2, FT_BPF_SYSCAP));
	EMIT(CALL(BPF_FUNC_probe_read_user_str));
	jno[nno++] = n;
	EMIT(JSLEI(R0, 0, 0));
	EMIT(STX32(R7, R0, offsetof(ft_bpfsysrec_t, sr_caplen)));
	EMIT(ST32(R7, offsetof(ft_bpfsysrec_t, sr_capstr), 1));
	jdone = n;
	EMIT(JA(0));				/* patched: to done */
	/* buf: as many bytes as the register LEN says, at most the room */
	ft_bpf_patch(insn, jbuf, n);
	jno[nno++] = n;
	EMIT(JNEI(R4, FT_BPF_SYS_BUF, 0));
	EMIT(MOV64R(R2, R9));
	EMIT(RSH64I(R2, 16));
	EMIT(AND64I(R2, 31));
	jno[nno++] = n;
	EMIT(JGTI(R2, FT_BPF_NREGS - 1, 0));
	EMIT(LSH64I(R2, 3));
	EMIT(ADD64R(R2, R7));
	EMIT(LDX64(R2, R2, offsetof(ft_bpfsysrec_t, sr_regs)));
	jno[nno++] = n;
	EMIT(JSLEI(R2, 0, 0));
	EMIT(JLEI(R2, FT_BPF_SYSCAP, 1));
	EMIT(MOV64I(R2, FT_BPF_SYSCAP));
	EMIT(MOV64R(R8, R2));
	EMIT(MOV64R(R1, R7));
	EMIT(ADD64I(R1, offsetof(ft_bpfsysrec_t, sr_cap)));
	EMIT(CALL(BPF_FUNC_probe_read_user));
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	EMIT(STX32(R7, R8, offsetof(ft_bpfsysrec_t, sr_caplen)));
	/* done, or none */
	ft_bpf_patch(insn, jdone, n);
	for (i = 0; i < nno; i++)
		ft_bpf_patch(insn, jno[i], n);
#undef EMIT
	return n;
}

/*
 * Emit at insn[n] the copy of the process's name into the record at r7:
 * its main thread's comm, as illumos's execname is the process's (a
 * thread may have renamed itself), where the kernel's BTF says where
 * it is; else, or if it cannot be read, the thread's own.  r8 is free.
 * Returns the next n.
 */
static int
ft_bpf_syscomm(struct bpf_insn *insn, int n)
{
	const ft_btfoffs_t *o = ft_btf_offs();
	int jno[2], jdone = -1, i;

#define	EMIT(x)	(insn[n++] = (x))
	if (o->bo_leader >= 0 && o->bo_leader <= INT32_MAX &&
	    o->bo_comm >= 0 && o->bo_comm <= INT32_MAX) {
		EMIT(CALL(BPF_FUNC_get_current_task));
		EMIT(MOV64R(R3, R0));
		n = ft_bpf_emit_kread(insn, n, o->bo_leader, R10, -64, 8);
		jno[0] = n;
		EMIT(JNEI(R0, 0, 0));
		EMIT(LDX64(R3, R10, -64));
		jno[1] = n;
		EMIT(JEQI(R3, 0, 0));
		EMIT(ADD64I(R3, (int32_t)o->bo_comm));
		EMIT(MOV64R(R1, R7));
		EMIT(ADD64I(R1, offsetof(ft_bpfsysrec_t, sr_comm)));
		EMIT(MOV64I(R2, 16));
		EMIT(CALL(BPF_FUNC_probe_read_kernel_str));
		jdone = n;
		EMIT(JSGTI(R0, 0, 0));			/* patched: to done */
		for (i = 0; i < 2; i++)
			ft_bpf_patch(insn, jno[i], n);
	}
	EMIT(MOV64R(R1, R7));
	EMIT(ADD64I(R1, offsetof(ft_bpfsysrec_t, sr_comm)));
	EMIT(MOV64I(R2, 16));
	EMIT(CALL(BPF_FUNC_get_current_comm));
	/* done: */
	if (jdone >= 0)
		ft_bpf_patch(insn, jdone, n);
#undef EMIT
	return n;
}

/*
 * Emit at insn[n] the copy of the calling process's parent's tgid into
 * the record at r7 (sr_ppid), and of its ancestors' (sr_anc: the
 * parent's parent first) while word 2 of map conf asks for them (a
 * clause calls progenyof(): sixteen reads a record), where the kernel's
 * BTF says where they are and the ids are the daemon's (the initial pid
 * namespace); else 0.  They are read when the call is: a short-lived
 * process, or its parent, is gone when its record fires.  fp-64 is the
 * task being climbed.  Returns the next n.
 */
static int
ft_bpf_sysppid(struct bpf_insn *insn, int n, int conf)
{
	const ft_btfoffs_t *o = ft_btf_offs();
	int jno[2 * (FT_BPF_NANC + 1) + 2], nno = 0, i;
	int16_t off;

#define	EMIT(x)	(insn[n++] = (x))
	EMIT(MOV64I(R1, 0));
	EMIT(STX32(R7, R1, offsetof(ft_bpfsysrec_t, sr_ppid)));
	for (i = 0; i < FT_BPF_NANC; i++)
		EMIT(STX32(R7, R1, (int16_t)(offsetof(ft_bpfsysrec_t,
		    sr_anc) + 4 * i)));
	if (ft_bpf_pidns() || o->bo_parent < 0 || o->bo_parent > INT32_MAX ||
	    o->bo_pid < 0 || o->bo_pid > INT32_MAX - 4)
		return n;
	EMIT(CALL(BPF_FUNC_get_current_task));
	EMIT(STX64(R10, R0, -64));
	/* climb: task = task->real_parent, its tgid in the next slot */
	for (i = 0; i <= FT_BPF_NANC; i++) {
		off = (int16_t)(i == 0 ? offsetof(ft_bpfsysrec_t, sr_ppid) :
		    offsetof(ft_bpfsysrec_t, sr_anc) + 4 * (i - 1));
		EMIT(LDX64(R3, R10, -64));
		n = ft_bpf_emit_kread(insn, n, o->bo_parent, R10, -64, 8);
		jno[nno++] = n;
		EMIT(JNEI(R0, 0, 0));
		EMIT(LDX64(R3, R10, -64));
		jno[nno++] = n;
		EMIT(JEQI(R3, 0, 0));
		n = ft_bpf_emit_kread(insn, n, o->bo_pid + 4, R7, off, 4);
		if (i > 0)
			continue;
		/* the parent always; above it, if asked */
		n = ft_bpf_lookup(insn, n, conf, 2);
		jno[nno++] = n;
		EMIT(JEQI(R0, 0, 0));
		EMIT(LDX64(R1, R0, 0));
		jno[nno++] = n;
		EMIT(JEQI(R1, 0, 0));
	}
	for (i = 0; i < nno; i++)
		ft_bpf_patch(insn, jno[i], n);
#undef EMIT
	return n;
}

/*
 * Emit at insn[n] the copy of what the kernel's ptrace check reads of
 * the calling process (its credentials, its mm's dumpable bits) into
 * the record at r7, at the offsets the kernel's BTF gives, while word 3
 * of map conf asks for it (a consumer that is not root has a clause:
 * some 13% of a record's cost); sr_credok says whether all of it was
 * read (FT_BPF_CRED_*).  r8 is free.  Returns the next n.
 */
static int
ft_bpf_syscred(struct bpf_insn *insn, int n, int conf)
{
	const ft_btfoffs_t *o = ft_btf_offs();
	int jno[10], nno = 0, i, jasked;

#define	EMIT(x)	(insn[n++] = (x))
	EMIT(ST32(R7, offsetof(ft_bpfsysrec_t, sr_credok), 0));
	if (o->bo_cred < 0 || o->bo_cred > INT32_MAX || o->bo_uid < 0 ||
	    o->bo_uid > INT32_MAX || o->bo_capprm < 0 ||
	    o->bo_capprm > INT32_MAX || o->bo_mm < 0 ||
	    o->bo_mm > INT32_MAX || o->bo_mmflags < 0 ||
	    o->bo_mmflags > INT32_MAX)
		return n;
	n = ft_bpf_lookup(insn, n, conf, 3);
	jasked = n;
	EMIT(JEQI(R0, 0, 0));			/* patched: to unasked */
	EMIT(LDX64(R1, R0, 0));
	jno[nno++] = n;
	EMIT(JNEI(R1, 0, 0));			/* patched: to asked */
	/* unasked: */
	ft_bpf_patch(insn, jasked, n);
	EMIT(ST32(R7, offsetof(ft_bpfsysrec_t, sr_credok),
	    FT_BPF_CRED_UNASKED));
	jasked = n;
	EMIT(JA(0));				/* patched: to the end */
	/* asked: */
	ft_bpf_patch(insn, jno[0], n);
	nno = 0;
	EMIT(CALL(BPF_FUNC_get_current_task));
	EMIT(MOV64R(R8, R0));
	/* the credentials: task->real_cred, kept at fp-64 */
	EMIT(MOV64R(R3, R8));
	n = ft_bpf_emit_kread(insn, n, o->bo_cred, R10, -64, 8);
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	EMIT(LDX64(R3, R10, -64));
	jno[nno++] = n;
	EMIT(JEQI(R3, 0, 0));
	n = ft_bpf_emit_kread(insn, n, o->bo_uid, R7,
	    offsetof(ft_bpfsysrec_t, sr_cred), 32);
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	EMIT(LDX64(R3, R10, -64));
	n = ft_bpf_emit_kread(insn, n, o->bo_capprm, R7,
	    offsetof(ft_bpfsysrec_t, sr_capprm), 8);
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	/* the dumpable bits: task->mm->flags */
	EMIT(MOV64R(R3, R8));
	n = ft_bpf_emit_kread(insn, n, o->bo_mm, R10, -64, 8);
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	EMIT(LDX64(R3, R10, -64));
	jno[nno++] = n;
	EMIT(JEQI(R3, 0, 0));
	n = ft_bpf_emit_kread(insn, n, o->bo_mmflags, R7,
	    offsetof(ft_bpfsysrec_t, sr_mmflags), 8);
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	EMIT(ST32(R7, offsetof(ft_bpfsysrec_t, sr_credok), FT_BPF_CRED_OK));
	for (i = 0; i < nno; i++)
		ft_bpf_patch(insn, jno[i], n);
	ft_bpf_patch(insn, jasked, n);
#undef EMIT
	return n;
}

/* The program on sys_enter (ret 0) or sys_exit (ret 1). */
static int
ft_bpf_sysprog(ft_bpfsys_t *fs, int ret, char *err, size_t errlen)
{
	struct bpf_insn insn[800 + 16 * (FT_BPF_STACK / FT_BPF_PAGE)];
	int n = 0, jout[8], nout = 0, jlost[2], jfull, jlostbusy, joutbusy, i;
	int e;

#define	EMIT(x)	(insn[n++] = (x))
	EMIT(MOV64R(R6, R1));				/* r6 = ctx */
	n = ft_bpf_pidtgid(insn, n);
	EMIT(STX64(R10, R0, -48));
	EMIT(RSH64I(R0, 32));
	jout[nout++] = n;
	EMIT(JEQI(R0, 0, 0));			/* another namespace's */
	jout[nout++] = n;
	EMIT(JEQI(R0, (int32_t)getpid(), 0));	/* ours */
	/* the number: sys_enter's second argument, else orig_ax */
	if (!ret) {
		EMIT(LDX64(R1, R6, 8));
		EMIT(STX64(R10, R1, -40));
	} else {
		EMIT(LDX64(R3, R6, 0));
		n = ft_bpf_emit_kread(insn, n, FT_BPF_ORIGAX * 8, R10, -40, 8);
		jout[nout++] = n;
		EMIT(JNEI(R0, 0, 0));
		EMIT(LDX64(R1, R10, -40));
	}
	jout[nout++] = n;
	EMIT(JGTI(R1, FT_BPF_SYSMAX - 1, 0));	/* unsigned: -1 too */
	EMIT(STX32(R10, R1, -4));
	EMIT(MOV64R(R2, R10));
	EMIT(ADD64I(R2, -4));
	n = ft_bpf_ldmap(insn, n, R1, fs->fs_want);
	EMIT(CALL(BPF_FUNC_map_lookup_elem));
	jout[nout++] = n;
	EMIT(JEQI(R0, 0, 0));
	EMIT(LDX32(R1, R0, 0));
	EMIT(STX64(R10, R1, -56));
	EMIT(AND64I(R1, (ret ? FT_BPF_SYS_RETURN : FT_BPF_SYS_ENTRY) |
	    FT_BPF_SYS_SIDE));
	jout[nout++] = n;
	EMIT(JEQI(R1, 0, 0));
	n = ft_bpf_emit_scratch(insn, n, fs->fs_cap.fc_scratch,
	    (int16_t)sizeof(ft_bpfsysrec_t), jlost);
	/* the user registers: the tracepoint's first argument */
	EMIT(MOV64R(R1, R7));
	EMIT(ADD64I(R1, offsetof(ft_bpfsysrec_t, sr_regs)));
	EMIT(MOV64I(R2, FT_BPF_NREGS * 8));
	EMIT(LDX64(R3, R6, 0));
	EMIT(CALL(BPF_FUNC_probe_read_kernel));
	jlostbusy = n;
	EMIT(JNEI(R0, 0, 0));			/* patched: to lostbusy */
	EMIT(LDX64(R1, R7, offsetof(ft_bpfsysrec_t, sr_regs) +
	    FT_BPF_CS * 8));
	joutbusy = n;
	EMIT(JNEI(R1, FT_BPF_USER64CS, 0));	/* patched: to outbusy */
	EMIT(LDX64(R1, R10, -48));
	EMIT(STX64(R7, R1, offsetof(ft_bpfsysrec_t, sr_pidtgid)));
	EMIT(LDX64(R1, R10, -40));
	EMIT(STX32(R7, R1, offsetof(ft_bpfsysrec_t, sr_nr)));
	EMIT(ST32(R7, offsetof(ft_bpfsysrec_t, sr_return), ret));
	EMIT(CALL(BPF_FUNC_ktime_get_ns));
	EMIT(STX64(R7, R0, offsetof(ft_bpfsysrec_t, sr_time)));
	EMIT(CALL(BPF_FUNC_get_smp_processor_id));
	EMIT(STX32(R7, R0, offsetof(ft_bpfsysrec_t, sr_cpu)));
	EMIT(CALL(BPF_FUNC_get_current_uid_gid));
	EMIT(STX64(R7, R0, offsetof(ft_bpfsysrec_t, sr_uidgid)));
	n = ft_bpf_syscomm(insn, n);
	n = ft_bpf_sysppid(insn, n, fs->fs_cap.fc_conf);
	n = ft_bpf_syscred(insn, n, fs->fs_cap.fc_conf);
	n = ft_bpf_syscap(insn, n, ret);
	EMIT(LDX64(R8, R7, offsetof(ft_bpfsysrec_t, sr_regs) +
	    FT_BPF_RSP * 8));
	n = ft_bpf_emit_stack(insn, n, fs->fs_cap.fc_conf,
	    offsetof(ft_bpfsysrec_t, sr_stack),
	    offsetof(ft_bpfsysrec_t, sr_stklen));
	n = ft_bpf_emit_output(insn, n, &fs->fs_cap.fc_ring,
	    offsetof(ft_bpfsysrec_t, sr_stack),
	    (int16_t)sizeof(ft_bpfsysrec_t), &jfull);
	/* outbusy: a 32-bit call; out: not wanted, or not ours to see */
	ft_bpf_patch(insn, joutbusy, n);
	EMIT(MOV64I(R1, 0));
	EMIT(STX64(R7, R1, (int16_t)sizeof(ft_bpfsysrec_t)));	/* free */
	for (i = 0; i < nout; i++)
		ft_bpf_patch(insn, jout[i], n);
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
	/* lostbusy: the registers could not be read */
	ft_bpf_patch(insn, jlostbusy, n);
	EMIT(MOV64I(R1, 0));
	EMIT(STX64(R7, R1, (int16_t)sizeof(ft_bpfsysrec_t)));	/* free */
	/* lost: count it on this CPU */
	ft_bpf_patch(insn, jlost[0], n);
	ft_bpf_patch(insn, jlost[1], n);
	ft_bpf_patch(insn, jfull, n);
	n = ft_bpf_emit_lost(insn, n, fs->fs_cap.fc_lost);
#undef EMIT

	if ((fs->fs_prog[ret] = ft_bpf_load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	    insn, n, ret ? "dtraced_sysret" : "dtraced_sysent")) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot load the system call capture "
		    "program: %s", strerror(e));
		errno = e;
		return -1;
	}
	if ((fs->fs_tp[ret] = ft_bpf_rawtp(ret ? "sys_exit" : "sys_enter",
	    fs->fs_prog[ret])) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot attach to the %s tracepoint: %s",
		    ret ? "sys_exit" : "sys_enter", strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

void
ft_bpf_sys_close(ft_bpfsys_t *fs)
{
	int i;

	if (fs == NULL)
		return;
	for (i = 0; i < 2; i++) {
		if (fs->fs_tp[i] >= 0)
			close(fs->fs_tp[i]);
		if (fs->fs_prog[i] >= 0)
			close(fs->fs_prog[i]);
	}
	for (i = 0; i < FT_BPF_NEV; i++) {
		if (fs->fs_evtp[i] >= 0)
			close(fs->fs_evtp[i]);
		if (fs->fs_evprog[i] >= 0)
			close(fs->fs_evprog[i]);
	}
	if (fs->fs_want >= 0)
		close(fs->fs_want);
	ft_bpf_cap_close(&fs->fs_cap);
	free(fs);
}

/*
 * The system call capture, wanting nothing yet, with a ring of ringsize
 * bytes (rounded up as ft_bpf_open's).  NULL with err filled (and
 * errno: EPERM without the rights to load it).
 */
ft_bpfsys_t *
ft_bpf_sys_open(size_t ringsize, char *err, size_t errlen)
{
	static const char *const names[3] = { "dtraced_syslost",
	    "dtraced_sysscr", "dtraced_sysconf" };
	ft_bpfsys_t *fs;
	int e, i;

	if ((fs = calloc(1, sizeof(*fs))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	fs->fs_want = -1;
	fs->fs_prog[0] = fs->fs_prog[1] = fs->fs_tp[0] = fs->fs_tp[1] = -1;
	for (i = 0; i < FT_BPF_NEV; i++)
		fs->fs_evprog[i] = fs->fs_evtp[i] = -1;
	if (ft_bpf_cap_open(&fs->fs_cap, ringsize, sizeof(ft_bpfsysrec_t),
	    names, err, errlen) == -1) {
		e = errno;
		free(fs);
		errno = e;
		return NULL;
	}
	if ((fs->fs_want = ft_bpf_map(BPF_MAP_TYPE_ARRAY, 4, 4,
	    FT_BPF_EVNR(FT_BPF_NEV), "dtraced_syswant")) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot create a BPF map: %s",
		    strerror(e));
		goto fail;
	}
	if (ft_bpf_sysprog(fs, 0, err, errlen) == -1 ||
	    ft_bpf_sysprog(fs, 1, err, errlen) == -1) {
		e = errno;
		goto fail;
	}
	return fs;
fail:
	ft_bpf_sys_close(fs);
	errno = e;
	return NULL;
}

/*
 * Emit at insn[n] the copy of the calling process's arguments (its
 * mm's arg_start to arg_end, at most FT_BPF_SYSCAP bytes) into the
 * record at r7's capture, whose length is 0 until then.  fp-64 and
 * fp-72 are used.  Returns the next n.
 */
static int
ft_bpf_evargs(struct bpf_insn *insn, int n)
{
	const ft_btfoffs_t *o = ft_btf_offs();
	int jno[6], nno = 0, i;

	if (o->bo_mm < 0 || o->bo_mm > INT32_MAX || o->bo_argstart < 0 ||
	    o->bo_argstart > INT32_MAX || o->bo_argend < 0 ||
	    o->bo_argend > INT32_MAX)
		return n;
#define	EMIT(x)	(insn[n++] = (x))
	EMIT(CALL(BPF_FUNC_get_current_task));
	EMIT(MOV64R(R3, R0));
	n = ft_bpf_emit_kread(insn, n, o->bo_mm, R10, -64, 8);
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	EMIT(LDX64(R8, R10, -64));			/* r8 = mm */
	jno[nno++] = n;
	EMIT(JEQI(R8, 0, 0));
	EMIT(MOV64R(R3, R8));
	n = ft_bpf_emit_kread(insn, n, o->bo_argend, R10, -72, 8);
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	EMIT(MOV64R(R3, R8));
	n = ft_bpf_emit_kread(insn, n, o->bo_argstart, R10, -64, 8);
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	/* r2 = end - start, within 1 and FT_BPF_SYSCAP */
	EMIT(LDX64(R3, R10, -64));
	EMIT(LDX64(R2, R10, -72));
	EMIT(SUB64R(R2, R3));
	jno[nno++] = n;
	EMIT(JSLEI(R2, 0, 0));
	EMIT(JLEI(R2, FT_BPF_SYSCAP, 1));
	EMIT(MOV64I(R2, FT_BPF_SYSCAP));
	EMIT(MOV64R(R8, R2));
	EMIT(STX64(R7, R3, offsetof(ft_bpfsysrec_t, sr_capaddr)));
	EMIT(MOV64R(R1, R7));
	EMIT(ADD64I(R1, offsetof(ft_bpfsysrec_t, sr_cap)));
	EMIT(CALL(BPF_FUNC_probe_read_user));
	jno[nno++] = n;
	EMIT(JNEI(R0, 0, 0));
	EMIT(STX32(R7, R8, offsetof(ft_bpfsysrec_t, sr_caplen)));
	for (i = 0; i < nno; i++)
		ft_bpf_patch(insn, jno[i], n);
#undef EMIT
	return n;
}

/* The raw tracepoints of the process events, by FT_BPF_EV_*. */
static const char *const ft_bpf_evtp[FT_BPF_NEV] = {
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
	"signal_generate", "signal_deliver"
};

/*
 * Load and attach the program of process event ev (FT_BPF_EV_*): 0, or
 * -1 with err filled (the BTF does not say where what it reads is:
 * EOPNOTSUPP).  With uctx,
 * the record has the caller's user registers (the kernel's
 * task_pt_regs: where it entered the kernel) and stack; a kernel that
 * will not load that has a program without them.
 */
static int
ft_bpf_evprog1(ft_bpfsys_t *fs, int ev, int uctx, char *err, size_t errlen)
{
	const ft_btfoffs_t *o = ft_btf_offs();
	struct bpf_insn insn[800 + 16 * (FT_BPF_STACK / FT_BPF_PAGE)];
	int n = 0, jout[4], nout = 0, jlost[2], jfull, jnostk, i, e;
	char name[16];
	int16_t evoff = (int16_t)offsetof(ft_bpfsysrec_t, sr_ev);

	if (o->bo_pid < 0 || o->bo_pid > INT32_MAX ||
	    (ev == FT_BPF_EV_EXIT && (o->bo_signal < 0 ||
	    o->bo_signal > INT32_MAX || o->bo_grpexit < 0 ||
	    o->bo_grpexit > INT32_MAX || o->bo_exitcode < 0 ||
	    o->bo_exitcode > INT32_MAX))) {
		snprintf(err, errlen, "the kernel's BTF does not say where "
		    "the task fields %s reads are", ft_bpf_evtp[ev]);
		errno = EOPNOTSUPP;
		return -1;
	}
#define	EMIT(x)	(insn[n++] = (x))
	EMIT(MOV64R(R6, R1));				/* r6 = ctx */
	n = ft_bpf_pidtgid(insn, n);
	EMIT(STX64(R10, R0, -48));
	EMIT(RSH64I(R0, 32));
	jout[nout++] = n;
	EMIT(JEQI(R0, 0, 0));			/* another namespace's */
	jout[nout++] = n;
	EMIT(JEQI(R0, (int32_t)getpid(), 0));	/* ours */
	n = ft_bpf_lookup(insn, n, fs->fs_want, (int32_t)FT_BPF_EVNR(ev));
	jout[nout++] = n;
	EMIT(JEQI(R0, 0, 0));
	EMIT(LDX32(R1, R0, 0));
	jout[nout++] = n;
	EMIT(JEQI(R1, 0, 0));
	n = ft_bpf_emit_scratch(insn, n, fs->fs_cap.fc_scratch,
	    (int16_t)sizeof(ft_bpfsysrec_t), jlost);
	/* the user registers, or none (all 0: a kernel thread's) */
	if (uctx) {
		EMIT(CALL(BPF_FUNC_get_current_task_btf));
		EMIT(MOV64R(R1, R0));
		EMIT(CALL(BPF_FUNC_task_pt_regs));
		EMIT(MOV64R(R3, R0));
		EMIT(MOV64R(R1, R7));
		EMIT(ADD64I(R1, offsetof(ft_bpfsysrec_t, sr_regs)));
		EMIT(MOV64I(R2, FT_BPF_NREGS * 8));
		EMIT(CALL(BPF_FUNC_probe_read_kernel));
		EMIT(JNEI(R0, 0, 2));
		EMIT(LDX64(R1, R7, offsetof(ft_bpfsysrec_t, sr_regs) +
		    FT_BPF_CS * 8));
		EMIT(JEQI(R1, FT_BPF_USER64CS, FT_BPF_NREGS + 1));
	}
	EMIT(MOV64I(R1, 0));
	for (i = 0; i < FT_BPF_NREGS; i++)
		EMIT(STX64(R7, R1, (int16_t)(offsetof(ft_bpfsysrec_t,
		    sr_regs) + i * 8)));
	/* capture, stack and event words empty */
	EMIT(MOV64I(R1, 0));
	for (i = 0; i < 4; i++)
		EMIT(STX64(R7, R1, (int16_t)(evoff + i * 8)));
	for (i = 0; i < 2; i++)
		EMIT(STX64(R7, R1, (int16_t)(offsetof(ft_bpfsysrec_t,
		    sr_tcomm) + i * 8)));
	EMIT(STX32(R7, R1, offsetof(ft_bpfsysrec_t, sr_caplen)));
	EMIT(STX32(R7, R1, offsetof(ft_bpfsysrec_t, sr_capstr)));
	EMIT(STX32(R7, R1, offsetof(ft_bpfsysrec_t, sr_stklen)));
	EMIT(STX64(R7, R1, offsetof(ft_bpfsysrec_t, sr_capaddr)));
	EMIT(LDX64(R1, R10, -48));
	EMIT(STX64(R7, R1, offsetof(ft_bpfsysrec_t, sr_pidtgid)));
	EMIT(ST32(R7, offsetof(ft_bpfsysrec_t, sr_nr),
	    (int32_t)FT_BPF_EVNR(ev)));
	EMIT(ST32(R7, offsetof(ft_bpfsysrec_t, sr_return), 0));
	EMIT(CALL(BPF_FUNC_ktime_get_ns));
	EMIT(STX64(R7, R0, offsetof(ft_bpfsysrec_t, sr_time)));
	EMIT(CALL(BPF_FUNC_get_smp_processor_id));
	EMIT(STX32(R7, R0, offsetof(ft_bpfsysrec_t, sr_cpu)));
	EMIT(CALL(BPF_FUNC_get_current_uid_gid));
	EMIT(STX64(R7, R0, offsetof(ft_bpfsysrec_t, sr_uidgid)));
	n = ft_bpf_syscomm(insn, n);
	n = ft_bpf_sysppid(insn, n, fs->fs_cap.fc_conf);
	n = ft_bpf_syscred(insn, n, fs->fs_cap.fc_conf);
	n = ft_bpf_evargs(insn, n);
	/* what the event says: its tracepoint's arguments, from ctx */
	switch (ev) {
	case FT_BPF_EV_FORK:		/* (parent, child) */
		EMIT(LDX64(R3, R6, 8));
		n = ft_bpf_emit_kread(insn, n, o->bo_pid, R7, evoff, 8);
		break;
	case FT_BPF_EV_EXEC:		/* (task, old_pid, bprm) */
		EMIT(LDX64(R1, R6, 8));
		EMIT(STX64(R7, R1, evoff));
		break;
	case FT_BPF_EV_EXIT:		/* (task, group_dead) */
		EMIT(LDX64(R1, R6, 8));
		EMIT(AND64I(R1, 0xff));
		EMIT(STX64(R7, R1, evoff));
		EMIT(LDX64(R3, R6, 0));
		n = ft_bpf_emit_kread(insn, n, o->bo_exitcode, R7,
		    evoff + 16, 4);
		/* task->signal, at ev[3] for a moment, then its code */
		EMIT(LDX64(R3, R6, 0));
		n = ft_bpf_emit_kread(insn, n, o->bo_signal, R7, evoff + 24, 8);
		EMIT(LDX64(R3, R7, evoff + 24));
		EMIT(MOV64I(R1, 0));
		EMIT(STX64(R7, R1, evoff + 24));
		EMIT(JEQI(R3, 0, 5));
		n = ft_bpf_emit_kread(insn, n, o->bo_grpexit, R7, evoff + 8, 4);
		break;
	case FT_BPF_EV_SIGGEN:		/* (sig, info, task, group, result) */
		EMIT(LDX64(R1, R6, 0));
		EMIT(AND64I(R1, 0x7fffffff));
		EMIT(STX64(R7, R1, evoff));
		/* info->si_code, above it (info may be 0 or 1: no read) */
		EMIT(LDX64(R3, R6, 8));
		n = ft_bpf_emit_kread(insn, n, 8, R7, evoff + 4, 4);
		EMIT(LDX64(R1, R6, 32));
		EMIT(STX64(R7, R1, evoff + 24));
		EMIT(LDX64(R3, R6, 16));
		n = ft_bpf_emit_kread(insn, n, o->bo_pid, R7, evoff + 8, 8);
		/* the task's parent: task->real_parent->tgid, at ev[2] */
		if (o->bo_parent < 0 || o->bo_parent > INT32_MAX ||
		    o->bo_pid > INT32_MAX - 4)
			break;
		EMIT(LDX64(R3, R6, 16));
		n = ft_bpf_emit_kread(insn, n, o->bo_parent, R7, evoff + 16, 8);
		EMIT(LDX64(R3, R7, evoff + 16));
		EMIT(MOV64I(R1, 0));
		EMIT(STX64(R7, R1, evoff + 16));
		EMIT(JEQI(R3, 0, 5));
		n = ft_bpf_emit_kread(insn, n, o->bo_pid + 4, R7,
		    evoff + 16, 4);
		/* its process's name: task->group_leader->comm */
		if (o->bo_leader < 0 || o->bo_leader > INT32_MAX ||
		    o->bo_comm < 0 || o->bo_comm > INT32_MAX)
			break;
		EMIT(LDX64(R3, R6, 16));
		n = ft_bpf_emit_kread(insn, n, o->bo_leader, R7,
		    offsetof(ft_bpfsysrec_t, sr_tcomm), 8);
		EMIT(LDX64(R3, R7, offsetof(ft_bpfsysrec_t, sr_tcomm)));
		EMIT(MOV64I(R1, 0));
		EMIT(STX64(R7, R1, offsetof(ft_bpfsysrec_t, sr_tcomm)));
		EMIT(JEQI(R3, 0, 5));
		n = ft_bpf_emit_kread(insn, n, o->bo_comm, R7,
		    offsetof(ft_bpfsysrec_t, sr_tcomm), 15);
		break;
	case FT_BPF_EV_SIGDLV:		/* (sig, info, ka): ka->sa.sa_handler */
		EMIT(LDX64(R1, R6, 0));
		EMIT(STX64(R7, R1, evoff));
		EMIT(LDX64(R3, R6, 16));
		n = ft_bpf_emit_kread(insn, n, 0, R7, evoff + 8, 8);
		break;
	}
	/* the user stack, below the registers' %rsp (none: 0) */
	EMIT(MOV64I(R9, 0));
	if (uctx) {
		EMIT(LDX64(R8, R7, offsetof(ft_bpfsysrec_t, sr_regs) +
		    FT_BPF_RSP * 8));
		jnostk = n;
		EMIT(JEQI(R8, 0, 0));
		n = ft_bpf_emit_stack(insn, n, fs->fs_cap.fc_conf,
		    offsetof(ft_bpfsysrec_t, sr_stack),
		    offsetof(ft_bpfsysrec_t, sr_stklen));
		ft_bpf_patch(insn, jnostk, n);
	}
	n = ft_bpf_emit_output(insn, n, &fs->fs_cap.fc_ring,
	    offsetof(ft_bpfsysrec_t, sr_stack),
	    (int16_t)sizeof(ft_bpfsysrec_t), &jfull);
	/* out: not wanted, or not ours to see */
	for (i = 0; i < nout; i++)
		ft_bpf_patch(insn, jout[i], n);
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
	/* lost: count it on this CPU */
	ft_bpf_patch(insn, jlost[0], n);
	ft_bpf_patch(insn, jlost[1], n);
	ft_bpf_patch(insn, jfull, n);
	n = ft_bpf_emit_lost(insn, n, fs->fs_cap.fc_lost);
#undef EMIT

	snprintf(name, sizeof(name), "dtraced_ev%d", ev);
	if ((fs->fs_evprog[ev] = ft_bpf_load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	    insn, n, name)) == -1) {
		e = errno;
		if (uctx)
			return ft_bpf_evprog1(fs, ev, 0, err, errlen);
		snprintf(err, errlen, "cannot load the %s capture program: %s",
		    ft_bpf_evtp[ev], strerror(e));
		errno = e;
		return -1;
	}
	if ((fs->fs_evtp[ev] = ft_bpf_rawtp(ft_bpf_evtp[ev],
	    fs->fs_evprog[ev])) == -1) {
		e = errno;
		close(fs->fs_evprog[ev]);
		fs->fs_evprog[ev] = -1;
		snprintf(err, errlen, "cannot attach to the %s tracepoint: %s",
		    ft_bpf_evtp[ev], strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

static int
ft_bpf_evprog(ft_bpfsys_t *fs, int ev, char *err, size_t errlen)
{
	return ft_bpf_evprog1(fs, ev, 1, err, errlen);
}

/*
 * Capture process events from now on, as the want words at
 * FT_BPF_EVNR() say (once; the programs stay until the capture is
 * closed).  0, or -1 with err filled.
 */
int
ft_bpf_sys_events(ft_bpfsys_t *fs, char *err, size_t errlen)
{
	int ev;

	if (fs->fs_evon)
		return 0;
	if (ft_bpf_pidns()) {
		/* the tasks' ids are the initial namespace's */
		snprintf(err, errlen, "process events are not captured in a "
		    "pid namespace");
		errno = EOPNOTSUPP;
		return -1;
	}
	/* those an earlier call left in place stay */
	for (ev = 0; ev < FT_BPF_NEV; ev++)
		if (fs->fs_evtp[ev] == -1 &&
		    ft_bpf_evprog(fs, ev, err, errlen) == -1)
			return -1;
	fs->fs_evon = 1;
	return 0;
}

/* The descriptor to poll for records (readable when the ring wakes us). */
int
ft_bpf_sys_fd(const ft_bpfsys_t *fs)
{
	return fs->fs_cap.fc_ring.fr_fd;
}

/* Capture system call nr as flags (FT_BPF_SYS_*) say.  0, or -1. */
int
ft_bpf_sys_want(ft_bpfsys_t *fs, uint32_t nr, uint32_t flags)
{
	if (nr >= FT_BPF_EVNR(FT_BPF_NEV)) {
		errno = EINVAL;
		return -1;
	}
	return ft_bpf_update(fs->fs_want, nr, &flags);
}

/* Copy at most len bytes of user stack into each record from now on. */
int
ft_bpf_sys_stack(ft_bpfsys_t *fs, size_t len)
{
	return ft_bpf_cap_stack(&fs->fs_cap, len);
}

/* Copy the caller's credentials from now on, or not (FT_BPF_CRED_*). */
int
ft_bpf_sys_creds(ft_bpfsys_t *fs, int on)
{
	return ft_bpf_set(fs->fs_cap.fc_conf, 3, on ? 1 : 0);
}

/* Copy the caller's ancestors past its parent (sr_anc) from now on, or not. */
int
ft_bpf_sys_ancestry(ft_bpfsys_t *fs, int on)
{
	return ft_bpf_set(fs->fs_cap.fc_conf, 2, on ? 1 : 0);
}

typedef struct ft_bpf_sysdrain {
	void	(*sd_fn)(void *, const ft_bpfsysrec_t *);
	void	*sd_arg;
} ft_bpf_sysdrain_t;

static int
ft_bpf_sysdrainrec(void *arg, const void *rec, uint32_t len)
{
	const ft_bpf_sysdrain_t *sd = arg;
	const ft_bpfsysrec_t *r = rec;

	if (len >= offsetof(ft_bpfsysrec_t, sr_stack) &&
	    r->sr_stklen <= len - offsetof(ft_bpfsysrec_t, sr_stack) &&
	    r->sr_nr < FT_BPF_EVNR(FT_BPF_NEV) &&
	    r->sr_caplen <= FT_BPF_SYSCAP)
		sd->sd_fn(sd->sd_arg, r);
	return 0;
}

/*
 * Hand every complete record to fn, oldest first, and free its room.
 * Returns the number of records.
 */
size_t
ft_bpf_sys_drain(ft_bpfsys_t *fs, void (*fn)(void *, const ft_bpfsysrec_t *),
    void *arg)
{
	ft_bpf_sysdrain_t sd = { fn, arg };

	return ft_bpf_ring_drain(&fs->fs_cap.fc_ring, ft_bpf_sysdrainrec, &sd);
}

/* Records lost so far on each CPU (cumulative); returns the CPU count. */
int
ft_bpf_sys_lost(const ft_bpfsys_t *fs, uint64_t *v, int max)
{
	return ft_bpf_percpu(fs->fs_cap.fc_lost, fs->fs_cap.fc_ncpu, v, max);
}
