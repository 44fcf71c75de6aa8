/*
 * dtd_provider.c: the table of providers, and the generic code's calls
 * of their hooks (dtd_provider_t in dtd.h says when each is called).
 * A provider is a dtd_prov_<x>.c and a row here; no other file names
 * its functions (tests/layers.sh checks).
 */
#include <stddef.h>

#include "dtd.h"

/* Each defined in its dtd_prov_<x>.c, and named here alone. */
extern const dtd_provider_t dtd_prov_dtrace;
extern const dtd_provider_t dtd_prov_profile;
extern const dtd_provider_t dtd_prov_pid;
extern const dtd_provider_t dtd_prov_usdt;
extern const dtd_provider_t dtd_prov_syscall;
extern const dtd_provider_t dtd_prov_proc;

static const dtd_provider_t *const dtd_providers[] = {
	&dtd_prov_dtrace,	/* first: BEGIN, END and ERROR have ids 1-3 */
	&dtd_prov_profile,	/* then the default profile probes */
	&dtd_prov_pid,
	&dtd_prov_usdt,
	&dtd_prov_syscall,	/* its probes after the profile ones */
	&dtd_prov_proc,
};
#define DTD_NPROVIDERS	(sizeof(dtd_providers) / sizeof(dtd_providers[0]))

_Static_assert(DTD_NPROVIDERS <= DTD_MAXPROVIDERS,
    "DTD_MAXPROVIDERS is too small for the table");

/* The i-th provider of the table, or NULL past its end. */
const dtd_provider_t *
dtd_provider_nth(size_t i)
{
	return i < DTD_NPROVIDERS ? dtd_providers[i] : NULL;
}

/* Each provider's fixed probes, in table order (their ids follow it). */
int
dtd_provider_init(void)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_init != NULL &&
		    dtd_providers[i]->dpv_init() == -1)
			return -1;
	}
	return 0;
}

/*
 * The slot where provider pv keeps its state for consumer c (NULL until
 * it puts something there); pv is a row of the table.
 */
void **
dtd_provider_state(dtd_consumer_t *c, const dtd_provider_t *pv)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i] == pv)
			return &c->dc_provstate[i];
	}
	fatalx("%s: provider %s has no row", __func__, pv->dpv_name);
}

/* -x name=v for the provider that takes it; 1: none does. */
int
dtd_provider_option(dtd_consumer_t *c, const char *name, uint64_t v,
    char *err, size_t errlen)
{
	size_t i;
	int rc;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_option != NULL &&
		    (rc = dtd_providers[i]->dpv_option(c, name, v, err,
		    errlen)) != 1)
			return rc;
	}
	return 1;
}

int
dtd_provider_load(dtd_consumer_t *c, const dtp_prog_t *p, char *err,
    size_t errlen)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_load != NULL &&
		    dtd_providers[i]->dpv_load(c, p, err, errlen) == -1)
			return -1;
	}
	return 0;
}

void
dtd_provider_drop(dtd_consumer_t *c)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_drop != NULL)
			dtd_providers[i]->dpv_drop(c);
	}
}

void
dtd_provider_shutdown(void)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_shutdown != NULL)
			dtd_providers[i]->dpv_shutdown();
	}
}

int
dtd_provider_observes(const dtd_consumer_t *c)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_observes != NULL &&
		    dtd_providers[i]->dpv_observes(c))
			return 1;
	}
	return 0;
}

void
dtd_provider_retarget(dtd_target_t *t, uint64_t oldgen, int exec)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_retarget != NULL)
			dtd_providers[i]->dpv_retarget(t, oldgen, exec);
	}
}

void
dtd_provider_release(dtd_target_t *t)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_release != NULL)
			dtd_providers[i]->dpv_release(t);
	}
}

void
dtd_provider_flush(dtd_consumer_t *c)
{
	size_t i;

	for (i = 0; i < DTD_NPROVIDERS; i++) {
		if (dtd_providers[i]->dpv_flush != NULL)
			dtd_providers[i]->dpv_flush(c);
	}
}
