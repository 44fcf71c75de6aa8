/*
 * dtd_prov_profile.c: profile:::tick-N, created on demand when a
 * description names one.
 *
 * A tick fires from a libevent timer on the main loop while it has ECBs;
 * the firing path skips consumers that are not ACTIVE.  The timer is good
 * to about a millisecond under load; a dedicated timer thread can replace
 * it once tracer threads fire probes too.  profile-N (one firing per CPU
 * with the PC that CPU was running) needs a sampling backend: its names
 * parse, but no probe is created for them yet.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "dtd.h"

typedef struct dtd_profile {
	struct event	*dpf_ev;
	uint64_t	dpf_ns;
	int		dpf_kind;
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
 * in ns.  No unit means hz.  Returns 0, or -1 when name is not one.
 */
int
dtd_prov_profile_parse(const char *name, int *kindp, uint64_t *nsp)
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
		if (n > 1000000000ull)
			return -1;
		ns = 1000000000ull / n;
	} else {
		if (n > UINT64_MAX / dtd_prov_profile_units[i].u_ns)
			return -1;
		ns = n * dtd_prov_profile_units[i].u_ns;
	}
	if (ns < DTD_PROFILE_MIN_NS)
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
	    dtd_prov_profile_parse(d->dpd_name, &kind, &ns) == -1)
		return 0;
	if (kind != DTD_PROFILE_TICK)
		return 0;
	if (!dtd_probe_glob(d->dpd_mod, "") || !dtd_probe_glob(d->dpd_func, ""))
		return 0;
	if (dtd_probe_find("profile", "", "", d->dpd_name) != NULL)
		return 0;
	if ((pf = calloc(1, sizeof(*pf))) == NULL)
		return 0;
	pf->dpf_ns = ns;
	pf->dpf_kind = kind;
	if (dtd_probe_create(&dtd_prov_profile, "", "", d->dpd_name,
	    pf) == NULL) {
		free(pf);
		return 0;
	}
	log_debug("%s: created profile:::%s (%llu ns)", __func__,
	    d->dpd_name, (unsigned long long)ns);
	return 0;
}

static void
dtd_prov_profile_tick(evutil_socket_t fd, short ev, void *arg)
{
	dtd_probe_t *p = arg;
	dtd_hit_t hit;

	dtd_ecb_hit_self(&hit, p);
	/* arg0 is the kernel PC, arg1 the user PC: no thread was interrupted */
	dtd_ecb_fire(&hit);
}

static int
dtd_prov_profile_enable(dtd_probe_t *p)
{
	dtd_profile_t *pf = p->dpr_arg;
	struct timeval tv;

	if (dtd_base == NULL) {
		errno = ENXIO;
		return -1;
	}
	if (pf->dpf_ev == NULL && (pf->dpf_ev = event_new(dtd_base, -1,
	    EV_PERSIST, dtd_prov_profile_tick, p)) == NULL)
		return -1;
	tv.tv_sec = (time_t)(pf->dpf_ns / 1000000000ull);
	tv.tv_usec = (suseconds_t)(pf->dpf_ns % 1000000000ull / 1000);
	if (event_add(pf->dpf_ev, &tv) == -1)
		return -1;
	log_debug("%s: profile:::%s armed", __func__, p->dpr_name);
	return 0;
}

static void
dtd_prov_profile_disable(dtd_probe_t *p)
{
	dtd_profile_t *pf = p->dpr_arg;

	if (pf->dpf_ev != NULL) {
		event_free(pf->dpf_ev);
		pf->dpf_ev = NULL;
	}
	log_debug("%s: profile:::%s disarmed", __func__, p->dpr_name);
}
