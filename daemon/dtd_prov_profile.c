/*
 * dtd_prov_profile.c: profile:::tick-N and profile:::profile-N.  The
 * intervals illumos lists (profile-97 ... tick-5000, the table
 * dtd_prov_profile_defaults) exist from the start, with fixed ids after
 * the dtrace provider's; others are created on demand when a
 * description names one.
 *
 * Each enabled probe has its own timer threads, so a tick is not delayed
 * by whatever the main loop is doing: tick-N has one thread, unpinned
 * (illumos fires a tick on one CPU, which one is not promised);
 * profile-N has one thread per CPU the daemon may run on, pinned there
 * with sched_setaffinity, so `cpu' in a profile clause names every CPU.
 * A thread sleeps on a timerfd armed with an absolute CLOCK_MONOTONIC
 * schedule (start + k * interval), so firings do not drift however late
 * a wakeup is.  When a wakeup comes late, the timerfd reports how many
 * intervals have gone by; like an illumos cyclic, the probe fires once
 * for each, but at most DTD_PROFILE_MAXPEND times per wakeup, so a daemon
 * that was stopped for a minute does not fire a minute of ticks in a
 * burst.  The threads start when the first ECB is enabled on the probe
 * and are joined when the last goes; the firing path skips consumers
 * that are not ACTIVE.
 *
 * profile-N samples with perf cpu-clock events as perf allows (the
 * mode, DTD_PROFILE_MODE_*, found when the probe is enabled):
 *  - CPU: root, CAP_PERFMON or a permissive perf_event_paranoid.  Each
 *    CPU's event samples whatever runs there, and the probe fires once
 *    per sample in the sampled thread's context: pid, tid, execname,
 *    uid, arg0 the kernel PC or 0, arg1 the user PC or 0, the sample's
 *    CPU and time.  A consumer that is not root sees only the samples
 *    of its own processes (dh_private).
 *  - TASK: a daemon without those rights (a private one) where
 *    perf_event_paranoid is 2 or less.  Each CPU samples the threads of
 *    the processes the consumers trace (-p, -c): an event per thread,
 *    inherited by the threads and processes they create, all writing
 *    into the CPU's ring (a dummy event of the daemon's); at paranoid 2
 *    user mode only.  The main thread lists the targets every
 *    DTD_PROFILE_RETARGET_MS; the CPU threads follow.  The intervals in
 *    which no target ran fire as in TIMER mode.
 *  - TIMER: perf refuses.  profile-N fires from the timer as tick-N
 *    does, with no interrupted thread: arg0 and arg1 are 0 and the
 *    context is the daemon's.
 * A sampling thread's timer drains its ring, at most every
 * DTD_PROFILE_DRAIN_NS (several intervals per wakeup at high rates);
 * the ring wakes it early only when half full.
 *
 * User context of a sample.  Each sample carries the thread's user
 * registers (at kernel entry, for a sample taken in the kernel) and the
 * top DTD_PROFILE_STACK bytes of its user stack.  They make the hit's
 * uregs[] and its memory accessor (the copy, else the process's memory
 * now, later than the sample), and ustack(), ustackdepth and ucaller
 * unwind them with fasttrap's unwinder (ft_unwind.c).  Each sampled
 * process has an entry (dtd_profproc_t, made on its first sample): its
 * modules (ft_proc_observe: the process is not traced), read at once so
 * that they outlive it, and its unwinder.  The sampling events also
 * carry perf's side-band records: an executable mmap or an exec bumps
 * the entry's module generation, an exit marks it dead (and so does
 * the fork of a new process with its pid, should the exit be lost).
 * Every consumer with profile ECBs is sent the module map
 * (DT_MSG_MODMAP) of each sampled process it may see, before each
 * snapshot and again when it changed (dtd_prov_profile_modmaps), so it
 * names the addresses of ustack(), usym() and ufunc() as it does a
 * target's.  A dead entry is freed once every such consumer has had a
 * snapshot since it died (dtd_prov_profile_gc), or when the table is
 * full; a live one not sampled for DTD_PROFILE_IDLE_NS likewise.
 *
 * Idle CPUs.  illumos fires profile-N on every CPU, idle or not.  Here a
 * cpu-clock event samples an idle CPU on some CPUs and not on others
 * (measured on Linux 6.18: CPU 0 gives its idle samples with pid 0,
 * CPU 1 none at all while it idles, though the event counts the time
 * as running); so the thread's timer counts the intervals and the
 * samples, and fires for the intervals perf did not sample as the idle
 * thread would have been: pid 0, execname "sched", arg0 the kernel PC
 * last seen in an idle sample (or the kernel's idle function), arg1 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/user.h>

#include <linux/perf_event.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "dtd.h"
#include "ft.h"

/* Most firings one wakeup makes up for (see above). */
#define DTD_PROFILE_MAXPEND	64

/* The perf ring of one CPU: 2^n data pages (16 samples with stacks). */
#define DTD_PROFILE_RINGPAGES	64

/*
 * Bytes of user stack each sample copies: 16 KiB holds the frames of
 * most programs from the sampled function out to main (a typical frame
 * is tens to hundreds of bytes); what lies beyond is read from the
 * process later than the sample.  More costs copying at every sample.
 */
#ifndef DTD_PROFILE_STACK
#define DTD_PROFILE_STACK	16384
#endif

/*
 * The user registers a sample carries: perf's x86-64 numbering, all
 * but the data segment selectors (refused): ax bx cx dx si di bp sp ip
 * flags cs ss r8 ... r15.
 */
#define DTD_PROFILE_REGMASK	0xff0fffull
#define DTD_PROFILE_NPREGS	20
#define DTD_PROFILE_NREGS	(sizeof(struct user_regs_struct) / 8)
#define DTD_PROFILE_RSP		19	/* in struct user_regs_struct */

/*
 * A sampling thread drains its ring (and fires for idle intervals) at
 * most this often: at a higher rate, several intervals per wakeup.
 */
#define DTD_PROFILE_DRAIN_NS	1000000ull

/*
 * Sampled processes the table keeps at most (each holds its modules'
 * files open), and how long one not sampled since stays, alive.
 */
#define DTD_PROFILE_MAXPROCS	1024
#define DTD_PROFILE_IDLE_NS	(10 * 1000000000ull)

/* Kernel addresses on x86-64: the upper half. */
#define DTD_PROFILE_KERNEL(pc)	((pc) >= 0xffff800000000000ull)

struct dtd_profile;

/* A sampled process (see above). */
typedef struct dtd_profproc {
	pid_t			pp_pid;
	uint64_t		pp_serial;	/* names it to consumers */
	uid_t			pp_uid;
	ft_proc_t		*pp_proc;	/* observed: modules, memory */
	ft_unwind_t		*pp_unwind;	/* NULL once dead (gc) */
	uint64_t		pp_gen;		/* atomic: module changes */
	uint64_t		pp_dead;	/* when it exited, 0: alive */
	uint64_t		pp_last;	/* its last sample (plock) */
	int			pp_refs;	/* hits using it */
	struct dtd_profproc	*pp_next;
} dtd_profproc_t;

/* What a consumer was told: sampled processes' module maps. */
typedef struct dtd_proftold {
	uint64_t		pt_serial;
	uint64_t		pt_gen;
} dtd_proftold_t;

typedef struct dtd_profcons {
	uint64_t		pc_lastpass;	/* time of its last maps pass */
	dtd_proftold_t		*pc_told;
	size_t			pc_ntold;
	size_t			pc_cap;
} dtd_profcons_t;

/* One hit's sample: what its memory accessor and ustack() read. */
typedef struct dtd_profile_smp {
	dtd_profproc_t		*ps_proc;
	uint64_t		ps_pregs[DTD_PROFILE_NPREGS];
	uint64_t		ps_regs[DTD_PROFILE_NREGS];
	uint64_t		ps_sp;
	const uint8_t		*ps_stack;
	uint64_t		ps_stklen;
} dtd_profile_smp_t;

static pthread_mutex_t	dtd_profile_plock = PTHREAD_MUTEX_INITIALIZER;
static dtd_profproc_t	*dtd_profile_procs;	/* dtd_profile_plock */
static uint32_t		dtd_profile_nprocs;
static uint64_t		dtd_profile_serial;
static uint64_t		dtd_profile_idlepc;	/* atomic */
static int		dtd_profile_nsampling;	/* main thread */

/*
 * Task mode: the processes the consumers trace, as the main thread saw
 * them last (dtd_prov_profile_retarget, every DTD_PROFILE_RETARGET_MS
 * while a task-mode probe is enabled); the threads follow.
 */
#define DTD_PROFILE_RETARGET_MS	100
#define DTD_PROFILE_MAXWANT	256
static pthread_mutex_t	dtd_profile_wlock = PTHREAD_MUTEX_INITIALIZER;
static pid_t		dtd_profile_want[DTD_PROFILE_MAXWANT];
static uint32_t		dtd_profile_nwant;
static uint64_t		dtd_profile_wantgen;	/* dtd_profile_wlock */
static int		dtd_profile_ntask;	/* main thread */
static struct event	*dtd_profile_retarget_ev;

/* Task mode: the events of one target on one CPU (one per thread). */
typedef struct dtd_proftask {
	pid_t			pk_pid;
	int			*pk_fds;
	uint32_t		pk_nfds;
} dtd_proftask_t;

/* One timer thread. */
typedef struct dtd_profile_thr {
	struct dtd_profile	*dpt_pf;
	dtd_probe_t		*dpt_probe;
	pthread_t		dpt_thread;
	int			dpt_cpu;	/* pinned to, or -1 */
	int			dpt_tfd;	/* timerfd, or -1 (perf) */
	int			dpt_pfd;	/* perf sampling event, or -1 */
	void			*dpt_ring;	/* its mapping */
	size_t			dpt_ringlen;
	int			dpt_started;
	uint8_t			*dpt_rec;	/* a record that wraps */
	dtd_proftask_t		*dpt_tasks;	/* task mode: targets sampled */
	uint32_t		dpt_ntasks;
	uint64_t		dpt_wantgen;	/* of dtd_profile_want seen */
	uint64_t		dpt_batch;	/* intervals per timer expiry */
	uint64_t		dpt_due;	/* intervals gone by */
	uint64_t		dpt_got;	/* samples in them */
} dtd_profile_thr_t;

typedef struct dtd_profile {
	uint64_t		dpf_ns;
	int			dpf_kind;
	int			dpf_stopfd;	/* eventfd: readable = stop */
	dtd_profile_thr_t	*dpf_thr;
	int			dpf_nthr;
	int			dpf_mode;	/* DTD_PROFILE_MODE_* */
	int			dpf_nokernel;	/* task mode: exclude_kernel */
} dtd_profile_t;

/* How profile-N samples (see above). */
#define DTD_PROFILE_MODE_TIMER	0	/* not at all: timers */
#define DTD_PROFILE_MODE_CPU	1	/* every CPU, with perf */
#define DTD_PROFILE_MODE_TASK	2	/* the targets, with perf */

static int	dtd_prov_profile_provide(const dtp_probedesc_t *,
		    dtd_consumer_t *, char *, size_t);
static int	dtd_prov_profile_enable(dtd_probe_t *);
static void	dtd_prov_profile_disable(dtd_probe_t *);
static void	dtd_prov_profile_gc(int);
static int	dtd_prov_profile_uses(const dtd_consumer_t *);
static void	dtd_prov_profile_retarget(evutil_socket_t, short, void *);

const dtd_provider_t dtd_prov_profile = {
	.dpv_name = "profile",
	.dpv_provide = dtd_prov_profile_provide,
	.dpv_enable = dtd_prov_profile_enable,
	.dpv_disable = dtd_prov_profile_disable,
};

static const struct {
	const char	*u_name;
	uint64_t	u_ns;		/* 0: a frequency */
} dtd_prov_profile_units[] = {
	{ "ns", 1 }, { "nsec", 1 },
	{ "us", 1000 }, { "usec", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 },
	{ "s", 1000000000ull }, { "sec", 1000000000ull },
	{ "m", 60 * 1000000000ull }, { "min", 60 * 1000000000ull },
	{ "h", 3600 * 1000000000ull }, { "hour", 3600 * 1000000000ull },
	{ "d", 86400 * 1000000000ull }, { "day", 86400 * 1000000000ull },
	{ "hz", 0 },
	{ "", 0 },
};

/*
 * Parse "tick-N[unit]" or "profile-N[unit]" into a kind and an interval
 * in ns, whatever the interval.  Returns 0, or -1 when name is not one.
 */
static int
dtd_prov_profile_parse_any(const char *name, int *kindp, uint64_t *nsp)
{
	const char *p;
	uint64_t n = 0, ns;
	size_t i;
	int kind;

	if (strncmp(name, "tick-", 5) == 0) {
		kind = DTD_PROFILE_TICK;
		p = name + 5;
	} else if (strncmp(name, "profile-", 8) == 0) {
		kind = DTD_PROFILE_PROFILE;
		p = name + 8;
	} else
		return -1;
	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (n == 0)
		return -1;
	for (i = 0; i < sizeof(dtd_prov_profile_units) /
	    sizeof(dtd_prov_profile_units[0]); i++) {
		if (strcmp(p, dtd_prov_profile_units[i].u_name) == 0)
			break;
	}
	if (i == sizeof(dtd_prov_profile_units) /
	    sizeof(dtd_prov_profile_units[0]))
		return -1;
	if (dtd_prov_profile_units[i].u_ns == 0) {
		/* above 1 GHz the interval rounds to 0: below the minimum */
		ns = n > 1000000000ull ? 0 : 1000000000ull / n;
	} else {
		if (n > UINT64_MAX / dtd_prov_profile_units[i].u_ns)
			return -1;
		ns = n * dtd_prov_profile_units[i].u_ns;
	}
	*kindp = kind;
	*nsp = ns;
	return 0;
}

/*
 * Parse "tick-N[unit]" or "profile-N[unit]" into a kind and an interval
 * in ns.  No unit means hz.  Returns 0, or -1 when name is not one or
 * its interval is shorter than DTD_PROFILE_MIN_NS.
 */
int
dtd_prov_profile_parse(const char *name, int *kindp, uint64_t *nsp)
{
	uint64_t ns;
	int kind;

	if (dtd_prov_profile_parse_any(name, &kind, &ns) == -1 ||
	    ns < DTD_PROFILE_MIN_NS)
		return -1;
	*kindp = kind;
	*nsp = ns;
	return 0;
}

static int
dtd_prov_profile_provide(const dtp_probedesc_t *d, dtd_consumer_t *c,
    char *err, size_t errlen)
{
	dtd_profile_t *pf;
	uint64_t ns;
	int kind;

	(void)c;
	if (!dtd_probe_glob(d->dpd_provider, "profile"))
		return 0;
	/* only a literal name creates a probe, as in illumos */
	if (strpbrk(d->dpd_name, "*?[\\") != NULL ||
	    dtd_prov_profile_parse_any(d->dpd_name, &kind, &ns) == -1)
		return 0;
	if (!dtd_probe_glob(d->dpd_mod, "") || !dtd_probe_glob(d->dpd_func, ""))
		return 0;
	/*
	 * illumos quietly creates no probe, leaving the user to wonder why
	 * the description matches nothing: say why.
	 */
	if (ns < DTD_PROFILE_MIN_NS) {
		snprintf(err, errlen, "profile:::%s: interval is shorter than "
		    "the minimum of %llu microseconds", d->dpd_name,
		    (unsigned long long)(DTD_PROFILE_MIN_NS / 1000));
		return -1;
	}
	if (dtd_probe_find("profile", "", "", d->dpd_name) != NULL)
		return 0;
	if ((pf = calloc(1, sizeof(*pf))) == NULL)
		return 0;
	pf->dpf_ns = ns;
	pf->dpf_kind = kind;
	pf->dpf_stopfd = -1;
	if (dtd_probe_create(&dtd_prov_profile, "", "", d->dpd_name,
	    pf) == NULL) {
		free(pf);
		return 0;
	}
	log_debug("%s: created profile:::%s (%llu ns)", __func__,
	    d->dpd_name, (unsigned long long)ns);
	return 0;
}

/*
 * The attributes of a sampling event: cpu-clock every ns, with the user
 * registers and DTD_PROFILE_STACK bytes of user stack in each sample,
 * and the side-band records that say when a process's modules change
 * (executable mmaps, exec) or it exits.
 */
static void
dtd_prov_profile_attr(struct perf_event_attr *a, uint64_t ns)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = ns;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = DTD_PROFILE_REGMASK;
	a->sample_stack_user = DTD_PROFILE_STACK;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
}

/* Map the ring of event fd for t; 0, or -1. */
static int
dtd_prov_profile_ring(dtd_profile_thr_t *t, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	m = mmap(NULL, (1 + DTD_PROFILE_RINGPAGES) * page,
	    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	t->dpt_pfd = fd;
	t->dpt_ring = m;
	t->dpt_ringlen = (1 + DTD_PROFILE_RINGPAGES) * page;
	return 0;
}

/*
 * Sample what cpu runs every ns: a perf cpu-clock event of the CPU, its
 * ring mapped.  The ring wakes the thread only when half full: the
 * timer drains it.  0, or -1 (perf refuses: try task mode).
 */
static int
dtd_prov_profile_perf(dtd_profile_thr_t *t, uint64_t ns)
{
	struct perf_event_attr a;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd;

	dtd_prov_profile_attr(&a, ns);
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(DTD_PROFILE_RINGPAGES * page / 2);
	if ((fd = (int)syscall(SYS_perf_event_open, &a, -1, t->dpt_cpu, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1)
		return -1;
	if (dtd_prov_profile_ring(t, fd) == -1) {
		close(fd);
		return -1;
	}
	return 0;
}

/*
 * Task mode: may this daemon sample a process of its own on t's CPU?
 * Tried on the daemon itself; the kernel too if perf_event_paranoid
 * allows it, else user mode alone (pf->dpf_nokernel).  Then the ring:
 * a dummy event of t's CPU, which the targets' events write into.
 * 0, or -1 (perf refuses this too: timers).
 */
static int
dtd_prov_profile_perf_task(dtd_profile_thr_t *t, dtd_profile_t *pf)
{
	struct perf_event_attr a;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd;

	dtd_prov_profile_attr(&a, pf->dpf_ns);
	a.exclude_kernel = pf->dpf_nokernel;
	a.exclude_hv = 1;
	a.disabled = 1;
	if ((fd = (int)syscall(SYS_perf_event_open, &a, 0, t->dpt_cpu, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1 && errno == EACCES &&
	    !pf->dpf_nokernel) {
		pf->dpf_nokernel = a.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, t->dpt_cpu, -1,
		    PERF_FLAG_FD_CLOEXEC);
	}
	if (fd == -1)
		return -1;
	close(fd);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(DTD_PROFILE_RINGPAGES * page / 2);
	if ((fd = (int)syscall(SYS_perf_event_open, &a, 0, t->dpt_cpu, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1)
		return -1;
	if (dtd_prov_profile_ring(t, fd) == -1) {
		close(fd);
		return -1;
	}
	return 0;
}

/* Task mode: close the events of t's target k. */
static void
dtd_prov_profile_task_close(dtd_proftask_t *k)
{
	uint32_t i;

	for (i = 0; i < k->pk_nfds; i++)
		close(k->pk_fds[i]);
	free(k->pk_fds);
	k->pk_fds = NULL;
	k->pk_nfds = 0;
}

/*
 * Task mode: sample target pid on t's CPU: an event on each of its
 * threads, inherited by the threads (and processes) they create from
 * then on, writing into t's ring.  0, or -1.
 */
static int
dtd_prov_profile_task_open(dtd_profile_thr_t *t, dtd_proftask_t *k)
{
	dtd_profile_t *pf = t->dpt_pf;
	struct perf_event_attr a;
	struct dirent *de;
	char path[64];
	int fd, *nfds;
	pid_t tid;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)k->pk_pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	dtd_prov_profile_attr(&a, pf->dpf_ns);
	a.inherit = 1;
	a.exclude_kernel = pf->dpf_nokernel;
	a.exclude_hv = 1;
	while ((de = readdir(d)) != NULL) {
		if ((tid = (pid_t)strtol(de->d_name, NULL, 10)) <= 0)
			continue;
		if ((nfds = reallocarray(k->pk_fds, k->pk_nfds + 1,
		    sizeof(*nfds))) == NULL)
			break;
		k->pk_fds = nfds;
		if ((fd = (int)syscall(SYS_perf_event_open, &a, tid,
		    t->dpt_cpu, -1, PERF_FLAG_FD_CLOEXEC)) == -1)
			continue;	/* gone already, or not ours */
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->dpt_pfd) == -1) {
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
 * Task mode: follow the main thread's list of targets, if it changed:
 * sample the new ones, stop sampling those no longer traced.
 */
static void
dtd_prov_profile_task_sync(dtd_profile_thr_t *t)
{
	pid_t want[DTD_PROFILE_MAXWANT];
	dtd_proftask_t *nk;
	uint32_t nwant, i, j;
	uint64_t gen;

	pthread_mutex_lock(&dtd_profile_wlock);
	gen = dtd_profile_wantgen;
	nwant = dtd_profile_nwant;
	memcpy(want, dtd_profile_want, nwant * sizeof(want[0]));
	pthread_mutex_unlock(&dtd_profile_wlock);
	if (gen == t->dpt_wantgen)
		return;
	t->dpt_wantgen = gen;
	for (i = 0; i < t->dpt_ntasks; ) {
		for (j = 0; j < nwant; j++)
			if (want[j] == t->dpt_tasks[i].pk_pid)
				break;
		if (j < nwant) {
			i++;
			continue;
		}
		dtd_prov_profile_task_close(&t->dpt_tasks[i]);
		t->dpt_tasks[i] = t->dpt_tasks[--t->dpt_ntasks];
	}
	for (j = 0; j < nwant; j++) {
		for (i = 0; i < t->dpt_ntasks; i++)
			if (want[j] == t->dpt_tasks[i].pk_pid)
				break;
		if (i < t->dpt_ntasks)
			continue;
		if ((nk = reallocarray(t->dpt_tasks, t->dpt_ntasks + 1,
		    sizeof(*nk))) == NULL)
			break;
		t->dpt_tasks = nk;
		nk = &t->dpt_tasks[t->dpt_ntasks];
		memset(nk, 0, sizeof(*nk));
		nk->pk_pid = want[j];
		if (dtd_prov_profile_task_open(t, nk) == 0)
			t->dpt_ntasks++;
		else
			dtd_prov_profile_task_close(nk);
	}
}

/*
 * Main thread: the processes the consumers with profile ECBs trace
 * (their -p and -c targets still alive), for task mode.
 */
static void
dtd_prov_profile_retarget(evutil_socket_t fd, short ev, void *arg)
{
	pid_t want[DTD_PROFILE_MAXWANT], pids[DTD_PROFILE_MAXWANT];
	int exited[DTD_PROFILE_MAXWANT];
	uint32_t nwant = 0, n, i, j;
	dtd_consumer_t *c;

	(void)fd; (void)ev; (void)arg;
	for (c = dtd_consumer_next(NULL); c != NULL;
	    c = dtd_consumer_next(c)) {
		if (!dtd_prov_profile_uses(c))
			continue;
		n = dtd_prov_pid_targets(c, pids, exited, DTD_PROFILE_MAXWANT);
		for (i = 0; i < n; i++) {
			if (exited[i])
				continue;
			for (j = 0; j < nwant; j++)
				if (want[j] == pids[i])
					break;
			if (j == nwant && nwant < DTD_PROFILE_MAXWANT)
				want[nwant++] = pids[i];
		}
	}
	pthread_mutex_lock(&dtd_profile_wlock);
	if (nwant != dtd_profile_nwant || memcmp(want, dtd_profile_want,
	    nwant * sizeof(want[0])) != 0) {
		memcpy(dtd_profile_want, want, nwant * sizeof(want[0]));
		dtd_profile_nwant = nwant;
		dtd_profile_wantgen++;
	}
	pthread_mutex_unlock(&dtd_profile_wlock);
}

/* The uid of process pid (0 for the idle task), or -1. */
static uid_t
dtd_prov_profile_uid(pid_t pid)
{
	long v;

	if (pid == 0)
		return 0;
	return dtd_host_status(pid, "Uid", &v, NULL) == 0 ? (uid_t)v :
	    (uid_t)-1;
}

/* The address of kernel function name, or 0 (not there, or hidden). */
static uint64_t
dtd_prov_profile_kallsym(const char *name)
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
 * The live entry of sampled process pid, held (dtd_prov_profile_rele),
 * made on its first sample; NULL if it is gone or the table is full.
 */
static dtd_profproc_t *
dtd_prov_profile_hold(pid_t pid)
{
	dtd_profproc_t *pp, *np, **ppp;
	char err[128];

	pthread_mutex_lock(&dtd_profile_plock);
	for (ppp = &dtd_profile_procs; (pp = *ppp) != NULL;
	    ppp = &pp->pp_next)
		if (pp->pp_pid == pid && pp->pp_dead == 0)
			break;
	/* the busy ones first: a sampled process is found in a few steps */
	if (pp != NULL && ppp != &dtd_profile_procs) {
		*ppp = pp->pp_next;
		pp->pp_next = dtd_profile_procs;
		dtd_profile_procs = pp;
	}
	if (pp != NULL) {
		pp->pp_refs++;
		pp->pp_last = dtd_ecb_now();
		pthread_mutex_unlock(&dtd_profile_plock);
		return pp;
	}
	/*
	 * Full (consumers that do not snapshot, a retained program no
	 * client reads, keep the dead): the dead entry sampled longest ago
	 * goes, told or not, for this live process.
	 */
	np = NULL;
	if (dtd_profile_nprocs >= DTD_PROFILE_MAXPROCS) {
		dtd_profproc_t **victim = NULL;

		for (ppp = &dtd_profile_procs; (pp = *ppp) != NULL;
		    ppp = &pp->pp_next)
			if (pp->pp_dead != 0 && pp->pp_refs == 0)
				victim = ppp;
		if (victim == NULL) {
			pthread_mutex_unlock(&dtd_profile_plock);
			return NULL;
		}
		np = *victim;
		*victim = np->pp_next;
		dtd_profile_nprocs--;
	}
	pthread_mutex_unlock(&dtd_profile_plock);
	if (np != NULL) {
		ft_unwind_destroy(np->pp_unwind);
		ft_proc_release(np->pp_proc);
		free(np);
	}

	/* read its modules now, without the lock: they must outlive it */
	if ((np = calloc(1, sizeof(*np))) == NULL)
		return NULL;
	np->pp_pid = pid;
	np->pp_uid = dtd_prov_profile_uid(pid);
	if ((np->pp_proc = ft_proc_observe(pid, err, sizeof(err))) == NULL ||
	    (np->pp_unwind = ft_unwind_create(pid)) == NULL) {
		ft_proc_release(np->pp_proc);
		free(np);
		return NULL;
	}
	pthread_mutex_lock(&dtd_profile_plock);
	for (pp = dtd_profile_procs; pp != NULL; pp = pp->pp_next)
		if (pp->pp_pid == pid && pp->pp_dead == 0)
			break;
	if (pp == NULL) {	/* no other CPU's thread made it meanwhile */
		pp = np;
		np = NULL;
		pp->pp_serial = ++dtd_profile_serial;
		pp->pp_next = dtd_profile_procs;
		dtd_profile_procs = pp;
		dtd_profile_nprocs++;
	}
	pp->pp_refs++;
	pp->pp_last = dtd_ecb_now();
	pthread_mutex_unlock(&dtd_profile_plock);
	if (np != NULL) {
		ft_unwind_destroy(np->pp_unwind);
		ft_proc_release(np->pp_proc);
		free(np);
	}
	return pp;
}

static void
dtd_prov_profile_rele(dtd_profproc_t *pp)
{
	if (pp == NULL)
		return;
	pthread_mutex_lock(&dtd_profile_plock);
	pp->pp_refs--;
	pthread_mutex_unlock(&dtd_profile_plock);
}

/*
 * A side-band record about pid: its modules changed (what), or it
 * exited.  Only processes already sampled are known.
 */
#define DTD_PROFILE_EV_MODS	1
#define DTD_PROFILE_EV_EXEC	2
#define DTD_PROFILE_EV_EXIT	3

static void
dtd_prov_profile_event(pid_t pid, int what)
{
	dtd_profproc_t *pp;

	pthread_mutex_lock(&dtd_profile_plock);
	for (pp = dtd_profile_procs; pp != NULL; pp = pp->pp_next) {
		if (pp->pp_pid != pid || pp->pp_dead != 0)
			continue;
		if (what == DTD_PROFILE_EV_EXIT) {
			pp->pp_dead = dtd_ecb_now();
			/* no hit holds it: its unwinder's files go now */
			if (pp->pp_refs == 0) {
				ft_unwind_destroy(pp->pp_unwind);
				pp->pp_unwind = NULL;
			}
			break;
		}
		if (what == DTD_PROFILE_EV_EXEC)
			pp->pp_uid = dtd_prov_profile_uid(pid);
		ft_proc_refresh(pp->pp_proc);
		__atomic_add_fetch(&pp->pp_gen, 1, __ATOMIC_ACQ_REL);
		break;
	}
	pthread_mutex_unlock(&dtd_profile_plock);
}

/*
 * Memory of a sampled process: the stack copied at the sample where the
 * range is in it, else the memory now (later than the sample), with the
 * copied bytes laid over what it overlaps.
 */
static int
dtd_prov_profile_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	const dtd_profile_smp_t *ps = arg;
	uint64_t lo = ps->ps_sp, hi = ps->ps_sp + ps->ps_stklen, a, b;

	if (addr >= lo && addr <= hi && len <= hi - addr) {
		memcpy(buf, ps->ps_stack + (addr - lo), len);
		return 0;
	}
	if (ps->ps_proc == NULL || ft_proc_read(ps->ps_proc->pp_proc, addr,
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
dtd_prov_profile_ustack(const dtd_hit_t *h, uint64_t *pcs, uint32_t max)
{
	const dtd_profile_smp_t *ps = h->dh_ustackarg;
	dtd_profproc_t *pp = ps->ps_proc;

	return ft_unwind_stack(pp->pp_unwind,
	    __atomic_load_n(&pp->pp_gen, __ATOMIC_ACQUIRE), h->dh_tid,
	    (const struct user_regs_struct *)(const void *)ps->ps_regs,
	    h->dh_uread, h->dh_uarg, pcs, max);
}

/*
 * The user registers of a sample, in perf's order for
 * DTD_PROFILE_REGMASK, into struct user_regs_struct's (what uregs[]
 * indexes).  perf gives no orig_rax, fs_base, gs_base nor the data
 * segment selectors: those read 0.
 */
static void
dtd_prov_profile_regs(const uint64_t *pr, uint64_t *ur)
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
dtd_prov_profile_sample(dtd_profile_thr_t *t, const uint8_t *p, size_t len)
{
	struct {
		uint64_t	ip;
		uint32_t	pid, tid;
		uint64_t	time;
		uint32_t	cpu, res;
		uint64_t	abi;
	} smp;
	dtd_profile_smp_t ps;
	uint64_t stksize = 0, dynsize = 0;
	size_t off = sizeof(smp);
	int user = 0;
	dtd_hit_t hit;

	if (len < sizeof(smp))
		return;
	memcpy(&smp, p, sizeof(smp));
	memset(&ps, 0, sizeof(ps));
	if (smp.abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if (len < off + DTD_PROFILE_NPREGS * 8 + 8)
			return;
		memcpy(ps.ps_pregs, p + off, DTD_PROFILE_NPREGS * 8);
		off += DTD_PROFILE_NPREGS * 8;
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
	hit.dh_probe = t->dpt_probe;
	hit.dh_pid = (pid_t)smp.pid;
	hit.dh_tid = (pid_t)smp.tid;
	hit.dh_nothread = smp.pid == 0;
	hit.dh_cpu = (int)smp.cpu;
	hit.dh_timestamp = smp.time;
	hit.dh_ppid = -1;
	hit.dh_gid = (gid_t)-1;
	hit.dh_execname = smp.pid == 0 ? "sched" : NULL;
	hit.dh_private = 1;
	hit.dh_args[0] = DTD_PROFILE_KERNEL(smp.ip) ? smp.ip : 0;
	hit.dh_args[1] = DTD_PROFILE_KERNEL(smp.ip) ? 0 : smp.ip;
	if (smp.pid == 0) {
		hit.dh_uid = 0;
		if (hit.dh_args[0] != 0)
			__atomic_store_n(&dtd_profile_idlepc, hit.dh_args[0],
			    __ATOMIC_RELAXED);
		dtd_ecb_fire(&hit);
		return;
	}
	/* no user context (a kernel thread): no entry, nothing to name */
	if (user && (ps.ps_proc = dtd_prov_profile_hold(hit.dh_pid)) != NULL)
		hit.dh_uid = ps.ps_proc->pp_uid;
	else
		hit.dh_uid = dtd_prov_profile_uid(hit.dh_pid);
	if (user) {
		dtd_prov_profile_regs(ps.ps_pregs, ps.ps_regs);
		ps.ps_sp = ps.ps_regs[DTD_PROFILE_RSP];
		hit.dh_regs = ps.ps_regs;
		hit.dh_nregs = DTD_PROFILE_NREGS;
		hit.dh_uread = dtd_prov_profile_uread;
		hit.dh_uarg = &ps;
		if (ps.ps_proc != NULL && ps.ps_proc->pp_unwind != NULL) {
			hit.dh_ustack = dtd_prov_profile_ustack;
			hit.dh_ustackarg = &ps;
		}
	}
	dtd_ecb_fire(&hit);
	dtd_prov_profile_rele(ps.ps_proc);
}

/*
 * Fire once for each sample in t's ring, and follow the side-band
 * records; returns how many samples there were (lost ones included).
 */
static uint64_t
dtd_prov_profile_drain(dtd_profile_thr_t *t)
{
	struct perf_event_mmap_page *mp = t->dpt_ring;
	const uint8_t *data = (const uint8_t *)t->dpt_ring + mp->data_offset;
	uint64_t size = mp->data_size, head, tail, n = 0, lost;
	struct perf_event_header hdr;
	const uint8_t *rec;
	uint32_t pid, tid;
	uint64_t i, o;

	if (mp->data_offset == 0) {	/* kernels before 4.1 */
		data = (const uint8_t *)t->dpt_ring + sysconf(_SC_PAGESIZE);
		size = t->dpt_ringlen - (size_t)sysconf(_SC_PAGESIZE);
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
				t->dpt_rec[i] = data[(tail + i) % size];
			rec = t->dpt_rec;
		}
		tail += hdr.size;
		rec += sizeof(hdr);
		switch (hdr.type) {
		case PERF_RECORD_SAMPLE:
			dtd_prov_profile_sample(t, rec, hdr.size - sizeof(hdr));
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
					dtd_prov_profile_event((pid_t)pid,
					    DTD_PROFILE_EV_EXIT);
			} else if (hdr.type != PERF_RECORD_COMM)
				dtd_prov_profile_event((pid_t)pid,
				    DTD_PROFILE_EV_MODS);
			else if (hdr.misc & PERF_RECORD_MISC_COMM_EXEC)
				dtd_prov_profile_event((pid_t)pid,
				    DTD_PROFILE_EV_EXEC);
			break;
		}
	}
	if (tail < head)
		tail = head;
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/*
 * n intervals went by on t's CPU and perf sampled it got times in all:
 * the CPU idled through the ones it did not sample (see above); in task
 * mode, it ran none of the targets.  One interval of slack, since the
 * sample of the interval that just ended may not be in the ring yet.
 */
static void
dtd_prov_profile_idle(dtd_profile_thr_t *t, uint64_t n)
{
	uint64_t k, i;
	dtd_hit_t hit;

	t->dpt_due += n;
	if (t->dpt_due <= t->dpt_got + 1)
		return;
	k = t->dpt_due - 1 - t->dpt_got;
	t->dpt_got += k;
	if (k > DTD_PROFILE_MAXPEND)
		k = DTD_PROFILE_MAXPEND;
	for (i = 0; i < k; i++) {
		if (t->dpt_pf->dpf_mode == DTD_PROFILE_MODE_TASK) {
			/* no target ran: as a timer fires (see above) */
			dtd_ecb_hit_self(&hit, t->dpt_probe);
			hit.dh_cpu = t->dpt_cpu;
			dtd_ecb_fire(&hit);
			continue;
		}
		memset(&hit, 0, sizeof(hit));
		hit.dh_probe = t->dpt_probe;
		hit.dh_nothread = 1;
		hit.dh_timestamp = dtd_ecb_now();
		hit.dh_pid = hit.dh_tid = 0;
		hit.dh_cpu = t->dpt_cpu;
		hit.dh_ppid = 0;
		hit.dh_uid = 0;
		hit.dh_gid = 0;
		hit.dh_execname = "sched";
		hit.dh_private = 1;
		hit.dh_args[0] = __atomic_load_n(&dtd_profile_idlepc,
		    __ATOMIC_RELAXED);
		dtd_ecb_fire(&hit);
	}
}

/*
 * A timer thread: wait for the timerfd, the perf ring's watermark or
 * the stop eventfd.  A timer fires once per interval gone by, up to
 * DTD_PROFILE_MAXPEND; a sampling CPU's timer drains the ring (once per
 * sample) and fires for the intervals the CPU idled unsampled.
 */
static void *
dtd_prov_profile_thread(void *arg)
{
	dtd_profile_thr_t *t = arg;
	dtd_profile_t *pf = t->dpt_pf;
	struct pollfd pfd[3];
	dtd_hit_t hit;
	uint64_t n, i;
	ssize_t r;
	nfds_t nfd;

	if (t->dpt_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->dpt_cpu, &set);
		/* the CPU may have gone offline: then fire wherever we are */
		if (sched_setaffinity(0, sizeof(set), &set) == -1)
			log_warn("%s: profile:::%s: cpu %d", __func__,
			    t->dpt_probe->dpr_name, t->dpt_cpu);
	}
	pfd[0].fd = pf->dpf_stopfd;
	pfd[0].events = POLLIN;
	pfd[1].fd = t->dpt_tfd;
	pfd[1].events = POLLIN;
	pfd[2].fd = t->dpt_pfd;
	pfd[2].events = POLLIN;
	nfd = t->dpt_pfd != -1 ? 3 : 2;
	if (t->dpt_pfd != -1 && pf->dpf_mode == DTD_PROFILE_MODE_TASK)
		dtd_prov_profile_task_sync(t);
	for (;;) {
		if (poll(pfd, nfd, -1) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("%s: poll", __func__);
			break;
		}
		if (pfd[0].revents != 0)
			break;
		if (nfd == 3 && (pfd[2].revents & POLLIN))
			t->dpt_got += dtd_prov_profile_drain(t);
		if ((pfd[1].revents & POLLIN) == 0)
			continue;
		r = read(t->dpt_tfd, &n, sizeof(n));
		if (r != (ssize_t)sizeof(n)) {
			if (r == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			log_warn("%s: timerfd read", __func__);
			break;
		}
		if (t->dpt_pfd != -1) {
			if (pf->dpf_mode == DTD_PROFILE_MODE_TASK)
				dtd_prov_profile_task_sync(t);
			t->dpt_got += dtd_prov_profile_drain(t);
			dtd_prov_profile_idle(t, n * t->dpt_batch);
			continue;
		}
		if (n > DTD_PROFILE_MAXPEND)
			n = DTD_PROFILE_MAXPEND;
		for (i = 0; i < n; i++) {
			dtd_ecb_hit_self(&hit, t->dpt_probe);
			/* arg0, arg1: kernel and user PC; none (see above) */
			dtd_ecb_fire(&hit);
		}
	}
	return NULL;
}

/* Stop and join every started thread, close everything. */
static void
dtd_prov_profile_stop(dtd_profile_t *pf)
{
	uint64_t one = 1;
	int i;

	if (pf->dpf_stopfd != -1 &&
	    write(pf->dpf_stopfd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		log_warn("%s: eventfd write", __func__);
	for (i = 0; i < pf->dpf_nthr; i++) {
		dtd_profile_thr_t *t = &pf->dpf_thr[i];

		if (t->dpt_started)
			pthread_join(t->dpt_thread, NULL);
		if (t->dpt_tfd != -1)
			close(t->dpt_tfd);
		if (t->dpt_ring != NULL)
			munmap(t->dpt_ring, t->dpt_ringlen);
		while (t->dpt_ntasks > 0)
			dtd_prov_profile_task_close(
			    &t->dpt_tasks[--t->dpt_ntasks]);
		free(t->dpt_tasks);
		if (t->dpt_pfd != -1)
			close(t->dpt_pfd);
		free(t->dpt_rec);
	}
	free(pf->dpf_thr);
	pf->dpf_thr = NULL;
	pf->dpf_nthr = 0;
	if (pf->dpf_stopfd != -1)
		close(pf->dpf_stopfd);
	pf->dpf_stopfd = -1;
}

static int
dtd_prov_profile_enable(dtd_probe_t *p)
{
	dtd_profile_t *pf = p->dpr_arg;
	struct itimerspec its, tits;
	struct timespec now;
	sigset_t all, old;
	cpu_set_t set;
	int cpu, i, n, rv, saved;

	if (pf->dpf_nthr > 0)
		return 0;
	if (pf->dpf_kind == DTD_PROFILE_PROFILE) {
		/* the CPUs the daemon may run on: the ones it can pin to */
		if (sched_getaffinity(0, sizeof(set), &set) == -1)
			return -1;
		n = CPU_COUNT(&set);
	} else
		n = 1;
	if ((pf->dpf_thr = calloc((size_t)n, sizeof(*pf->dpf_thr))) == NULL)
		return -1;
	pf->dpf_nthr = n;
	for (i = 0; i < n; i++)
		pf->dpf_thr[i].dpt_tfd = pf->dpf_thr[i].dpt_pfd = -1;
	if ((pf->dpf_stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1)
		goto fail;

	/* every thread starts at the same instant: CPUs fire together */
	clock_gettime(CLOCK_MONOTONIC, &now);
	memset(&its, 0, sizeof(its));
	its.it_interval.tv_sec = (time_t)(pf->dpf_ns / 1000000000ull);
	its.it_interval.tv_nsec = (long)(pf->dpf_ns % 1000000000ull);
	its.it_value.tv_sec = now.tv_sec + its.it_interval.tv_sec;
	its.it_value.tv_nsec = now.tv_nsec + its.it_interval.tv_nsec;
	if (its.it_value.tv_nsec >= 1000000000L) {
		its.it_value.tv_sec++;
		its.it_value.tv_nsec -= 1000000000L;
	}

	/* signals belong to the main loop: the threads block them all */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	cpu = 0;
	for (i = 0; i < n; i++) {
		dtd_profile_thr_t *t = &pf->dpf_thr[i];

		t->dpt_pf = pf;
		t->dpt_probe = p;
		t->dpt_cpu = -1;
		if (pf->dpf_kind == DTD_PROFILE_PROFILE) {
			while (!CPU_ISSET(cpu, &set))
				cpu++;
			t->dpt_cpu = cpu++;
		}
		/*
		 * profile-N samples the CPU where perf allows it, else the
		 * targets on the CPU; thread 0 finds out which for all
		 */
		if (pf->dpf_kind == DTD_PROFILE_PROFILE &&
		    (t->dpt_rec = malloc(UINT16_MAX + 1)) != NULL) {
			if (i == 0 && dtd_prov_profile_perf(t, pf->dpf_ns) == 0)
				pf->dpf_mode = DTD_PROFILE_MODE_CPU;
			else if (i == 0 &&
			    dtd_prov_profile_perf_task(t, pf) == 0)
				pf->dpf_mode = DTD_PROFILE_MODE_TASK;
			else if (i > 0 && pf->dpf_mode == DTD_PROFILE_MODE_CPU)
				(void)dtd_prov_profile_perf(t, pf->dpf_ns);
			else if (i > 0 && pf->dpf_mode == DTD_PROFILE_MODE_TASK)
				(void)dtd_prov_profile_perf_task(t, pf);
			if (t->dpt_pfd == -1) {
				free(t->dpt_rec);
				t->dpt_rec = NULL;
			}
		}
		if (i == 0 && pf->dpf_mode == DTD_PROFILE_MODE_TASK)
			dtd_prov_profile_retarget(-1, 0, NULL);
		/* a sampling thread wakes DTD_PROFILE_DRAIN_NS apart at most */
		t->dpt_batch = 1;
		tits = its;
		if (t->dpt_pfd != -1 && pf->dpf_ns < DTD_PROFILE_DRAIN_NS) {
			uint64_t ns;

			t->dpt_batch = (DTD_PROFILE_DRAIN_NS + pf->dpf_ns - 1) /
			    pf->dpf_ns;
			ns = t->dpt_batch * pf->dpf_ns;
			tits.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
			tits.it_interval.tv_nsec = (long)(ns % 1000000000ull);
			tits.it_value.tv_sec = now.tv_sec +
			    tits.it_interval.tv_sec;
			tits.it_value.tv_nsec = now.tv_nsec +
			    tits.it_interval.tv_nsec;
			if (tits.it_value.tv_nsec >= 1000000000L) {
				tits.it_value.tv_sec++;
				tits.it_value.tv_nsec -= 1000000000L;
			}
		}
		if ((t->dpt_tfd = timerfd_create(CLOCK_MONOTONIC,
		    TFD_CLOEXEC | TFD_NONBLOCK)) == -1 ||
		    timerfd_settime(t->dpt_tfd, TFD_TIMER_ABSTIME, &tits,
		    NULL) == -1)
			break;
		if ((rv = pthread_create(&t->dpt_thread, NULL,
		    dtd_prov_profile_thread, t)) != 0) {
			errno = rv;
			break;
		}
		t->dpt_started = 1;
	}
	saved = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (i < n) {
		errno = saved;
		goto fail;
	}
	if (pf->dpf_mode == DTD_PROFILE_MODE_TASK &&
	    dtd_profile_ntask++ == 0) {
		struct timeval tv = { 0, DTD_PROFILE_RETARGET_MS * 1000 };

		if (dtd_profile_retarget_ev == NULL)
			dtd_profile_retarget_ev = event_new(dtd_base, -1,
			    EV_PERSIST, dtd_prov_profile_retarget, NULL);
		if (dtd_profile_retarget_ev != NULL)
			event_add(dtd_profile_retarget_ev, &tv);
	}
	if (pf->dpf_mode != DTD_PROFILE_MODE_TIMER) {
		dtd_profile_nsampling++;
		if (__atomic_load_n(&dtd_profile_idlepc, __ATOMIC_RELAXED) == 0)
			__atomic_store_n(&dtd_profile_idlepc,
			    dtd_prov_profile_kallsym("default_idle_call"),
			    __ATOMIC_RELAXED);
	}
	log_debug("%s: profile:::%s armed, %d thread%s%s", __func__,
	    p->dpr_name, n, n == 1 ? "" : "s",
	    pf->dpf_mode == DTD_PROFILE_MODE_CPU ? ", sampling each CPU" :
	    pf->dpf_mode == DTD_PROFILE_MODE_TASK ? (pf->dpf_nokernel ?
	    ", sampling the targets in user mode" :
	    ", sampling the targets") : "");
	return 0;

fail:
	saved = errno;
	log_warn("%s: profile:::%s", __func__, p->dpr_name);
	dtd_prov_profile_stop(pf);
	pf->dpf_mode = DTD_PROFILE_MODE_TIMER;
	errno = saved;
	return -1;
}

static void
dtd_prov_profile_disable(dtd_probe_t *p)
{
	dtd_profile_t *pf = p->dpr_arg;

	dtd_prov_profile_stop(pf);
	if (pf->dpf_mode == DTD_PROFILE_MODE_TASK &&
	    --dtd_profile_ntask == 0) {
		event_del(dtd_profile_retarget_ev);
		pthread_mutex_lock(&dtd_profile_wlock);
		dtd_profile_nwant = 0;
		dtd_profile_wantgen++;
		pthread_mutex_unlock(&dtd_profile_wlock);
	}
	if (pf->dpf_mode != DTD_PROFILE_MODE_TIMER) {
		pf->dpf_mode = DTD_PROFILE_MODE_TIMER;
		/* the last sampler gone: so are its consumers' snapshots */
		if (--dtd_profile_nsampling == 0)
			dtd_prov_profile_gc(1);
	}
	log_debug("%s: profile:::%s disarmed", __func__, p->dpr_name);
}

/* The illumos defaults, listed by dtrace -l in this order. */
static const char *const dtd_prov_profile_defaults[] = {
	"profile-97", "profile-199", "profile-499", "profile-997",
	"profile-1999", "profile-4001", "profile-4999",
	"tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000",
};

/* Create the default probes (dtd_probe_init: their ids are fixed). */
int
dtd_prov_profile_init(void)
{
	dtp_probedesc_t d;
	char err[128];
	size_t i;

	memset(&d, 0, sizeof(d));
	snprintf(d.dpd_provider, sizeof(d.dpd_provider), "profile");
	for (i = 0; i < sizeof(dtd_prov_profile_defaults) /
	    sizeof(dtd_prov_profile_defaults[0]); i++) {
		snprintf(d.dpd_name, sizeof(d.dpd_name), "%s",
		    dtd_prov_profile_defaults[i]);
		if (dtd_prov_profile_provide(&d, NULL, err, sizeof(err)) == -1 ||
		    dtd_probe_find("profile", "", "", d.dpd_name) == NULL)
			return -1;
	}
	return 0;
}

/*
 * Free the entries of dead processes, and of live ones not sampled for
 * DTD_PROFILE_IDLE_NS, that every consumer with profile ECBs has had a
 * snapshot since (all: every entry, nobody samples).  Main thread.
 */
static void
dtd_prov_profile_gc(int all)
{
	dtd_profproc_t *pp, **ppp, *dead = NULL;
	dtd_consumer_t *c;
	uint64_t oldest = UINT64_MAX, now;
	dtd_profcons_t *pc;

	for (c = dtd_consumer_next(NULL); c != NULL && !all;
	    c = dtd_consumer_next(c)) {
		if (!dtd_prov_profile_uses(c))
			continue;
		pc = c->dc_profstate;
		if (pc == NULL || pc->pc_lastpass < oldest)
			oldest = pc == NULL ? 0 : pc->pc_lastpass;
	}
	now = dtd_ecb_now();
	pthread_mutex_lock(&dtd_profile_plock);
	for (ppp = &dtd_profile_procs; (pp = *ppp) != NULL; ) {
		if (pp->pp_refs == 0 && (all || (pp->pp_dead != 0 &&
		    pp->pp_dead < oldest) || (pp->pp_last < oldest &&
		    pp->pp_last + DTD_PROFILE_IDLE_NS < now))) {
			*ppp = pp->pp_next;
			pp->pp_next = dead;
			dead = pp;
			dtd_profile_nprocs--;
		} else
			ppp = &pp->pp_next;
	}
	/* the dead that stay (to be told) need no unwinder: its files go */
	for (pp = dtd_profile_procs; pp != NULL; pp = pp->pp_next) {
		if (pp->pp_dead != 0 && pp->pp_refs == 0 &&
		    pp->pp_unwind != NULL) {
			ft_unwind_destroy(pp->pp_unwind);
			pp->pp_unwind = NULL;
		}
	}
	pthread_mutex_unlock(&dtd_profile_plock);
	while ((pp = dead) != NULL) {
		dead = pp->pp_next;
		ft_unwind_destroy(pp->pp_unwind);
		ft_proc_release(pp->pp_proc);
		free(pp);
	}
}

/* Has c an ECB on a profile-N probe? */
static int
dtd_prov_profile_uses(const dtd_consumer_t *c)
{
	uint32_t i;

	for (i = 0; i < c->dc_necb; i++) {
		const dtd_ecb_t *e = c->dc_ecbs[i];

		if (e != NULL && e->de_probe->dpr_prov == &dtd_prov_profile &&
		    ((const dtd_profile_t *)e->de_probe->dpr_arg)->dpf_kind ==
		    DTD_PROFILE_PROFILE)
			return 1;
	}
	return 0;
}

typedef struct dtd_profmap {
	dt_msg_t	pm_msg;
	uint32_t	pm_n;
} dtd_profmap_t;

static int
dtd_prov_profile_mapone(void *arg, ft_proc_t *proc, ft_mod_t *m)
{
	dtd_profmap_t *pm = arg;

	(void)proc;
	dt_msg_put_u64(&pm->pm_msg, m->fm_lo);
	dt_msg_put_u64(&pm->pm_msg, m->fm_hi);
	dt_msg_put_u64(&pm->pm_msg, m->fm_bias);
	dt_msg_put_u32(&pm->pm_msg, m->fm_exec ? DT_MODMAP_EXEC : 0);
	dt_msg_put_str(&pm->pm_msg, m->fm_path);
	pm->pm_n++;
	return 0;
}

/*
 * Main thread: send the client of c the module maps (DT_MSG_MODMAP) of
 * the sampled processes it may see that it has not heard of, or that
 * changed since, so that it can name their addresses.  Called before
 * every snapshot, so a map comes before the records that use it.
 */
int
dtd_prov_profile_modmaps(dtd_consumer_t *c, int (*send)(void *, dt_msg_t *),
    void *arg)
{
	dtd_profmap_t mm;
	dtd_profcons_t *pc = c->dc_profstate;
	dtd_profproc_t *pp;
	dtd_proftold_t *told;
	uint64_t gen, now;
	size_t i, off;
	int rc = 0;

	if (!dtd_prov_profile_uses(c))
		return 0;
	if (pc == NULL) {
		if ((pc = calloc(1, sizeof(*pc))) == NULL)
			return 0;
		c->dc_profstate = pc;
	}
	now = dtd_ecb_now();
	pthread_mutex_lock(&dtd_profile_plock);
	for (pp = dtd_profile_procs; pp != NULL && rc == 0; pp = pp->pp_next) {
		if (c->dc_uid != 0 && c->dc_uid != pp->pp_uid)
			continue;
		gen = __atomic_load_n(&pp->pp_gen, __ATOMIC_ACQUIRE);
		for (i = 0; i < pc->pc_ntold; i++)
			if (pc->pc_told[i].pt_serial == pp->pp_serial)
				break;
		if (i < pc->pc_ntold && pc->pc_told[i].pt_gen == gen)
			continue;
		if (i == pc->pc_ntold) {
			if (pc->pc_ntold == pc->pc_cap) {
				size_t ncap = pc->pc_cap ? 2 * pc->pc_cap : 16;

				if ((told = reallocarray(pc->pc_told, ncap,
				    sizeof(*told))) == NULL)
					break;
				pc->pc_told = told;
				pc->pc_cap = ncap;
			}
			pc->pc_told[pc->pc_ntold++].pt_serial = pp->pp_serial;
		}
		pc->pc_told[i].pt_gen = gen;
		dt_msg_init(&mm.pm_msg, DT_MSG_MODMAP);
		dt_msg_put_u32(&mm.pm_msg, (uint32_t)pp->pp_pid);
		off = mm.pm_msg.dm_len;
		dt_msg_put_u32(&mm.pm_msg, 0);
		mm.pm_n = 0;
		(void)ft_proc_mod_iter(pp->pp_proc, "*",
		    dtd_prov_profile_mapone, &mm);
		if (mm.pm_msg.dm_err == 0) {
			mm.pm_msg.dm_data[off] = mm.pm_n & 0xff;
			mm.pm_msg.dm_data[off + 1] = (mm.pm_n >> 8) & 0xff;
			mm.pm_msg.dm_data[off + 2] = (mm.pm_n >> 16) & 0xff;
			mm.pm_msg.dm_data[off + 3] = (mm.pm_n >> 24) & 0xff;
		}
		rc = send(arg, &mm.pm_msg);
		dt_msg_free(&mm.pm_msg);
	}
	/* forget what the table no longer has */
	for (i = 0; i < pc->pc_ntold; ) {
		for (pp = dtd_profile_procs; pp != NULL; pp = pp->pp_next)
			if (pp->pp_serial == pc->pc_told[i].pt_serial)
				break;
		if (pp == NULL)
			pc->pc_told[i] = pc->pc_told[--pc->pc_ntold];
		else
			i++;
	}
	pthread_mutex_unlock(&dtd_profile_plock);
	pc->pc_lastpass = now;
	dtd_prov_profile_gc(0);
	return rc;
}

/* Main thread: c is going; forget what it was told. */
void
dtd_prov_profile_drop(dtd_consumer_t *c)
{
	dtd_profcons_t *pc = c->dc_profstate;

	if (pc == NULL)
		return;
	free(pc->pc_told);
	free(pc);
	c->dc_profstate = NULL;
}
