/*
 * dtd_limit.c: what a client, and all the consumers of one uid together,
 * may take from the daemon: programs, enabled probes (ECBs), and buffer
 * memory (principal, aggregation, speculation and dynamic-variable space,
 * as promised at GO).  The limits are set on dtraced's command line
 * (-L name=value); clients of root are exempt and meet only the built-in
 * ceilings (DTD_MAX_CONSUMER_MEM, the ECB ceiling of dtd_consumer.c), and
 * so is the one user of a private daemon (-f) unless -L is given.  The
 * connections of a uid are counted by dtd_client.c, root's not at all;
 * the output a client leaves unread is bounded for every client, root's
 * too (dtd_client.c): what a client that stopped reading holds is
 * everyone's memory.
 *
 * A consumer's uid is charged while the consumer exists, also when it
 * outlives its client as a retained program (dtd_retain.c).  Everything
 * here runs on the main thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"

typedef struct dtd_limit_uid {
	uid_t		du_uid;
	uint32_t	du_nconsumer;	/* consumers charged to it */
	uint64_t	du_programs;
	uint64_t	du_probes;
	uint64_t	du_memory;
} dtd_limit_uid_t;

static dtd_limits_t dtd_limits = {
	DTD_LIMIT_PROGRAMS, DTD_LIMIT_PROBES, DTD_LIMIT_MEMORY,
	DTD_LIMIT_USER_PROGRAMS, DTD_LIMIT_USER_PROBES, DTD_LIMIT_USER_MEMORY,
	DTD_LIMIT_USER_CONNS, DTD_LIMIT_OUTPUT, DTD_LIMIT_OUTPUT_TIMEOUT,
};

static const struct {
	const char	*name;
	size_t		off;
	int		size;		/* a byte count: k, m, g suffixes */
	int		all;		/* root's clients too */
} dtd_limit_names[] = {
	{ "programs", offsetof(dtd_limits_t, dl_programs), 0, 0 },
	{ "probes", offsetof(dtd_limits_t, dl_probes), 0, 0 },
	{ "memory", offsetof(dtd_limits_t, dl_memory), 1, 0 },
	{ "user-programs", offsetof(dtd_limits_t, dl_uprograms), 0, 0 },
	{ "user-probes", offsetof(dtd_limits_t, dl_uprobes), 0, 0 },
	{ "user-memory", offsetof(dtd_limits_t, dl_umemory), 1, 0 },
	{ "user-connections", offsetof(dtd_limits_t, dl_uconns), 0, 0 },
	{ "output", offsetof(dtd_limits_t, dl_output), 1, 1 },
	{ "output-timeout", offsetof(dtd_limits_t, dl_outtimeout), 0, 1 },
};
#define DTD_LIMIT_NNAMES \
	(sizeof(dtd_limit_names) / sizeof(dtd_limit_names[0]))

static int		dtd_limit_on = 1;
static dtd_limit_uid_t	*dtd_limit_uids;
static uint32_t		dtd_limit_nuids;

static uint64_t *
dtd_limit_field(dtd_limits_t *l, size_t i)
{
	return (uint64_t *)(void *)((char *)l + dtd_limit_names[i].off);
}

/* "64", "256k", "1g": a count or a size, suffixes k m g t (1024s). */
static int
dtd_limit_number(const char *s, uint64_t *vp)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		return -1;
	*vp = (uint64_t)v << shift;
	return 0;
}

/*
 * One -L argument: name=value[,name=value...].  -1 with err filled when
 * a name or a value is wrong.
 */
int
dtd_limit_parse(const char *arg, char *err, size_t errlen)
{
	dtd_limits_t l = dtd_limits;
	char *copy, *item, *val, *next;
	uint64_t v;
	size_t i;
	int rv = -1;

	if ((copy = strdup(arg)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		if ((val = strchr(item, '=')) == NULL) {
			snprintf(err, errlen, "-L %s: expected name=value",
			    item);
			goto out;
		}
		*val++ = '\0';
		for (i = 0; i < DTD_LIMIT_NNAMES; i++) {
			if (strcmp(item, dtd_limit_names[i].name) == 0)
				break;
		}
		if (i == DTD_LIMIT_NNAMES) {
			snprintf(err, errlen, "-L %s: unknown limit", item);
			goto out;
		}
		if (dtd_limit_number(val, &v) == -1 || v == 0 ||
		    (dtd_limit_field(&l, i) == &l.dl_outtimeout &&
		    v > 86400)) {
			snprintf(err, errlen, "-L %s=%s: not a positive number",
			    item, val);
			goto out;
		}
		*dtd_limit_field(&l, i) = v;
	}
	dtd_limits = l;
	rv = 0;
out:
	free(copy);
	return rv;
}

const dtd_limits_t *
dtd_limit_get(void)
{
	return &dtd_limits;
}

/*
 * Enforce the limits (the default) or not: a private daemon (-f) runs
 * with its one user's rights and guards nothing shared.
 */
void
dtd_limit_enforce(int on)
{
	dtd_limit_on = on;
}

int
dtd_limit_enforcing(void)
{
	return dtd_limit_on;
}

/* Do the limits apply to c?  Not to root's, nor in a private daemon. */
static int
dtd_limit_applies(const dtd_consumer_t *c)
{
	return dtd_limit_on && c->dc_uid != 0;
}

/* A size as dtrace(1) writes one: 256m, 1g, 4096 (bytes otherwise). */
static void
dtd_limit_fmtsize(uint64_t v, char *buf, size_t len)
{
	static const char sfx[] = "tgmk";
	int i, shift;

	for (i = 0, shift = 40; shift > 0; i++, shift -= 10) {
		if (v >= (1ull << shift) && (v & ((1ull << shift) - 1)) == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> shift, sfx[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

/*
 * The limits, for the log at start: those of users other than root, or
 * (all) those of every client.
 */
void
dtd_limit_describe(char *buf, size_t len, int all)
{
	char v[32];
	size_t i, off = 0;
	int n;

	buf[0] = '\0';
	if (!dtd_limit_on) {
		snprintf(buf, len, "none");
		return;
	}
	for (i = 0; i < DTD_LIMIT_NNAMES && off < len; i++) {
		if (dtd_limit_names[i].all != all)
			continue;
		if (dtd_limit_names[i].size)
			dtd_limit_fmtsize(*dtd_limit_field(&dtd_limits, i), v,
			    sizeof(v));
		else
			snprintf(v, sizeof(v), "%" PRIu64,
			    *dtd_limit_field(&dtd_limits, i));
		n = snprintf(buf + off, len - off, "%s%s=%s", off ? "," : "",
		    dtd_limit_names[i].name, v);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/*
 * May uid open one more connection, having n open already?  0, or -1
 * with err in the words dtrace prints.  Root is not counted: a user who
 * fills the daemon with connections must not lock root out.
 */
int
dtd_limit_connect(uid_t uid, uint64_t n, char *err, size_t errlen)
{
	if (!dtd_limit_on || uid == 0 || n < dtd_limits.dl_uconns)
		return 0;
	snprintf(err, errlen, "too many connections from uid %d: dtraced "
	    "allows %" PRIu64 " per user", (int)uid, dtd_limits.dl_uconns);
	return -1;
}

/*
 * The bound on a client's output queue beyond one snapshot, and the
 * seconds it may leave output unread; 0 when no bound holds (a private
 * daemon without -L).
 */
int
dtd_limit_output(uint64_t *maxp, int *secp)
{
	*maxp = dtd_limits.dl_output;
	*secp = (int)dtd_limits.dl_outtimeout;
	return dtd_limit_on;
}

static dtd_limit_uid_t *
dtd_limit_uid(uid_t uid, int create)
{
	dtd_limit_uid_t *nu;
	uint32_t i;

	for (i = 0; i < dtd_limit_nuids; i++) {
		if (dtd_limit_uids[i].du_uid == uid)
			return &dtd_limit_uids[i];
	}
	if (!create)
		return NULL;
	if ((nu = reallocarray(dtd_limit_uids, dtd_limit_nuids + 1,
	    sizeof(*nu))) == NULL)
		return NULL;
	dtd_limit_uids = nu;
	nu = &dtd_limit_uids[dtd_limit_nuids++];
	memset(nu, 0, sizeof(*nu));
	nu->du_uid = uid;
	return nu;
}

/*
 * May c add one program?  0, or -1 with err in the words dtrace prints
 * after "failed to enable".
 */
int
dtd_limit_program(const dtd_consumer_t *c, char *err, size_t errlen)
{
	const dtd_limit_uid_t *u;

	if (!dtd_limit_applies(c))
		return 0;
	if (c->dc_nprog + 1ull > dtd_limits.dl_programs) {
		snprintf(err, errlen, "too many programs: dtraced allows "
		    "%" PRIu64 " per client", dtd_limits.dl_programs);
		return -1;
	}
	if ((u = dtd_limit_uid(c->dc_uid, 0)) != NULL &&
	    u->du_programs + 1 > dtd_limits.dl_uprograms) {
		snprintf(err, errlen, "too many programs: dtraced allows "
		    "%" PRIu64 " per user (uid %d)", dtd_limits.dl_uprograms,
		    (int)c->dc_uid);
		return -1;
	}
	return 0;
}

/*
 * How many ECBs c may have in all, given the ceiling; *peruid says
 * whether the uid's limit is the one that binds.
 */
uint64_t
dtd_limit_probes(const dtd_consumer_t *c, uint64_t ceiling, int *peruid)
{
	const dtd_limit_uid_t *u;
	uint64_t max = ceiling, left;

	*peruid = 0;
	if (!dtd_limit_applies(c))
		return max;
	if (dtd_limits.dl_probes < max)
		max = dtd_limits.dl_probes;
	u = dtd_limit_uid(c->dc_uid, 0);
	left = dtd_limits.dl_uprobes;
	if (u != NULL)
		left = u->du_probes >= left ? 0 : left - u->du_probes;
	/* the uid's count includes what c has now */
	if (c->dc_necb + left < max) {
		max = c->dc_necb + left;
		*peruid = 1;
	}
	return max;
}

/* The words for going over dtd_limit_probes(). */
void
dtd_limit_probes_err(const dtd_consumer_t *c, int peruid, char *err,
    size_t errlen)
{
	if (peruid)
		snprintf(err, errlen, "too many enabled probes: dtraced "
		    "allows %" PRIu64 " per user (uid %d)",
		    dtd_limits.dl_uprobes, (int)c->dc_uid);
	else
		snprintf(err, errlen, "too many enabled probes: dtraced "
		    "allows %" PRIu64 " per client", dtd_limits.dl_probes);
}

/*
 * The buffer memory c may take at GO, at most the ceiling; *which says
 * what binds: 1 the client's limit, 2 the uid's, 3 the ceiling; 0: no
 * limit applies to c (root, a private daemon), only the ceiling.
 */
uint64_t
dtd_limit_memory(const dtd_consumer_t *c, uint64_t ceiling, int *which)
{
	const dtd_limit_uid_t *u;
	uint64_t max = ceiling, left;

	*which = 0;
	if (!dtd_limit_applies(c))
		return max;
	*which = 3;
	if (dtd_limits.dl_memory < max) {
		max = dtd_limits.dl_memory;
		*which = 1;
	}
	u = dtd_limit_uid(c->dc_uid, 0);
	left = dtd_limits.dl_umemory;
	if (u != NULL)
		left = u->du_memory >= left ? 0 : left - u->du_memory;
	if (left < max) {
		max = left;
		*which = 2;
	}
	return max;
}

/* The words to add to "Not enough space" when a limit bound. */
void
dtd_limit_memory_err(const dtd_consumer_t *c, int which, char *err,
    size_t errlen)
{
	const dtd_limit_uid_t *u = dtd_limit_uid(c->dc_uid, 0);
	char v[32];

	if (which != 1 && which != 2)
		return;
	dtd_limit_fmtsize(which == 1 ? dtd_limits.dl_memory :
	    dtd_limits.dl_umemory, v, sizeof(v));
	if (which == 1)
		snprintf(err, errlen, "Not enough space: dtraced allows %s of "
		    "buffers per client", v);
	else
		snprintf(err, errlen, "Not enough space: dtraced allows %s of "
		    "buffers per user (uid %d), in use by its other "
		    "consumers: %" PRIu64 " bytes", v, (int)c->dc_uid,
		    u != NULL ? u->du_memory : 0);
}

/*
 * Charge c's uid for what c now has beyond what was charged before
 * (programs, ECBs, memory: c->dc_limcharged keeps the account).
 */
void
dtd_limit_charge(dtd_consumer_t *c, uint64_t programs, uint64_t probes,
    uint64_t memory)
{
	dtd_limit_uid_t *u;

	if (!dtd_limit_applies(c))
		return;
	if ((u = dtd_limit_uid(c->dc_uid, 1)) == NULL) {
		/* counted nowhere: the limit of the uid is not kept */
		log_warnx("%s: uid %d: out of memory", __func__,
		    (int)c->dc_uid);
		return;
	}
	if (!c->dc_limited) {
		c->dc_limited = 1;
		u->du_nconsumer++;
	}
	u->du_programs += programs;
	u->du_probes += probes;
	u->du_memory += memory;
	c->dc_limprograms += programs;
	c->dc_limprobes += probes;
	c->dc_limmemory += memory;
}

/* c goes: its uid gets back all it was charged for. */
void
dtd_limit_uncharge(dtd_consumer_t *c)
{
	dtd_limit_uid_t *u;

	if (!c->dc_limited || (u = dtd_limit_uid(c->dc_uid, 0)) == NULL)
		return;
	u->du_programs -= c->dc_limprograms;
	u->du_probes -= c->dc_limprobes;
	u->du_memory -= c->dc_limmemory;
	c->dc_limprograms = c->dc_limprobes = c->dc_limmemory = 0;
	c->dc_limited = 0;
	if (--u->du_nconsumer == 0) {
		*u = dtd_limit_uids[--dtd_limit_nuids];
		if (dtd_limit_nuids == 0) {
			free(dtd_limit_uids);
			dtd_limit_uids = NULL;
		}
	}
}
