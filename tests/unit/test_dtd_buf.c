/*
 * test_dtd_buf.c: principal buffers, switch policy: exact bytes, drops,
 * and concurrent writers against snapshots with nothing lost or torn.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"
#include "tap.h"

static void
rec16(char *r, uint64_t a, uint64_t b)
{
	memcpy(r, &a, 8);
	memcpy(r + 8, &b, 8);
}

static void
test_switch(void)
{
	dtd_buf_t b;
	dtd_bufsnap_t s;
	char r[16], want[64], big[72];
	int i;

	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_SWITCH, 2, 64), 0, "init switch");
	for (i = 0; i < 3; i++) {
		rec16(r, i + 1, 0x1111 * (i + 1));
		memcpy(want + 16 * i, r, 16);
		tap_is(dtd_buf_write(&b, 0, r, 16), 0, "write %d", i);
	}
	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len, 48, "3 records, 48 bytes");
	tap_is(s.dbs_drops, 0, "no drops");
	tap_ok(memcmp(s.dbs_data, want, 48) == 0, "exact bytes");
	tap_is(s.dbs_flags, 0, "flags 0");

	for (i = 0; i < 5; i++) {
		rec16(r, 100 + i, i);
		if (i < 4)
			memcpy(want + 16 * i, r, 16);
		tap_is(dtd_buf_write(&b, 0, r, 16), i < 4 ? 0 : -1,
		    "write %d of 5 into 64 bytes", i);
	}
	/* the other half was handed out: its bytes are still the old ones */
	tap_is(((const uint64_t *)s.dbs_data)[0], 1,
	    "snapshot data intact while the other half fills");
	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len, 64, "full buffer");
	tap_is(s.dbs_drops, 1, "one drop");
	tap_ok(memcmp(s.dbs_data, want, 64) == 0, "exact bytes after switch");

	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len, 0, "empty after snapshot");
	tap_is(s.dbs_drops, 0, "drops reset by snapshot");

	memset(big, 0, sizeof(big));
	tap_is(dtd_buf_write(&b, 1, big, sizeof(big)), -1,
	    "record larger than the buffer dropped");
	tap_is(dtd_buf_write(&b, 1, big, 64), 0, "record of exactly bufsize fits");
	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len + s.dbs_drops, 0, "cpu 0 unaffected by cpu 1");
	dtd_buf_snap(&b, 1, &s);
	tap_is(s.dbs_len, 64, "cpu 1 has its record");
	tap_is(s.dbs_drops, 1, "cpu 1 counted its drop");
	dtd_buf_fini(&b);

	errno = 0;
	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_FILL, 1, 64), -1,
	    "fill refused for now");
	tap_is(errno, ENOTSUP, "ENOTSUP");
	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_RING, 1, 64), -1,
	    "ring refused for now");
}

#define NTHREAD	4
#define NREC	200000
#define RECSIZE	32

static dtd_buf_t cb;
static int running;

static void *
writer(void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg, r[4], i;
	uint64_t *drops = calloc(1, sizeof(*drops));

	for (i = 0; i < NREC; i++) {
		r[0] = id;
		r[1] = i;
		r[2] = ~i;
		r[3] = (id * 0x9e3779b97f4a7c15ull) ^ i;
		if (dtd_buf_write(&cb, (int)(id % 2), r, RECSIZE) == -1)
			(*drops)++;
	}
	__atomic_sub_fetch(&running, 1, __ATOMIC_SEQ_CST);
	return drops;
}

typedef struct {
	uint64_t	seen[NTHREAD];
	int64_t		last[NTHREAD];
	uint64_t	drops;
	int		torn;
	int		order;
} tally_t;

static void
consume(tally_t *t, int cpu)
{
	dtd_bufsnap_t s;
	const uint64_t *r;
	size_t off;

	dtd_buf_snap(&cb, cpu, &s);
	t->drops += s.dbs_drops;
	if (s.dbs_len % RECSIZE != 0)
		t->torn++;
	for (off = 0; off + RECSIZE <= s.dbs_len; off += RECSIZE) {
		r = (const uint64_t *)(s.dbs_data + off);
		if (r[0] >= NTHREAD || r[2] != ~r[1] ||
		    r[3] != ((r[0] * 0x9e3779b97f4a7c15ull) ^ r[1])) {
			t->torn++;
			continue;
		}
		if ((int64_t)r[1] <= t->last[r[0]])
			t->order++;
		t->last[r[0]] = (int64_t)r[1];
		t->seen[r[0]]++;
	}
}

static void
test_concurrent(void)
{
	pthread_t th[NTHREAD];
	tally_t t;
	uint64_t wdrops = 0, total = 0, *d;
	int i, snaps = 0;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < NTHREAD; i++)
		t.last[i] = -1;
	tap_is(dtd_buf_init(&cb, DTD_BUFPOLICY_SWITCH, 2, 64 * 1024), 0,
	    "init 2 CPUs x 64k");
	__atomic_store_n(&running, NTHREAD, __ATOMIC_SEQ_CST);
	for (i = 0; i < NTHREAD; i++)
		pthread_create(&th[i], NULL, writer, (void *)(uintptr_t)i);
	/* snapshot as fast as we can while they write */
	while (__atomic_load_n(&running, __ATOMIC_SEQ_CST) > 0) {
		consume(&t, 0);
		consume(&t, 1);
		snaps++;
	}
	for (i = 0; i < NTHREAD; i++) {
		pthread_join(th[i], (void **)&d);
		wdrops += *d;
		free(d);
	}
	consume(&t, 0);
	consume(&t, 1);
	consume(&t, 0);
	consume(&t, 1);
	for (i = 0; i < NTHREAD; i++)
		total += t.seen[i];
	tap_is(t.torn, 0, "no torn record in %d snapshots", snaps);
	tap_is(t.order, 0, "each writer's records in order");
	tap_is(t.drops, wdrops, "drops reported = drops seen by writers");
	tap_is(total + t.drops, (uint64_t)NTHREAD * NREC,
	    "every record either delivered or counted as a drop");
	tap_ok(total > 0, "records delivered (%llu, %llu drops)",
	    (unsigned long long)total, (unsigned long long)t.drops);
	dtd_buf_fini(&cb);
}

int
main(void)
{
	test_switch();
	test_concurrent();
	return tap_done();
}
