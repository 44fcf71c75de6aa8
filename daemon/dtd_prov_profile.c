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
 * profile-N cannot say what the CPU was running: without perf events
 * there is no interrupted thread, so arg0 (kernel PC) and arg1 (user PC)
 * are both 0, as they are for tick-N.
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtd.h"

/* Most firings one wakeup makes up for (see above). */
#define DTD_PROFILE_MAXPEND	64

struct dtd_profile;

/* One timer thread. */
typedef struct dtd_profile_thr {
	struct dtd_profile	*dpt_pf;
	dtd_probe_t		*dpt_probe;
	pthread_t		dpt_thread;
	int			dpt_cpu;	/* pinned to, or -1 */
	int			dpt_tfd;	/* timerfd */
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
 * A timer thread: wait for the timerfd or the stop eventfd; fire once
 * per interval gone by, up to DTD_PROFILE_MAXPEND.
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
	pfd[0].fd = t->dpt_tfd;
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
		pf->dpf_thr[i].dpt_tfd = -1;
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
		if ((t->dpt_tfd = timerfd_create(CLOCK_MONOTONIC,
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
	log_debug("%s: profile:::%s armed, %d thread%s", __func__,
	    p->dpr_name, n, n == 1 ? "" : "s");
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
