/*
 * dtd_probe.c: the probe table.  Providers create probes (ids from 1,
 * never reused while the daemon runs); descriptions select them with
 * globs; ECBs hang on a probe in the order they were enabled.  A probe's
 * dpr_arg, if any, is malloc'd by its provider and freed here.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"

static dtd_probe_t	**dtd_probes;	/* by id - 1 */
static uint32_t		dtd_nprobes;
static uint32_t		dtd_probecap;

static const dtd_provider_t *dtd_providers[] = {
	&dtd_prov_dtrace,
	&dtd_prov_profile,
	&dtd_prov_pid,
};
#define DTD_NPROVIDERS	(sizeof(dtd_providers) / sizeof(dtd_providers[0]))

int
dtd_probe_init(void)
{
	if (dtd_nprobes > 0)
		return 0;
	if (dtd_prov_dtrace_init() == -1)
		return -1;
	return dtd_prov_profile_init();
}

void
dtd_probe_fini(void)
{
	uint32_t i;

	for (i = 0; i < dtd_nprobes; i++) {
		dtd_probe_t *p = dtd_probes[i];

		if (p->dpr_necb > 0 && p->dpr_prov->dpv_disable != NULL)
			p->dpr_prov->dpv_disable(p);
		free(p->dpr_mod);
		free(p->dpr_func);
		free(p->dpr_name);
		free(p->dpr_arg);
		pthread_rwlock_destroy(&p->dpr_lock);
		free(p);
	}
	free(dtd_probes);
	dtd_probes = NULL;
	dtd_nprobes = dtd_probecap = 0;
}

dtd_probe_t *
dtd_probe_create(const dtd_provider_t *prov, const char *mod,
    const char *func, const char *name, void *arg)
{
	dtd_probe_t *p, **np;
	uint32_t ncap;

	if (dtd_nprobes == dtd_probecap) {
		ncap = dtd_probecap ? dtd_probecap * 2 : 64;
		if ((np = reallocarray(dtd_probes, ncap, sizeof(*np))) == NULL)
			return NULL;
		dtd_probes = np;
		dtd_probecap = ncap;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	if ((p->dpr_mod = strdup(mod)) == NULL ||
	    (p->dpr_func = strdup(func)) == NULL ||
	    (p->dpr_name = strdup(name)) == NULL) {
		free(p->dpr_mod);
		free(p->dpr_func);
		free(p);
		return NULL;
	}
	p->dpr_prov = prov;
	p->dpr_arg = arg;
	pthread_rwlock_init(&p->dpr_lock, NULL);
	TAILQ_INIT(&p->dpr_ecbs);
	dtd_probes[dtd_nprobes++] = p;
	p->dpr_id = dtd_nprobes;
	return p;
}

dtd_probe_t *
dtd_probe_lookup(uint32_t id)
{
	if (id == 0 || id > dtd_nprobes)
		return NULL;
	return dtd_probes[id - 1];
}

uint32_t
dtd_probe_count(void)
{
	return dtd_nprobes;
}

dtd_probe_t *
dtd_probe_find(const char *prov, const char *mod, const char *func,
    const char *name)
{
	uint32_t i;

	for (i = 0; i < dtd_nprobes; i++) {
		dtd_probe_t *p = dtd_probes[i];

		if (strcmp(p->dpr_prov->dpv_name, prov) == 0 &&
		    strcmp(p->dpr_mod, mod) == 0 &&
		    strcmp(p->dpr_func, func) == 0 &&
		    strcmp(p->dpr_name, name) == 0)
			return p;
	}
	return NULL;
}

/* One field of a description: empty matches anything, else a glob. */
int
dtd_probe_glob(const char *pat, const char *s)
{
	if (pat[0] == '\0')
		return 1;
	return fnmatch(pat, s, 0) == 0;
}

int
dtd_probe_match(const dtp_probedesc_t *d, const dtd_probe_t *p)
{
	return dtd_probe_glob(d->dpd_provider, p->dpr_prov->dpv_name) &&
	    dtd_probe_glob(d->dpd_mod, p->dpr_mod) &&
	    dtd_probe_glob(d->dpd_func, p->dpr_func) &&
	    dtd_probe_glob(d->dpd_name, p->dpr_name);
}

/*
 * Call cb for every probe d matches for consumer c (NULL: the daemon),
 * in id order, after the on-demand providers had a chance to create
 * probes (each checks the provider field itself: "pid" creates probes
 * for providers named pid1234).  Stops at the first non-zero return of
 * cb and returns it; a provider's error returns -1 with err filled.
 */
int
dtd_probe_iter(const dtp_probedesc_t *d, dtd_consumer_t *c,
    int (*cb)(dtd_probe_t *, void *), void *arg, char *err, size_t errlen)
{
	uint32_t i, n;
	int rv;

	if (errlen > 0)
		err[0] = '\0';
	for (i = 0; i < DTD_NPROVIDERS; i++) {
		const dtd_provider_t *pv = dtd_providers[i];

		if (pv->dpv_provide != NULL &&
		    pv->dpv_provide(d, c, err, errlen) == -1)
			return -1;
	}
	n = dtd_nprobes;
	for (i = 0; i < n; i++) {
		dtd_probe_t *p = dtd_probes[i];

		if (p->dpr_prov->dpv_match != NULL ?
		    !p->dpr_prov->dpv_match(d, p, c) : !dtd_probe_match(d, p))
			continue;
		if ((rv = cb(p, arg)) != 0)
			return rv;
	}
	return 0;
}

/* Append an ECB to a probe's chain; the provider hears of the first. */
int
dtd_probe_enable(dtd_probe_t *p, dtd_ecb_t *e)
{
	if (p->dpr_necb == 0 && p->dpr_prov->dpv_enable != NULL &&
	    p->dpr_prov->dpv_enable(p) == -1)
		return -1;
	pthread_rwlock_wrlock(&p->dpr_lock);
	TAILQ_INSERT_TAIL(&p->dpr_ecbs, e, de_link);
	p->dpr_necb++;
	pthread_rwlock_unlock(&p->dpr_lock);
	e->de_enabled = 1;
	return 0;
}

/* Once this returns, no firing can still be running e. */
void
dtd_probe_disable(dtd_probe_t *p, dtd_ecb_t *e)
{
	if (!e->de_enabled)
		return;
	pthread_rwlock_wrlock(&p->dpr_lock);
	TAILQ_REMOVE(&p->dpr_ecbs, e, de_link);
	p->dpr_necb--;
	pthread_rwlock_unlock(&p->dpr_lock);
	e->de_enabled = 0;
	if (p->dpr_necb == 0 && p->dpr_prov->dpv_disable != NULL)
		p->dpr_prov->dpv_disable(p);
}

/* A probe's id and names, as PROGRAM_OK and LIST_OK carry them. */
void
dtd_probe_encode(dt_msg_t *m, const dtd_probe_t *p)
{
	dt_msg_put_u32(m, p->dpr_id);
	dt_msg_put_str(m, p->dpr_prov->dpv_name);
	dt_msg_put_str(m, p->dpr_mod);
	dt_msg_put_str(m, p->dpr_func);
	dt_msg_put_str(m, p->dpr_name);
}
