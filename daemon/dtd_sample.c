/*
 * dtd_sample.c: perf sampling for profile-N (the profile provider owns
 * the probes, their timer threads and the intervals perf did not
 * sample): the cpu-clock events and their rings, and the hits decoded
 * from the samples.  The sampled processes are dtd_target.c's.
 *
 * Samplers.  Each timer thread of a sampling profile-N probe has a
 * sampler (dtd_sampler_t) for its CPU, opened in the mode perf allows
 * (DTD_SAMPLE_*; the provider tries CPU, then TASK, else it uses timers):
 *  - CPU (dtd_sample_open_cpu): root, CAP_PERFMON or a permissive
 *    perf_event_paranoid.  The CPU's event samples whatever runs there,
 *    and the probe fires once per sample in the sampled thread's
 *    context: pid, tid, execname, uid, arg0 the kernel PC or 0, arg1 the
 *    user PC or 0, the sample's CPU and time.  A consumer that is not
 *    root sees only the samples of processes it could ptrace itself,
 *    as the kernel says at each sample (dh_private, dh_visible).
 *  - TASK (dtd_sample_open_task): a daemon without those rights (a
 *    private one) where perf_event_paranoid is 2 or less.  Each CPU
 *    samples the threads of the processes the consumers trace (-p, -c):
 *    an event per thread, inherited by the threads and processes they
 *    create, all writing into the CPU's ring (a dummy event of the
 *    daemon's); at paranoid 2 user mode only.  The main thread lists the
 *    targets (dtd_sample_retarget) when the first sampler of a probe is
 *    open and every DTD_SAMPLE_RETARGET_MS while a task-mode probe is
 *    enabled; the samplers follow (dtd_sample_follow, on their threads).
 * The ring wakes its thread (dtd_sample_fd becomes readable) only when
 * half full; the thread's timer drains it (dtd_sample_drain), which
 * fires once per sample and says how many samples there were, so that
 * the provider can fire for the intervals perf did not sample.  The
 * main thread counts the enabled sampling probes (dtd_sample_start,
 * dtd_sample_stop): when the last goes, so do the observed processes.
 *
 * User context of a sample.  Each sample carries the thread's user
 * registers (at kernel entry, for a sample taken in the kernel) and the
 * top DTD_SAMPLE_STACK bytes of its user stack.  They make the hit's
 * uregs[] and its memory accessor (the copy, else the process's memory
 * now, later than the sample), and ustack(), ustackdepth and ucaller
 * unwind them with fasttrap's unwinder (ft_unwind.c).  Each sampled
 * process is observed (dtd_target_observe: its modules, its unwinder,
 * the module maps its consumers are sent), and the side-band records
 * of the sampling events are passed on to it (dtd_target_sideband).
 *
 * Idle samples.  A sample of pid 0 fires as the idle thread would
 * (execname "sched"), and its kernel PC is kept: dtd_sample_idlepc
 * gives it to the provider for the idle intervals perf did not sample
 * (the kernel's idle function until an idle sample is seen).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <linux/perf_event.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "dtd.h"
#include "ft.h"

/* The perf ring of one CPU: 2^n data pages (16 samples with stacks). */
#define DTD_SAMPLE_RINGPAGES	64

/*
 * Bytes of user stack each sample copies: 16 KiB holds the frames of
 * most programs from the sampled function out to main (a typical frame
 * is tens to hundreds of bytes); what lies beyond is read from the
 * process later than the sample.  More costs copying at every sample.
 */
#ifndef DTD_SAMPLE_STACK
#define DTD_SAMPLE_STACK	16384
#endif

/*
 * The user registers a sample carries: perf's x86-64 numbering, all
 * but the data segment selectors (refused): ax bx cx dx si di bp sp ip
 * flags cs ss r8 ... r15.
 */
#define DTD_SAMPLE_REGMASK	0xff0fffull
#define DTD_SAMPLE_NPREGS	20
#define DTD_SAMPLE_NREGS	(sizeof(struct user_regs_struct) / 8)
#define DTD_SAMPLE_RSP		19	/* in struct user_regs_struct */

/* Kernel addresses on x86-64: the upper half. */
#define DTD_SAMPLE_KERNEL(pc)	((pc) >= 0xffff800000000000ull)

/* One hit's sample: what its memory accessor and ustack() read. */
typedef struct dtd_sampctx {
	dtd_target_t		*ps_proc;	/* observed (dtd_target.c) */
	uint64_t		ps_pregs[DTD_SAMPLE_NPREGS];
	uint64_t		ps_regs[DTD_SAMPLE_NREGS];
	uint64_t		ps_sp;
	const uint8_t		*ps_stack;
	uint64_t		ps_stklen;
} dtd_sampctx_t;

static uint64_t		dtd_sample_idlepc_last;	/* atomic */
static int		dtd_sample_nsampling;	/* main thread */

/*
 * Task mode: the processes the consumers trace, as the main thread saw
 * them last (dtd_sample_retarget, every DTD_SAMPLE_RETARGET_MS
 * while a task-mode probe is enabled); the threads follow.
 */
#define DTD_SAMPLE_RETARGET_MS	100
#define DTD_SAMPLE_MAXWANT	256
static pthread_mutex_t	dtd_sample_wlock = PTHREAD_MUTEX_INITIALIZER;
static pid_t		dtd_sample_want[DTD_SAMPLE_MAXWANT];
static uint32_t		dtd_sample_nwant;
static uint64_t		dtd_sample_wantgen;	/* dtd_sample_wlock */
static int		dtd_sample_ntask;	/* main thread */
static struct event	*dtd_sample_retarget_ev;

/* Task mode: the events of one target on one CPU (one per thread). */
typedef struct dtd_samptask {
	pid_t			pk_pid;
	int			*pk_fds;
	uint32_t		pk_nfds;
} dtd_samptask_t;

/* A sampler: one CPU's perf ring, and in task mode the targets' events. */
struct dtd_sampler {
	dtd_probe_t		*dsm_probe;	/* fired once per sample */
	int			dsm_cpu;
	int			dsm_mode;	/* DTD_SAMPLE_* */
	uint64_t		dsm_ns;		/* the sampling period */
	int			dsm_nokernel;	/* task mode: exclude_kernel */
	int			dsm_fd;		/* the ring's event, or -1 */
	void			*dsm_ring;	/* its mapping */
	size_t			dsm_ringlen;
	uint8_t			*dsm_rec;	/* a record that wraps */
	dtd_samptask_t		*dsm_tasks;	/* task mode: targets sampled */
	uint32_t		dsm_ntasks;
	uint64_t		dsm_wantgen;	/* of dtd_sample_want seen */
};

/*
 * The attributes of a sampling event: cpu-clock every ns, with the user
 * registers and DTD_SAMPLE_STACK bytes of user stack in each sample,
 * and the side-band records that say when a process's modules change
 * (executable mmaps, exec) or it exits.
 */
static void
dtd_sample_attr(struct perf_event_attr *a, uint64_t ns)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = ns;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = DTD_SAMPLE_REGMASK;
	a->sample_stack_user = DTD_SAMPLE_STACK;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
}

/* Map the ring of event fd for s; 0, or -1. */
static int
dtd_sample_ring(dtd_sampler_t *s, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	m = mmap(NULL, (1 + DTD_SAMPLE_RINGPAGES) * page,
	    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	s->dsm_fd = fd;
	s->dsm_ring = m;
	s->dsm_ringlen = (1 + DTD_SAMPLE_RINGPAGES) * page;
	return 0;
}

/*
 * A sampler of cpu for probe p in mode, with nothing open yet; NULL if
 * out of memory.
 */
static dtd_sampler_t *
dtd_sample_new(dtd_probe_t *p, int cpu, int mode, uint64_t ns)
{
	dtd_sampler_t *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if ((s->dsm_rec = malloc(UINT16_MAX + 1)) == NULL) {
		free(s);
		return NULL;
	}
	s->dsm_probe = p;
	s->dsm_cpu = cpu;
	s->dsm_mode = mode;
	s->dsm_ns = ns;
	s->dsm_fd = -1;
	return s;
}

/*
 * Open event a of process pid (0: this daemon, -1: any) on s's CPU, to
 * wake the sampler when its ring is half full, and map the ring: 0, or
 * -1 with nothing left open.
 */
static int
dtd_sample_openring(dtd_sampler_t *s, struct perf_event_attr *a, pid_t pid)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd;

	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(DTD_SAMPLE_RINGPAGES * page / 2);
	if ((fd = (int)syscall(SYS_perf_event_open, a, pid, s->dsm_cpu, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1)
		return -1;
	if (dtd_sample_ring(s, fd) == -1) {
		close(fd);
		return -1;
	}
	return 0;
}

/*
 * Sample what cpu runs every ns, for probe p: a perf cpu-clock event of
 * the CPU, its ring mapped.  The ring wakes the thread only when half
 * full: the timer drains it.  NULL if perf refuses (try task mode).
 */
dtd_sampler_t *
dtd_sample_open_cpu(dtd_probe_t *p, int cpu, uint64_t ns)
{
	struct perf_event_attr a;
	dtd_sampler_t *s;

	if ((s = dtd_sample_new(p, cpu, DTD_SAMPLE_CPU, ns)) == NULL)
		return NULL;
	dtd_sample_attr(&a, ns);
	if (dtd_sample_openring(s, &a, -1) == -1) {
		dtd_sample_close(s);
		return NULL;
	}
	return s;
}

/*
 * Task mode: a sampler of the targets on cpu every ns, for probe p, if
 * this daemon may sample a process of its own there.  Tried on the
 * daemon itself; the kernel too if perf_event_paranoid allows it and
 * *nokernel is 0, else user mode alone (*nokernel becomes 1, for the
 * probe's other CPUs).  Then the ring: a dummy event of the CPU, which
 * the targets' events write into.  NULL if perf refuses this too
 * (timers).
 */
dtd_sampler_t *
dtd_sample_open_task(dtd_probe_t *p, int cpu, uint64_t ns, int *nokernel)
{
	struct perf_event_attr a;
	dtd_sampler_t *s;
	int fd;

	if ((s = dtd_sample_new(p, cpu, DTD_SAMPLE_TASK, ns)) == NULL)
		return NULL;
	s->dsm_nokernel = *nokernel;
	dtd_sample_attr(&a, s->dsm_ns);
	a.exclude_kernel = s->dsm_nokernel;
	a.exclude_hv = 1;
	a.disabled = 1;
	if ((fd = (int)syscall(SYS_perf_event_open, &a, 0, s->dsm_cpu, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1 && errno == EACCES &&
	    !s->dsm_nokernel) {
		*nokernel = s->dsm_nokernel = a.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, s->dsm_cpu, -1,
		    PERF_FLAG_FD_CLOEXEC);
	}
	if (fd == -1)
		goto fail;
	close(fd);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	if (dtd_sample_openring(s, &a, 0) == -1)
		goto fail;
	return s;

fail:
	dtd_sample_close(s);
	return NULL;
}

/* Task mode: close the events of target k. */
static void
dtd_sample_task_close(dtd_samptask_t *k)
{
	uint32_t i;

	for (i = 0; i < k->pk_nfds; i++)
		close(k->pk_fds[i]);
	free(k->pk_fds);
	k->pk_fds = NULL;
	k->pk_nfds = 0;
}

/*
 * Task mode: sample target k on s's CPU: an event on each of its
 * threads, inherited by the threads (and processes) they create from
 * then on, writing into s's ring.  0, or -1.
 */
static int
dtd_sample_task_open(dtd_sampler_t *s, dtd_samptask_t *k)
{
	struct perf_event_attr a;
	struct dirent *de;
	char path[64];
	int fd, *nfds;
	pid_t tid;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)k->pk_pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	dtd_sample_attr(&a, s->dsm_ns);
	a.inherit = 1;
	a.exclude_kernel = s->dsm_nokernel;
	a.exclude_hv = 1;
	while ((de = readdir(d)) != NULL) {
		if ((tid = (pid_t)strtol(de->d_name, NULL, 10)) <= 0)
			continue;
		if ((nfds = reallocarray(k->pk_fds, k->pk_nfds + 1,
		    sizeof(*nfds))) == NULL)
			break;
		k->pk_fds = nfds;
		if ((fd = (int)syscall(SYS_perf_event_open, &a, tid,
		    s->dsm_cpu, -1, PERF_FLAG_FD_CLOEXEC)) == -1)
			continue;	/* gone already, or not ours */
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->dsm_fd) == -1) {
			log_warn("%s: pid %d: set output", __func__,
			    (int)k->pk_pid);
			close(fd);
			continue;
		}
		k->pk_fds[k->pk_nfds++] = fd;
	}
	closedir(d);
	return k->pk_nfds > 0 ? 0 : -1;
}

/*
 * Task mode, on s's thread: follow the main thread's list of targets,
 * if it changed: sample the new ones, stop sampling those no longer
 * traced.  Nothing for a CPU sampler.
 */
void
dtd_sample_follow(dtd_sampler_t *s)
{
	pid_t want[DTD_SAMPLE_MAXWANT];
	dtd_samptask_t *nk;
	uint32_t nwant, i, j;
	uint64_t gen;

	if (s->dsm_mode != DTD_SAMPLE_TASK)
		return;
	pthread_mutex_lock(&dtd_sample_wlock);
	gen = dtd_sample_wantgen;
	nwant = dtd_sample_nwant;
	memcpy(want, dtd_sample_want, nwant * sizeof(want[0]));
	pthread_mutex_unlock(&dtd_sample_wlock);
	if (gen == s->dsm_wantgen)
		return;
	s->dsm_wantgen = gen;
	for (i = 0; i < s->dsm_ntasks; ) {
		for (j = 0; j < nwant; j++)
			if (want[j] == s->dsm_tasks[i].pk_pid)
				break;
		if (j < nwant) {
			i++;
			continue;
		}
		dtd_sample_task_close(&s->dsm_tasks[i]);
		s->dsm_tasks[i] = s->dsm_tasks[--s->dsm_ntasks];
	}
	for (j = 0; j < nwant; j++) {
		for (i = 0; i < s->dsm_ntasks; i++)
			if (want[j] == s->dsm_tasks[i].pk_pid)
				break;
		if (i < s->dsm_ntasks)
			continue;
		if ((nk = reallocarray(s->dsm_tasks, s->dsm_ntasks + 1,
		    sizeof(*nk))) == NULL)
			break;
		s->dsm_tasks = nk;
		nk = &s->dsm_tasks[s->dsm_ntasks];
		memset(nk, 0, sizeof(*nk));
		nk->pk_pid = want[j];
		if (dtd_sample_task_open(s, nk) == 0)
			s->dsm_ntasks++;
		else
			dtd_sample_task_close(nk);
	}
}

/* Close s (NULL: nothing) once its thread is gone. */
void
dtd_sample_close(dtd_sampler_t *s)
{
	if (s == NULL)
		return;
	if (s->dsm_ring != NULL)
		munmap(s->dsm_ring, s->dsm_ringlen);
	while (s->dsm_ntasks > 0)
		dtd_sample_task_close(&s->dsm_tasks[--s->dsm_ntasks]);
	free(s->dsm_tasks);
	if (s->dsm_fd != -1)
		close(s->dsm_fd);
	free(s->dsm_rec);
	free(s);
}

/* What s's thread polls: readable when its ring is half full. */
int
dtd_sample_fd(const dtd_sampler_t *s)
{
	return s->dsm_fd;
}

/*
 * Main thread: the processes the consumers with profile ECBs trace
 * (their -p and -c targets still alive), for task mode.
 */
void
dtd_sample_retarget(void)
{
	pid_t want[DTD_SAMPLE_MAXWANT], pids[DTD_SAMPLE_MAXWANT];
	int exited[DTD_SAMPLE_MAXWANT];
	uint32_t nwant = 0, n, i, j;
	dtd_consumer_t *c;

	for (c = dtd_consumer_next(NULL); c != NULL;
	    c = dtd_consumer_next(c)) {
		if (!dtd_provider_observes(c))
			continue;
		n = dtd_target_list(c, pids, exited, DTD_SAMPLE_MAXWANT);
		for (i = 0; i < n; i++) {
			if (exited[i])
				continue;
			for (j = 0; j < nwant; j++)
				if (want[j] == pids[i])
					break;
			if (j == nwant && nwant < DTD_SAMPLE_MAXWANT)
				want[nwant++] = pids[i];
		}
	}
	pthread_mutex_lock(&dtd_sample_wlock);
	if (nwant != dtd_sample_nwant || memcmp(want, dtd_sample_want,
	    nwant * sizeof(want[0])) != 0) {
		memcpy(dtd_sample_want, want, nwant * sizeof(want[0]));
		dtd_sample_nwant = nwant;
		dtd_sample_wantgen++;
	}
	pthread_mutex_unlock(&dtd_sample_wlock);
}

static void
dtd_sample_retarget_cb(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd; (void)ev; (void)arg;
	dtd_sample_retarget();
}

/* The address of kernel function name, or 0 (not there, or hidden). */
static uint64_t
dtd_sample_kallsym(const char *name)
{
	char line[256], sym[128], type;
	unsigned long long a;
	uint64_t rv = 0;
	FILE *f;

	if ((f = fopen("/proc/kallsyms", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%llx %c %127s", &a, &type, sym) == 3 &&
		    strcmp(sym, name) == 0) {
			rv = a;
			break;
		}
	}
	fclose(f);
	return rv;
}


/*
 * Memory of a sampled process: the stack copied at the sample where the
 * range is in it, else the memory now (later than the sample), with the
 * copied bytes laid over what it overlaps.
 */
static int
dtd_sample_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	const dtd_sampctx_t *ps = arg;
	uint64_t lo = ps->ps_sp, hi = ps->ps_sp + ps->ps_stklen, a, b;

	if (addr >= lo && addr <= hi && len <= hi - addr) {
		memcpy(buf, ps->ps_stack + (addr - lo), len);
		return 0;
	}
	if (ps->ps_proc == NULL || ft_proc_read(dtd_target_proc(ps->ps_proc), addr,
	    buf, len) != 0)
		return DIF_FLT_BADADDR;
	a = addr > lo ? addr : lo;
	b = addr + len < hi ? addr + len : hi;
	if (a < b)
		memcpy((uint8_t *)buf + (a - addr), ps->ps_stack + (a - lo),
		    b - a);
	return 0;
}

/* ustack(), ustackdepth, ucaller of a sample: unwind its copy. */
static int
dtd_sample_ustack(const dtd_hit_t *h, uint64_t *pcs, uint32_t max)
{
	const dtd_sampctx_t *ps = h->dh_ustackarg;
	dtd_target_t *tg = ps->ps_proc;

	return ft_unwind_stack(dtd_target_unwind(tg), dtd_target_modgen(tg),
	    h->dh_tid,
	    (const struct user_regs_struct *)(const void *)ps->ps_regs,
	    h->dh_uread, h->dh_uarg, pcs, max);
}

/*
 * The user registers of a sample, in perf's order for
 * DTD_SAMPLE_REGMASK, into struct user_regs_struct's (what uregs[]
 * indexes).  perf gives no orig_rax, fs_base, gs_base nor the data
 * segment selectors: those read 0.
 */
static void
dtd_sample_regs(const uint64_t *pr, uint64_t *ur)
{
	struct user_regs_struct *r = (struct user_regs_struct *)(void *)ur;

	memset(r, 0, sizeof(*r));
	r->rax = pr[0];
	r->rbx = pr[1];
	r->rcx = pr[2];
	r->rdx = pr[3];
	r->rsi = pr[4];
	r->rdi = pr[5];
	r->rbp = pr[6];
	r->rsp = pr[7];
	r->rip = pr[8];
	r->eflags = pr[9];
	r->cs = pr[10];
	r->ss = pr[11];
	r->r8 = pr[12];
	r->r9 = pr[13];
	r->r10 = pr[14];
	r->r11 = pr[15];
	r->r12 = pr[16];
	r->r13 = pr[17];
	r->r14 = pr[18];
	r->r15 = pr[19];
}

/* Fire for one PERF_RECORD_SAMPLE of len bytes after its header. */
static void
dtd_sample_fire(dtd_sampler_t *s, const uint8_t *p, size_t len)
{
	struct {
		uint64_t	ip;
		uint32_t	pid, tid;
		uint64_t	time;
		uint32_t	cpu, res;
		uint64_t	abi;
	} smp;
	dtd_sampctx_t ps;
	uint64_t stksize = 0, dynsize = 0;
	size_t off = sizeof(smp);
	int user = 0;
	dtd_hit_t hit;

	if (len < sizeof(smp))
		return;
	memcpy(&smp, p, sizeof(smp));
	memset(&ps, 0, sizeof(ps));
	if (smp.abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if (len < off + DTD_SAMPLE_NPREGS * 8 + 8)
			return;
		memcpy(ps.ps_pregs, p + off, DTD_SAMPLE_NPREGS * 8);
		off += DTD_SAMPLE_NPREGS * 8;
		user = 1;
	}
	if (len >= off + 8) {
		memcpy(&stksize, p + off, 8);
		off += 8;
		if (stksize > 0 && len >= off + stksize + 8) {
			memcpy(&dynsize, p + off + stksize, 8);
			ps.ps_stack = p + off;
			ps.ps_stklen = dynsize < stksize ? dynsize : stksize;
		}
	}
	/* every field from the sample: no system call for the daemon's */
	memset(&hit, 0, sizeof(hit));
	hit.dh_probe = s->dsm_probe;
	hit.dh_pid = (pid_t)smp.pid;
	hit.dh_tid = (pid_t)smp.tid;
	hit.dh_nothread = smp.pid == 0;
	hit.dh_cpu = (int)smp.cpu;
	hit.dh_timestamp = smp.time;
	hit.dh_ppid = -1;
	hit.dh_gid = (gid_t)-1;
	hit.dh_execname = smp.pid == 0 ? "sched" : NULL;
	hit.dh_private = 1;
	hit.dh_args[0] = DTD_SAMPLE_KERNEL(smp.ip) ? smp.ip : 0;
	hit.dh_args[1] = DTD_SAMPLE_KERNEL(smp.ip) ? 0 : smp.ip;
	if (smp.pid == 0) {
		hit.dh_uid = 0;
		if (hit.dh_args[0] != 0)
			__atomic_store_n(&dtd_sample_idlepc_last,
			    hit.dh_args[0], __ATOMIC_RELAXED);
		dtd_ecb_fire(&hit);
		return;
	}
	hit.dh_visible = dtd_target_visible;
	/* no user context (a kernel thread): no entry, nothing to name */
	if (user && (ps.ps_proc = dtd_target_observe(hit.dh_pid)) != NULL)
		hit.dh_uid = dtd_target_uid(ps.ps_proc);
	else
		hit.dh_uid = dtd_target_uidof(hit.dh_pid);
	if (user) {
		dtd_sample_regs(ps.ps_pregs, ps.ps_regs);
		ps.ps_sp = ps.ps_regs[DTD_SAMPLE_RSP];
		hit.dh_regs = ps.ps_regs;
		hit.dh_nregs = DTD_SAMPLE_NREGS;
		hit.dh_uread = dtd_sample_uread;
		hit.dh_uarg = &ps;
		if (ps.ps_proc != NULL &&
		    dtd_target_unwind(ps.ps_proc) != NULL) {
			hit.dh_ustack = dtd_sample_ustack;
			hit.dh_ustackarg = &ps;
		}
	}
	dtd_ecb_fire(&hit);
	dtd_target_rele(ps.ps_proc);
}

/*
 * On s's thread: fire once for each sample in s's ring, and follow the
 * side-band records; returns how many samples there were (lost ones
 * included).
 */
uint64_t
dtd_sample_drain(dtd_sampler_t *s)
{
	struct perf_event_mmap_page *mp = s->dsm_ring;
	const uint8_t *data = (const uint8_t *)s->dsm_ring + mp->data_offset;
	uint64_t size = mp->data_size, head, tail, n = 0, lost;
	struct perf_event_header hdr;
	const uint8_t *rec;
	uint32_t pid, tid;
	uint64_t i, o;

	if (mp->data_offset == 0) {	/* kernels before 4.1 */
		data = (const uint8_t *)s->dsm_ring + sysconf(_SC_PAGESIZE);
		size = s->dsm_ringlen - (size_t)sysconf(_SC_PAGESIZE);
	}
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		for (i = 0; i < sizeof(hdr); i++)
			((uint8_t *)&hdr)[i] = data[(tail + i) % size];
		if (hdr.size < sizeof(hdr) || tail + hdr.size > head)
			break;	/* not ours to make sense of: drop the rest */
		/* in place where it does not wrap around the ring's end */
		o = tail % size;
		if (o + hdr.size <= size)
			rec = data + o;
		else {
			for (i = 0; i < hdr.size; i++)
				s->dsm_rec[i] = data[(tail + i) % size];
			rec = s->dsm_rec;
		}
		tail += hdr.size;
		rec += sizeof(hdr);
		switch (hdr.type) {
		case PERF_RECORD_SAMPLE:
			dtd_sample_fire(s, rec, hdr.size - sizeof(hdr));
			n++;
			break;
		case PERF_RECORD_LOST:
			if (hdr.size >= sizeof(hdr) + 16) {
				memcpy(&lost, rec + 8, 8);
				n += lost;
			}
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
		case PERF_RECORD_COMM:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_FORK:
			if (hdr.size < sizeof(hdr) + 16)
				break;
			memcpy(&pid, rec, 4);
			memcpy(&tid, rec + (hdr.type == PERF_RECORD_EXIT ||
			    hdr.type == PERF_RECORD_FORK ? 8 : 4), 4);
			if (hdr.type == PERF_RECORD_EXIT ||
			    hdr.type == PERF_RECORD_FORK) {
				/*
				 * a process that exits, or one that a fork
				 * makes with a pid an entry still has (its
				 * exit was lost): that entry is done
				 */
				if (pid == tid)
					dtd_target_sideband((pid_t)pid,
					    DTD_TARGET_SB_EXIT);
			} else if (hdr.type != PERF_RECORD_COMM)
				dtd_target_sideband((pid_t)pid,
				    DTD_TARGET_SB_MODS);
			else if (hdr.misc & PERF_RECORD_MISC_COMM_EXEC)
				dtd_target_sideband((pid_t)pid,
				    DTD_TARGET_SB_EXEC);
			break;
		}
	}
	if (tail < head)
		tail = head;
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/*
 * Main thread: a probe samples in mode (DTD_SAMPLE_*), its samplers
 * open and their threads running.  Task mode: the targets are listed
 * every DTD_SAMPLE_RETARGET_MS from the first such probe on.
 */
void
dtd_sample_start(int mode)
{
	if (mode == DTD_SAMPLE_TASK && dtd_sample_ntask++ == 0) {
		struct timeval tv = { 0, DTD_SAMPLE_RETARGET_MS * 1000 };

		if (dtd_sample_retarget_ev == NULL)
			dtd_sample_retarget_ev = event_new(dtd_base, -1,
			    EV_PERSIST, dtd_sample_retarget_cb, NULL);
		if (dtd_sample_retarget_ev != NULL)
			event_add(dtd_sample_retarget_ev, &tv);
	}
	dtd_sample_nsampling++;
	if (__atomic_load_n(&dtd_sample_idlepc_last, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(&dtd_sample_idlepc_last,
		    dtd_sample_kallsym("default_idle_call"), __ATOMIC_RELAXED);
}

/*
 * Main thread: a probe that sampled in mode has stopped, its threads
 * joined and samplers closed.
 */
void
dtd_sample_stop(int mode)
{
	if (mode == DTD_SAMPLE_TASK && --dtd_sample_ntask == 0) {
		event_del(dtd_sample_retarget_ev);
		pthread_mutex_lock(&dtd_sample_wlock);
		dtd_sample_nwant = 0;
		dtd_sample_wantgen++;
		pthread_mutex_unlock(&dtd_sample_wlock);
	}
	/* the last sampler gone: so are its consumers' snapshots */
	if (--dtd_sample_nsampling == 0)
		dtd_target_gc(1);
}

/*
 * The kernel PC of the idle thread: the last seen in an idle sample, or
 * the kernel's idle function (0: hidden).  For the idle intervals perf
 * did not sample.
 */
uint64_t
dtd_sample_idlepc(void)
{
	return __atomic_load_n(&dtd_sample_idlepc_last, __ATOMIC_RELAXED);
}

