/*
 * dtd_spec.c: speculative buffers (speculation(), speculate(), commit(),
 * discard()).
 *
 * A consumer has nspec speculations; each has one buffer of specsize
 * bytes per CPU, taken from the heap at its first record.  A
 * speculation goes through the states illumos gives it:
 *
 * INACTIVE	free: speculation() hands it out and makes it ACTIVE.
 * ACTIVE	handed out, nothing speculated yet.
 * ACTIVEONE	records on one CPU only (ds_owner).
 * ACTIVEMANY	records on several CPUs.
 * COMMITTING	commit() on the one CPU that has records: copied at
 *		once, then INACTIVE again.
 * COMMITTINGMANY, DISCARDING
 *		committed or discarded from a CPU other than the one (or
 *		the only one) holding records: busy until cleaned.
 *
 * illumos copies the other CPUs' buffers when its cleaner visits them,
 * cleanrate times a second.  Here a speculation has a lock, so commit()
 * copies every CPU's buffer (into that CPU's principal buffer) at once;
 * what stays as illumos has it is that the buffer is busy until a
 * cleaning interval has passed, which speculation() can observe as a
 * failure "(available buffer(s) still busy)".  A busy speculation is
 * cleaned lazily, by the speculation() or the snapshot that finds it
 * due, so no timer is needed.
 *
 * A record that does not fit in its CPU's speculative buffer is a
 * speculative drop; a committed record that does not fit in the
 * principal buffer is a principal drop on the committing CPU (illumos
 * charges dtrace_speculation_commit()'s failed reservation to the
 * destination buffer).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"

static int
dtd_spec_busy(int state)
{
	return state == DTD_SPEC_COMMITTINGMANY ||
	    state == DTD_SPEC_DISCARDING;
}

int
dtd_spec_init(dtd_specs_t *ss, uint32_t nspec, int ncpu, size_t size,
    uint64_t cleanrate)
{
	uint32_t i;

	memset(ss, 0, sizeof(*ss));
	if (nspec < 1 || nspec > DTD_MAX_NSPEC || ncpu < 1 ||
	    size < DTRACE_RECHDR_SIZE) {
		errno = EINVAL;
		return -1;
	}
	if ((ss->dss_spec = calloc(nspec, sizeof(*ss->dss_spec))) == NULL)
		return -1;
	for (i = 0; i < nspec; i++) {
		dtd_spec_t *sp = &ss->dss_spec[i];

		if ((sp->ds_buf = calloc((size_t)ncpu,
		    sizeof(*sp->ds_buf))) == NULL ||
		    (sp->ds_off = calloc((size_t)ncpu,
		    sizeof(*sp->ds_off))) == NULL) {
			free(sp->ds_buf);
			ss->dss_nspec = i;
			dtd_spec_fini(ss);
			errno = ENOMEM;
			return -1;
		}
		pthread_mutex_init(&sp->ds_lock, NULL);
		sp->ds_owner = -1;
		ss->dss_nspec = i + 1;
	}
	ss->dss_ncpu = ncpu;
	ss->dss_size = size & ~(size_t)7;
	ss->dss_cleanrate = cleanrate;
	return 0;
}

void
dtd_spec_fini(dtd_specs_t *ss)
{
	uint32_t i;
	int c;

	for (i = 0; ss->dss_spec != NULL && i < ss->dss_nspec; i++) {
		dtd_spec_t *sp = &ss->dss_spec[i];

		for (c = 0; sp->ds_buf != NULL && c < ss->dss_ncpu; c++)
			free(sp->ds_buf[c]);
		free(sp->ds_buf);
		free(sp->ds_off);
		pthread_mutex_destroy(&sp->ds_lock);
	}
	free(ss->dss_spec);
	memset(ss, 0, sizeof(*ss));
}

static void
dtd_spec_empty(dtd_specs_t *ss, dtd_spec_t *sp)
{
	int c;

	for (c = 0; c < ss->dss_ncpu; c++)
		sp->ds_off[c] = 0;
	sp->ds_owner = -1;
}

/* A busy speculation whose cleaning interval has passed becomes free. */
static void
dtd_spec_clean_one(dtd_specs_t *ss, dtd_spec_t *sp, uint64_t now)
{
	if (dtd_spec_busy(sp->ds_state) &&
	    now - sp->ds_busysince >= ss->dss_cleanrate) {
		dtd_spec_empty(ss, sp);
		sp->ds_state = DTD_SPEC_INACTIVE;
	}
}

void
dtd_spec_clean(dtd_specs_t *ss, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < ss->dss_nspec; i++) {
		dtd_spec_t *sp = &ss->dss_spec[i];

		pthread_mutex_lock(&sp->ds_lock);
		dtd_spec_clean_one(ss, sp, now);
		pthread_mutex_unlock(&sp->ds_lock);
	}
}

/*
 * speculation(): the id (1..nspec) of a free speculation, now ACTIVE,
 * or 0 counted as a failure: "busy" if some speculation was waiting to
 * be cleaned, else "unavailable".
 */
uint32_t
dtd_spec_alloc(dtd_specs_t *ss, uint64_t now)
{
	int busy = 0;
	uint32_t i;

	for (i = 0; i < ss->dss_nspec; i++) {
		dtd_spec_t *sp = &ss->dss_spec[i];

		pthread_mutex_lock(&sp->ds_lock);
		dtd_spec_clean_one(ss, sp, now);
		if (sp->ds_state == DTD_SPEC_INACTIVE) {
			sp->ds_state = DTD_SPEC_ACTIVE;
			dtd_spec_empty(ss, sp);
			pthread_mutex_unlock(&sp->ds_lock);
			return i + 1;
		}
		if (dtd_spec_busy(sp->ds_state))
			busy = 1;
		pthread_mutex_unlock(&sp->ds_lock);
	}
	__atomic_add_fetch(busy ? &ss->dss_busy : &ss->dss_unavail, 1,
	    __ATOMIC_RELAXED);
	return 0;
}

/*
 * Speculation id, locked, with *cpu made the CPU of one of its buffers;
 * NULL for id 0 or one past nspec, which name nothing to act on.
 */
static dtd_spec_t *
dtd_spec_lock(dtd_specs_t *ss, uint64_t id, int *cpu)
{
	dtd_spec_t *sp;

	if (id == 0 || id > ss->dss_nspec)
		return NULL;
	sp = &ss->dss_spec[id - 1];
	*cpu = *cpu < 0 ? 0 : *cpu % ss->dss_ncpu;
	pthread_mutex_lock(&sp->ds_lock);
	return sp;
}

/* Is id one that speculate(), commit() and discard() may name? */
int
dtd_spec_valid(const dtd_specs_t *ss, uint64_t id)
{
	return id <= ss->dss_nspec;
}

/*
 * speculate(): put one record (len bytes, a multiple of 4, header
 * first) in speculation id's buffer of cpu.  Id 0, and a speculation
 * that is not active, take nothing and count nothing (as illumos).
 * Returns 0, or -1 for a record that did not fit (a speculative drop).
 */
int
dtd_spec_write(dtd_specs_t *ss, uint64_t id, int cpu, const void *rec,
    size_t len)
{
	dtd_spec_t *sp;
	char *dst;
	int rv = 0;

	if ((sp = dtd_spec_lock(ss, id, &cpu)) == NULL)
		return 0;
	switch (sp->ds_state) {
	case DTD_SPEC_ACTIVE:
		sp->ds_state = DTD_SPEC_ACTIVEONE;
		sp->ds_owner = cpu;
		break;
	case DTD_SPEC_ACTIVEONE:
		if (sp->ds_owner != cpu)
			sp->ds_state = DTD_SPEC_ACTIVEMANY;
		break;
	case DTD_SPEC_ACTIVEMANY:
		break;
	default:
		pthread_mutex_unlock(&sp->ds_lock);
		return 0;
	}
	if (sp->ds_buf[cpu] == NULL &&
	    (sp->ds_buf[cpu] = malloc(ss->dss_size)) == NULL)
		goto drop;
	if (len < DTRACE_RECHDR_SIZE || len > ss->dss_size ||
	    sp->ds_off[cpu] > ss->dss_size - len)
		goto drop;
	dst = sp->ds_buf[cpu] + sp->ds_off[cpu];
	memcpy(dst, rec, len);
	sp->ds_off[cpu] += len;
	pthread_mutex_unlock(&sp->ds_lock);
	return rv;
drop:
	__atomic_add_fetch(&ss->dss_drops, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sp->ds_lock);
	return -1;
}

/*
 * Copy CPU c's records of sp into the principal buffer b in one piece,
 * as illumos does: all of them, or one drop (a fill buffer fills).
 * Returns DTD_BUF_FILLED if a fill buffer filled, else 0.
 */
static int
dtd_spec_copy(dtd_specs_t *ss, dtd_spec_t *sp, int c, dtd_buf_t *b,
    pid_t tid)
{
	int filled = 0;

	(void)ss;
	if (sp->ds_buf[c] != NULL && sp->ds_off[c] > 0 && b != NULL &&
	    dtd_buf_write_recs(b, c, tid, sp->ds_buf[c], sp->ds_off[c]) ==
	    DTD_BUF_FILLED)
		filled = DTD_BUF_FILLED;
	sp->ds_off[c] = 0;
	return filled;
}

/*
 * commit(id) on cpu: the speculation's records go to the principal
 * buffer b, each CPU's into that CPU's buffer, the committing CPU's
 * first.  Returns DTD_BUF_FILLED if a fill buffer filled, else 0.
 */
int
dtd_spec_commit(dtd_specs_t *ss, uint64_t id, int cpu, dtd_buf_t *b,
    pid_t tid, uint64_t now)
{
	dtd_spec_t *sp;
	int c, filled = 0;

	if ((sp = dtd_spec_lock(ss, id, &cpu)) == NULL)
		return 0;
	switch (sp->ds_state) {
	case DTD_SPEC_ACTIVE:
		/* nothing speculated: free again at once */
		sp->ds_state = DTD_SPEC_INACTIVE;
		break;
	case DTD_SPEC_ACTIVEONE:
		if (sp->ds_owner == cpu) {
			sp->ds_state = DTD_SPEC_COMMITTING;
			filled = dtd_spec_copy(ss, sp, cpu, b, tid);
			dtd_spec_empty(ss, sp);
			sp->ds_state = DTD_SPEC_INACTIVE;
			break;
		}
		/* FALLTHROUGH */
	case DTD_SPEC_ACTIVEMANY:
		sp->ds_state = DTD_SPEC_COMMITTINGMANY;
		sp->ds_busysince = now;
		filled = dtd_spec_copy(ss, sp, cpu, b, tid);
		for (c = 0; c < ss->dss_ncpu; c++) {
			if (c != cpu && dtd_spec_copy(ss, sp, c, b, tid) ==
			    DTD_BUF_FILLED)
				filled = DTD_BUF_FILLED;
		}
		break;
	default:
		/* inactive, or already being committed or discarded */
		break;
	}
	pthread_mutex_unlock(&sp->ds_lock);
	return filled;
}

/* discard(id) on cpu. */
void
dtd_spec_discard(dtd_specs_t *ss, uint64_t id, int cpu, uint64_t now)
{
	dtd_spec_t *sp;

	if ((sp = dtd_spec_lock(ss, id, &cpu)) == NULL)
		return;
	switch (sp->ds_state) {
	case DTD_SPEC_ACTIVEONE:
		if (sp->ds_owner == cpu) {
			dtd_spec_empty(ss, sp);
			sp->ds_state = DTD_SPEC_INACTIVE;
			break;
		}
		/* FALLTHROUGH */
	case DTD_SPEC_ACTIVE:
	case DTD_SPEC_ACTIVEMANY:
		dtd_spec_empty(ss, sp);
		sp->ds_state = DTD_SPEC_DISCARDING;
		sp->ds_busysince = now;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&sp->ds_lock);
}

/* The state of speculation id (tests, logs); -1 for a bad id. */
int
dtd_spec_state(dtd_specs_t *ss, uint64_t id)
{
	int s;

	if (id == 0 || id > ss->dss_nspec)
		return -1;
	pthread_mutex_lock(&ss->dss_spec[id - 1].ds_lock);
	s = ss->dss_spec[id - 1].ds_state;
	pthread_mutex_unlock(&ss->dss_spec[id - 1].ds_lock);
	return s;
}
