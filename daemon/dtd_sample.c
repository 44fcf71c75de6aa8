/*
 * dtd_sample.c: perf sampling for profile-N (dtd_prov_profile.c owns
 * the probes, their timer threads and the intervals perf did not
 * sample), over fasttrap's capture source (ft_perf.c: the cpu-clock
 * events and their rings, the samples with their registers and stack
 * copy): the hits made of the samples, the table of sampled processes
 * and the module maps their consumers are sent.
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
 * dtd_sample_stop): when the last goes, so does the table below.
 *
 * User context of a sample.  Each sample carries the thread's user
 * registers (at kernel entry, for a sample taken in the kernel) and the
 * top FT_PERF_STACK bytes of its user stack.  They make the hit's
 * uregs[] and its memory accessor (ft_perf_read: the copy, else the
 * process's memory now, later than the sample), and ustack(),
 * ustackdepth and ucaller
 * unwind them with fasttrap's unwinder (ft_unwind.c).  Each sampled
 * process has an entry (dtd_sampproc_t, made on its first sample): its
 * modules (ft_proc_observe: the process is not traced), read at once so
 * that they outlive it, and its unwinder.  The sampling events also
 * carry perf's side-band records: an executable mmap or an exec bumps
 * the entry's module generation, an exit marks it dead (and so does
 * the fork of a new process with its pid, should the exit be lost).
 * Every consumer with profile ECBs (dtd_prov_profile_uses) is sent the
 * module map (DT_MSG_MODMAP) of each sampled process it may see, before
 * each snapshot and again when it changed (dtd_sample_modmaps), so it
 * names the addresses of ustack(), usym() and ufunc() as it does a
 * target's.  A dead entry is freed once every such consumer has had a
 * snapshot since it died (dtd_sample_gc), or when the table is full; a
 * live one not sampled for DTD_SAMPLE_IDLE_NS likewise.
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

/*
 * Sampled processes the table keeps at most (each holds its modules'
 * files open), and how long one not sampled since stays, alive.
 */
#define DTD_SAMPLE_MAXPROCS	1024
#define DTD_SAMPLE_IDLE_NS	(10 * 1000000000ull)

/* Kernel addresses on x86-64: the upper half. */
#define DTD_SAMPLE_KERNEL(pc)	((pc) >= 0xffff800000000000ull)

/* A sampled process (see above). */
typedef struct dtd_sampproc {
	pid_t			pp_pid;
	uint64_t		pp_serial;	/* names it to consumers */
	uid_t			pp_uid;
	ft_proc_t		*pp_proc;	/* observed: modules, memory */
	ft_unwind_t		*pp_unwind;	/* NULL once dead (gc) */
	uint64_t		pp_gen;		/* atomic: module changes */
	uint64_t		pp_dead;	/* when it exited, 0: alive */
	uint64_t		pp_last;	/* its last sample (plock) */
	int			pp_refs;	/* hits using it */
	struct dtd_sampproc	*pp_next;
} dtd_sampproc_t;

/* What a consumer was told: sampled processes' module maps. */
typedef struct dtd_samptold {
	uint64_t		pt_serial;
	uint64_t		pt_gen;
} dtd_samptold_t;

typedef struct dtd_sampcons {
	uint64_t		pc_lastpass;	/* time of its last maps pass */
	dtd_samptold_t		*pc_told;
	size_t			pc_ntold;
	size_t			pc_cap;
} dtd_sampcons_t;

/* One hit's sample: what its memory accessor and ustack() read. */
typedef struct dtd_sampctx {
	dtd_sampproc_t		*ps_proc;
	const ft_perfhit_t	*ps_hit;
} dtd_sampctx_t;

static pthread_mutex_t	dtd_sample_plock = PTHREAD_MUTEX_INITIALIZER;
static dtd_sampproc_t	*dtd_sample_procs;	/* dtd_sample_plock */
static uint32_t		dtd_sample_nprocs;
static uint64_t		dtd_sample_serial;
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

static void	dtd_sample_gc(int);

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
 * Sample what cpu runs every ns, for probe p.  The ring wakes the
 * thread only when half full: the timer drains it.  NULL if perf
 * refuses (try task mode).
 */
dtd_sampler_t *
dtd_sample_open_cpu(dtd_probe_t *p, int cpu, uint64_t ns)
{
	return dtd_sample_new(p, DTD_SAMPLE_CPU, ft_perf_open_cpu(cpu, ns));
}

/*
 * Task mode: a sampler of the targets on cpu every ns, for probe p, if
 * this daemon may sample a process of its own there (user mode alone
 * if the kernel is refused: *nokernel, for the probe's other CPUs).
 * NULL if perf refuses this too (timers).
 */
dtd_sampler_t *
dtd_sample_open_task(dtd_probe_t *p, int cpu, uint64_t ns, int *nokernel)
{
	return dtd_sample_new(p, DTD_SAMPLE_TASK, ft_perf_open_task(cpu, ns,
	    nokernel));
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
		if (!dtd_prov_profile_uses(c))
			continue;
		n = dtd_prov_pid_targets(c, pids, exited, DTD_SAMPLE_MAXWANT);
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

/* The uid of process pid (0 for the idle task), or -1. */
static uid_t
dtd_sample_uid(pid_t pid)
{
	long v;

	if (pid == 0)
		return 0;
	return dtd_host_status(pid, "Uid", &v, NULL) == 0 ? (uid_t)v :
	    (uid_t)-1;
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
 * The live entry of sampled process pid, held (dtd_sample_proc_rele),
 * made on its first sample; NULL if it is gone or the table is full.
 */
static dtd_sampproc_t *
dtd_sample_proc_hold(pid_t pid)
{
	dtd_sampproc_t *pp, *np, **ppp;
	char err[128];

	pthread_mutex_lock(&dtd_sample_plock);
	for (ppp = &dtd_sample_procs; (pp = *ppp) != NULL;
	    ppp = &pp->pp_next)
		if (pp->pp_pid == pid && pp->pp_dead == 0)
			break;
	/* the busy ones first: a sampled process is found in a few steps */
	if (pp != NULL && ppp != &dtd_sample_procs) {
		*ppp = pp->pp_next;
		pp->pp_next = dtd_sample_procs;
		dtd_sample_procs = pp;
	}
	if (pp != NULL) {
		pp->pp_refs++;
		pp->pp_last = dtd_ecb_now();
		pthread_mutex_unlock(&dtd_sample_plock);
		return pp;
	}
	/*
	 * Full (consumers that do not snapshot, a retained program no
	 * client reads, keep the dead): the dead entry sampled longest ago
	 * goes, told or not, for this live process.
	 */
	np = NULL;
	if (dtd_sample_nprocs >= DTD_SAMPLE_MAXPROCS) {
		dtd_sampproc_t **victim = NULL;

		for (ppp = &dtd_sample_procs; (pp = *ppp) != NULL;
		    ppp = &pp->pp_next)
			if (pp->pp_dead != 0 && pp->pp_refs == 0)
				victim = ppp;
		if (victim == NULL) {
			pthread_mutex_unlock(&dtd_sample_plock);
			return NULL;
		}
		np = *victim;
		*victim = np->pp_next;
		dtd_sample_nprocs--;
	}
	pthread_mutex_unlock(&dtd_sample_plock);
	if (np != NULL) {
		ft_unwind_destroy(np->pp_unwind);
		ft_proc_release(np->pp_proc);
		free(np);
	}

	/* read its modules now, without the lock: they must outlive it */
	if ((np = calloc(1, sizeof(*np))) == NULL)
		return NULL;
	np->pp_pid = pid;
	np->pp_uid = dtd_sample_uid(pid);
	if ((np->pp_proc = ft_proc_observe(pid, err, sizeof(err))) == NULL ||
	    (np->pp_unwind = ft_unwind_create(pid)) == NULL) {
		ft_proc_release(np->pp_proc);
		free(np);
		return NULL;
	}
	pthread_mutex_lock(&dtd_sample_plock);
	for (pp = dtd_sample_procs; pp != NULL; pp = pp->pp_next)
		if (pp->pp_pid == pid && pp->pp_dead == 0)
			break;
	if (pp == NULL) {	/* no other CPU's thread made it meanwhile */
		pp = np;
		np = NULL;
		pp->pp_serial = ++dtd_sample_serial;
		pp->pp_next = dtd_sample_procs;
		dtd_sample_procs = pp;
		dtd_sample_nprocs++;
	}
	pp->pp_refs++;
	pp->pp_last = dtd_ecb_now();
	pthread_mutex_unlock(&dtd_sample_plock);
	if (np != NULL) {
		ft_unwind_destroy(np->pp_unwind);
		ft_proc_release(np->pp_proc);
		free(np);
	}
	return pp;
}

static void
dtd_sample_proc_rele(dtd_sampproc_t *pp)
{
	if (pp == NULL)
		return;
	pthread_mutex_lock(&dtd_sample_plock);
	pp->pp_refs--;
	pthread_mutex_unlock(&dtd_sample_plock);
}

/*
 * A side-band record about pid: its modules changed (what: FT_PERF_*),
 * or it exited.  Only processes already sampled are known.
 */
static void
dtd_sample_proc_event(void *arg, pid_t pid, int what)
{
	dtd_sampproc_t *pp;

	(void)arg;
	pthread_mutex_lock(&dtd_sample_plock);
	for (pp = dtd_sample_procs; pp != NULL; pp = pp->pp_next) {
		if (pp->pp_pid != pid || pp->pp_dead != 0)
			continue;
		if (what == FT_PERF_EXIT) {
			pp->pp_dead = dtd_ecb_now();
			/* no hit holds it: its unwinder's files go now */
			if (pp->pp_refs == 0) {
				ft_unwind_destroy(pp->pp_unwind);
				pp->pp_unwind = NULL;
			}
			break;
		}
		if (what == FT_PERF_EXEC)
			pp->pp_uid = dtd_sample_uid(pid);
		ft_proc_refresh(pp->pp_proc);
		__atomic_add_fetch(&pp->pp_gen, 1, __ATOMIC_ACQ_REL);
		break;
	}
	pthread_mutex_unlock(&dtd_sample_plock);
}

/*
 * May a consumer of uid and gid (not root; dh_uid, the real uid, is
 * its already) see a sample of h's process?  Only while it could
 * ptrace the process itself, as the kernel says (ft_proc_mayptrace, the
 * pid provider's check): a set-id program a user started, one that
 * gained capabilities or is not dumpable, is root's alone.  Asked at
 * each sample, not cached: the exec that made it so may be heard of on
 * another CPU's ring after this sample.  A process that drops its
 * privilege after the sample and is dumpable again is shown, as the
 * kernel's ptrace would show it then.
 */
static int
dtd_sample_visible(const dtd_hit_t *h, uid_t uid, gid_t gid)
{
	int fd, fatal;

	fd = ft_proc_mayptrace(h->dh_pid, uid, gid, &fatal);
	if (fatal)
		fatalx("%s: cannot take back our credentials", __func__);
	if (fd == -1)
		return 0;
	close(fd);
	return 1;
}

/* Memory of a sampled process: the sample's accessor (ft_perf_read). */
static int
dtd_sample_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	const dtd_sampctx_t *ps = arg;

	return ft_perf_read(ps->ps_hit, ps->ps_proc != NULL ?
	    ps->ps_proc->pp_proc : NULL, addr, buf, len) == 0 ? 0 :
	    DIF_FLT_BADADDR;
}

/* ustack(), ustackdepth, ucaller of a sample: unwind its copy. */
static int
dtd_sample_ustack(const dtd_hit_t *h, uint64_t *pcs, uint32_t max)
{
	const dtd_sampctx_t *ps = h->dh_ustackarg;
	dtd_sampproc_t *pp = ps->ps_proc;

	return ft_unwind_stack(pp->pp_unwind,
	    __atomic_load_n(&pp->pp_gen, __ATOMIC_ACQUIRE), h->dh_tid,
	    &ps->ps_hit->ph_regs, h->dh_uread, h->dh_uarg, pcs, max);
}

/* On a sampler's thread: fire for one sample (ft_perf_drain). */
static void
dtd_sample_fire(void *arg, const ft_perfhit_t *h)
{
	dtd_sampler_t *s = arg;
	dtd_sampctx_t ps;
	dtd_hit_t hit;

	memset(&ps, 0, sizeof(ps));
	ps.ps_hit = h;
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
	if (h->ph_pid == 0) {
		hit.dh_uid = 0;
		if (hit.dh_args[0] != 0)
			__atomic_store_n(&dtd_sample_idlepc_last,
			    hit.dh_args[0], __ATOMIC_RELAXED);
		dtd_ecb_fire(&hit);
		return;
	}
	hit.dh_visible = dtd_sample_visible;
	/* no user context (a kernel thread): no entry, nothing to name */
	if (h->ph_user &&
	    (ps.ps_proc = dtd_sample_proc_hold(hit.dh_pid)) != NULL)
		hit.dh_uid = ps.ps_proc->pp_uid;
	else
		hit.dh_uid = dtd_sample_uid(hit.dh_pid);
	if (h->ph_user) {
		hit.dh_regs = (const uint64_t *)(const void *)&h->ph_regs;
		hit.dh_nregs = DTD_SAMPLE_NREGS;
		hit.dh_uread = dtd_sample_uread;
		hit.dh_uarg = &ps;
		if (ps.ps_proc != NULL && ps.ps_proc->pp_unwind != NULL) {
			hit.dh_ustack = dtd_sample_ustack;
			hit.dh_ustackarg = &ps;
		}
	}
	dtd_ecb_fire(&hit);
	dtd_sample_proc_rele(ps.ps_proc);
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
		dtd_sample_gc(1);
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

/*
 * Free the entries of dead processes, and of live ones not sampled for
 * DTD_SAMPLE_IDLE_NS, that every consumer with profile ECBs has had a
 * snapshot since (all: every entry, nobody samples).  Main thread.
 */
static void
dtd_sample_gc(int all)
{
	dtd_sampproc_t *pp, **ppp, *dead = NULL;
	dtd_consumer_t *c;
	uint64_t oldest = UINT64_MAX, now;
	dtd_sampcons_t *pc;

	for (c = dtd_consumer_next(NULL); c != NULL && !all;
	    c = dtd_consumer_next(c)) {
		if (!dtd_prov_profile_uses(c))
			continue;
		pc = c->dc_sampstate;
		if (pc == NULL || pc->pc_lastpass < oldest)
			oldest = pc == NULL ? 0 : pc->pc_lastpass;
	}
	now = dtd_ecb_now();
	pthread_mutex_lock(&dtd_sample_plock);
	for (ppp = &dtd_sample_procs; (pp = *ppp) != NULL; ) {
		if (pp->pp_refs == 0 && (all || (pp->pp_dead != 0 &&
		    pp->pp_dead < oldest) || (pp->pp_last < oldest &&
		    pp->pp_last + DTD_SAMPLE_IDLE_NS < now))) {
			*ppp = pp->pp_next;
			pp->pp_next = dead;
			dead = pp;
			dtd_sample_nprocs--;
		} else
			ppp = &pp->pp_next;
	}
	/* the dead that stay (to be told) need no unwinder: its files go */
	for (pp = dtd_sample_procs; pp != NULL; pp = pp->pp_next) {
		if (pp->pp_dead != 0 && pp->pp_refs == 0 &&
		    pp->pp_unwind != NULL) {
			ft_unwind_destroy(pp->pp_unwind);
			pp->pp_unwind = NULL;
		}
	}
	pthread_mutex_unlock(&dtd_sample_plock);
	while ((pp = dead) != NULL) {
		dead = pp->pp_next;
		ft_unwind_destroy(pp->pp_unwind);
		ft_proc_release(pp->pp_proc);
		free(pp);
	}
}


/*
 * Main thread: send the client of c the module maps (DT_MSG_MODMAP) of
 * the sampled processes it may see that it has not heard of, or that
 * changed since, so that it can name their addresses.  Called before
 * every snapshot, so a map comes before the records that use it.
 */
int
dtd_sample_modmaps(dtd_consumer_t *c, int (*send)(void *, dt_msg_t *),
    void *arg)
{
	dtd_sampcons_t *pc = c->dc_sampstate;
	dtd_sampproc_t *pp;
	dtd_samptold_t *told;
	uint64_t gen, now;
	size_t i;
	dt_msg_t m;
	int rc = 0;

	if (!dtd_prov_profile_uses(c))
		return 0;
	if (pc == NULL) {
		if ((pc = calloc(1, sizeof(*pc))) == NULL)
			return 0;
		c->dc_sampstate = pc;
	}
	now = dtd_ecb_now();
	pthread_mutex_lock(&dtd_sample_plock);
	for (pp = dtd_sample_procs; pp != NULL && rc == 0; pp = pp->pp_next) {
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
		dtd_prov_pid_mapmsg(&m, pp->pp_proc, pp->pp_pid);
		rc = send(arg, &m);
		dt_msg_free(&m);
	}
	/* forget what the table no longer has */
	for (i = 0; i < pc->pc_ntold; ) {
		for (pp = dtd_sample_procs; pp != NULL; pp = pp->pp_next)
			if (pp->pp_serial == pc->pc_told[i].pt_serial)
				break;
		if (pp == NULL)
			pc->pc_told[i] = pc->pc_told[--pc->pc_ntold];
		else
			i++;
	}
	pthread_mutex_unlock(&dtd_sample_plock);
	pc->pc_lastpass = now;
	dtd_sample_gc(0);
	return rc;
}

/* Main thread: c is going; forget what it was told. */
void
dtd_sample_drop(dtd_consumer_t *c)
{
	dtd_sampcons_t *pc = c->dc_sampstate;

	if (pc == NULL)
		return;
	free(pc->pc_told);
	free(pc);
	c->dc_sampstate = NULL;
}
