/*
 * ft_inline.c: trap-free probes.  A function entry whose first
 * instructions can run elsewhere gets a 5-byte jmp to a stub of ours in
 * the traced process: the stub records the hit into a ring the process
 * shares with the daemon (some 30 ns a recorded hit, a few ns a dropped
 * one; no trap, no system call), runs the displaced instructions, and
 * jumps back.  Sites that cannot be patched so stay kernel uprobes: the
 * inline backend is the uprobe backend (ft_uprobe.c) with this file
 * putting the sites it can in place itself (ft_uprobe.c calls
 * ft_inline_sync, ft_inline_gather and ft_inline_drain, ft_inline_kids,
 * ft_inline_release).
 *
 * In the process (mapped by system calls run in a stopped thread;
 * ft_ptrace_syscall):
 * - the ring: a memfd, MAP_SHARED with the daemon (which takes the
 *   descriptor with pidfd_getfd), MADV_DONTFORK so that a child has
 *   none; a header (the reservation counter, drops) and 1 KiB slots;
 * - per 2 GiB reach of the patched text, an area: a config page (the
 *   ring's address, its mask, where glibc keeps the thread id and the
 *   rseq area, the stack bound), private and MADV_WIPEONFORK, so that in
 *   a fork child the ring's address reads 0 and the stubs record
 *   nothing; above it, read-execute code: the common recorder
 *   (ft_inl_blob, below) and the stubs.  The code is written through
 *   /proc/PID/mem: the process never has a writable and executable
 *   mapping.
 *
 * A hit: the stub steps over the red zone, saves %rax, calls the
 * recorder with the stub's index; the recorder takes a position with
 * one lock xadd, claims its slot with a cmpxchg (a slot still in use:
 * the hit is counted as dropped), writes the thread id (glibc's struct
 * pthread, at an offset checked against every thread when the ring is
 * mapped), the time and CPU (once the slot is ours: rdtsc and the CPU
 * in the thread's rseq area where glibc registered one, at an offset
 * checked on every thread; else rdtscp, 19 ns in a VM here against 10),
 * the registers, and the stack from %rsp to the end of its page (never
 * past: a read past could fault), bounded by the users' need, and marks
 * the slot committed.  Every hit is either recorded once or counted
 * once as dropped.
 *
 * Patching needs every thread stopped.  While ptrace holds a command
 * (-c, before it runs) its thread does it, the held thread stopped
 * (fb_held), so the command's first calls are recorded; after, a
 * private PTRACE_SEIZE of each thread (repeated until no new thread
 * shows up), interrupted, then detached with any signal that arrived
 * meanwhile.  A thread in the way (between the first and the last byte
 * about to change, or in a uprobe's out-of-line slot, which returns
 * into them) is single-stepped out of it first.  A patch is written over
 * a uprobe's int3 only where our own link put one (the kernel, when that
 * uprobe goes, finds no int3 of its own there and writes nothing), never
 * over anyone else's.  A function is patched only if its first
 * instructions (at least 5 bytes) relocate (no call, return or trap
 * among them; %rip-relative operands and jcc/jmp targets within reach
 * of the stub, which takes them in their rel32 forms), no direct branch
 * of its whole module lands inside them (found by one sweep of the
 * module's text: glibc's string functions jump into each other's
 * prologues), it has no indirect jmp (a jump table's targets are not
 * known), and no other site lies inside them.
 *
 * Release restores every patched function's bytes (the file's) under
 * the same kind of stop, and zeroes the config pages' ring address.
 * The code and the ring stay mapped: a thread preempted in a stub, or a
 * signal frame that returns into one, must find it there.  An exec
 * takes them all with the image.  A fork child's copy of the patches is
 * restored by the drain thread (ft_inline_kids).  If the daemon dies,
 * the patches stay and do what they did: the ring fills and each hit is
 * a dropped one; the program is otherwise unchanged.
 *
 * Time: the TSC, turned into CLOCK_MONOTONIC by pairs of both read by
 * the drain (the kernel's clock here is the same counter, scaled): a
 * record is placed between the pairs around it, so that its time
 * orders it against the uprobe records (bpf_ktime_get_ns) of the same
 * thread, entry before return.
 */
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ft.h"

#define	FT_INL_SLOT	1024		/* bytes of a ring slot */
#define	FT_INL_RINGHDR	4096		/* head, drops; then the slots */
#define	FT_INL_STKOFF	248		/* the stack copy in a slot */
#define	FT_INL_STKMAX	(FT_INL_SLOT - FT_INL_STKOFF)
#define	FT_INL_CFG	4096		/* an area's config page */
#define	FT_INL_CODE	(256 * 1024)	/* an area's code */
#define	FT_INL_STUB	64		/* bytes per stub */
#define	FT_INL_STUBHDR	25		/* the stub before the displaced code */
#define	FT_INL_MAXAREA	8
#define	FT_INL_REACH	(1UL << 30)	/* from an area to what it patches */
#define	FT_INL_TRIES	100		/* stops till no thread is in the way */
#define	FT_INL_STEPS	64		/* steps to get a thread out of it */
#define	FT_INL_MAXRING	(64UL << 20)	/* each drain pass reads every slot */
#define	FT_INL_MAXKIDS	64		/* fork children remembered */

#define	FT_INL_FREE	0
#define	FT_INL_CLAIMED	1
#define	FT_INL_DONE	2

/* A ring slot, as the recorder writes it. */
typedef struct ft_inlrec {
	uint32_t	ir_commit;	/* FT_INL_* */
	uint32_t	ir_stub;
	uint32_t	ir_tid;
	uint32_t	ir_cpu;
	uint64_t	ir_tsc;
	uint32_t	ir_stklen;
	uint32_t	ir_pad;
	struct user_regs_struct ir_regs;	/* the general registers */
	uint8_t		ir_stack[FT_INL_STKMAX];
} ft_inlrec_t;

/* An area's config page, as the recorder reads it. */
typedef struct ft_inlcfg {
	uint64_t	ic_ring;	/* the ring's address; 0: no records */
	uint64_t	ic_mask;	/* slots - 1 */
	uint32_t	ic_tidoff;	/* thread id - %fs base */
	uint32_t	ic_stklen;	/* stack bytes to copy at most */
	uint32_t	ic_rseqoff;	/* struct rseq - %fs base; 0: rdtscp */
	uint32_t	ic_pad;
} ft_inlcfg_t;

/*
 * The recorder, copied to the start of each area's code: called by a
 * stub with the stub's index in %eax and %rax saved above the return
 * address, 128 bytes below the probed function's %rsp.  Flags are dead
 * at a function entry; the direction flag is clear there.  Offsets are
 * ft_inlrec_t's and struct user_regs_struct's (checked below); the
 * config page is the page before the code.
 */
__asm__(
	".pushsection .rodata.ft_inl, \"a\", @progbits\n"
	".globl ft_inl_blob\n"
	".hidden ft_inl_blob\n"
	".globl ft_inl_blob_end\n"
	".hidden ft_inl_blob_end\n"
	".p2align 6\n"
"ft_inl_blob:\n"
".Lft_inl_b:\n"
	"pushq %rcx\n"
	"pushq %rdx\n"
	"pushq %rsi\n"
	"pushq %rdi\n"
	"pushq %r8\n"
	"pushq %r9\n"
	"pushq %r10\n"
	"pushq %r11\n"
	"movq .Lft_inl_b-4096(%rip), %r8\n"	/* ic_ring */
	"testq %r8, %r8\n"
	"jz 2f\n"
	"movl %eax, %r9d\n"
	"movl $1, %eax\n"
	"lock xaddq %rax, (%r8)\n"
	"andq .Lft_inl_b-4088(%rip), %rax\n"	/* ic_mask */
	"shlq $10, %rax\n"
	"leaq 4096(%r8,%rax), %r10\n"
	"movl (%r10), %eax\n"
	"testl %eax, %eax\n"
	"jnz 3f\n"
	"movl $1, %r11d\n"
	"lock cmpxchgl %r11d, (%r10)\n"
	"jnz 3f\n"
	/* the slot is ours: the CPU from rseq and rdtsc, or rdtscp */
	"movl .Lft_inl_b-4072(%rip), %eax\n"	/* ic_rseqoff */
	"testl %eax, %eax\n"
	"jz 4f\n"
	"movl %fs:4(%rax), %ecx\n"	/* struct rseq's cpu_id */
	"rdtsc\n"
	"jmp 5f\n"
"4:\n"
	"rdtscp\n"
	"andl $0xfff, %ecx\n"
"5:\n"
	"shlq $32, %rdx\n"
	"orq %rax, %rdx\n"
	"movl %r9d, 4(%r10)\n"
	"movl %ecx, 12(%r10)\n"
	"movq %rdx, 16(%r10)\n"
	"movl .Lft_inl_b-4080(%rip), %eax\n"	/* ic_tidoff */
	"movl %fs:(%rax), %eax\n"
	"movl %eax, 8(%r10)\n"
	"movq %r15, 32(%r10)\n"
	"movq %r14, 40(%r10)\n"
	"movq %r13, 48(%r10)\n"
	"movq %r12, 56(%r10)\n"
	"movq %rbp, 64(%r10)\n"
	"movq %rbx, 72(%r10)\n"
	"movq 0(%rsp), %rax\n"
	"movq %rax, 80(%r10)\n"		/* r11 */
	"movq 8(%rsp), %rax\n"
	"movq %rax, 88(%r10)\n"		/* r10 */
	"movq 16(%rsp), %rax\n"
	"movq %rax, 96(%r10)\n"		/* r9 */
	"movq 24(%rsp), %rax\n"
	"movq %rax, 104(%r10)\n"	/* r8 */
	"movq 72(%rsp), %rax\n"
	"movq %rax, 112(%r10)\n"	/* rax */
	"movq 56(%rsp), %rax\n"
	"movq %rax, 120(%r10)\n"	/* rcx */
	"movq 48(%rsp), %rax\n"
	"movq %rax, 128(%r10)\n"	/* rdx */
	"movq 40(%rsp), %rax\n"
	"movq %rax, 136(%r10)\n"	/* rsi */
	"movq 32(%rsp), %rax\n"
	"movq %rax, 144(%r10)\n"	/* rdi */
	"leaq 208(%rsp), %rsi\n"
	"movq %rsi, 184(%r10)\n"	/* rsp */
	"movq %fs:0, %rax\n"
	"movq %rax, 200(%r10)\n"	/* fs_base */
	"movl %esi, %ecx\n"
	"andl $4095, %ecx\n"
	"negl %ecx\n"
	"addl $4096, %ecx\n"
	"movl .Lft_inl_b-4076(%rip), %eax\n"	/* ic_stklen */
	"cmpl %eax, %ecx\n"
	"cmoval %eax, %ecx\n"
	"movl %ecx, 24(%r10)\n"
	"leaq 248(%r10), %rdi\n"
	"rep movsb\n"
	"movl $2, (%r10)\n"
"2:\n"
	"popq %r11\n"
	"popq %r10\n"
	"popq %r9\n"
	"popq %r8\n"
	"popq %rdi\n"
	"popq %rsi\n"
	"popq %rdx\n"
	"popq %rcx\n"
	"ret\n"
"3:\n"
	"lock incq 64(%r8)\n"
	"jmp 2b\n"
"ft_inl_blob_end:\n"
	".popsection\n");

extern const uint8_t ft_inl_blob[], ft_inl_blob_end[];

_Static_assert(offsetof(ft_inlrec_t, ir_regs) == 32, "slot layout");
_Static_assert(offsetof(ft_inlrec_t, ir_stack) == FT_INL_STKOFF,
    "slot layout");
_Static_assert(sizeof(ft_inlrec_t) == FT_INL_SLOT, "slot size");
_Static_assert(offsetof(struct user_regs_struct, rsp) == 152, "regs");
_Static_assert(offsetof(struct user_regs_struct, fs_base) == 168, "regs");
_Static_assert(offsetof(ft_inlcfg_t, ic_stklen) == 20, "config layout");
_Static_assert(offsetof(ft_inlcfg_t, ic_rseqoff) == 24, "config layout");

/* A patched (or once patched) function entry and its stub. */
typedef struct ft_inlstub {
	uint64_t	is_addr;	/* the site */
	uint64_t	is_stub;	/* the stub, in an area's code */
	uint8_t		is_orig[16];	/* the file's bytes there */
	uint8_t		is_len;		/* bytes the jmp covers */
	uint8_t		is_patched;	/* the jmp is in place */
	uint8_t		is_refused;	/* cannot be: uprobes keep it */
} ft_inlstub_t;

/*
 * The direct branch targets of a module's text (runtime addresses,
 * sorted): a branch from anywhere in it may land inside a patch (glibc's
 * string functions jump into each other's first instructions).
 */
typedef struct ft_inlmod {
	uint64_t	im_lo;		/* the module's lowest address */
	uint64_t	im_bias;
	uint64_t	*im_tgt;
	size_t		im_n;
	struct ft_inlmod *im_next;
} ft_inlmod_t;

typedef struct ft_inlarea {
	uint64_t	ia_cfg;		/* its config page; code follows */
	size_t		ia_used;	/* code bytes written */
} ft_inlarea_t;

/* A thread we stopped. */
typedef struct ft_inlthr {
	pid_t		it_tid;
	int		it_sig;		/* to deliver when we let it go */
	struct user_regs_struct it_regs;
} ft_inlthr_t;

struct ft_inl {
	pthread_mutex_t	in_lock;	/* the stubs: sync against drain */
	int		in_state;	/* 0 not yet, 1 ring mapped, -1 never */
	uint8_t		*in_ring;	/* our mapping */
	size_t		in_ringsize;
	uint64_t	in_nslots;
	uint64_t	in_tring;	/* the process's mapping */
	uint32_t	in_tidoff;
	uint32_t	in_stklen;
	uint32_t	in_rseqoff;
	ft_inlarea_t	in_areas[FT_INL_MAXAREA];
	ft_inlmod_t	*in_mods;	/* branch targets, by module */
	int		in_nareas;
	ft_inlstub_t	*in_stubs;	/* by stub index */
	size_t		in_nstubs;
	size_t		in_stubcap;
	uint64_t	in_drops;	/* reported so far */
	/* clock pairs: the one before this drain pass and this one's */
	uint64_t	in_tsc[2];
	uint64_t	in_ns[2];
	uint64_t	in_tsc0, in_ns0;	/* the first, for the rate */
	/* fork children whose copies of the patches were restored */
	pid_t		in_kids[FT_INL_MAXKIDS];
	uint64_t	in_kidstart[FT_INL_MAXKIDS];
	int		in_nkids;
	uint32_t	*in_pend;	/* slots drained this pass, by time */
	uint64_t	*in_pendt;
	size_t		in_npend, in_ipend, in_pendcap;
};

static uint64_t
ft_inline_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t
ft_inline_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A pair of counter and clock read as close together as we can. */
static void
ft_inline_clockpair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t a, b, best = UINT64_MAX, t = 0, n = 0;
	int i;

	for (i = 0; i < 3; i++) {
		a = ft_inline_rdtsc();
		n = ft_inline_mono();
		b = ft_inline_rdtsc();
		if (b - a < best) {
			best = b - a;
			t = a + (b - a) / 2;
			*ns = n;
		}
	}
	*tsc = t;
}

/* The clock at counter value tsc. */
static uint64_t
ft_inline_tons(const ft_inl_t *in, uint64_t tsc)
{
	double rate;
	int64_t d;

	/* ns per tick over the whole session; within a pass, its pairs */
	if (in->in_tsc[1] > in->in_tsc[0] && tsc >= in->in_tsc[0] &&
	    tsc <= in->in_tsc[1])
		rate = (double)(in->in_ns[1] - in->in_ns[0]) /
		    (double)(in->in_tsc[1] - in->in_tsc[0]);
	else if (in->in_tsc[1] > in->in_tsc0)
		rate = (double)(in->in_ns[1] - in->in_ns0) /
		    (double)(in->in_tsc[1] - in->in_tsc0);
	else
		rate = 1.0;
	d = (int64_t)(tsc - in->in_tsc[1]);
	return in->in_ns[1] + (uint64_t)(int64_t)((double)d * rate);
}

ft_inl_t *
ft_inline_new(void)
{
	ft_inl_t *in;

	if ((in = calloc(1, sizeof(*in))) == NULL)
		return NULL;
	pthread_mutex_init(&in->in_lock, NULL);
	ft_inline_clockpair(&in->in_tsc0, &in->in_ns0);
	in->in_tsc[0] = in->in_tsc[1] = in->in_tsc0;
	in->in_ns[0] = in->in_ns[1] = in->in_ns0;
	return in;
}

/*
 * The image is gone (exec) or the process is: forget what was in it.
 * The ring stays ours until ft_inline_free; a new image gets a new one.
 */
static void
ft_inline_forget(ft_inl_t *in)
{
	ft_inlmod_t *im;

	if (in->in_ring != NULL)
		munmap(in->in_ring, in->in_ringsize);
	in->in_ring = NULL;
	in->in_tring = 0;
	in->in_nareas = 0;
	in->in_nstubs = 0;
	while ((im = in->in_mods) != NULL) {
		in->in_mods = im->im_next;
		free(im->im_tgt);
		free(im);
	}
	in->in_drops = 0;
	in->in_npend = in->in_ipend = 0;
	in->in_nkids = 0;
	if (in->in_state > 0)
		in->in_state = 0;
}

void
ft_inline_exec(ft_inl_t *in)
{
	if (in == NULL)
		return;
	pthread_mutex_lock(&in->in_lock);
	ft_inline_forget(in);
	pthread_mutex_unlock(&in->in_lock);
}

void
ft_inline_free(ft_inl_t *in)
{
	if (in == NULL)
		return;
	ft_inline_forget(in);
	pthread_mutex_destroy(&in->in_lock);
	free(in->in_stubs);
	free(in->in_pend);
	free(in->in_pendt);
	free(in);
}

/* Is addr a site we patched (and so not the uprobes')? */
int
ft_inline_patched(ft_inl_t *in, uint64_t addr)
{
	size_t i;
	int rc = 0;

	if (in == NULL)
		return 0;
	pthread_mutex_lock(&in->in_lock);
	for (i = 0; i < in->in_nstubs; i++)
		if (in->in_stubs[i].is_addr == addr) {
			rc = in->in_stubs[i].is_patched;
			break;
		}
	pthread_mutex_unlock(&in->in_lock);
	return rc;
}

/* Is addr a site we know, patched or not, and which stub? */
static ft_inlstub_t *
ft_inline_stub(ft_inl_t *in, uint64_t addr)
{
	size_t i;

	for (i = 0; i < in->in_nstubs; i++)
		if (in->in_stubs[i].is_addr == addr)
			return &in->in_stubs[i];
	return NULL;
}

/* One more stub entry, zeroed; NULL if out of memory. */
static ft_inlstub_t *
ft_inline_newstub(ft_inl_t *in)
{
	ft_inlstub_t *ns;
	size_t nc;

	if (in->in_nstubs == in->in_stubcap) {
		nc = in->in_stubcap ? in->in_stubcap * 2 : 64;
		if ((ns = realloc(in->in_stubs, nc * sizeof(*ns))) == NULL)
			return NULL;
		in->in_stubs = ns;
		in->in_stubcap = nc;
	}
	ns = &in->in_stubs[in->in_nstubs++];
	memset(ns, 0, sizeof(*ns));
	return ns;
}

/*
 * Stop every thread of pid: seize each (again until the list holds
 * still), interrupt it, wait for its stop.  Returns the count, or -1
 * (errno) with every thread let go.
 */
static int
ft_inline_stop(pid_t pid, ft_inlthr_t **tp)
{
	ft_inlthr_t *t = NULL, *nt;
	int n = 0, cap = 0, grew, i, st;
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	do {
		grew = 0;
		if ((d = opendir(path)) == NULL)
			goto fail;
		while ((de = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atoi(de->d_name);

			if (tid <= 0)
				continue;
			for (i = 0; i < n; i++)
				if (t[i].it_tid == tid)
					break;
			if (i < n)
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) == -1) {
				if (errno == ESRCH)
					continue;	/* gone */
				closedir(d);
				goto fail;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				if ((nt = realloc(t, (size_t)cap *
				    sizeof(*t))) == NULL) {
					ptrace(PTRACE_DETACH, tid, NULL, NULL);
					closedir(d);
					errno = ENOMEM;
					goto fail;
				}
				t = nt;
			}
			memset(&t[n], 0, sizeof(t[n]));
			t[n].it_tid = tid;
			(void)ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
			for (;;) {
				if (waitpid(tid, &st, __WALL) == -1) {
					if (errno == EINTR)
						continue;
					st = 0;
					t[n].it_tid = -1;
					break;
				}
				if (!WIFSTOPPED(st)) {
					t[n].it_tid = -1;	/* exited */
					break;
				}
				/*
				 * A signal on its way (not our interrupt,
				 * which is an event stop): kept for later.
				 */
				if ((st >> 16) == 0)
					t[n].it_sig = WSTOPSIG(st);
				break;
			}
			if (t[n].it_tid > 0 && ptrace(PTRACE_GETREGS, tid, NULL,
			    &t[n].it_regs) == -1)
				t[n].it_tid = -1;
			n++;
			grew = 1;
		}
		closedir(d);
	} while (grew);
	*tp = t;
	return n;
fail:
	i = errno;
	for (st = 0; st < n; st++)
		if (t[st].it_tid > 0)
			ptrace(PTRACE_DETACH, t[st].it_tid, NULL,
			    (void *)(long)t[st].it_sig);
	free(t);
	errno = i;
	return -1;
}

/* Let them go, each with the signal that arrived while it was ours. */
static void
ft_inline_go(ft_inlthr_t *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].it_tid > 0)
			ptrace(PTRACE_DETACH, t[i].it_tid, NULL,
			    (void *)(long)t[i].it_sig);
	free(t);
}

/* A stopped thread of ours to run system calls in, or NULL. */
static ft_inlthr_t *
ft_inline_runner(ft_inlthr_t *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].it_tid > 0)
			return &t[i];
	return NULL;
}

static long
ft_inline_call(ft_proc_t *p, ft_inlthr_t *r, long nr, long a1, long a2,
    long a3, long a4, long a5, long a6)
{
	ft_thread_t th;
	long rc;

	memset(&th, 0, sizeof(th));
	th.th_tid = r->it_tid;
	th.th_sig = r->it_sig;
	rc = ft_ptrace_syscall(p, &th, nr, a1, a2, a3, a4, a5, a6);
	r->it_sig = th.th_sig;
	return rc;
}

/*
 * Where glibc keeps the thread id, as an offset from %fs: the one
 * offset at which every stopped thread's TCB holds its own tid (glibc
 * 2.36's 0x2d0 first).  -1 if none.
 */
static int64_t
ft_inline_tidoff(ft_proc_t *p, ft_inlthr_t *t, int n)
{
	uint32_t off, v;
	int i, ok, k;

	for (k = -1; k < 0x3c0; k++) {
		off = k < 0 ? 0x2d0 : 0x100 + 4 * (uint32_t)k;
		ok = 0;
		for (i = 0; i < n; i++) {
			if (t[i].it_tid <= 0)
				continue;
			if (t[i].it_regs.fs_base == 0 ||
			    ft_proc_memread(p, t[i].it_regs.fs_base + off, &v,
			    sizeof(v)) == -1 || v != (uint32_t)t[i].it_tid)
				break;
			ok = 1;
		}
		if (i == n && ok)
			return off;
	}
	return -1;
}

/*
 * Where each thread's struct rseq is, as an offset from %fs, if it is
 * the same for every stopped thread (glibc registers one per thread in
 * its TCB): the recorder reads the CPU there and times hits with rdtsc
 * (10 ns here) rather than rdtscp (19 ns).  0 if not.
 */
static uint32_t
ft_inline_rseqoff(ft_inlthr_t *t, int n)
{
	ft_rseqconf_t rc;
	int64_t off = 0, o;
	int i;

	for (i = 0; i < n; i++) {
		if (t[i].it_tid <= 0)
			continue;
		memset(&rc, 0, sizeof(rc));
		if (ptrace(PTRACE_GET_RSEQ_CONFIGURATION, t[i].it_tid,
		    (void *)sizeof(rc), &rc) <= 0 || rc.rseq_abi_pointer == 0 ||
		    t[i].it_regs.fs_base == 0)
			return 0;
		o = (int64_t)(rc.rseq_abi_pointer - t[i].it_regs.fs_base);
		if (o <= 0 || o > INT32_MAX || (off != 0 && o != off))
			return 0;
		off = o;
	}
	return (uint32_t)off;
}

/*
 * Map the ring into the process (and into ours): memfd_create there,
 * its descriptor taken here, sized, mapped there shared and not
 * inherited, closed there.  0, or -1.
 */
static int
ft_inline_mapring(ft_proc_t *p, ft_inl_t *in, ft_inlthr_t *r, size_t size)
{
	static const char name[] = "dtraced";
	uint64_t at = (r->it_regs.rsp - 512) & ~(uint64_t)15;
	long fd, a;
	int myfd = -1, pidfd;
	void *m;

	if (pwrite(p->pr_memfd, name, sizeof(name), (off_t)at) !=
	    (ssize_t)sizeof(name) || (fd = ft_inline_call(p, r,
	    SYS_memfd_create, (long)at, MFD_CLOEXEC, 0, 0, 0, 0)) < 0)
		return -1;
	pidfd = p->pr_pidfd >= 0 ? p->pr_pidfd :
	    (int)syscall(SYS_pidfd_open, p->pr_pid, 0);
	if (pidfd >= 0)
		myfd = (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
	if (pidfd >= 0 && pidfd != p->pr_pidfd)
		close(pidfd);
	if (myfd < 0 || ftruncate(myfd, (off_t)size) == -1)
		goto fail;
	a = ft_inline_call(p, r, SYS_mmap, 0, (long)size,
	    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a < 0 && a > -4096)
		goto fail;
	(void)ft_inline_call(p, r, SYS_madvise, a, (long)size, MADV_DONTFORK,
	    0, 0, 0);
	(void)ft_inline_call(p, r, SYS_close, fd, 0, 0, 0, 0, 0);
	fd = -1;
	if ((m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, myfd,
	    0)) == MAP_FAILED) {
		/* theirs stays: a stub may never find it, none points at it */
		close(myfd);
		return -1;
	}
	close(myfd);
	in->in_ringsize = size;
	in->in_nslots = (size - FT_INL_RINGHDR) / FT_INL_SLOT;
	in->in_tring = (uint64_t)a;
	in->in_ring = m;
	return 0;
fail:
	if (fd >= 0)
		(void)ft_inline_call(p, r, SYS_close, fd, 0, 0, 0, 0, 0);
	if (myfd >= 0)
		close(myfd);
	return -1;
}

/*
 * A free range of len bytes within FT_INL_REACH of [lo, hi), from the
 * process's maps: below lo first (where mmap would not put anything
 * soon), then above hi.  0 if none.
 */
static uint64_t
ft_inline_gap(pid_t pid, uint64_t lo, uint64_t hi, size_t len)
{
	uint64_t prev = 0x10000, best = 0, a, b;
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		/* the gap [prev, a) */
		if (a > prev && a - prev >= len + 2 * 4096) {
			/* the highest, a page off */
			uint64_t top = a - 4096 - len;

			top &= ~(uint64_t)4095;
			if (top + len <= lo && lo - top <= FT_INL_REACH &&
			    top >= prev + 4096)
				best = top;	/* the last below lo: nearest */
			else if (best == 0 && prev >= hi &&
			    prev + 4096 + len - lo <= FT_INL_REACH)
				best = prev + 4096;
		}
		prev = b;
	}
	fclose(f);
	return best;
}

static uint64_t
ft_inline_dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* An area within reach of [lo, hi), made if need be; NULL if none. */
static ft_inlarea_t *
ft_inline_area(ft_proc_t *p, ft_inl_t *in, ft_inlthr_t *r, uint64_t lo,
    uint64_t hi, size_t need)
{
	ft_inlarea_t *ia;
	ft_inlcfg_t cfg;
	uint64_t at, code;
	long a;
	int i;

	for (i = 0; i < in->in_nareas; i++) {
		ia = &in->in_areas[i];
		code = ia->ia_cfg + FT_INL_CFG;
		if (ia->ia_used + need <= FT_INL_CODE &&
		    ft_inline_dist(code, hi) <= FT_INL_REACH * 3 / 2 &&
		    ft_inline_dist(code + FT_INL_CODE, lo) <=
		    FT_INL_REACH * 3 / 2)
			return ia;
	}
	if (in->in_nareas == FT_INL_MAXAREA ||
	    (at = ft_inline_gap(p->pr_pid, lo, hi, FT_INL_CFG +
	    FT_INL_CODE)) == 0)
		return NULL;
	a = ft_inline_call(p, r, SYS_mmap, (long)at, FT_INL_CFG,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	if (a != (long)at)
		return NULL;
	(void)ft_inline_call(p, r, SYS_madvise, a, FT_INL_CFG,
	    MADV_WIPEONFORK, 0, 0, 0);
	a = ft_inline_call(p, r, SYS_mmap, (long)(at + FT_INL_CFG),
	    FT_INL_CODE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	if (a != (long)(at + FT_INL_CFG)) {
		(void)ft_inline_call(p, r, SYS_munmap, (long)at, FT_INL_CFG,
		    0, 0, 0, 0);
		return NULL;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.ic_ring = in->in_tring;
	cfg.ic_mask = in->in_nslots - 1;
	cfg.ic_tidoff = in->in_tidoff;
	cfg.ic_stklen = in->in_stklen;
	cfg.ic_rseqoff = in->in_rseqoff;
	code = at + FT_INL_CFG;
	if (pwrite(p->pr_memfd, ft_inl_blob, (size_t)(ft_inl_blob_end -
	    ft_inl_blob), (off_t)code) != (ssize_t)(ft_inl_blob_end -
	    ft_inl_blob) || pwrite(p->pr_memfd, &cfg, sizeof(cfg),
	    (off_t)at) != (ssize_t)sizeof(cfg))
		return NULL;	/* mapped, unused: harmless */
	ia = &in->in_areas[in->in_nareas++];
	ia->ia_cfg = at;
	ia->ia_used = ((size_t)(ft_inl_blob_end - ft_inl_blob) + 63) & ~63UL;
	return ia;
}

/*
 * The ring and the thread id's offset, under the stop, once per image.
 * 0, or -1 (in_state -1: this process stays on uprobes).
 */
static int
ft_inline_setup(ft_proc_t *p, ft_inl_t *in, ft_inlthr_t *t, int n,
    size_t ringsize)
{
	ft_inlthr_t *r;
	int64_t off;
	size_t size;

	if (in->in_state != 0)
		return in->in_state > 0 ? 0 : -1;
	in->in_state = -1;
	/* no thread id at a fixed place from %fs: not glibc */
	if ((r = ft_inline_runner(t, n)) == NULL ||
	    (off = ft_inline_tidoff(p, t, n)) < 0)
		return -1;
	in->in_tidoff = (uint32_t)off;
	in->in_rseqoff = ft_inline_rseqoff(t, n);
	/* a power of two of slots, and the header */
	if (ringsize > FT_INL_MAXRING)
		ringsize = FT_INL_MAXRING;
	for (size = 64 * FT_INL_SLOT; size * 2 <= ringsize; size *= 2)
		;
	if (ft_inline_mapring(p, in, r, size + FT_INL_RINGHDR) == -1)
		return -1;
	in->in_state = 1;
	return 0;
}

static int
ft_inline_u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Every direct branch target in module m's executable mappings, decoded
 * from its file in one linear sweep (an undecodable byte is stepped
 * over), once per module.  NULL if the text cannot be read.
 */
static ft_inlmod_t *
ft_inline_mod(ft_proc_t *p, ft_inl_t *in, ft_mod_t *m, ft_elf_t *fe)
{
	char path[64], line[PATH_MAX + 128], perm[8], file[PATH_MAX];
	ft_inlmod_t *im;
	uint64_t a, b, off, *nt;
	uint8_t *code;
	size_t cap = 0, len;
	ft_insn_t fi;
	FILE *f;

	for (im = in->in_mods; im != NULL; im = im->im_next)
		if (im->im_lo == m->fm_lo && im->im_bias == m->fm_bias)
			return im;
	if ((im = calloc(1, sizeof(*im))) == NULL)
		return NULL;
	im->im_lo = m->fm_lo;
	im->im_bias = m->fm_bias;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pr_pid);
	if ((f = fopen(path, "re")) == NULL)
		goto fail;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", &a, &b, perm,
		    file) != 4 || perm[2] != 'x' ||
		    strcmp(file, m->fm_path) != 0)
			continue;
		len = b - a;
		if ((code = malloc(len)) == NULL) {
			fclose(f);
			goto fail;
		}
		/* the file's bytes: memory may hold int3s, ours or others' */
		while (len > 0 &&
		    ft_elf_read(fe, a - m->fm_bias, code, len) == -1)
			len = len > 4096 ? len - 4096 : 0;
		for (off = 0; off < len; ) {
			if (ft_isa_decode(code + off, len - off, a + off,
			    &fi) == -1) {
				off++;
				continue;
			}
			if (fi.fi_type == FT_I_JMP || fi.fi_type == FT_I_JCC ||
			    fi.fi_type == FT_I_CALL) {
				if (im->im_n == cap) {
					cap = cap ? cap * 2 : 4096;
					if ((nt = realloc(im->im_tgt, cap *
					    sizeof(*nt))) == NULL) {
						free(code);
						fclose(f);
						goto fail;
					}
					im->im_tgt = nt;
				}
				im->im_tgt[im->im_n++] = fi.fi_target;
			}
			off += fi.fi_len;
		}
		free(code);
	}
	fclose(f);
	if (im->im_n > 1)
		qsort(im->im_tgt, im->im_n, sizeof(uint64_t),
		    ft_inline_u64cmp);
	im->im_next = in->in_mods;
	in->in_mods = im;
	return im;
fail:
	free(im->im_tgt);
	free(im);
	return NULL;
}

/* Does a branch of the module land in (lo, hi)? */
static int
ft_inline_landsin(const ft_inlmod_t *im, uint64_t lo, uint64_t hi)
{
	size_t l = 0, r = im->im_n, mid;

	while (l < r) {		/* the first target > lo */
		mid = l + (r - l) / 2;
		if (im->im_tgt[mid] <= lo)
			l = mid + 1;
		else
			r = mid;
	}
	return l < im->im_n && im->im_tgt[l] < hi;
}

/*
 * A jcc or jmp (rel8 or rel32, no prefix) rewritten at `to' in its
 * rel32 form, to the same target: its length there, 0 if it cannot be
 * (loop, jrcxz, prefixes, out of reach).
 */
static size_t
ft_inline_branch(const uint8_t *c, const ft_insn_t *fi, uint64_t to,
    uint8_t *out)
{
	size_t n;
	int64_t rel;
	int32_t r32;

	if (fi->fi_type == FT_I_JMP && (c[0] == 0xeb || c[0] == 0xe9)) {
		out[0] = 0xe9;
		n = 5;
	} else if (fi->fi_type == FT_I_JCC && c[0] >= 0x70 && c[0] <= 0x7f &&
	    fi->fi_len == 2) {
		out[0] = 0x0f;
		out[1] = (uint8_t)(0x80 + (c[0] - 0x70));
		n = 6;
	} else if (fi->fi_type == FT_I_JCC && c[0] == 0x0f &&
	    c[1] >= 0x80 && c[1] <= 0x8f && fi->fi_len == 6) {
		out[0] = 0x0f;
		out[1] = c[1];
		n = 6;
	} else {
		return 0;
	}
	rel = (int64_t)fi->fi_target - (int64_t)(to + n);
	if (rel < INT32_MIN || rel > INT32_MAX)
		return 0;
	r32 = (int32_t)rel;
	memcpy(out + n - 4, &r32, 4);
	return n;
}

/*
 * Can the function entry at addr be patched?  Its bytes from the file,
 * its first instructions (at least 5 bytes) relocatable to the stub at
 * `to', no branch of the function into them, no other site among them.
 * Fills the stub's code (out, *outlen) and is.
 */
static int
ft_inline_fit(ft_proc_t *p, ft_inl_t *in, uint64_t addr,
    const uint64_t *sites, size_t nsites, uint64_t to, ft_inlstub_t *is,
    uint8_t *out)
{
	const ft_sym_t *sym;
	ft_mod_t *m;
	ft_elf_t *fe;
	uint8_t *code;
	ft_insn_t fi;
	size_t len = 0, off, size, i, o, n;
	ft_inlmod_t *im;
	int64_t rel;

	if (ft_proc_lookup(p, addr, &m, &sym) == -1 || sym == NULL ||
	    sym->fs_addr + m->fm_bias != addr || sym->fs_size < 5 ||
	    sym->fs_size > (1 << 20) ||
	    (fe = ft_proc_mod_elf(p, m, NULL, 0)) == NULL)
		return -1;
	size = sym->fs_size;
	if ((code = malloc(size)) == NULL)
		return -1;
	if (ft_elf_read(fe, sym->fs_addr, code, size) == -1)
		goto no;
	/* the instructions the jmp covers, relocated after the stub head */
	o = FT_INL_STUBHDR;
	while (len < 5) {
		if (ft_isa_decode(code + len, size - len, addr + len,
		    &fi) == -1)
			goto no;
		if (o + fi.fi_len + 4 + 5 > FT_INL_STUB)
			goto no;
		switch (fi.fi_type) {
		case FT_I_COMMON:
		case FT_I_PUSH:
		case FT_I_NOP:
		case FT_I_ENDBR:
			break;
		case FT_I_JCC:
		case FT_I_JMP:
			/* to its target from the stub: rel32 forms */
			if ((n = ft_inline_branch(code + len, &fi, to + o,
			    out + o)) == 0)
				goto no;
			o += n;
			len += fi.fi_len;
			continue;
		default:
			goto no;	/* calls, returns, traps, syscall */
		}
		if (fi.fi_riprel && ft_isa_relocate(code + len, &fi,
		    addr + len, to + o, out + o) == -1)
			goto no;
		if (!fi.fi_riprel)
			memcpy(out + o, code + len, fi.fi_len);
		o += fi.fi_len;
		len += fi.fi_len;
	}
	if (len > sizeof(is->is_orig) || o + 5 > FT_INL_STUB)
		goto no;
	/* no jump table in the function, no branch of the module inside */
	for (off = 0; off < size; off += fi.fi_len) {
		if (ft_isa_decode(code + off, size - off, addr + off,
		    &fi) == -1)
			goto no;
		if (fi.fi_type == FT_I_JMPIND)
			goto no;
	}
	if ((im = ft_inline_mod(p, in, m, fe)) == NULL ||
	    ft_inline_landsin(im, addr, addr + len))
		goto no;
	for (i = 0; i < nsites; i++)
		if (sites[i] > addr && sites[i] < addr + len)
			goto no;
	/* back to the instruction after them */
	out[o] = 0xe9;
	rel = (int64_t)(addr + len) - (int64_t)(to + o + 5);
	if (rel < INT32_MIN || rel > INT32_MAX)
		goto no;
	memcpy(out + o + 1, &(int32_t){ (int32_t)rel }, 4);
	memcpy(is->is_orig, code, len);
	is->is_len = (uint8_t)len;
	free(code);
	return 0;
no:
	free(code);
	return -1;
}

/* The stub's head: red zone, %rax, index, call the recorder, back. */
static void
ft_inline_stubhead(uint8_t *out, uint32_t idx, uint64_t to, uint64_t rec)
{
	static const uint8_t lea[] = { 0x48, 0x8d, 0x64, 0x24, 0x80 };
	static const uint8_t unlea[] = { 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00,
	    0x00, 0x00 };
	int32_t rel = (int32_t)((int64_t)rec - (int64_t)(to + 16));

	memcpy(out, lea, sizeof(lea));
	out[5] = 0x50;				/* push %rax */
	out[6] = 0xb8;				/* mov $idx, %eax */
	memcpy(out + 7, &idx, 4);
	out[11] = 0xe8;				/* call rec */
	memcpy(out + 12, &rel, 4);
	out[16] = 0x58;				/* pop %rax */
	memcpy(out + 17, unlea, sizeof(unlea));
}

/* The uprobes' out-of-line page of pid ([uprobes]), or 0s. */
static void
ft_inline_xol(pid_t pid, uint64_t *xlo, uint64_t *xhi)
{
	char path[64], line[512];
	uint64_t a, b;
	FILE *f;

	*xlo = *xhi = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "[uprobes]") != NULL &&
		    sscanf(line, "%lx-%lx", &a, &b) == 2) {
			*xlo = a;
			*xhi = b;
		}
	fclose(f);
}

/*
 * Would the bytes about to change hurt a thread at rip: inside a
 * covered range (past its first byte), or in a uprobe's out-of-line
 * slot (it returns into the range)?
 */
static int
ft_inline_blocked(uint64_t rip, const uint64_t *lo, const uint8_t *len,
    size_t nr, uint64_t xlo, uint64_t xhi)
{
	size_t k;

	if (rip >= xlo && rip < xhi)
		return 1;
	for (k = 0; k < nr; k++)
		if (rip > lo[k] && rip < lo[k] + len[k])
			return 1;
	return 0;
}

/*
 * Move every stopped thread out of the way, a single step at a time (a
 * uprobe's out-of-line step ends, the displaced instructions run from
 * the unpatched text).  0 when none is in the way, -1 if one stays
 * (after FT_INL_STEPS steps) or went away.
 */
static int
ft_inline_clear(pid_t pid, ft_inlthr_t *t, int n, const uint64_t *lo,
    const uint8_t *len, size_t nr)
{
	uint64_t xlo, xhi;
	int i, k, st;

	ft_inline_xol(pid, &xlo, &xhi);
	for (i = 0; i < n; i++) {
		if (t[i].it_tid <= 0)
			continue;
		for (k = 0; ft_inline_blocked(t[i].it_regs.rip, lo, len, nr,
		    xlo, xhi); k++) {
			if (k == FT_INL_STEPS || ptrace(PTRACE_SINGLESTEP,
			    t[i].it_tid, NULL, NULL) == -1)
				return -1;
			while (waitpid(t[i].it_tid, &st, __WALL) == -1)
				if (errno != EINTR)
					return -1;
			if (!WIFSTOPPED(st)) {
				t[i].it_tid = -1;	/* gone */
				break;
			}
			/* a signal came instead: it goes at the detach */
			if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP)
				t[i].it_sig = WSTOPSIG(st);
			if (ptrace(PTRACE_GETREGS, t[i].it_tid, NULL,
			    &t[i].it_regs) == -1)
				return -1;
		}
	}
	return 0;
}

/* Write the jmp (and int3s after it) over a site, or its bytes back. */
static int
ft_inline_poke(ft_proc_t *p, const ft_inlstub_t *is, int on)
{
	uint8_t b[16];
	int32_t rel;

	if (on) {
		memset(b, 0xcc, sizeof(b));
		b[0] = 0xe9;
		rel = (int32_t)((int64_t)is->is_stub - (int64_t)(is->is_addr +
		    5));
		memcpy(b + 1, &rel, 4);
	} else {
		memcpy(b, is->is_orig, is->is_len);
	}
	return pwrite(p->pr_memfd, b, is->is_len, (off_t)is->is_addr) ==
	    (ssize_t)is->is_len ? 0 : -1;
}

/*
 * Does memory at the site hold the file's bytes (an int3 at the first
 * byte allowed where the caller knows a uprobe of ours is there)?
 * Anyone else's patch or breakpoint is not ours to cover: its owner
 * would put its byte back over our jmp.
 */
static int
ft_inline_pristine(ft_proc_t *p, const ft_inlstub_t *is, int uprobed)
{
	uint8_t b[16];

	if (ft_proc_memread(p, is->is_addr, b, is->is_len) == -1)
		return 0;
	if (b[0] == 0xcc && uprobed)
		b[0] = is->is_orig[0];
	return memcmp(b, is->is_orig, is->is_len) == 0;
}

/* A wider (or narrower) stack copy for the areas there are. */
static void
ft_inline_stklen(ft_proc_t *p, ft_inl_t *in, uint32_t stklen)
{
	int i;

	if (in->in_state > 0 && stklen != in->in_stklen)
		for (i = 0; i < in->in_nareas; i++)
			(void)!pwrite(p->pr_memfd, &stklen, sizeof(stklen),
			    (off_t)(in->in_areas[i].ia_cfg +
			    offsetof(ft_inlcfg_t, ic_stklen)));
	in->in_stklen = stklen;
}

/* Would a sync change anything: an entry not tried, a patch unwanted? */
static int
ft_inline_todo(ft_proc_t *p, ft_inl_t *in, const uint64_t *want,
    size_t nwant)
{
	const ft_sym_t *sym;
	ft_inlstub_t *is;
	ft_mod_t *m;
	size_t i, j;

	for (i = 0; i < nwant; i++)
		if ((is = ft_inline_stub(in, want[i])) == NULL ?
		    (ft_proc_lookup(p, want[i], &m, &sym) == 0 && sym != NULL &&
		    sym->fs_addr + m->fm_bias == want[i]) :
		    !is->is_patched && !is->is_refused)
			return 1;
	for (i = 0; i < in->in_nstubs; i++) {
		if (!in->in_stubs[i].is_patched)
			continue;
		for (j = 0; j < nwant; j++)
			if (want[j] == in->in_stubs[i].is_addr)
				break;
		if (j == nwant)
			return 1;
	}
	return 0;
}

/* A sync's request, and its scratch: the ranges about to change. */
typedef struct ft_inlreq {
	ft_inl_t	*iq_in;
	const uint64_t	*iq_want;
	const uint8_t	*iq_linked;	/* may hold a uprobe's int3 */
	size_t		iq_nwant;
	size_t		iq_ringsize;
	uint64_t	*iq_lo;
	uint8_t		*iq_len;
} ft_inlreq_t;

#define	FT_INL_INWAY	(-2)

/*
 * With the threads t[n] stopped: the ring (once per image), stubs for
 * the wanted entries that fit, every thread stepped out of the ranges
 * about to change, then the patches written and the unwanted restored.
 * Returns the number patched, -1 (errno), or FT_INL_INWAY if a thread
 * stays in the way (nothing written to the text).  held: the grabbing
 * backend holds the process, so an int3 at a site is its own, never a
 * uprobe's to write over.
 */
static int
ft_inline_apply(ft_proc_t *p, ft_inlreq_t *q, ft_inlthr_t *t, int n,
    int held)
{
	ft_inl_t *in = q->iq_in;
	const uint64_t *want = q->iq_want;
	size_t nwant = q->iq_nwant, i, j, nnew = 0, nold = 0;
	uint8_t code[FT_INL_STUB];
	ft_inlstub_t *is, cand;
	const ft_sym_t *sym;
	ft_inlarea_t *ia;
	ft_mod_t *m;
	int rc = 0;

	if (ft_inline_setup(p, in, t, n, q->iq_ringsize) == -1) {
		errno = ENOTSUP;
		return -1;
	}
	/* the ranges about to change: new patches, and old ones */
	for (i = 0; i < nwant; i++) {
		if ((is = ft_inline_stub(in, want[i])) != NULL) {
			if (!is->is_patched && !is->is_refused) {
				q->iq_lo[nnew] = is->is_addr;
				q->iq_len[nnew++] = is->is_len;
			}
			continue;
		}
		if (ft_proc_lookup(p, want[i], &m, &sym) == -1 ||
		    sym == NULL || sym->fs_addr + m->fm_bias != want[i])
			continue;	/* not an entry: a uprobe's */
		if ((is = ft_inline_newstub(in)) == NULL)
			continue;
		is->is_addr = want[i];
		is->is_refused = 1;
		if ((ia = ft_inline_area(p, in, ft_inline_runner(t, n),
		    want[i], want[i] + 16, FT_INL_STUB)) == NULL)
			continue;
		memset(&cand, 0, sizeof(cand));
		cand.is_addr = want[i];
		cand.is_stub = ia->ia_cfg + FT_INL_CFG + ia->ia_used;
		memset(code, 0xcc, sizeof(code));
		if (ft_inline_fit(p, in, want[i], want, nwant, cand.is_stub,
		    &cand, code) == -1)
			continue;
		ft_inline_stubhead(code, (uint32_t)(is - in->in_stubs),
		    cand.is_stub, ia->ia_cfg + FT_INL_CFG);
		if (pwrite(p->pr_memfd, code, sizeof(code),
		    (off_t)cand.is_stub) != (ssize_t)sizeof(code))
			continue;
		ia->ia_used += FT_INL_STUB;
		*is = cand;
		q->iq_lo[nnew] = cand.is_addr;
		q->iq_len[nnew++] = cand.is_len;
	}
	for (i = 0; i < in->in_nstubs; i++) {
		is = &in->in_stubs[i];
		if (!is->is_patched)
			continue;
		for (j = 0; j < nwant; j++)
			if (want[j] == is->is_addr)
				break;
		if (j == nwant) {
			q->iq_lo[nnew + nold] = is->is_addr;
			q->iq_len[nnew + nold++] = is->is_len;
		}
	}
	if (ft_inline_clear(p->pr_pid, t, n, q->iq_lo, q->iq_len,
	    nnew + nold) == -1)
		return FT_INL_INWAY;
	/* the way is clear: patch and restore */
	for (i = 0; i < in->in_nstubs; i++) {
		is = &in->in_stubs[i];
		for (j = 0; j < nwant; j++)
			if (want[j] == is->is_addr)
				break;
		if (j < nwant && !is->is_patched && !is->is_refused) {
			if (!ft_inline_pristine(p, is, !held &&
			    q->iq_linked != NULL && q->iq_linked[j]) ||
			    ft_inline_poke(p, is, 1) == -1)
				continue;
			is->is_patched = 1;
			rc++;
		} else if (j == nwant && is->is_patched) {
			if (ft_inline_poke(p, is, 0) == 0)
				is->is_patched = 0;
		}
	}
	return rc;
}

/* fb_held's function: apply on the thread that holds the process. */
static int
ft_inline_heldfn(void *arg, ft_proc_t *p, pid_t tid)
{
	ft_inlthr_t t;
	int rc;

	memset(&t, 0, sizeof(t));
	t.it_tid = tid;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &t.it_regs) == -1)
		return -1;
	rc = ft_inline_apply(p, arg, &t, 1, 1);
	/* a signal that came during a step in it: sent again */
	if (t.it_sig != 0)
		(void)syscall(SYS_tgkill, p->pr_pid, tid, t.it_sig);
	return rc;
}

/*
 * Put the wanted sites in place: patch those that fit and are not yet
 * patched, restore those patched and no longer wanted.  want: the
 * wanted sites' addresses (every site of the table, for the overlap
 * check); linked: for each, whether a uprobe of ours may be there.
 * Does nothing (0) when nothing changes.  Returns the number of sites
 * patched now, or -1 (errno) if the threads could not be stopped or
 * kept out of the way (the sites stay as they were: uprobes).  Under
 * a hold the holding backend's thread does it (its process stopped);
 * else every thread is stopped here, a private seize.
 */
int
ft_inline_sync(ft_proc_t *p, ft_inl_t *in, const uint64_t *want,
    const uint8_t *linked, size_t nwant, size_t ringsize, size_t stklen)
{
	ft_inlreq_t q;
	ft_inlthr_t *t;
	int n, rc = 0, tries;

	if (in == NULL || in->in_state < 0 || p->pr_memfd < 0)
		return 0;
	memset(&q, 0, sizeof(q));
	pthread_mutex_lock(&in->in_lock);
	if (stklen > FT_INL_STKMAX)
		stklen = FT_INL_STKMAX;
	ft_inline_stklen(p, in, (uint32_t)stklen);
	if (!ft_inline_todo(p, in, want, nwant))
		goto out;
	q.iq_in = in;
	q.iq_want = want;
	q.iq_linked = linked;
	q.iq_nwant = nwant;
	q.iq_ringsize = ringsize;
	if ((q.iq_lo = calloc(2 * nwant + in->in_nstubs + 1,
	    sizeof(uint64_t))) == NULL || (q.iq_len = calloc(2 * nwant +
	    in->in_nstubs + 1, 1)) == NULL) {
		rc = -1;
		goto out;
	}
	rc = ft_proc_heldcall(p, ft_inline_heldfn, &q);
	if (rc == -1 && errno == EAGAIN) {
		/* not held (any more): our own stop */
		for (tries = 0; tries < FT_INL_TRIES; tries++) {
			if ((n = ft_inline_stop(p->pr_pid, &t)) == -1) {
				rc = -1;
				break;
			}
			rc = ft_inline_apply(p, &q, t, n, 0);
			ft_inline_go(t, n);
			if (rc != FT_INL_INWAY)
				break;
			usleep(1000);
		}
	}
	if (rc == FT_INL_INWAY) {
		errno = EBUSY;
		rc = -1;
	}
out:
	free(q.iq_lo);
	free(q.iq_len);
	pthread_mutex_unlock(&in->in_lock);
	return rc;
}

/*
 * With the threads stopped: every patch restored, the config pages'
 * ring address zeroed (a stub a thread is still in records nothing).
 * fb_held's form.
 */
static int
ft_inline_unpatch(void *arg, ft_proc_t *p, pid_t tid)
{
	ft_inl_t *in = arg;
	uint64_t zero = 0;
	size_t i;

	(void)tid;
	for (i = 0; i < in->in_nstubs; i++)
		if (in->in_stubs[i].is_patched &&
		    ft_inline_poke(p, &in->in_stubs[i], 0) == 0)
			in->in_stubs[i].is_patched = 0;
	for (i = 0; i < (size_t)in->in_nareas; i++)
		(void)!pwrite(p->pr_memfd, &zero, sizeof(zero),
		    (off_t)in->in_areas[i].ia_cfg);
	return 0;
}

/*
 * Let the process go: every patch restored, the config pages' ring
 * address zeroed, under a stop (the holder's, if it is held).  What is
 * mapped stays.
 */
void
ft_inline_release(ft_proc_t *p, ft_inl_t *in)
{
	ft_inlthr_t *t = NULL;
	size_t i;
	int n = 0, any = 0;

	if (in == NULL || in->in_state <= 0 || p->pr_memfd < 0)
		return;
	pthread_mutex_lock(&in->in_lock);
	for (i = 0; i < in->in_nstubs; i++)
		any |= in->in_stubs[i].is_patched;
	if (!any) {
		/* no jmp: no thread can be in a stub, nothing to stop */
		(void)ft_inline_unpatch(in, p, 0);
	} else if (ft_proc_heldcall(p, ft_inline_unpatch, in) == -1 &&
	    errno == EAGAIN) {
		/* not held: our own stop (a process we cannot stop is gone) */
		if ((n = ft_inline_stop(p->pr_pid, &t)) > 0) {
			(void)ft_inline_unpatch(in, p, 0);
			ft_inline_go(t, n);
		}
	}
	pthread_mutex_unlock(&in->in_lock);
}

static int
ft_inline_pendcmp(const void *a, const void *b, void *arg)
{
	const uint64_t *t = arg;
	uint64_t x = t[*(const uint32_t *)a], y = t[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/*
 * Start a drain pass: a clock pair, and every committed record taken
 * in time order.  Returns how many.
 */
size_t
ft_inline_gather(ft_inl_t *in)
{
	ft_inlrec_t *r;
	uint8_t *ring;
	uint64_t i, nslots;
	size_t n = 0;

	if (in == NULL)
		return 0;
	in->in_tsc[0] = in->in_tsc[1];
	in->in_ns[0] = in->in_ns[1];
	ft_inline_clockpair(&in->in_tsc[1], &in->in_ns[1]);
	in->in_npend = in->in_ipend = 0;
	/* mapped by a sync on another thread, unmapped only on this one */
	pthread_mutex_lock(&in->in_lock);
	ring = in->in_ring;
	nslots = in->in_nslots;
	pthread_mutex_unlock(&in->in_lock);
	if (ring == NULL)
		return 0;
	if (in->in_pendcap < nslots) {
		free(in->in_pend);
		free(in->in_pendt);
		in->in_pendcap = 0;
		if ((in->in_pend = calloc(nslots, sizeof(uint32_t))) == NULL ||
		    (in->in_pendt = calloc(nslots, sizeof(uint64_t))) == NULL)
			return 0;
		in->in_pendcap = nslots;
	}
	for (i = 0; i < nslots; i++) {
		r = (ft_inlrec_t *)(void *)(ring + FT_INL_RINGHDR +
		    i * FT_INL_SLOT);
		if (__atomic_load_n(&r->ir_commit, __ATOMIC_ACQUIRE) !=
		    FT_INL_DONE)
			continue;
		in->in_pend[n] = (uint32_t)i;
		in->in_pendt[i] = ft_inline_tons(in, r->ir_tsc);
		n++;
	}
	if (n > 1)
		qsort_r(in->in_pend, n, sizeof(uint32_t), ft_inline_pendcmp,
		    in->in_pendt);
	in->in_npend = n;
	return n;
}

/* The clock when the pass began: records of other rings after it wait. */
uint64_t
ft_inline_passtime(const ft_inl_t *in)
{
	return in->in_ns[1];
}

/* A hit's accessor: the record's stack copy, else the memory now. */
static int
ft_inline_hitread(const ft_hit_t *h, uint64_t addr, void *buf, size_t len)
{
	const ft_inlrec_t *r = h->fh_priv;

	if (ft_hit_stackcopy(r->ir_regs.rsp, r->ir_stack, r->ir_stklen, addr,
	    buf, len) == 0)
		return 0;
	return ft_proc_memread(h->fh_proc, addr, buf, len);
}

/* The stack at the hit for the unwinder: the copy and nothing else. */
static int
ft_inline_hitstack(const ft_hit_t *h, uint64_t addr, void *buf, size_t len)
{
	const ft_inlrec_t *r = h->fh_priv;

	return ft_hit_stackcopy(r->ir_regs.rsp, r->ir_stack, r->ir_stklen,
	    addr, buf, len);
}

/*
 * Hand fn the gathered records up to time `before' (all: UINT64_MAX),
 * each as a hit, and free their slots.
 */
void
ft_inline_drain(ft_proc_t *p, ft_inl_t *in, uint64_t before,
    void (*fn)(ft_proc_t *, ft_hit_t *))
{
	ft_inlrec_t *r;
	ft_hit_t h;
	uint32_t slot;
	uint64_t addr;

	if (in == NULL || in->in_ring == NULL)
		return;
	while (in->in_ipend < in->in_npend) {
		slot = in->in_pend[in->in_ipend];
		if (in->in_pendt[slot] > before)
			break;
		in->in_ipend++;
		r = (ft_inlrec_t *)(void *)(in->in_ring + FT_INL_RINGHDR +
		    (uint64_t)slot * FT_INL_SLOT);
		pthread_mutex_lock(&in->in_lock);
		addr = r->ir_stub < in->in_nstubs ?
		    in->in_stubs[r->ir_stub].is_addr : 0;
		pthread_mutex_unlock(&in->in_lock);
		if (addr != 0) {
			memset(&h, 0, sizeof(h));
			h.fh_pid = p->pr_pid;
			h.fh_tid = (pid_t)r->ir_tid;
			h.fh_addr = addr;
			h.fh_cpu = (int)r->ir_cpu;
			h.fh_time = in->in_pendt[slot];
			h.fh_regs = r->ir_regs;
			h.fh_regs.rip = h.fh_addr;
			h.fh_regs.orig_rax = (uint64_t)-1;
			h.fh_proc = p;
			h.fh_read = ft_inline_hitread;
			h.fh_stkread = ft_inline_hitstack;
			h.fh_priv = r;
			fn(p, &h);
		}
		__atomic_store_n(&r->ir_commit, FT_INL_FREE, __ATOMIC_RELEASE);
	}
}

/* Hits dropped since the last call (the ring was full). */
uint64_t
ft_inline_lost(ft_inl_t *in)
{
	uint64_t d, v;

	if (in == NULL || in->in_ring == NULL)
		return 0;
	v = __atomic_load_n((uint64_t *)(void *)(in->in_ring + 64),
	    __ATOMIC_RELAXED);
	d = v - in->in_drops;
	in->in_drops = v;
	return d;
}

/*
 * May this daemon use the inline backend: the uprobe backend's checks
 * (ft_uprobe.c), and rdtscp, which the recorder times hits with.
 */
int
ft_inline_ok(char *err, size_t errlen)
{
	unsigned int a, b, c, d;

	if (__get_cpuid(0x80000001, &a, &b, &c, &d) == 0 ||
	    !(d & (1U << 27))) {
		snprintf(err, errlen, "the CPU has no rdtscp");
		return -1;
	}
	return 0;
}

/*
 * Restore the patches in a fork child of the traced process (and its
 * own children, forked before we came): its text is a copy of the
 * parent's, jmps and all, and its stubs record nothing (the config page
 * is wiped in it), but a jmp left there would meet whoever traces the
 * child next (a uprobe there puts back one byte of the function over a
 * five-byte jmp).  A child that shares the parent's memory (vfork)
 * restores nothing; one that exec'd or is gone has nothing to restore.
 */
static void
ft_inline_kid(ft_inl_t *in, pid_t parent, pid_t kid, int depth)
{
	char path[64];
	uint64_t start = 0, v = 0;
	ft_inlthr_t *t;
	ssize_t r;
	size_t i;
	int k, n, fd, st;
	FILE *f;

	if (depth > 4 || ft_proc_statfield(kid, 0, 22, &start) == -1)
		return;
	for (k = 0; k < in->in_nkids; k++)
		if (in->in_kids[k] == kid && in->in_kidstart[k] == start)
			return;		/* done already */
	if (syscall(SYS_kcmp, parent, kid, 1 /* KCMP_VM */, 0, 0) == 0)
		return;		/* the parent's memory: not now */
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)kid);
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) == -1)
		return;
	/* still our image: the first area's config page is mapped there */
	if (in->in_nareas == 0 || pread(fd, &v, sizeof(v),
	    (off_t)in->in_areas[0].ia_cfg) != (ssize_t)sizeof(v)) {
		close(fd);
		return;
	}
	if ((n = ft_inline_stop(kid, &t)) > 0) {
		for (i = 0; i < in->in_nstubs; i++) {
			const ft_inlstub_t *is = &in->in_stubs[i];
			uint8_t b[16];

			/* ours, as the fork copied it: put its bytes back */
			if (!is->is_patched || pread(fd, b, is->is_len,
			    (off_t)is->is_addr) != (ssize_t)is->is_len ||
			    b[0] != 0xe9)
				continue;
			r = pwrite(fd, is->is_orig, is->is_len,
			    (off_t)is->is_addr);
			(void)r;
		}
		ft_inline_go(t, n);
	}
	close(fd);
	if (in->in_nkids == FT_INL_MAXKIDS) {
		memmove(in->in_kids, in->in_kids + 1,
		    (FT_INL_MAXKIDS - 1) * sizeof(pid_t));
		memmove(in->in_kidstart, in->in_kidstart + 1,
		    (FT_INL_MAXKIDS - 1) * sizeof(uint64_t));
		in->in_nkids--;
	}
	in->in_kids[in->in_nkids] = kid;
	in->in_kidstart[in->in_nkids++] = start;
	/* its own children, forked from the patched copy */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)kid,
	    (int)kid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fscanf(f, "%d", &st) == 1)
		ft_inline_kid(in, kid, (pid_t)st, depth + 1);
	fclose(f);
}

/*
 * Drain thread, now and then: the patches out of the fork children of
 * every thread of the process (/proc/PID/task/TID/children).
 */
void
ft_inline_kids(ft_proc_t *p, ft_inl_t *in)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int kid;

	if (in == NULL || in->in_state <= 0)
		return;
	pthread_mutex_lock(&in->in_lock);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pr_pid);
	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
			    (int)p->pr_pid, de->d_name);
			if ((f = fopen(path, "re")) == NULL)
				continue;
			while (fscanf(f, "%d", &kid) == 1)
				ft_inline_kid(in, p->pr_pid, (pid_t)kid, 0);
			fclose(f);
		}
		closedir(d);
	}
	pthread_mutex_unlock(&in->in_lock);
}
