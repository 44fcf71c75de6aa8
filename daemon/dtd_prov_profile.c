/*
 * dtd_prov_profile.c: profile:::tick-N and profile:::profile-N, created
 * on demand when a description names one.
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
 * profile-N samples what each CPU runs when the daemon may (root, or
 * CAP_PERFMON, or a permissive perf_event_paranoid): each CPU's thread
 * reads a perf cpu-clock sampling event of that CPU instead of a timer,
 * and fires once per sample in the sampled thread's context: pid, tid,
 * execname, uid of the process that was running (pid 0 when the CPU was
 * idle), arg0 the kernel PC or 0, arg1 the user PC or 0, the sample's
 * CPU and time.  A consumer that is not root sees only the samples of
 * its own processes (dh_private).  Where perf is refused, profile-N
 * fires from the timer as tick-N does, with no interrupted thread: arg0
 * and arg1 are 0 and the context is the daemon's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#include <linux/perf_event.h>

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtd.h"

/* Most firings one wakeup makes up for (see above). */
#define DTD_PROFILE_MAXPEND	64

/* The perf ring of one CPU: 2^n data pages. */
#define DTD_PROFILE_RINGPAGES	8

/* Kernel addresses on x86-64: the upper half. */
#define DTD_PROFILE_KERNEL(pc)	((pc) >= 0xffff800000000000ull)

struct dtd_profile;

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
} dtd_profile_thr_t;

typedef struct dtd_profile {
	uint64_t		dpf_ns;
	int			dpf_kind;
	int			dpf_stopfd;	/* eventfd: readable = stop */
	dtd_profile_thr_t	*dpf_thr;
	int			dpf_nthr;
} dtd_profile_t;

static int	dtd_prov_profile_provide(const dtp_probedesc_t *,
		    dtd_consumer_t *, char *, size_t);
static int	dtd_prov_profile_enable(dtd_probe_t *);
static void	dtd_prov_profile_disable(dtd_probe_t *);

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
 * Sample what cpu runs every ns: a perf cpu-clock event, its ring
 * mapped.  0, or -1 (perf not allowed, or not there: use the timer).
 */
static int
dtd_prov_profile_perf(dtd_profile_thr_t *t, uint64_t ns)
{
	struct perf_event_attr a;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = ns;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.wakeup_events = 1;
	if ((fd = (int)syscall(SYS_perf_event_open, &a, -1, t->dpt_cpu, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1)
		return -1;
	m = mmap(NULL, (1 + DTD_PROFILE_RINGPAGES) * page,
	    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return -1;
	}
	t->dpt_pfd = fd;
	t->dpt_ring = m;
	t->dpt_ringlen = (1 + DTD_PROFILE_RINGPAGES) * page;
	return 0;
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

/* Fire once for each sample in t's ring. */
static void
dtd_prov_profile_drain(dtd_profile_thr_t *t)
{
	struct perf_event_mmap_page *mp = t->dpt_ring;
	const uint8_t *data = (const uint8_t *)t->dpt_ring + mp->data_offset;
	uint64_t size = mp->data_size, head, tail;
	struct perf_event_header hdr;
	struct {
		uint64_t	ip;
		uint32_t	pid, tid;
		uint64_t	time;
		uint32_t	cpu, res;
	} smp;
	uint8_t rec[256];
	dtd_hit_t hit;
	uint64_t i;

	if (mp->data_offset == 0) {	/* kernels before 4.1 */
		data = (const uint8_t *)t->dpt_ring + sysconf(_SC_PAGESIZE);
		size = t->dpt_ringlen - (size_t)sysconf(_SC_PAGESIZE);
	}
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		for (i = 0; i < sizeof(hdr); i++)
			((uint8_t *)&hdr)[i] = data[(tail + i) % size];
		if (hdr.size < sizeof(hdr) || hdr.size > sizeof(rec) ||
		    tail + hdr.size > head)
			break;	/* not ours to make sense of: drop the rest */
		for (i = 0; i < hdr.size; i++)
			rec[i] = data[(tail + i) % size];
		tail += hdr.size;
		if (hdr.type != PERF_RECORD_SAMPLE ||
		    hdr.size < sizeof(hdr) + sizeof(smp))
			continue;
		memcpy(&smp, rec + sizeof(hdr), sizeof(smp));
		dtd_ecb_hit_self(&hit, t->dpt_probe);
		hit.dh_pid = (pid_t)smp.pid;
		hit.dh_tid = (pid_t)smp.tid;
		hit.dh_nothread = smp.pid == 0;
		hit.dh_cpu = (int)smp.cpu;
		hit.dh_timestamp = smp.time;
		hit.dh_ppid = -1;
		hit.dh_uid = dtd_prov_profile_uid(hit.dh_pid);
		hit.dh_gid = (gid_t)-1;
		hit.dh_execname = smp.pid == 0 ? "sched" : NULL;
		hit.dh_private = 1;
		hit.dh_args[0] = DTD_PROFILE_KERNEL(smp.ip) ? smp.ip : 0;
		hit.dh_args[1] = DTD_PROFILE_KERNEL(smp.ip) ? 0 : smp.ip;
		dtd_ecb_fire(&hit);
	}
	if (tail < head)
		tail = head;
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/*
 * A timer thread: wait for the timerfd (or the perf event) or the stop
 * eventfd; fire once per interval gone by, up to DTD_PROFILE_MAXPEND
 * (once per sample).
 */
static void *
dtd_prov_profile_thread(void *arg)
{
	dtd_profile_thr_t *t = arg;
	dtd_profile_t *pf = t->dpt_pf;
	struct pollfd pfd[2];
	dtd_hit_t hit;
	uint64_t n, i;
	ssize_t r;

	if (t->dpt_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->dpt_cpu, &set);
		/* the CPU may have gone offline: then fire wherever we are */
		if (sched_setaffinity(0, sizeof(set), &set) == -1)
			log_warn("%s: profile:::%s: cpu %d", __func__,
			    t->dpt_probe->dpr_name, t->dpt_cpu);
	}
	pfd[0].fd = t->dpt_pfd != -1 ? t->dpt_pfd : t->dpt_tfd;
	pfd[0].events = POLLIN;
	pfd[1].fd = pf->dpf_stopfd;
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("%s: poll", __func__);
			break;
		}
		if (pfd[1].revents != 0)
			break;
		if ((pfd[0].revents & POLLIN) == 0)
			continue;
		if (t->dpt_pfd != -1) {
			dtd_prov_profile_drain(t);
			continue;
		}
		r = read(t->dpt_tfd, &n, sizeof(n));
		if (r != (ssize_t)sizeof(n)) {
			if (r == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			log_warn("%s: timerfd read", __func__);
			break;
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
		if (t->dpt_pfd != -1)
			close(t->dpt_pfd);
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
	struct itimerspec its;
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
		/* profile-N samples the CPU where perf allows it */
		if (pf->dpf_kind == DTD_PROFILE_PROFILE &&
		    dtd_prov_profile_perf(t, pf->dpf_ns) == 0)
			;
		else if ((t->dpt_tfd = timerfd_create(CLOCK_MONOTONIC,
		    TFD_CLOEXEC | TFD_NONBLOCK)) == -1 ||
		    timerfd_settime(t->dpt_tfd, TFD_TIMER_ABSTIME, &its,
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
	log_debug("%s: profile:::%s armed, %d thread%s%s", __func__,
	    p->dpr_name, n, n == 1 ? "" : "s",
	    pf->dpf_thr[0].dpt_pfd != -1 ? ", sampling with perf" : "");
	return 0;

fail:
	saved = errno;
	log_warn("%s: profile:::%s", __func__, p->dpr_name);
	dtd_prov_profile_stop(pf);
	errno = saved;
	return -1;
}

static void
dtd_prov_profile_disable(dtd_probe_t *p)
{
	dtd_profile_t *pf = p->dpr_arg;

	dtd_prov_profile_stop(pf);
	log_debug("%s: profile:::%s disarmed", __func__, p->dpr_name);
}
