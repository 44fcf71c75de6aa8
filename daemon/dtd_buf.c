/*
 * dtd_buf.c: principal buffers and their policies.
 *
 * A buffer has units (one per CPU, or one per traced thread with
 * bufscope=thread), each under its own lock.  A writer holds the lock
 * from reservation to the end of its copy, so a snapshot never sees half
 * a record.  The policies, as the DTrace manual promises them:
 *
 * switch	two halves; writers append to the active one, a snapshot
 *		swaps them and hands out the one that was active.  A record
 *		that does not fit is dropped and counted.
 * fill		one half; the first record that does not fit in what is
 *		left after the END reservation marks the unit full, and the
 *		caller stops tracing.  END then writes into the reservation.
 * ring		one half used as a ring of whole records: a record that
 *		does not fit at the end starts again at offset 0, and the
 *		oldest records it lands on are forgotten.  A record never
 *		straddles the end, so the surviving records stay parseable;
 *		the size of a record's enabled probe ID, which the owner
 *		gives (dtd_buf_sizer), is how the ring finds the next
 *		oldest one.
 *
 * Under every policy a record larger than the whole unit is dropped.  A
 * commit() writes a speculation's records as one piece
 * (dtd_buf_write_recs): all of them, or one drop.
 * Fill and ring snapshots are copies, oldest record first, valid until
 * the unit's next snapshot; they are taken once tracing has stopped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"

/* How many bufsize halves a unit of this policy holds. */
size_t
dtd_buf_halves(int policy)
{
	return policy == DTD_BUFPOLICY_SWITCH ? 2 : 1;
}

static int
dtd_buf_unit_init(dtd_bufcpu_t *c, int policy, size_t size)
{
	size_t i, n = dtd_buf_halves(policy);

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->dbc_lock, NULL);
	/* calloc: large halves are mapped lazily, untouched pages cost nothing */
	for (i = 0; i < n; i++) {
		if ((c->dbc_data[i] = calloc(1, size)) == NULL)
			return -1;
	}
	return 0;
}

static void
dtd_buf_unit_fini(dtd_bufcpu_t *c)
{
	free(c->dbc_data[0]);
	free(c->dbc_data[1]);
	free(c->dbc_copy);
	pthread_mutex_destroy(&c->dbc_lock);
}

static int
dtd_buf_check(int policy, size_t size)
{
	if (policy != DTD_BUFPOLICY_SWITCH && policy != DTD_BUFPOLICY_FILL &&
	    policy != DTD_BUFPOLICY_RING) {
		errno = ENOTSUP;
		return -1;
	}
	if (size < DTD_MIN_BUFSIZE || size % 8 != 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Per-CPU units; ENOMEM if any half cannot be had. */
int
dtd_buf_init(dtd_buf_t *b, int policy, int ncpu, size_t size)
{
	int i;

	memset(b, 0, sizeof(*b));
	if (dtd_buf_check(policy, size) == -1)
		return -1;
	if (ncpu < 1) {
		errno = EINVAL;
		return -1;
	}
	b->db_policy = policy;
	b->db_scope = DTD_BUFSCOPE_CPU;
	b->db_size = size;
	if ((b->db_cpu = aligned_alloc(64, ncpu * sizeof(*b->db_cpu))) == NULL)
		return -1;
	for (i = 0; i < ncpu; i++) {
		b->db_ncpu = i + 1;
		if (dtd_buf_unit_init(&b->db_cpu[i], policy, size) == -1) {
			dtd_buf_fini(b);
			errno = ENOMEM;
			return -1;
		}
		b->db_cpu[i].dbc_cpu = i;
	}
	return 0;
}

static dtd_bufcpu_t *
dtd_buf_unit_new(int policy, size_t size, pid_t tid)
{
	dtd_bufcpu_t *c;

	if ((c = aligned_alloc(64, sizeof(*c))) == NULL)
		return NULL;
	if (dtd_buf_unit_init(c, policy, size) == -1) {
		dtd_buf_unit_fini(c);
		free(c);
		return NULL;
	}
	c->dbc_tid = tid;
	return c;
}

/*
 * Per-thread units, at most maxthr of them (the memory limit): unit 0,
 * made now, takes the records of threads that come after the last unit
 * was given out, so no thread's records are lost for want of a unit,
 * they only share one.  Memory for a thread's unit is taken at its
 * first record, and a failure there sends it to unit 0 as well.
 */
int
dtd_buf_init_thread(dtd_buf_t *b, int policy, size_t size, uint32_t maxthr)
{
	uint32_t hs = 16;

	memset(b, 0, sizeof(*b));
	if (dtd_buf_check(policy, size) == -1)
		return -1;
	if (maxthr < 1 || maxthr > (1u << 24)) {
		errno = EINVAL;
		return -1;
	}
	while (hs < 2 * maxthr + 1)
		hs *= 2;
	b->db_policy = policy;
	b->db_scope = DTD_BUFSCOPE_THREAD;
	b->db_size = size;
	b->db_maxthr = maxthr;
	b->db_thashsize = hs;
	pthread_rwlock_init(&b->db_thrlock, NULL);
	if ((b->db_thash = calloc(hs, sizeof(*b->db_thash))) == NULL ||
	    (b->db_thr = calloc(maxthr, sizeof(*b->db_thr))) == NULL ||
	    (b->db_thr[0] = dtd_buf_unit_new(policy, size, 0)) == NULL) {
		dtd_buf_fini(b);
		errno = ENOMEM;
		return -1;
	}
	b->db_nthr = 1;
	return 0;
}

void
dtd_buf_fini(dtd_buf_t *b)
{
	uint32_t i;

	if (b->db_scope == DTD_BUFSCOPE_THREAD) {
		for (i = 0; b->db_thr != NULL && i < b->db_nthr; i++) {
			dtd_buf_unit_fini(b->db_thr[i]);
			free(b->db_thr[i]);
		}
		free(b->db_thr);
		free(b->db_thash);
		pthread_rwlock_destroy(&b->db_thrlock);
	} else if (b->db_cpu != NULL) {
		for (i = 0; i < (uint32_t)b->db_ncpu; i++)
			dtd_buf_unit_fini(&b->db_cpu[i]);
		free(b->db_cpu);
	}
	memset(b, 0, sizeof(*b));
}

/*
 * Fill: keep len bytes of each unit for END's records (the largest END
 * ECB chain), as illumos subtracts its reserve from each buffer.
 */
void
dtd_buf_reserve(dtd_buf_t *b, size_t len)
{
	b->db_reserve = len;
}

/*
 * Ring: how to know the size of a record by its epid (records do not
 * carry their size, dt_proto.h).  Without it a ring that needs room
 * forgets all of its older part at once.
 */
void
dtd_buf_sizer(dtd_buf_t *b, dtd_buf_recsize_f *fn, void *arg)
{
	b->db_recsize = fn;
	b->db_recarg = arg;
}

/* END is about to fire: from now on the reservation may be written. */
void
dtd_buf_cooldown(dtd_buf_t *b)
{
	__atomic_store_n(&b->db_cooldown, 1, __ATOMIC_RELEASE);
}

static uint32_t
dtd_buf_hash(pid_t tid, uint32_t size)
{
	return ((uint32_t)tid * 0x9e3779b1u) & (size - 1);
}

/* The unit of thread tid: its own, or unit 0 once none is left. */
static dtd_bufcpu_t *
dtd_buf_thread(dtd_buf_t *b, pid_t tid)
{
	dtd_bufcpu_t *c = NULL, *nc;
	uint32_t h, ndx;

	pthread_rwlock_rdlock(&b->db_thrlock);
	for (h = dtd_buf_hash(tid, b->db_thashsize);
	    (ndx = b->db_thash[h]) != 0; h = (h + 1) & (b->db_thashsize - 1)) {
		if (b->db_thr[ndx - 1]->dbc_tid == tid) {
			c = b->db_thr[ndx - 1];
			break;
		}
	}
	if (c == NULL && b->db_nthr >= b->db_maxthr)
		c = b->db_thr[0];
	pthread_rwlock_unlock(&b->db_thrlock);
	if (c != NULL)
		return c;

	/* allocate outside the lock: other threads keep writing meanwhile */
	nc = dtd_buf_unit_new(b->db_policy, b->db_size, tid);
	pthread_rwlock_wrlock(&b->db_thrlock);
	for (h = dtd_buf_hash(tid, b->db_thashsize);
	    (ndx = b->db_thash[h]) != 0; h = (h + 1) & (b->db_thashsize - 1)) {
		if (b->db_thr[ndx - 1]->dbc_tid == tid) {
			c = b->db_thr[ndx - 1];
			break;
		}
	}
	if (c == NULL && nc != NULL && b->db_nthr < b->db_maxthr) {
		b->db_thr[b->db_nthr++] = nc;
		b->db_thash[h] = b->db_nthr;
		c = nc;
		nc = NULL;
	}
	if (c == NULL)
		c = b->db_thr[0];
	pthread_rwlock_unlock(&b->db_thrlock);
	if (nc != NULL) {
		dtd_buf_unit_fini(nc);
		free(nc);
	}
	return c;
}

static size_t
dtd_buf_reclen(const dtd_buf_t *b, const char *p)
{
	uint32_t epid;

	if (b->db_recsize == NULL)
		return 0;
	dt_proto_rechdr_get(p, &epid, NULL);
	return b->db_recsize(b->db_recarg, epid);
}

/*
 * Ring: where a record of len bytes goes, forgetting the oldest records
 * it needs the room of.  The data is [head, wrapend) then [0, off) when
 * wrapped, else [0, off).
 */
static char *
dtd_buf_ring(dtd_buf_t *b, dtd_bufcpu_t *c, size_t len)
{
	char *d = c->dbc_data[0];
	size_t rl;

	for (;;) {
		if (c->dbc_wrapend == 0) {
			if (c->dbc_off + len <= b->db_size)
				break;
			if (c->dbc_off == 0)
				return NULL;	/* cannot happen: len <= size */
			c->dbc_wrapend = c->dbc_off;
			c->dbc_head = 0;
			c->dbc_off = 0;
			continue;
		}
		if (c->dbc_off + len <= c->dbc_head)
			break;
		/* forget the oldest record */
		rl = dtd_buf_reclen(b, d + c->dbc_head);
		if (rl < DTRACE_RECHDR_SIZE || rl % 4 != 0 ||
		    rl > c->dbc_wrapend - c->dbc_head)
			rl = c->dbc_wrapend - c->dbc_head;	/* defensive */
		c->dbc_head += rl;
		c->dbc_flags |= DTD_BUFF_WRAPPED;
		if (c->dbc_head >= c->dbc_wrapend) {
			/* the older part is gone: [0, off) is all there is */
			c->dbc_wrapend = 0;
			c->dbc_head = 0;
		}
	}
	d += c->dbc_off;
	c->dbc_off += len;
	return d;
}

static int	dtd_buf_put(dtd_buf_t *, int, pid_t, const void *, size_t);

/*
 * Append one record (len a multiple of 4, at least a record header) for
 * a hit on cpu by thread tid.  Returns 0; DTD_BUF_DROPPED when it was
 * dropped and counted; DTD_BUF_FILLED when a fill unit is full (the
 * caller stops tracing; not a drop).
 */
int
dtd_buf_write(dtd_buf_t *b, int cpu, pid_t tid, const void *rec, size_t len)
{
	return dtd_buf_put(b, cpu, tid, rec, len);
}

/*
 * Append len bytes of whole records as one: all of them or, counted as
 * one drop, none (a commit()).  Returns as dtd_buf_write does.
 */
int
dtd_buf_write_recs(dtd_buf_t *b, int cpu, pid_t tid, const void *recs,
    size_t len)
{
	return dtd_buf_put(b, cpu, tid, recs, len);
}

static int
dtd_buf_put(dtd_buf_t *b, int cpu, pid_t tid, const void *rec, size_t len)
{
	dtd_bufcpu_t *c;
	char *dst = NULL;
	size_t usable;
	int rv = DTD_BUF_DROPPED;

	if (b->db_scope == DTD_BUFSCOPE_THREAD)
		c = dtd_buf_thread(b, tid);
	else {
		/* with -x cpu=N the one unit is N's */
		if (cpu < 0)
			cpu = 0;
		c = &b->db_cpu[cpu % b->db_ncpu];
	}
	pthread_mutex_lock(&c->dbc_lock);
	c->dbc_cpu = cpu;
	if (len < DTRACE_RECHDR_SIZE || len > b->db_size || len > UINT32_MAX)
		goto drop;
	switch (b->db_policy) {
	case DTD_BUFPOLICY_SWITCH:
		if (c->dbc_off <= b->db_size - len) {
			dst = c->dbc_data[c->dbc_active] + c->dbc_off;
			c->dbc_off += len;
		}
		break;
	case DTD_BUFPOLICY_FILL:
		if (__atomic_load_n(&b->db_cooldown, __ATOMIC_ACQUIRE)) {
			usable = b->db_size;
		} else {
			usable = b->db_size - (b->db_reserve < b->db_size ?
			    b->db_reserve : b->db_size);
			if ((c->dbc_flags & DTD_BUFF_FULL) ||
			    c->dbc_off + len > usable) {
				c->dbc_flags |= DTD_BUFF_FULL;
				rv = DTD_BUF_FILLED;
				pthread_mutex_unlock(&c->dbc_lock);
				return rv;
			}
		}
		if (c->dbc_off + len <= usable) {
			dst = c->dbc_data[0] + c->dbc_off;
			c->dbc_off += len;
		}
		break;
	case DTD_BUFPOLICY_RING:
		dst = dtd_buf_ring(b, c, len);
		break;
	}
	if (dst == NULL)
		goto drop;
	memcpy(dst, rec, len);
	pthread_mutex_unlock(&c->dbc_lock);
	return 0;
drop:
	c->dbc_drops++;
	pthread_mutex_unlock(&c->dbc_lock);
	return rv;
}

/*
 * n records that never reached us (lost in a backend's own ring, on
 * cpu, thread unknown): drops, reported with the unit's next snapshot.
 */
void
dtd_buf_drop(dtd_buf_t *b, int cpu, uint64_t n)
{
	dtd_bufcpu_t *c;

	if (b->db_scope == DTD_BUFSCOPE_THREAD)
		c = dtd_buf_thread(b, 0);
	else {
		if (cpu < 0)
			cpu = 0;
		c = b->db_cpu != NULL ? &b->db_cpu[cpu % b->db_ncpu] : NULL;
	}
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->dbc_lock);
	c->dbc_drops += n;
	pthread_mutex_unlock(&c->dbc_lock);
}

/* Units to snapshot: CPUs, or the threads seen so far. */
int
dtd_buf_nunits(dtd_buf_t *b)
{
	int n;

	if (b->db_scope != DTD_BUFSCOPE_THREAD)
		return b->db_ncpu;
	pthread_rwlock_rdlock(&b->db_thrlock);
	n = (int)b->db_nthr;
	pthread_rwlock_unlock(&b->db_thrlock);
	return n;
}

/*
 * The unit a record of (cpu, tid) goes to, or -1 when that thread has
 * none yet (bufscope=thread).
 */
int
dtd_buf_unitof(dtd_buf_t *b, int cpu, pid_t tid)
{
	uint32_t i;
	int u = -1;

	if (b->db_scope != DTD_BUFSCOPE_THREAD)
		return b->db_ncpu > 0 ? (cpu < 0 ? 0 : cpu) % b->db_ncpu : -1;
	pthread_rwlock_rdlock(&b->db_thrlock);
	for (i = 0; i < b->db_nthr && u == -1; i++) {
		if (b->db_thr[i]->dbc_tid == tid)
			u = (int)i;
	}
	pthread_rwlock_unlock(&b->db_thrlock);
	return u;
}

/*
 * Snapshot unit u (0 .. dtd_buf_nunits() - 1) and empty it.  The data
 * handed out stays valid and unchanged until the next snapshot of the
 * same unit (snapshots are serialized by the caller: the main thread
 * takes them).  Returns -1 for a unit that does not exist (EINVAL) or,
 * fill and ring, when there is no memory for the copy (ENOMEM: the
 * records stay for the next try).
 */
/* Unit u of a buffer: a CPU's, or a thread's (bufscope=thread). */
static dtd_bufcpu_t *
dtd_buf_unit(dtd_buf_t *b, int u)
{
	dtd_bufcpu_t *c;

	if (b->db_scope == DTD_BUFSCOPE_THREAD) {
		pthread_rwlock_rdlock(&b->db_thrlock);
		c = u >= 0 && (uint32_t)u < b->db_nthr ? b->db_thr[u] : NULL;
		pthread_rwlock_unlock(&b->db_thrlock);
	} else
		c = u >= 0 && u < b->db_ncpu ? &b->db_cpu[u] : NULL;
	if (c == NULL)
		errno = EINVAL;
	return c;
}

/*
 * Unit u's records, oldest first, and its drops.  consume: hand them out
 * (dtd_buf_snap: a switch unit swaps halves, a fill or ring unit starts
 * empty again); else leave them all for the next snapshot (dtd_buf_peek).
 */
static int
dtd_buf_take(dtd_buf_t *b, int u, dtd_bufsnap_t *s, int consume)
{
	dtd_bufcpu_t *c;
	size_t n1;
	char *copy = NULL;

	memset(s, 0, sizeof(*s));
	if ((c = dtd_buf_unit(b, u)) == NULL)
		return -1;

	pthread_mutex_lock(&c->dbc_lock);
	s->dbs_drops = c->dbc_drops;
	s->dbs_cpu = c->dbc_cpu;
	s->dbs_tid = c->dbc_tid;
	if (consume)
		c->dbc_drops = 0;
	if (b->db_scope == DTD_BUFSCOPE_THREAD)
		s->dbs_flags |= DT_BUFF_THREAD;
	if (b->db_policy == DTD_BUFPOLICY_SWITCH) {
		s->dbs_data = c->dbc_data[c->dbc_active];
		s->dbs_len = c->dbc_off;
		if (consume) {
			c->dbc_active = !c->dbc_active;
			c->dbc_off = 0;
		}
		pthread_mutex_unlock(&c->dbc_lock);
		return 0;
	}

	/* fill, ring: a copy, oldest first */
	n1 = c->dbc_wrapend != 0 ? c->dbc_wrapend - c->dbc_head : 0;
	if (n1 + c->dbc_off > 0) {
		if ((copy = malloc(n1 + c->dbc_off)) == NULL) {
			/* keep the records for the next snapshot */
			if (consume)
				c->dbc_drops = s->dbs_drops;
			pthread_mutex_unlock(&c->dbc_lock);
			memset(s, 0, sizeof(*s));
			errno = ENOMEM;
			return -1;
		}
		memcpy(copy, c->dbc_data[0] + c->dbc_head, n1);
		memcpy(copy + n1, c->dbc_data[0], c->dbc_off);
		s->dbs_data = copy;
		s->dbs_len = n1 + c->dbc_off;
	}
	free(c->dbc_copy);
	c->dbc_copy = copy;
	if (c->dbc_flags & DTD_BUFF_WRAPPED)
		s->dbs_flags |= DT_BUFF_WRAPPED;
	if (c->dbc_flags & DTD_BUFF_FULL)
		s->dbs_flags |= DT_BUFF_FULL;
	if (consume) {
		/* the unit starts empty again; a full fill unit stays full */
		c->dbc_off = 0;
		c->dbc_head = 0;
		c->dbc_wrapend = 0;
		c->dbc_flags &= DTD_BUFF_FULL;
	}
	pthread_mutex_unlock(&c->dbc_lock);
	return 0;
}

int
dtd_buf_snap(dtd_buf_t *b, int u, dtd_bufsnap_t *s)
{
	return dtd_buf_take(b, u, s, 1);
}

/*
 * A snapshot that consumes nothing (a retained program's snapshot grab,
 * dtd_retain.c): unit u's records, oldest first, and its drops, all of
 * which stay for the next snapshot.  A switch unit hands out its active
 * half as it is (writers only append past what is handed out, and only
 * the main thread switches); fill and ring units are copied, as their
 * oldest records may be overwritten once the lock is let go.
 */
int
dtd_buf_peek(dtd_buf_t *b, int u, dtd_bufsnap_t *s)
{
	return dtd_buf_take(b, u, s, 0);
}

/* Records dropped and not yet handed out by a snapshot, in all units. */
uint64_t
dtd_buf_drops(dtd_buf_t *b)
{
	uint64_t n = 0;
	int u, nunit = dtd_buf_nunits(b);

	for (u = 0; u < nunit; u++) {
		dtd_bufcpu_t *c;

		if ((c = dtd_buf_unit(b, u)) == NULL)
			continue;
		pthread_mutex_lock(&c->dbc_lock);
		n += c->dbc_drops;
		pthread_mutex_unlock(&c->dbc_lock);
	}
	return n;
}
