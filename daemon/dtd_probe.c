/*
 * dtd_probe.c: the probe table.  Providers create probes (ids from 1,
 * never reused while the daemon runs); descriptions select them with
 * globs; ECBs hang on a probe in the order they were enabled.  A probe's
 * dpr_arg, if any, is malloc'd by its provider and freed here.
 *
 * A probe is found by id and by its four names through two hash tables,
 * and each provider's probes are kept apart, in id order, so that a
 * description walks only the providers its first field names.  Creating
 * n probes is O(n); a description costs the probes of the providers it
 * names, whatever other processes were traced before.  The probes of a
 * process let go are destroyed (dtd_probe_destroy_prov), and the tables
 * shrink with them, so that a daemon that traced a thousand processes
 * is as small and as fast as a new one.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"

/* The probes of one provider, in id order. */
typedef struct dtd_probegrp {
	const dtd_provider_t	*pg_prov;
	TAILQ_HEAD(, dtd_probe)	pg_probes;
	uint32_t		pg_n;
	TAILQ_ENTRY(dtd_probegrp) pg_link;
} dtd_probegrp_t;

/* A chained hash table of probes; chain k is dpr_chain[k]. */
typedef struct dtd_probetab {
	dtd_probe_t	**pt_bucket;
	uint32_t	pt_nbucket;	/* a power of 2, or 0 */
	uint32_t	pt_n;
	int		pt_chain;	/* DTD_PROBE_BYID or _BYNAME */
} dtd_probetab_t;

#define	DTD_PROBE_BYID		0
#define	DTD_PROBE_BYNAME	1
#define	DTD_PROBE_MINBUCKET	64

static dtd_probetab_t	dtd_probe_byid = { .pt_chain = DTD_PROBE_BYID };
static dtd_probetab_t	dtd_probe_byname = { .pt_chain = DTD_PROBE_BYNAME };
static TAILQ_HEAD(, dtd_probegrp) dtd_probe_grps =
    TAILQ_HEAD_INITIALIZER(dtd_probe_grps);
static uint32_t		dtd_probe_lastid;
static uint32_t		dtd_probe_errcode;	/* of the last refusal */


/* FNV-1a of the four names, each with its terminating NUL. */
static uint32_t
dtd_probe_hash(const char *prov, const char *mod, const char *func,
    const char *name)
{
	const char *f[4] = { prov, mod, func, name };
	uint32_t h = 2166136261u;
	const unsigned char *s;
	int i;

	for (i = 0; i < 4; i++) {
		s = (const unsigned char *)f[i];
		do {
			h ^= *s;
			h *= 16777619u;
		} while (*s++ != '\0');
	}
	return h;
}

static uint32_t
dtd_probe_key(const dtd_probetab_t *t, const dtd_probe_t *p)
{
	return t->pt_chain == DTD_PROBE_BYID ? p->dpr_id * 2654435761u :
	    p->dpr_hash;
}

/*
 * Give t n buckets (a power of 2), moving its probes over.  On failure
 * to allocate, t stays as it was: longer chains, still correct.
 */
static void
dtd_probe_rehash(dtd_probetab_t *t, uint32_t n)
{
	dtd_probe_t **nb, *p, *next;
	uint32_t i, k;

	if ((nb = calloc(n, sizeof(*nb))) == NULL)
		return;
	for (i = 0; i < t->pt_nbucket; i++) {
		for (p = t->pt_bucket[i]; p != NULL; p = next) {
			next = p->dpr_chain[t->pt_chain];
			k = dtd_probe_key(t, p) & (n - 1);
			p->dpr_chain[t->pt_chain] = nb[k];
			nb[k] = p;
		}
	}
	free(t->pt_bucket);
	t->pt_bucket = nb;
	t->pt_nbucket = n;
}

static int
dtd_probe_tabadd(dtd_probetab_t *t, dtd_probe_t *p)
{
	uint32_t k;

	if (t->pt_nbucket == 0 || t->pt_n >= t->pt_nbucket)
		dtd_probe_rehash(t, t->pt_nbucket == 0 ? DTD_PROBE_MINBUCKET :
		    t->pt_nbucket * 2);
	if (t->pt_nbucket == 0)
		return -1;
	k = dtd_probe_key(t, p) & (t->pt_nbucket - 1);
	p->dpr_chain[t->pt_chain] = t->pt_bucket[k];
	t->pt_bucket[k] = p;
	t->pt_n++;
	return 0;
}

static void
dtd_probe_tabdel(dtd_probetab_t *t, dtd_probe_t *p)
{
	dtd_probe_t **pp;

	pp = &t->pt_bucket[dtd_probe_key(t, p) & (t->pt_nbucket - 1)];
	for (; *pp != NULL; pp = &(*pp)->dpr_chain[t->pt_chain]) {
		if (*pp == p) {
			*pp = p->dpr_chain[t->pt_chain];
			t->pt_n--;
			break;
		}
	}
	if (t->pt_nbucket > DTD_PROBE_MINBUCKET && t->pt_n < t->pt_nbucket / 8)
		dtd_probe_rehash(t, t->pt_nbucket / 4);
}

static void
dtd_probe_tabfree(dtd_probetab_t *t)
{
	free(t->pt_bucket);
	t->pt_bucket = NULL;
	t->pt_nbucket = t->pt_n = 0;
}

static dtd_probegrp_t *
dtd_probe_grp(const dtd_provider_t *prov, int create)
{
	dtd_probegrp_t *g;

	TAILQ_FOREACH(g, &dtd_probe_grps, pg_link) {
		if (g->pg_prov == prov)
			return g;
	}
	if (!create || (g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->pg_prov = prov;
	TAILQ_INIT(&g->pg_probes);
	TAILQ_INSERT_TAIL(&dtd_probe_grps, g, pg_link);
	return g;
}

static void
dtd_probe_free(dtd_probe_t *p)
{
	free(p->dpr_mod);
	free(p->dpr_func);
	free(p->dpr_name);
	free(p->dpr_arg);
	pthread_rwlock_destroy(&p->dpr_lock);
	free(p);
}

int
dtd_probe_init(void)
{
	if (dtd_probe_lastid > 0)
		return 0;
	return dtd_provider_init();
}

void
dtd_probe_fini(void)
{
	dtd_probegrp_t *g;
	dtd_probe_t *p;

	while ((g = TAILQ_FIRST(&dtd_probe_grps)) != NULL) {
		while ((p = TAILQ_FIRST(&g->pg_probes)) != NULL) {
			TAILQ_REMOVE(&g->pg_probes, p, dpr_grplink);
			if (p->dpr_necb > 0 && p->dpr_prov->dpv_disable != NULL)
				p->dpr_prov->dpv_disable(p);
			dtd_probe_free(p);
		}
		TAILQ_REMOVE(&dtd_probe_grps, g, pg_link);
		free(g);
	}
	dtd_probe_tabfree(&dtd_probe_byid);
	dtd_probe_tabfree(&dtd_probe_byname);
	dtd_probe_lastid = 0;
}

dtd_probe_t *
dtd_probe_create(const dtd_provider_t *prov, const char *mod,
    const char *func, const char *name, void *arg)
{
	dtd_probegrp_t *g;
	dtd_probe_t *p;

	if (dtd_probe_lastid == UINT32_MAX ||
	    (g = dtd_probe_grp(prov, 1)) == NULL)
		return NULL;
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
	p->dpr_id = dtd_probe_lastid + 1;
	p->dpr_hash = dtd_probe_hash(prov->dpv_name, mod, func, name);
	if (dtd_probe_tabadd(&dtd_probe_byid, p) == -1) {
		free(p->dpr_mod);
		free(p->dpr_func);
		free(p->dpr_name);
		free(p);
		return NULL;
	}
	if (dtd_probe_tabadd(&dtd_probe_byname, p) == -1) {
		dtd_probe_tabdel(&dtd_probe_byid, p);
		free(p->dpr_mod);
		free(p->dpr_func);
		free(p->dpr_name);
		free(p);
		return NULL;
	}
	dtd_probe_lastid = p->dpr_id;
	p->dpr_arg = arg;
	pthread_rwlock_init(&p->dpr_lock, NULL);
	TAILQ_INIT(&p->dpr_ecbs);
	p->dpr_grp = g;
	TAILQ_INSERT_TAIL(&g->pg_probes, p, dpr_grplink);
	g->pg_n++;
	return p;
}

/*
 * Take p out of the table and free it (its dpr_arg too).  No ECB may be
 * on it: its provider destroys only probes nobody enabled.
 */
void
dtd_probe_destroy(dtd_probe_t *p)
{
	dtd_probegrp_t *g = p->dpr_grp;

	if (p->dpr_necb > 0) {
		log_warnx("%s: probe %u is enabled", __func__, p->dpr_id);
		return;
	}
	dtd_probe_tabdel(&dtd_probe_byid, p);
	if (!p->dpr_retired)
		dtd_probe_tabdel(&dtd_probe_byname, p);
	TAILQ_REMOVE(&g->pg_probes, p, dpr_grplink);
	if (--g->pg_n == 0) {
		TAILQ_REMOVE(&dtd_probe_grps, g, pg_link);
		free(g);
	}
	dtd_probe_free(p);
}

/*
 * Destroy every probe of prov that no ECB is on and doomed says may go
 * (all, if doomed is NULL); the group goes with its last probe, which
 * is then the last of the list.
 */
void
dtd_probe_destroy_prov(const dtd_provider_t *prov,
    int (*doomed)(const dtd_probe_t *, void *), void *arg)
{
	dtd_probegrp_t *g;
	dtd_probe_t *p, *next;

	if ((g = dtd_probe_grp(prov, 0)) == NULL)
		return;
	for (p = TAILQ_FIRST(&g->pg_probes); p != NULL; p = next) {
		next = TAILQ_NEXT(p, dpr_grplink);
		if (p->dpr_necb == 0 && (doomed == NULL || doomed(p, arg)))
			dtd_probe_destroy(p);
	}
}

/*
 * p's names pass to another probe: p, still enabled, of a process
 * that has ended, stays by its id for its ECBs until its provider
 * destroys it, and a probe of the process that took the pid takes the
 * names.
 */
void
dtd_probe_retire(dtd_probe_t *p)
{
	if (p->dpr_retired)
		return;
	dtd_probe_tabdel(&dtd_probe_byname, p);
	p->dpr_retired = 1;
}

/* Call cb for every probe of prov, in id order; cb may not destroy. */
void
dtd_probe_walk_prov(const dtd_provider_t *prov,
    void (*cb)(dtd_probe_t *, void *), void *arg)
{
	dtd_probegrp_t *g;
	dtd_probe_t *p;

	if ((g = dtd_probe_grp(prov, 0)) == NULL)
		return;
	TAILQ_FOREACH(p, &g->pg_probes, dpr_grplink)
		cb(p, arg);
}

dtd_probe_t *
dtd_probe_lookup(uint32_t id)
{
	dtd_probe_t *p;

	if (dtd_probe_byid.pt_nbucket == 0)
		return NULL;
	p = dtd_probe_byid.pt_bucket[(id * 2654435761u) &
	    (dtd_probe_byid.pt_nbucket - 1)];
	for (; p != NULL; p = p->dpr_chain[DTD_PROBE_BYID]) {
		if (p->dpr_id == id)
			return p;
	}
	return NULL;
}

/* How many probes there are. */
uint32_t
dtd_probe_count(void)
{
	return dtd_probe_byid.pt_n;
}

dtd_probe_t *
dtd_probe_find(const char *prov, const char *mod, const char *func,
    const char *name)
{
	uint32_t h = dtd_probe_hash(prov, mod, func, name);
	dtd_probe_t *p;

	if (dtd_probe_byname.pt_nbucket == 0)
		return NULL;
	p = dtd_probe_byname.pt_bucket[h & (dtd_probe_byname.pt_nbucket - 1)];
	for (; p != NULL; p = p->dpr_chain[DTD_PROBE_BYNAME]) {
		if (p->dpr_hash == h &&
		    strcmp(p->dpr_prov->dpv_name, prov) == 0 &&
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

static int
dtd_probe_idcmp(const void *a, const void *b)
{
	uint32_t x = (*(dtd_probe_t *const *)a)->dpr_id;
	uint32_t y = (*(dtd_probe_t *const *)b)->dpr_id;

	return x < y ? -1 : x > y;
}

/*
 * Call cb for every probe d matches for consumer c (NULL: the daemon),
 * in id order, after the on-demand providers had a chance to create
 * probes (each checks the provider field itself: "pid" creates probes
 * for providers named pid1234).  Only the providers whose name the
 * description's first field matches are walked; the matches are taken
 * first, so that cb sees the table as it was.  Stops at the first
 * non-zero return of cb and returns it; a provider's error returns -1
 * with err filled, and its code (DT_ERR_PDESC_*, or EINVAL) for
 * dtd_probe_errcode().
 */
int
dtd_probe_iter(const dtp_probedesc_t *d, dtd_consumer_t *c,
    int (*cb)(dtd_probe_t *, void *), void *arg, char *err, size_t errlen)
{
	dtd_probe_t **m = NULL, **nm, *p;
	size_t n = 0, cap = 0, i;
	dtd_probegrp_t *g;
	uint32_t i0, ngrp = 0;
	int rv = 0;

	if (errlen > 0)
		err[0] = '\0';
	dtd_probe_errcode = EINVAL;
	for (i0 = 0; dtd_provider_nth(i0) != NULL; i0++) {
		const dtd_provider_t *pv = dtd_provider_nth(i0);

		if (pv->dpv_provide != NULL &&
		    pv->dpv_provide(d, c, err, errlen) == -1)
			return -1;
	}
	TAILQ_FOREACH(g, &dtd_probe_grps, pg_link) {
		size_t n0 = n;

		if (!dtd_probe_glob(d->dpd_provider, g->pg_prov->dpv_name))
			continue;
		TAILQ_FOREACH(p, &g->pg_probes, dpr_grplink) {
			if (p->dpr_prov->dpv_match != NULL ?
			    !p->dpr_prov->dpv_match(d, p, c) :
			    !dtd_probe_match(d, p))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				if ((nm = reallocarray(m, cap,
				    sizeof(*m))) == NULL) {
					free(m);
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				m = nm;
			}
			m[n++] = p;
		}
		ngrp += n > n0;
	}
	if (ngrp > 1)
		qsort(m, n, sizeof(*m), dtd_probe_idcmp);
	for (i = 0; i < n && rv == 0; i++)
		rv = cb(m[i], arg);
	free(m);
	return rv;
}

/*
 * Append an ECB to a probe's chain; the provider hears of the first,
 * and of the others if it asks to.
 */
int
dtd_probe_enable(dtd_probe_t *p, dtd_ecb_t *e)
{
	if (p->dpr_necb == 0 && p->dpr_prov->dpv_enable != NULL &&
	    p->dpr_prov->dpv_enable(p) == -1)
		return -1;
	if (p->dpr_necb > 0 && p->dpr_prov->dpv_addecb != NULL &&
	    p->dpr_prov->dpv_addecb(p, e) == -1)
		return -1;
	pthread_rwlock_wrlock(&p->dpr_lock);
	TAILQ_INSERT_TAIL(&p->dpr_ecbs, e, de_link);
	p->dpr_necb++;
	pthread_rwlock_unlock(&p->dpr_lock);
	e->de_enabled = 1;
	return 0;
}

/*
 * A provider refusing a description says which of the errors the
 * compiler tags it is (DT_ERR_PDESC_*), before it returns -1.
 */
void
dtd_probe_seterrcode(uint32_t code)
{
	dtd_probe_errcode = code;
}

/* The code of dtd_probe_iter's last refusal, for DT_MSG_ERROR. */
uint32_t
dtd_probe_geterrcode(void)
{
	return dtd_probe_errcode;
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
	dt_msg_put_u32(m, p->dpr_prov->dpv_nargs != NULL ?
	    (uint32_t)p->dpr_prov->dpv_nargs(p) : UINT32_MAX);
}
