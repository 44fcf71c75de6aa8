/*
 * test_dtd_buf.c: principal buffers: the switch, fill and ring policies
 * with exact bytes, drops and surviving records, the END reservation,
 * per-thread buffers, and concurrent writers against snapshots with
 * nothing lost or torn.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"
#include "tap.h"

/*
 * Records carry no size (dt_proto.h): every record of an epid has the
 * same, which the buffer's owner tells it.  Here the owner is this
 * table, filled by mkrec; ids are unique within a test.
 */
#define MAXID	4096

static size_t recsz[MAXID];

static size_t
sizer(void *arg, uint32_t epid)
{
	(void)arg;
	return epid < MAXID ? recsz[epid] : 0;
}

/*
 * A record of len bytes (a multiple of 4, at least the 12-byte header):
 * epid = id, a timestamp, then filler derived from id.
 */
static void
mkrec(char *r, uint32_t id, size_t len)
{
	size_t i;

	recsz[id] = len;
	memset(r, 0, len);
	dt_proto_rechdr_put(r, id, 0x0102030405060708ull + id);
	for (i = DTRACE_RECHDR_SIZE; i < len; i++)
		r[i] = (char)(id * 7 + i);
}

static uint32_t
recid(const char *r)
{
	uint32_t id;

	memcpy(&id, r, 4);
	return id;
}

/*
 * The ids of the records in a snapshot, walking by their epids' sizes,
 * as a consumer does; -1 unless every header and timestamp is whole.
 */
static int
ids(const dtd_bufsnap_t *s, uint32_t *out, int max)
{
	size_t off = 0, len;
	uint32_t id;
	uint64_t ts;
	int n = 0;

	while (off + DTRACE_RECHDR_SIZE <= s->dbs_len && n < max) {
		dt_proto_rechdr_get(s->dbs_data + off, &id, &ts);
		len = sizer(NULL, id);
		if (len < DTRACE_RECHDR_SIZE || off + len > s->dbs_len ||
		    ts != 0x0102030405060708ull + id)
			return -1;
		out[n++] = id;
		off += len;
	}
	return off == s->dbs_len ? n : -1;
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
		mkrec(r, i + 1, 16);
		memcpy(want + 16 * i, r, 16);
		tap_is(dtd_buf_write(&b, 0, 1, r, 16), 0, "write %d", i);
	}
	tap_is(dtd_buf_nunits(&b), 2, "2 units");
	tap_is(dtd_buf_snap(&b, 0, &s), 0, "snapshot cpu 0");
	tap_is(s.dbs_len, 48, "3 records, 48 bytes");
	tap_is(s.dbs_drops, 0, "no drops");
	tap_ok(memcmp(s.dbs_data, want, 48) == 0, "exact bytes");
	tap_is(s.dbs_flags, 0, "flags 0");
	tap_is(s.dbs_cpu, 0, "cpu 0");

	for (i = 0; i < 5; i++) {
		mkrec(r, 100 + i, 16);
		if (i < 4)
			memcpy(want + 16 * i, r, 16);
		tap_is(dtd_buf_write(&b, 0, 1, r, 16),
		    i < 4 ? 0 : DTD_BUF_DROPPED, "write %d of 5 into 64 bytes",
		    i);
	}
	/* the other half was handed out: its bytes are still the old ones */
	tap_is(recid(s.dbs_data), 1,
	    "snapshot data intact while the other half fills");
	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len, 64, "full buffer");
	tap_is(s.dbs_drops, 1, "one drop");
	tap_ok(memcmp(s.dbs_data, want, 64) == 0, "exact bytes after switch");

	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len, 0, "empty after snapshot");
	tap_is(s.dbs_drops, 0, "drops reset by snapshot");

	memset(big, 0, sizeof(big));
	tap_is(dtd_buf_write(&b, 1, 1, big, sizeof(big)), DTD_BUF_DROPPED,
	    "record larger than the buffer dropped");
	tap_is(dtd_buf_write(&b, 1, 1, big, 64), 0,
	    "record of exactly bufsize fits");
	tap_is(dtd_buf_write(&b, 3, 1, big, 16), DTD_BUF_DROPPED,
	    "cpu 3 lands on unit 1 (3 %% 2), which is full");
	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len + s.dbs_drops, 0, "cpu 0 unaffected by cpu 1");
	dtd_buf_snap(&b, 1, &s);
	tap_is(s.dbs_len, 64, "cpu 1 has its record");
	tap_is(s.dbs_drops, 2, "cpu 1 counted its drops");
	tap_is(dtd_buf_snap(&b, 2, &s), -1, "no unit 2");
	dtd_buf_fini(&b);

	errno = 0;
	tap_is(dtd_buf_init(&b, 7, 1, 64), -1, "unknown policy refused");
	tap_is(errno, ENOTSUP, "ENOTSUP");
	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_RING, 1, 60), -1,
	    "size not a multiple of 8 refused");
	tap_is(dtd_buf_halves(DTD_BUFPOLICY_SWITCH), 2, "switch: 2 halves");
	tap_is(dtd_buf_halves(DTD_BUFPOLICY_FILL), 1, "fill: 1 half");
	tap_is(dtd_buf_halves(DTD_BUFPOLICY_RING), 1, "ring: 1 half");
}

static void
test_fill(void)
{
	dtd_buf_t b;
	dtd_bufsnap_t s;
	char r[72];
	uint32_t got[8];
	int i;

	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_FILL, 1, 64), 0, "init fill");
	/* END needs 16 bytes: 48 are usable until END fires */
	dtd_buf_reserve(&b, 16);
	for (i = 0; i < 3; i++) {
		mkrec(r, i + 1, 16);
		tap_is(dtd_buf_write(&b, 0, 1, r, 16), 0, "fill write %d", i);
	}
	mkrec(r, 4, 16);
	tap_is(dtd_buf_write(&b, 0, 1, r, 16), DTD_BUF_FILLED,
	    "4th record: the reservation is not for it: full");
	mkrec(r, 5, 8 + 8);
	tap_is(dtd_buf_write(&b, 0, 1, r, 16), DTD_BUF_FILLED,
	    "full stays full");
	mkrec(r, 6, 72);
	tap_is(dtd_buf_write(&b, 0, 1, r, 72), DTD_BUF_DROPPED,
	    "a record larger than the buffer is a drop, even when full");
	dtd_buf_cooldown(&b);
	mkrec(r, 9, 16);
	tap_is(dtd_buf_write(&b, 0, 1, r, 16), 0, "END writes into the reserve");
	mkrec(r, 10, 16);
	tap_is(dtd_buf_write(&b, 0, 1, r, 16), DTD_BUF_DROPPED,
	    "END's record past the reserve is a drop");
	tap_is(dtd_buf_snap(&b, 0, &s), 0, "snapshot fill");
	tap_is(ids(&s, got, 8), 4, "4 records");
	tap_ok(got[0] == 1 && got[1] == 2 && got[2] == 3 && got[3] == 9,
	    "records 1 2 3 and END's 9");
	tap_is(s.dbs_drops, 2, "2 drops (the big one, END's second)");
	tap_ok(s.dbs_flags & DT_BUFF_FULL, "flag FULL");
	dtd_buf_fini(&b);

	/* END's records alone may fill the whole buffer */
	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_FILL, 1, 64), 0, "init fill 2");
	dtd_buf_reserve(&b, 64);
	mkrec(r, 1, 16);
	tap_is(dtd_buf_write(&b, 0, 1, r, 16), DTD_BUF_FILLED,
	    "reserve of the whole buffer: the first record fills it");
	dtd_buf_cooldown(&b);
	for (i = 0; i < 4; i++) {
		mkrec(r, 20 + i, 16);
		tap_is(dtd_buf_write(&b, 0, 1, r, 16), 0, "END record %d", i);
	}
	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len, 64, "END's 64 bytes");
	tap_is(s.dbs_drops, 0, "no drops");
	dtd_buf_fini(&b);
}

static void
test_ring(void)
{
	static uint32_t many[1024];
	dtd_buf_t b;
	dtd_bufsnap_t s;
	char r[72];
	uint32_t got[16];
	int i, n;

	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_RING, 1, 64), 0, "init ring");
	dtd_buf_sizer(&b, sizer, NULL);
	/* 20-byte records: three fit, 4 bytes at the end stay unused */
	for (i = 1; i <= 5; i++) {
		mkrec(r, i, 20);
		tap_is(dtd_buf_write(&b, 0, 1, r, 20), 0, "ring write %d", i);
	}
	dtd_buf_snap(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_is(n, 3, "3 records survive");
	tap_ok(n == 3 && got[0] == 3 && got[1] == 4 && got[2] == 5,
	    "the newest three, oldest first: 3 4 5");
	tap_ok(s.dbs_flags & DT_BUFF_WRAPPED, "flag WRAPPED");
	tap_is(s.dbs_drops, 0, "a ring does not drop");
	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len, 0, "empty after snapshot");
	dtd_buf_fini(&b);

	/* mixed sizes: A16 B32 C16 fill 64; D16 takes A's place; E32 B's */
	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_RING, 1, 64), 0, "init ring 2");
	dtd_buf_sizer(&b, sizer, NULL);
	mkrec(r, 'A', 16);
	dtd_buf_write(&b, 0, 1, r, 16);
	mkrec(r, 'B', 32);
	dtd_buf_write(&b, 0, 1, r, 32);
	mkrec(r, 'C', 16);
	dtd_buf_write(&b, 0, 1, r, 16);
	mkrec(r, 'D', 16);
	dtd_buf_write(&b, 0, 1, r, 16);
	mkrec(r, 'E', 32);
	dtd_buf_write(&b, 0, 1, r, 32);
	mkrec(r, 'F', 64);
	tap_is(dtd_buf_write(&b, 0, 1, r, 64), 0,
	    "a record of the whole ring replaces everything");
	mkrec(r, 'G', 16);
	dtd_buf_write(&b, 0, 1, r, 16);
	dtd_buf_snap(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_ok(n == 1 && got[0] == 'G', "then G replaces F: G alone");
	dtd_buf_fini(&b);

	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_RING, 1, 64), 0, "init ring 3");
	dtd_buf_sizer(&b, sizer, NULL);
	mkrec(r, 'A', 16);
	dtd_buf_write(&b, 0, 1, r, 16);
	mkrec(r, 'B', 32);
	dtd_buf_write(&b, 0, 1, r, 32);
	mkrec(r, 'C', 16);
	dtd_buf_write(&b, 0, 1, r, 16);
	mkrec(r, 'D', 16);
	dtd_buf_write(&b, 0, 1, r, 16);
	mkrec(r, 'E', 32);
	dtd_buf_write(&b, 0, 1, r, 32);
	tap_is(dtd_buf_write(&b, 0, 1, r, 72), DTD_BUF_DROPPED,
	    "a record larger than the ring is a drop");
	dtd_buf_snap(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_ok(n == 3 && got[0] == 'C' && got[1] == 'D' && got[2] == 'E',
	    "mixed sizes: C D E survive, oldest first");
	tap_is(s.dbs_drops, 1, "1 drop");
	dtd_buf_fini(&b);

	/* many records: exactly floor(size / recsize) of the newest survive */
	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_RING, 1, 16384), 0,
	    "init ring 16k");
	dtd_buf_sizer(&b, sizer, NULL);
	for (i = 1; i <= 2001; i++) {
		mkrec(r, i, 20);
		dtd_buf_write(&b, 0, 1, r, 20);
	}
	dtd_buf_snap(&b, 0, &s);
	tap_is(s.dbs_len, 819 * 20, "16384 / 20 = 819 records");
	tap_is(recid(s.dbs_data), 2001 - 819 + 1, "the oldest is 1183");
	tap_is(recid(s.dbs_data + s.dbs_len - 20), 2001, "the newest is 2001");
	tap_is(ids(&s, many, 1024), 819, "and walk by their epids' sizes");
	dtd_buf_fini(&b);

	/*
	 * Records written as one piece (a commit()) are forgotten one at a
	 * time: P12 Q16 R20 written at once after A16 into 64 bytes; S20
	 * needs A's room and P's, and Q R S survive.
	 */
	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_RING, 1, 64), 0, "init ring 4");
	dtd_buf_sizer(&b, sizer, NULL);
	mkrec(r, 'A', 16);
	dtd_buf_write(&b, 0, 1, r, 16);
	mkrec(r, 'P', 12);
	mkrec(r + 12, 'Q', 16);
	mkrec(r + 28, 'R', 20);
	tap_is(dtd_buf_write_recs(&b, 0, 1, r, 48), 0, "a piece of 3 records");
	mkrec(r, 'S', 20);
	dtd_buf_write(&b, 0, 1, r, 20);
	dtd_buf_snap(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_ok(n == 3 && got[0] == 'Q' && got[1] == 'R' && got[2] == 'S',
	    "the piece's first record alone goes: Q R S survive");
	dtd_buf_fini(&b);
}

static void
test_thread(void)
{
	dtd_buf_t b;
	dtd_bufsnap_t s;
	char r[16];
	uint32_t got[16];
	int i, n;

	tap_is(dtd_buf_init_thread(&b, DTD_BUFPOLICY_SWITCH, 256, 3), 0,
	    "init thread scope, 3 units");
	tap_is(dtd_buf_nunits(&b), 1, "unit 0 (others) exists from the start");
	/* tids 100, 200 get units; 300 and 400 share unit 0 */
	for (i = 0; i < 8; i++) {
		mkrec(r, (uint32_t)(100 * (i % 4 + 1) + i), 16);
		tap_is(dtd_buf_write(&b, i % 2, 100 * (i % 4 + 1), r, 16), 0,
		    "thread write %d", i);
	}
	tap_is(dtd_buf_nunits(&b), 3, "3 units");
	dtd_buf_snap(&b, 1, &s);
	n = ids(&s, got, 16);
	tap_is(s.dbs_tid, 100, "unit 1 is tid 100");
	tap_ok(n == 2 && got[0] == 100 && got[1] == 104,
	    "tid 100's records in program order");
	tap_ok(s.dbs_flags & DT_BUFF_THREAD, "flag THREAD");
	tap_is(s.dbs_cpu, 0, "its last record ran on cpu 0");
	dtd_buf_snap(&b, 2, &s);
	n = ids(&s, got, 16);
	tap_ok(s.dbs_tid == 200 && n == 2 && got[0] == 201 && got[1] == 205,
	    "tid 200's records");
	dtd_buf_snap(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_ok(s.dbs_tid == 0 && n == 4 && got[0] == 302 && got[1] == 403 &&
	    got[2] == 306 && got[3] == 407,
	    "tids past the limit share unit 0, in order");
	tap_is(dtd_buf_snap(&b, 3, &s), -1, "no unit 3");
	dtd_buf_fini(&b);
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
		r[0] = id;	/* the header: epid, timestamp high 0 */
		r[1] = i;
		r[2] = ~i;
		r[3] = (id * 0x9e3779b97f4a7c15ull) ^ i;
		if (dtd_buf_write(&cb, (int)(id % 2), (pid_t)(1000 + id), r,
		    RECSIZE) != 0)
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
consume(tally_t *t, int unit)
{
	dtd_bufsnap_t s;
	const uint64_t *r;
	uint32_t id;
	size_t off;

	if (dtd_buf_snap(&cb, unit, &s) == -1)
		return;
	t->drops += s.dbs_drops;
	if (s.dbs_len % RECSIZE != 0)
		t->torn++;
	for (off = 0; off + RECSIZE <= s.dbs_len; off += RECSIZE) {
		r = (const uint64_t *)(s.dbs_data + off);
		id = (uint32_t)r[0];
		if (id >= NTHREAD || (r[0] >> 32) != 0 ||
		    r[2] != ~r[1] ||
		    r[3] != (((uint64_t)id * 0x9e3779b97f4a7c15ull) ^ r[1])) {
			t->torn++;
			continue;
		}
		if ((int64_t)r[1] <= t->last[id])
			t->order++;
		t->last[id] = (int64_t)r[1];
		t->seen[id]++;
	}
}

static void
test_concurrent(int scope)
{
	const char *what = scope == DTD_BUFSCOPE_THREAD ? "thread" : "cpu";
	pthread_t th[NTHREAD];
	tally_t t;
	uint64_t wdrops = 0, total = 0, *d;
	int i, u, snaps = 0;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < NTHREAD; i++)
		t.last[i] = -1;
	if (scope == DTD_BUFSCOPE_THREAD)
		tap_is(dtd_buf_init_thread(&cb, DTD_BUFPOLICY_SWITCH,
		    64 * 1024, NTHREAD + 1), 0, "init %d threads x 64k",
		    NTHREAD);
	else
		tap_is(dtd_buf_init(&cb, DTD_BUFPOLICY_SWITCH, 2, 64 * 1024), 0,
		    "init 2 CPUs x 64k");
	__atomic_store_n(&running, NTHREAD, __ATOMIC_SEQ_CST);
	for (i = 0; i < NTHREAD; i++)
		pthread_create(&th[i], NULL, writer, (void *)(uintptr_t)i);
	/* snapshot as fast as we can while they write */
	while (__atomic_load_n(&running, __ATOMIC_SEQ_CST) > 0) {
		for (u = 0; u < dtd_buf_nunits(&cb); u++)
			consume(&t, u);
		snaps++;
	}
	for (i = 0; i < NTHREAD; i++) {
		pthread_join(th[i], (void **)&d);
		wdrops += *d;
		free(d);
	}
	for (i = 0; i < 2; i++) {
		for (u = 0; u < dtd_buf_nunits(&cb); u++)
			consume(&t, u);
	}
	for (i = 0; i < NTHREAD; i++)
		total += t.seen[i];
	tap_is(t.torn, 0, "%s: no torn record in %d snapshots", what, snaps);
	tap_is(t.order, 0, "%s: each writer's records in order", what);
	tap_is(t.drops, wdrops, "%s: drops reported = drops seen by writers",
	    what);
	tap_is(total + t.drops, (uint64_t)NTHREAD * NREC,
	    "%s: every record either delivered or counted as a drop", what);
	tap_ok(total > 0, "%s: records delivered (%llu, %llu drops)", what,
	    (unsigned long long)total, (unsigned long long)t.drops);
	if (scope == DTD_BUFSCOPE_THREAD)
		tap_is(dtd_buf_nunits(&cb), NTHREAD + 1,
		    "one unit per writer thread, plus unit 0");
	dtd_buf_fini(&cb);
}

/* Peeks (snapshots of retained programs) read and consume nothing. */
static void
test_peek(void)
{
	dtd_buf_t b;
	dtd_bufsnap_t s;
	char r[72];
	uint32_t got[16];
	int i, n;

	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_RING, 1, 64), 0, "peek: ring");
	dtd_buf_sizer(&b, sizer, NULL);
	for (i = 1; i <= 5; i++) {
		mkrec(r, i, 24);
		dtd_buf_write(&b, 0, 1, r, 24);
	}
	mkrec(r, 9, 72);
	tap_is(dtd_buf_write(&b, 0, 1, r, 72), DTD_BUF_DROPPED,
	    "peek: a record larger than the ring drops");
	tap_is(dtd_buf_drops(&b), 1, "peek: 1 drop pending");
	dtd_buf_peek(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_ok(n == 2 && got[0] == 4 && got[1] == 5, "peek: the newest two");
	tap_is(s.dbs_drops, 1, "peek: the drop");
	tap_ok(s.dbs_flags & DT_BUFF_WRAPPED, "peek: WRAPPED");
	mkrec(r, 6, 24);
	dtd_buf_write(&b, 0, 1, r, 24);
	dtd_buf_peek(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_ok(n == 2 && got[0] == 5 && got[1] == 6,
	    "peek again: the ring went on, 5 6");
	tap_is(s.dbs_drops, 1, "peek again: the drop is still there");
	dtd_buf_snap(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_ok(n == 2 && got[0] == 5 && got[1] == 6 && s.dbs_drops == 1,
	    "snapshot after peeks: everything, once");
	tap_is(dtd_buf_drops(&b), 0, "snapshot: no drop pending");
	dtd_buf_fini(&b);

	tap_is(dtd_buf_init(&b, DTD_BUFPOLICY_SWITCH, 1, 64), 0,
	    "peek: switch");
	for (i = 1; i <= 3; i++) {
		mkrec(r, i, 24);
		dtd_buf_write(&b, 0, 1, r, 24);
	}
	dtd_buf_peek(&b, 0, &s);
	n = ids(&s, got, 16);
	tap_ok(n == 2 && got[0] == 1 && got[1] == 2 && s.dbs_drops == 1,
	    "peek switch: the first two and a drop");
	dtd_buf_peek(&b, 0, &s);
	tap_ok(ids(&s, got, 16) == 2 && s.dbs_drops == 1,
	    "peek switch twice: the same");
	dtd_buf_snap(&b, 0, &s);
	tap_ok(ids(&s, got, 16) == 2 && s.dbs_drops == 1,
	    "snapshot after peeks: the same, consumed");
	dtd_buf_snap(&b, 0, &s);
	tap_ok(s.dbs_len == 0 && s.dbs_drops == 0, "then empty");
	dtd_buf_fini(&b);
}

int
main(void)
{
	test_switch();
	test_fill();
	test_ring();
	test_peek();
	test_thread();
	test_concurrent(DTD_BUFSCOPE_CPU);
	test_concurrent(DTD_BUFSCOPE_THREAD);
	return tap_done();
}
