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
 * profile-N samples with perf as perf allows (the mode,
 * DTD_PROFILE_MODE_*, found when the probe is enabled):
 *  - CPU: root, CAP_PERFMON or a permissive perf_event_paranoid.  Each
 *    CPU's event samples whatever runs there, and the probe fires once
 *    per sample in the sampled thread's context.
 *  - TASK: a daemon without those rights (a private one) where
 *    perf_event_paranoid is 2 or less.  Each CPU samples the threads of
 *    the processes the consumers trace (-p, -c).  The intervals in which
 *    no target ran fire as in TIMER mode.
 *  - TIMER: perf refuses.  profile-N fires from the timer as tick-N
 *    does, with no interrupted thread: arg0 and arg1 are 0 and the
 *    context is the daemon's.
 * The perf side (the events and their rings, the hits of samples, the
 * sampled processes, their module maps for consumers) is dtd_sample.c:
 * each thread of a sampling probe owns a sampler of its CPU.  Its timer
 * drains the sampler at most every DTD_PROFILE_DRAIN_NS (several
 * intervals per wakeup at high rates); the ring wakes it early only
 * when half full.
 *
 * Kernel stacks.  The samples carry the kernel's call chain only where
 * an ECB on the probe records stack() (the kernel walks it at every
 * sample), as deep as the deepest asks: found when the probe is
 * enabled, and again when an ECB that asks for more joins it
 * (dtd_prov_profile_addecb).
 *
 * Idle CPUs.  illumos fires profile-N on every CPU, idle or not.  Here a
 * cpu-clock event samples an idle CPU on some CPUs and not on others
 * (measured on Linux 6.18: CPU 0 gives its idle samples with pid 0,
 * CPU 1 none at all while it idles, though the event counts the time
 * as running); so the thread's timer counts the intervals and the
 * samples, and fires for the intervals perf did not sample as the idle
 * thread would have been: pid 0, execname "sched", arg0 the kernel PC
 * last seen in an idle sample (or the kernel's idle function,
 * dtd_sample_idlepc), arg1 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtd.h"

/* Most firings one wakeup makes up for (see above). */
#define DTD_PROFILE_MAXPEND	64

/*
 * A sampling thread drains its ring (and fires for idle intervals) at
 * most this often: at a higher rate, several intervals per wakeup.
 */
#define DTD_PROFILE_DRAIN_NS	1000000ull

struct dtd_profile;

/* One timer thread. */
typedef struct dtd_profile_thr {
	struct dtd_profile	*dpt_pf;
	dtd_probe_t		*dpt_probe;
	pthread_t		dpt_thread;
	int			dpt_cpu;	/* pinned to, or -1 */
	int			dpt_tfd;	/* timerfd, or -1 */
	dtd_sampler_t		*dpt_smp;	/* its CPU's samples, or NULL */
	int			dpt_started;
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
	uint32_t		dpf_kframes;	/* kernel frames sampled */
} dtd_profile_t;

/* How profile-N samples (see above). */
#define DTD_PROFILE_MODE_TIMER	0	/* not at all: timers */
#define DTD_PROFILE_MODE_CPU	DTD_SAMPLE_CPU	/* every CPU, with perf */
#define DTD_PROFILE_MODE_TASK	DTD_SAMPLE_TASK	/* the targets, with perf */

static int	dtd_prov_profile_provide(const dtp_probedesc_t *,
		    dtd_consumer_t *, char *, size_t);
static int	dtd_prov_profile_enable(dtd_probe_t *);
static int	dtd_prov_profile_arm(dtd_probe_t *, const int *,
		    dtd_sampler_t **, int);
static void	dtd_prov_profile_disable(dtd_probe_t *);
static int	dtd_prov_profile_addecb(dtd_probe_t *, const dtd_ecb_t *);
static int	dtd_prov_profile_init(void);
static int	dtd_prov_profile_uses(const dtd_consumer_t *);

const dtd_provider_t dtd_prov_profile = {
	.dpv_name = "profile",
	.dpv_init = dtd_prov_profile_init,
	.dpv_provide = dtd_prov_profile_provide,
	.dpv_enable = dtd_prov_profile_enable,
	.dpv_disable = dtd_prov_profile_disable,
	.dpv_addecb = dtd_prov_profile_addecb,
	/* a sample shows whatever ran: its maps are sent */
	.dpv_observes = dtd_prov_profile_uses,
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
	(void)err;
	(void)errlen;
	if (!dtd_probe_glob(d->dpd_provider, "profile"))
		return 0;
	/* only a literal name creates a probe, as in illumos */
	if (strpbrk(d->dpd_name, "*?[\\") != NULL ||
	    dtd_prov_profile_parse_any(d->dpd_name, &kind, &ns) == -1)
		return 0;
	if (!dtd_probe_glob(d->dpd_mod, "") || !dtd_probe_glob(d->dpd_func, ""))
		return 0;
	/*
	 * As illumos, create no probe for too short an interval: the
	 * description then matches nothing (D_PDESC_ZERO), and under -Z
	 * it is allowed to.
	 */
	if (ns < DTD_PROFILE_MIN_NS)
		return 0;
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
		hit.dh_args[0] = dtd_sample_idlepc();
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
	pfd[2].fd = t->dpt_smp != NULL ? dtd_sample_fd(t->dpt_smp) : -1;
	pfd[2].events = POLLIN;
	nfd = t->dpt_smp != NULL ? 3 : 2;
	if (t->dpt_smp != NULL && pf->dpf_mode == DTD_PROFILE_MODE_TASK)
		dtd_sample_follow(t->dpt_smp);
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
			t->dpt_got += dtd_sample_drain(t->dpt_smp);
		if ((pfd[1].revents & POLLIN) == 0)
			continue;
		r = read(t->dpt_tfd, &n, sizeof(n));
		if (r != (ssize_t)sizeof(n)) {
			if (r == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			log_warn("%s: timerfd read", __func__);
			break;
		}
		if (t->dpt_smp != NULL) {
			if (pf->dpf_mode == DTD_PROFILE_MODE_TASK)
				dtd_sample_follow(t->dpt_smp);
			t->dpt_got += dtd_sample_drain(t->dpt_smp);
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
		dtd_sample_close(t->dpt_smp);
	}
	free(pf->dpf_thr);
	pf->dpf_thr = NULL;
	pf->dpf_nthr = 0;
	if (pf->dpf_stopfd != -1)
		close(pf->dpf_stopfd);
	pf->dpf_stopfd = -1;
}

/*
 * The kernel frames ECB e records at most: its stack() actions' and
 * stack() keys' (0: none).
 */
static uint32_t
dtd_prov_profile_ecbframes(const dtd_ecb_t *e)
{
	const dtp_stmt_t *st = e->de_stmt;
	uint32_t i, k, n = 0;

	for (i = 0; i < st->ds_nact; i++) {
		const dtp_action_t *a = &st->ds_act[i];
		const dtp_agg_t *g;

		if (a->da_kind == DTRACEACT_STACK && a->da_arg > n)
			n = (uint32_t)a->da_arg;
		if (e->de_aggs == NULL || (g = e->de_aggs[i]) == NULL)
			continue;
		for (k = 0; k < g->dg_nkeys; k++)
			if (g->dg_keys[k].dk_kind == DTP_KEY_STACK &&
			    g->dg_keys[k].dk_size / 8 > n)
				n = g->dg_keys[k].dk_size / 8;
	}
	return n;
}

/*
 * The kernel frames the samples of p must carry: the most any ECB on p
 * records, of those enabled and those a consumer is enabling now (its
 * ECBs are all made before the first is enabled).  0 when no clause
 * records stack(): then the kernel walks no call chain at a sample.
 */
static uint32_t
dtd_prov_profile_kframes(const dtd_probe_t *p)
{
	dtd_consumer_t *c;
	uint32_t i, n = 0, k;

	for (c = dtd_consumer_next(NULL); c != NULL;
	    c = dtd_consumer_next(c)) {
		for (i = 0; i < c->dc_necb; i++) {
			const dtd_ecb_t *e = c->dc_ecbs[i];

			if (e != NULL && e->de_probe == p &&
			    (k = dtd_prov_profile_ecbframes(e)) > n)
				n = k;
		}
	}
	return n;
}

static int
dtd_prov_profile_enable(dtd_probe_t *p)
{
	dtd_profile_t *pf = p->dpr_arg;
	cpu_set_t set;
	int cpus[CPU_SETSIZE];
	int cpu, n;

	if (pf->dpf_nthr > 0)
		return 0;
	pf->dpf_kframes = pf->dpf_kind == DTD_PROFILE_PROFILE ?
	    dtd_prov_profile_kframes(p) : 0;
	n = 0;
	if (pf->dpf_kind == DTD_PROFILE_PROFILE) {
		/* the CPUs the daemon may run on: the ones it can pin to */
		if (sched_getaffinity(0, sizeof(set), &set) == -1)
			return -1;
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set))
				cpus[n++] = cpu;
	} else
		cpus[n++] = -1;
	return dtd_prov_profile_arm(p, cpus, NULL, n);
}

/*
 * Start p's n threads, thread i on cpus[i] (-1: unpinned).  Their
 * samplers are smp's, in pf->dpf_mode (NULL: none there), or when smp
 * is NULL opened here in the mode perf allows.  The samplers are p's
 * from now on, even on failure.
 */
static int
dtd_prov_profile_arm(dtd_probe_t *p, const int *cpus, dtd_sampler_t **smp,
    int n)
{
	dtd_profile_t *pf = p->dpr_arg;
	struct itimerspec its, tits;
	struct timespec now;
	sigset_t all, old;
	int i, rv, saved;

	if ((pf->dpf_thr = calloc((size_t)n, sizeof(*pf->dpf_thr))) == NULL) {
		saved = errno;
		for (i = 0; smp != NULL && i < n; i++)
			dtd_sample_close(smp[i]);
		errno = saved;
		return -1;
	}
	pf->dpf_nthr = n;
	for (i = 0; i < n; i++) {
		pf->dpf_thr[i].dpt_tfd = -1;
		pf->dpf_thr[i].dpt_cpu = cpus[i];
		pf->dpf_thr[i].dpt_smp = smp != NULL ? smp[i] : NULL;
	}
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
	for (i = 0; i < n; i++) {
		dtd_profile_thr_t *t = &pf->dpf_thr[i];

		t->dpt_pf = pf;
		t->dpt_probe = p;
		/*
		 * profile-N samples the CPU where perf allows it, else the
		 * targets on the CPU; thread 0 finds out which for all
		 */
		if (pf->dpf_kind == DTD_PROFILE_PROFILE && smp == NULL) {
			if (i == 0 && (t->dpt_smp = dtd_sample_open_cpu(p,
			    t->dpt_cpu, pf->dpf_ns, pf->dpf_kframes)) != NULL)
				pf->dpf_mode = DTD_PROFILE_MODE_CPU;
			else if (i == 0 && (t->dpt_smp = dtd_sample_open_task(p,
			    t->dpt_cpu, pf->dpf_ns, pf->dpf_kframes,
			    &pf->dpf_nokernel)) != NULL)
				pf->dpf_mode = DTD_PROFILE_MODE_TASK;
			else if (i > 0 && pf->dpf_mode == DTD_PROFILE_MODE_CPU)
				t->dpt_smp = dtd_sample_open_cpu(p, t->dpt_cpu,
				    pf->dpf_ns, pf->dpf_kframes);
			else if (i > 0 && pf->dpf_mode == DTD_PROFILE_MODE_TASK)
				t->dpt_smp = dtd_sample_open_task(p, t->dpt_cpu,
				    pf->dpf_ns, pf->dpf_kframes,
				    &pf->dpf_nokernel);
		}
		if (i == 0 && pf->dpf_mode == DTD_PROFILE_MODE_TASK)
			dtd_sample_retarget();
		/*
		 * A sampling thread wakes DTD_PROFILE_DRAIN_NS apart at
		 * most, and half an interval out of step with its event:
		 * perf's timer starts when the event is opened, and a
		 * wakeup at the instant it samples would preempt the
		 * sampled thread then, so that the sample would be of this
		 * thread, or of the kernel switching back (the samples of
		 * a busy target would be fewer, some in the kernel).
		 */
		t->dpt_batch = 1;
		tits = its;
		if (t->dpt_smp != NULL) {
			struct timespec opened;
			uint64_t ns, first;

			if (pf->dpf_ns < DTD_PROFILE_DRAIN_NS)
				t->dpt_batch = (DTD_PROFILE_DRAIN_NS +
				    pf->dpf_ns - 1) / pf->dpf_ns;
			ns = t->dpt_batch * pf->dpf_ns;
			first = ns + pf->dpf_ns / 2;
			clock_gettime(CLOCK_MONOTONIC, &opened);
			tits.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
			tits.it_interval.tv_nsec = (long)(ns % 1000000000ull);
			tits.it_value.tv_sec = opened.tv_sec +
			    (time_t)(first / 1000000000ull);
			tits.it_value.tv_nsec = opened.tv_nsec +
			    (long)(first % 1000000000ull);
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
	if (pf->dpf_mode != DTD_PROFILE_MODE_TIMER)
		dtd_sample_start(pf->dpf_mode);
	log_debug("%s: profile:::%s armed, %d thread%s%s, %u kernel frames",
	    __func__, p->dpr_name, n, n == 1 ? "" : "s",
	    pf->dpf_mode == DTD_PROFILE_MODE_CPU ? ", sampling each CPU" :
	    pf->dpf_mode == DTD_PROFILE_MODE_TASK ? (pf->dpf_nokernel ?
	    ", sampling the targets in user mode" :
	    ", sampling the targets") : "", pf->dpf_kframes);
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
	if (pf->dpf_mode != DTD_PROFILE_MODE_TIMER) {
		dtd_sample_stop(pf->dpf_mode);
		pf->dpf_mode = DTD_PROFILE_MODE_TIMER;
	}
	log_debug("%s: profile:::%s disarmed", __func__, p->dpr_name);
}

/*
 * ECB e joins p's others: if it records deeper kernel stacks than p's
 * samples carry (a consumer's stack() on a probe another's enabling
 * samples without), sample again with them.  The new samplers are all
 * opened, in the mode of the old, before the old threads stop: when
 * perf refuses one, the old sampling goes on as it was and e is
 * refused (the consumer that brought it is told why, the others lose
 * nothing).  Then the threads start anew, the new ones counted before
 * the old go, so that the sampled processes stay observed; the
 * intervals in between are not sampled.
 */
static int
dtd_prov_profile_addecb(dtd_probe_t *p, const dtd_ecb_t *e)
{
	dtd_profile_t *pf = p->dpr_arg;
	int mode = pf->dpf_mode, nokernel = pf->dpf_nokernel;
	int n = pf->dpf_nthr, i, rv, saved;
	dtd_sampler_t **smp;
	uint32_t kframes;
	int *cpus;

	if (pf->dpf_kind != DTD_PROFILE_PROFILE || n == 0 ||
	    mode == DTD_PROFILE_MODE_TIMER ||
	    dtd_prov_profile_ecbframes(e) <= pf->dpf_kframes)
		return 0;
	kframes = dtd_prov_profile_kframes(p);
	smp = calloc((size_t)n, sizeof(*smp));
	cpus = calloc((size_t)n, sizeof(*cpus));
	if (smp == NULL || cpus == NULL) {
		free(smp);
		free(cpus);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const dtd_profile_thr_t *t = &pf->dpf_thr[i];

		cpus[i] = t->dpt_cpu;
		/* a CPU perf did not sample (offline) stays with its timer */
		if (t->dpt_smp == NULL)
			continue;
		smp[i] = mode == DTD_PROFILE_MODE_CPU ?
		    dtd_sample_open_cpu(p, t->dpt_cpu, pf->dpf_ns, kframes) :
		    dtd_sample_open_task(p, t->dpt_cpu, pf->dpf_ns, kframes,
		    &nokernel);
		if (smp[i] == NULL)
			break;
	}
	if (i < n) {
		saved = errno;
		log_warn("%s: profile:::%s: %u kernel frames refused, "
		    "sampling on with %u", __func__, p->dpr_name, kframes,
		    pf->dpf_kframes);
		while (i-- > 0)
			dtd_sample_close(smp[i]);
		free(smp);
		free(cpus);
		errno = saved;
		return -1;
	}
	dtd_prov_profile_stop(pf);
	pf->dpf_kframes = kframes;
	pf->dpf_nokernel = nokernel;
	rv = dtd_prov_profile_arm(p, cpus, smp, n);
	saved = errno;
	free(smp);
	free(cpus);
	dtd_sample_stop(mode);
	if (rv == -1) {
		errno = saved;
		return -1;
	}
	log_debug("%s: profile:::%s sampled again, %u kernel frames",
	    __func__, p->dpr_name, pf->dpf_kframes);
	return 0;
}

/* The illumos defaults, listed by dtrace -l in this order. */
static const char *const dtd_prov_profile_defaults[] = {
	"profile-97", "profile-199", "profile-499", "profile-997",
	"profile-1999", "profile-4001", "profile-4999",
	"tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000",
};

/* Create the default probes (dtd_probe_init: their ids are fixed). */
static int
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
 * Has c an ECB on a profile-N probe?  (dtd_sample.c: the consumers
 * whose targets are sampled in task mode, who are sent module maps.)
 */
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
