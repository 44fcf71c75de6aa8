/*
 * ft_bpf.c: the kernel side of the uprobe backend, over raw bpf(2).
 *
 * One capture program, a ring and a lost-sample counter per traced
 * process (ft_bpf_t), and uprobe_multi links (one per file, holding all
 * of that file's probe offsets, filtered by pid, cookie = the site's
 * runtime address) that run the program on each hit.  The program only
 * captures: the registers, tid, time (CLOCK_MONOTONIC), cpu, cookie, the
 * thread's %fs base (from its task_struct, at the offset the kernel's
 * BTF gives: ft_btf.c), its errno (at the offset ft_bpf_tlsoff() gives) and
 * up to FT_BPF_STACK bytes of user stack at %rsp (fewer where the stack
 * ends, or where ft_bpf_stack() says the users read less), into a BPF
 * ring buffer.  The record is built in a per-CPU
 * scratch and output at its length, so that a shallow stack costs the
 * ring less (a record with a full copy is some 8 KiB).  It outputs
 * without waking the reader unless the ring is more than half full (a
 * wakeup per record is an IPI, dearer than the record); the reader
 * polls as well.  A record that does not fit is counted in a per-CPU
 * array instead, so that records + lost == hits, exactly.
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

struct ft_bpf {
	int		fb_ring;	/* BPF_MAP_TYPE_RINGBUF */
	int		fb_execprog;	/* sched_process_exec, one process */
	int		fb_exec;	/* its raw tracepoint */
	int		fb_lost;	/* BPF_MAP_TYPE_PERCPU_ARRAY, 1 u64 */
	int		fb_scratch;	/* BPF_MAP_TYPE_PERCPU_ARRAY, 1 record
					   and its busy word */
	int		fb_conf;	/* BPF_MAP_TYPE_ARRAY, 2 u64: errno's
					   offset from %fs base (0 unknown),
					   the stack copy's bound */
	int		fb_gate;	/* BPF_MAP_TYPE_ARRAY, 2 u64: execs
					   seen, execs accepted */
	int		fb_prog;
	size_t		fb_size;	/* ring data bytes, a power of 2 */
	size_t		fb_page;
	volatile uint64_t *fb_cons;	/* consumer position (ours) */
	volatile uint64_t *fb_prod;	/* producer position */
	uint8_t		*fb_data;	/* the ring, mapped twice in a row */
	int		fb_ncpu;
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

static int
ft_bpf_prog(ft_bpf_t *fb, char *err, size_t errlen)
{
	struct bpf_insn insn[200 + 16 * (FT_BPF_STACK / FT_BPF_PAGE)];
	int n = 0, i, jlost, jbusy, jfull, jout, jgate[3], jnone[3];
	int jstk[FT_BPF_STACK / FT_BPF_PAGE], jstkz[FT_BPF_STACK / FT_BPF_PAGE];
	long fsoff;

#define	EMIT(x)	(insn[n++] = (x))
	EMIT(MOV64R(R6, R1));				/* r6 = ctx */
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
	 * ring at its size (the header and br_stklen bytes).  A capture
	 * preempted by another on the same CPU (a thread of the same
	 * process) must not have its scratch overwritten: the scratch's
	 * busy word is taken with a compare-and-exchange, and a capture
	 * that finds it taken counts as lost.
	 */
	n = ft_bpf_lookup(insn, n, fb->fb_scratch, 0);
	jlost = n;
	EMIT(JEQI(R0, 0, 0));				/* patched: to lost */
	EMIT(MOV64R(R7, R0));
	EMIT(MOV64I(R0, 0));
	EMIT(MOV64I(R1, 1));
	EMIT(CMPXCHG64(R7, R1, (int16_t)sizeof(ft_bpfrec_t)));
	jbusy = n;
	EMIT(JNEI(R0, 0, 0));				/* patched: to lost */
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
	EMIT(STX64(R7, R0, offsetof(ft_bpfrec_t, br_cookie)));
	/*
	 * The thread's %fs base, from its task_struct (0 if unknown), and
	 * errno at that base plus fb_conf's offset, as it is at the hit.
	 */
	if ((fsoff = ft_btf_fsbase_off()) > 0 && fsoff < INT32_MAX) {
		EMIT(CALL(BPF_FUNC_get_current_task));
		EMIT(MOV64R(R3, R0));
		EMIT(ADD64I(R3, (int32_t)fsoff));
		EMIT(MOV64R(R1, R7));
		EMIT(ADD64I(R1, offsetof(ft_bpfrec_t, br_fsbase)));
		EMIT(MOV64I(R2, 8));
		EMIT(CALL(BPF_FUNC_probe_read_kernel));
		n = ft_bpf_lookup(insn, n, fb->fb_conf, 0);
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
	/*
	 * The user stack from %rsp up, as it is at the hit: the rest of
	 * %rsp's page, then the pages above while they can be read, up to
	 * the bound the daemon set (fb_conf's second word, ft_bpf_stack():
	 * no more than the clauses use) and at most FT_BPF_STACK bytes.  A
	 * copy ends where the stack's mapping does (the top of a shallow
	 * stack) or at the bound; br_stklen says where, and nothing beyond
	 * it is ever read for the unwinder.  The bound is kept at fp-16
	 * across the calls, the size of a read at fp-24.
	 */
	n = ft_bpf_lookup(insn, n, fb->fb_conf, 1);
	EMIT(MOV64I(R4, 0));
	EMIT(JEQI(R0, 0, 1));
	EMIT(LDX64(R4, R0, 0));
	EMIT(JLEI(R4, FT_BPF_STACK, 1));
	EMIT(MOV64I(R4, FT_BPF_STACK));
	EMIT(STX64(R10, R4, -16));
	EMIT(LDX64(R8, R6, FT_BPF_RSP * 8));
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
	EMIT(ADD64I(R1, offsetof(ft_bpfrec_t, br_stack)));
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
		EMIT(ADD64I(R1, offsetof(ft_bpfrec_t, br_stack)));
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
	EMIT(STX32(R7, R9, offsetof(ft_bpfrec_t, br_stklen)));
	/* wake the reader only when the ring is more than half full */
	n = ft_bpf_ldmap(insn, n, R1, fb->fb_ring);
	EMIT(MOV64I(R2, BPF_RB_AVAIL_DATA));
	EMIT(CALL(BPF_FUNC_ringbuf_query));
	EMIT(MOV64I(R4, BPF_RB_NO_WAKEUP));
	EMIT(JLEI(R0, (int32_t)(fb->fb_size / 2), 1));
	EMIT(MOV64I(R4, BPF_RB_FORCE_WAKEUP));
	n = ft_bpf_ldmap(insn, n, R1, fb->fb_ring);
	EMIT(MOV64R(R2, R7));
	EMIT(MOV64R(R3, R9));
	EMIT(ADD64I(R3, offsetof(ft_bpfrec_t, br_stack)));
	EMIT(CALL(BPF_FUNC_ringbuf_output));
	EMIT(MOV64I(R1, 0));
	EMIT(STX64(R7, R1, (int16_t)sizeof(ft_bpfrec_t)));	/* not busy */
	jfull = n;
	EMIT(JNEI(R0, 0, 0));			/* patched: to lost */
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
	/* shut: an image not accepted (yet) */
	for (i = 0; i < 3; i++)
		insn[jgate[i]].off = (int16_t)(n - jgate[i] - 1);
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
	/* lost: count it on this CPU */
	insn[jlost].off = (int16_t)(n - jlost - 1);
	insn[jbusy].off = (int16_t)(n - jbusy - 1);
	insn[jfull].off = (int16_t)(n - jfull - 1);
	n = ft_bpf_lookup(insn, n, fb->fb_lost, 0);
	jout = n;
	EMIT(JEQI(R0, 0, 0));
	EMIT(MOV64I(R1, 1));
	EMIT(XADD64(R0, R1, 0));
	insn[jout].off = (int16_t)(n - jout - 1);
	EMIT(MOV64I(R0, 0));
	EMIT(EXIT());
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

void
ft_bpf_close(ft_bpf_t *fb)
{
	if (fb == NULL)
		return;
	if (fb->fb_data != NULL)
		munmap((void *)fb->fb_prod, fb->fb_page + 2 * fb->fb_size);
	if (fb->fb_cons != NULL)
		munmap((void *)fb->fb_cons, fb->fb_page);
	if (fb->fb_exec >= 0)
		close(fb->fb_exec);
	if (fb->fb_execprog >= 0)
		close(fb->fb_execprog);
	if (fb->fb_prog >= 0)
		close(fb->fb_prog);
	if (fb->fb_lost >= 0)
		close(fb->fb_lost);
	if (fb->fb_conf >= 0)
		close(fb->fb_conf);
	if (fb->fb_scratch >= 0)
		close(fb->fb_scratch);
	if (fb->fb_gate >= 0)
		close(fb->fb_gate);
	if (fb->fb_ring >= 0)
		close(fb->fb_ring);
	free(fb);
}

/* Word key of the array map fd: v.  0, or -1 with errno. */
static int
ft_bpf_set(int fd, uint32_t key, uint64_t v)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)&v;
	a.flags = BPF_ANY;
	return ft_bpf_sys(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)) == 0 ? 0 : -1;
}

/*
 * The capture program and its maps for one process; ringsize is rounded
 * up to a power of two of at least a page.
 */
ft_bpf_t *
ft_bpf_open(size_t ringsize, char *err, size_t errlen)
{
	ft_bpf_t *fb;
	void *p;
	int e;

	if ((fb = calloc(1, sizeof(*fb))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	fb->fb_ring = fb->fb_lost = fb->fb_prog = fb->fb_conf = -1;
	fb->fb_scratch = -1;
	fb->fb_gate = -1;
	fb->fb_execprog = fb->fb_exec = -1;
	fb->fb_page = (size_t)sysconf(_SC_PAGESIZE);
	fb->fb_ncpu = ft_bpf_ncpu();
	for (fb->fb_size = fb->fb_page; fb->fb_size < ringsize &&
	    fb->fb_size < ((size_t)1 << 30); fb->fb_size <<= 1)
		;
	if ((fb->fb_ring = ft_bpf_map(BPF_MAP_TYPE_RINGBUF, 0, 0,
	    (uint32_t)fb->fb_size, "dtraced_ring")) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot create a BPF ring: %s",
		    strerror(e));
		goto fail;
	}
	if ((fb->fb_lost = ft_bpf_map(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1,
	    "dtraced_lost")) == -1 ||
	    (fb->fb_scratch = ft_bpf_map(BPF_MAP_TYPE_PERCPU_ARRAY, 4,
	    sizeof(ft_bpfrec_t) + 8, 1, "dtraced_scratch")) == -1 ||
	    (fb->fb_conf = ft_bpf_map(BPF_MAP_TYPE_ARRAY, 4, 8, 2,
	    "dtraced_conf")) == -1 ||
	    (fb->fb_gate = ft_bpf_map(BPF_MAP_TYPE_ARRAY, 4, 8, 2,
	    "dtraced_gate")) == -1) {
		e = errno;
		snprintf(err, errlen, "cannot create a BPF map: %s",
		    strerror(e));
		goto fail;
	}
	if ((p = mmap(NULL, fb->fb_page, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fb->fb_ring, 0)) == MAP_FAILED) {
		e = errno;
		snprintf(err, errlen, "cannot map the BPF ring: %s",
		    strerror(e));
		goto fail;
	}
	fb->fb_cons = p;
	if ((p = mmap(NULL, fb->fb_page + 2 * fb->fb_size, PROT_READ,
	    MAP_SHARED, fb->fb_ring, (off_t)fb->fb_page)) == MAP_FAILED) {
		e = errno;
		snprintf(err, errlen, "cannot map the BPF ring: %s",
		    strerror(e));
		goto fail;
	}
	fb->fb_prod = p;
	fb->fb_data = (uint8_t *)p + fb->fb_page;
	/* the whole copy until the daemon says what its clauses use */
	if (ft_bpf_set(fb->fb_conf, 1, FT_BPF_STACK) == -1) {
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
	return ft_bpf_set(fb->fb_conf, 0, (uint64_t)off);
}

/*
 * Copy at most len bytes of the user stack into each sample from now on
 * (0: none; more than FT_BPF_STACK: FT_BPF_STACK).  0, or -1 with errno.
 */
int
ft_bpf_stack(ft_bpf_t *fb, size_t len)
{
	return ft_bpf_set(fb->fb_conf, 1, len > FT_BPF_STACK ? FT_BPF_STACK :
	    (uint64_t)len);
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
	union bpf_attr a;
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
	n = ft_bpf_ldmap(insn, n, R1, fb->fb_ring);
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
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (uint64_t)(uintptr_t)"sched_process_exec";
	a.raw_tracepoint.prog_fd = (uint32_t)fb->fb_execprog;
	if ((fb->fb_exec = (int)ft_bpf_sys(BPF_RAW_TRACEPOINT_OPEN, &a,
	    sizeof(a))) == -1) {
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
	return fb->fb_ring;
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
 * Hand every complete record to fn, oldest first, and free its room.
 * Returns the number of records.
 */
size_t
ft_bpf_drain(ft_bpf_t *fb, void (*fn)(void *, const ft_bpfrec_t *),
    void *arg)
{
	uint64_t cons, prod, mask = fb->fb_size - 1;
	size_t n = 0;

	cons = __atomic_load_n(fb->fb_cons, __ATOMIC_RELAXED);
	prod = __atomic_load_n(fb->fb_prod, __ATOMIC_ACQUIRE);
	while (cons < prod) {
		uint32_t *hdr = (uint32_t *)(void *)(fb->fb_data +
		    (cons & mask));
		uint32_t h = __atomic_load_n(hdr, __ATOMIC_ACQUIRE), len;

		if (h & BPF_RINGBUF_BUSY_BIT)
			break;
		len = h & ~(uint32_t)(BPF_RINGBUF_BUSY_BIT |
		    BPF_RINGBUF_DISCARD_BIT);
		if (!(h & BPF_RINGBUF_DISCARD_BIT) &&
		    len >= offsetof(ft_bpfrec_t, br_stack) &&
		    ((const ft_bpfrec_t *)(const void *)(hdr + 2))->br_stklen <=
		    len - offsetof(ft_bpfrec_t, br_stack)) {
			fn(arg, (const ft_bpfrec_t *)(const void *)(hdr + 2));
			n++;
		}
		cons += (len + BPF_RINGBUF_HDR_SZ + 7) & ~(uint64_t)7;
		__atomic_store_n(fb->fb_cons, cons, __ATOMIC_RELEASE);
		if (cons >= prod)
			prod = __atomic_load_n(fb->fb_prod, __ATOMIC_ACQUIRE);
	}
	return n;
}

/* Samples lost so far on each CPU (cumulative); returns the CPU count. */
int
ft_bpf_lost(const ft_bpf_t *fb, uint64_t *v, int max)
{
	union bpf_attr a;
	uint64_t *all;
	uint32_t key = 0;
	int i, n;

	/* one 8-byte value per possible CPU */
	if ((all = calloc((size_t)fb->fb_ncpu, 8)) == NULL)
		return -1;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fb->fb_lost;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)all;
	if (ft_bpf_sys(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)) == -1) {
		free(all);
		return -1;
	}
	n = fb->fb_ncpu < max ? fb->fb_ncpu : max;
	for (i = 0; i < n; i++)
		v[i] = all[i];
	free(all);
	return n;
}
