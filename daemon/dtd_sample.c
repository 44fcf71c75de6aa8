/*
 * dtd_sample.c: perf sampling for profile-N (dtd_prov_profile.c owns
 * the probes, their timer threads and the intervals perf did not
 * sample), over fasttrap's capture source (ft_perf.c: the cpu-clock
 * events and their rings, the samples with their registers and stack
 * copy): the hits made of the samples.  The sampled processes are
 * dtd_target.c's.
 *
 * Samplers.  Each timer thread of a sampling profile-N probe has a
 * sampler (dtd_sampler_t) for its CPU, opened in the mode perf allows
 * (DTD_SAMPLE_*; the provider tries CPU, then TASK, else it uses timers):
 *  - CPU (dtd_sample_open_cpu, ft_perf_open_cpu): root, CAP_PERFMON or
 *    a permissive perf_event_paranoid.  The CPU's event samples whatever
 *    runs there, and the probe fires once per sample in the sampled
 *    thread's context: pid, tid, execname, uid, arg0 the kernel PC or 0,
 *    arg1 the user PC or 0, the sample's CPU and time.  A consumer that is not
 *    root sees only the samples of processes it could ptrace itself,
 *    as the kernel says at each sample (dh_private, dh_visible).
 *  - TASK (dtd_sample_open_task, ft_perf_open_task): a daemon without
 *    those rights (a private one) where perf_event_paranoid is 2 or
 *    less.  Each CPU
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
 * top FT_PERF_STACK bytes of its user stack.  They make the hit's
 * uregs[] and its memory accessor (ft_perf_read: the copy, else the
 * process's memory now, later than the sample), and ustack(),
 * ustackdepth and ucaller unwind them with fasttrap's unwinder
 * (ft_unwind.c).  A sample taken in the kernel also carries, when a
 * clause records stack(), the kernel's call chain (the sampled PC
 * first), which stack() records as it is.  Each sampled
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
#include <sys/user.h>

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

#define DTD_SAMPLE_NREGS	(sizeof(struct user_regs_struct) / 8)

/* Kernel addresses on x86-64: the upper half. */
#define DTD_SAMPLE_KERNEL(pc)	((pc) >= 0xffff800000000000ull)

/* One hit's sample: what its memory accessor and ustack() read. */
typedef struct dtd_sampctx {
	dtd_target_t		*ps_proc;	/* observed (dtd_target.c) */
	const ft_perfhit_t	*ps_hit;
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

/* A sampler: one CPU's capture (ft_perf.c), for a probe. */
struct dtd_sampler {
	dtd_probe_t		*dsm_probe;	/* fired once per sample */
	int			dsm_mode;	/* DTD_SAMPLE_* */
	ft_perf_t		*dsm_perf;
	uint64_t		dsm_wantgen;	/* of dtd_sample_want seen */
};

/* A sampler for probe p over capture f (NULL: none, and NULL back). */
static dtd_sampler_t *
dtd_sample_new(dtd_probe_t *p, int mode, ft_perf_t *f)
{
	dtd_sampler_t *s;

	if (f == NULL)
		return NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		ft_perf_close(f);
		return NULL;
	}
	s->dsm_probe = p;
	s->dsm_mode = mode;
	s->dsm_perf = f;
	return s;
}

/*
 * Sample what cpu runs every ns, for probe p, with kframes kernel
 * frames (0: none; stack()).  The ring wakes the thread only when half
 * full: the timer drains it.  NULL if perf refuses (try task mode).
 */
dtd_sampler_t *
dtd_sample_open_cpu(dtd_probe_t *p, int cpu, uint64_t ns, uint32_t kframes)
{
	return dtd_sample_new(p, DTD_SAMPLE_CPU, ft_perf_open_cpu(cpu, ns,
	    kframes));
}

/*
 * Task mode: a sampler of the targets on cpu every ns, for probe p, if
 * this daemon may sample a process of its own there (user mode alone
 * if the kernel is refused: *nokernel, for the probe's other CPUs; no
 * kernel frames then).  NULL if perf refuses this too (timers).
 */
dtd_sampler_t *
dtd_sample_open_task(dtd_probe_t *p, int cpu, uint64_t ns, uint32_t kframes,
    int *nokernel)
{
	return dtd_sample_new(p, DTD_SAMPLE_TASK, ft_perf_open_task(cpu, ns,
	    kframes, nokernel));
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
	uint32_t nwant;
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
	ft_perf_follow(s->dsm_perf, want, nwant);
}

/* Close s (NULL: nothing) once its thread is gone. */
void
dtd_sample_close(dtd_sampler_t *s)
{
	if (s == NULL)
		return;
	ft_perf_close(s->dsm_perf);
	free(s);
}

/* What s's thread polls: readable when its ring is half full. */
int
dtd_sample_fd(const dtd_sampler_t *s)
{
	return ft_perf_fd(s->dsm_perf);
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

/* A side-band record about pid (FT_PERF_*): for its observer. */
static void
dtd_sample_proc_event(void *arg, pid_t pid, int what)
{
	(void)arg;
	dtd_target_sideband(pid, what == FT_PERF_EXIT ? DTD_TARGET_SB_EXIT :
	    what == FT_PERF_EXEC ? DTD_TARGET_SB_EXEC : DTD_TARGET_SB_MODS);
}

/* Memory of a sampled process: the sample's accessor (ft_perf_read). */
static int
dtd_sample_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	const dtd_sampctx_t *ps = arg;

	return ft_perf_read(ps->ps_hit, ps->ps_proc != NULL ?
	    dtd_target_proc(ps->ps_proc) : NULL, addr, buf, len) == 0 ? 0 :
	    DIF_FLT_BADADDR;
}

/* The stack as the sample saw it, only its copy: for the unwinder. */
static int
dtd_sample_stkread(void *arg, uint64_t addr, void *buf, size_t len)
{
	const dtd_sampctx_t *ps = arg;

	return ft_perf_stackread(ps->ps_hit, addr, buf, len) == 0 ? 0 :
	    DIF_FLT_BADADDR;
}

/* ustack(), ustackdepth, ucaller of a sample: unwind its copy alone. */
static int
dtd_sample_ustack(const dtd_hit_t *h, uint64_t *pcs, uint32_t max)
{
	const dtd_sampctx_t *ps = h->dh_ustackarg;
	dtd_target_t *tg = ps->ps_proc;

	return ft_unwind_stack(dtd_target_unwind(tg), dtd_target_modgen(tg),
	    dtd_target_proc(tg), h->dh_tid, &ps->ps_hit->ph_regs,
	    dtd_sample_stkread, h->dh_uarg, pcs, max);
}

/* On a sampler's thread: fire for one sample (ft_perf_drain). */
static void
dtd_sample_fire(void *arg, const ft_perfhit_t *h)
{
	dtd_sampler_t *s = arg;
	dtd_hit_t hit;

	/* every field from the sample: no system call for the daemon's */
	memset(&hit, 0, sizeof(hit));
	hit.dh_probe = s->dsm_probe;
	hit.dh_pid = h->ph_pid;
	hit.dh_tid = h->ph_tid;
	hit.dh_nothread = h->ph_pid == 0;
	hit.dh_cpu = h->ph_cpu;
	hit.dh_timestamp = h->ph_time;
	hit.dh_ppid = -1;
	hit.dh_gid = (gid_t)-1;
	hit.dh_execname = h->ph_pid == 0 ? "sched" : NULL;
	hit.dh_private = 1;
	hit.dh_args[0] = DTD_SAMPLE_KERNEL(h->ph_ip) ? h->ph_ip : 0;
	hit.dh_args[1] = DTD_SAMPLE_KERNEL(h->ph_ip) ? 0 : h->ph_ip;
	/* stack(): the kernel's call chain of a sample in the kernel */
	hit.dh_kpcs = h->ph_kpcs;
	hit.dh_nkpcs = h->ph_nkpcs;
	if (h->ph_pid == 0) {
		hit.dh_uid = 0;
		if (hit.dh_args[0] != 0)
			__atomic_store_n(&dtd_sample_idlepc_last,
			    hit.dh_args[0], __ATOMIC_RELAXED);
		dtd_ecb_fire(&hit);
		return;
	}
	hit.dh_uid = (uid_t)-1;
	dtd_sample_fire_user(&hit, h);
}

/*
 * Fire hit, whose probe, arguments, thread and time are filled in (its
 * uid too, or (uid_t)-1 to be looked up), in the user context of
 * capture h of whatever process ran (a sample, a system call): shown
 * only to the consumers that may see that process (dh_private, and
 * dh_visible: the process as it is now, unless the caller set its own),
 * with h's registers as uregs[], h's stack copy then the process's
 * memory now as its memory, and h's stack copy unwound for ustack().
 * The process is observed (its modules, its unwinder, the maps its
 * consumers are sent).  Any thread.
 */
void
dtd_sample_fire_user(dtd_hit_t *hit, const ft_perfhit_t *h)
{
	dtd_sampctx_t ps;

	memset(&ps, 0, sizeof(ps));
	ps.ps_hit = h;
	hit->dh_private = 1;
	if (hit->dh_visible == NULL)
		hit->dh_visible = dtd_target_visible;
	/*
	 * no user context (a kernel thread): no entry, nothing to name.
	 * A uid the caller knows (a record's, as it was at the event) is
	 * kept: the observed process's may be older.
	 */
	if (h->ph_user)
		ps.ps_proc = dtd_target_observe(hit->dh_pid);
	if (hit->dh_uid == (uid_t)-1)
		hit->dh_uid = ps.ps_proc != NULL ?
		    dtd_target_uid(ps.ps_proc) : dtd_target_uidof(hit->dh_pid);
	if (h->ph_user) {
		hit->dh_regs = (const uint64_t *)(const void *)&h->ph_regs;
		hit->dh_nregs = DTD_SAMPLE_NREGS;
		hit->dh_uread = dtd_sample_uread;
		hit->dh_uarg = &ps;
		if (ps.ps_proc != NULL &&
		    dtd_target_unwind(ps.ps_proc) != NULL) {
			hit->dh_ustack = dtd_sample_ustack;
			hit->dh_ustackarg = &ps;
		}
	}
	dtd_ecb_fire(hit);
	dtd_target_rele(ps.ps_proc);
}

static const ft_perfops_t dtd_sample_ops = {
	.po_sample = dtd_sample_fire,
	.po_event = dtd_sample_proc_event,
};

/*
 * On s's thread: fire once for each sample in s's ring, and follow the
 * side-band records; returns how many samples there were (lost ones
 * included).
 */
uint64_t
dtd_sample_drain(dtd_sampler_t *s)
{
	return ft_perf_drain(s->dsm_perf, &dtd_sample_ops, s);
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
