/*
 * test_dtd_spec.c: speculations through illumos's states: allocation
 * and its two kinds of failure, commit and discard from the CPU that
 * speculated and from another one, busy buffers until cleaned, id 0,
 * speculative drops, and committed records in the principal buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "dtd.h"
#include "tap.h"

/* Every record here is RECLEN bytes: records carry no size (dt_proto.h). */
#define RECLEN	24

static void
mkrec(char *r, uint32_t epid, size_t len)
{
	memset(r, 0, len);
	dt_proto_rechdr_put(r, epid, 0);
}

/* The epids of the records in CPU cpu's principal buffer, in order. */
static int
epids(dtd_buf_t *b, int cpu, uint32_t *out, int max)
{
	dtd_bufsnap_t s;
	size_t off = 0;
	int n = 0;

	if (dtd_buf_snap(b, cpu, &s) == -1)
		return -1;
	for (; off + RECLEN <= s.dbs_len && n < max; off += RECLEN)
		dt_proto_rechdr_get(s.dbs_data + off, &out[n++], NULL);
	return off == s.dbs_len ? n : -1;
}

static void
test_alloc(void)
{
	dtd_specs_t ss;

	tap_is(dtd_spec_init(&ss, 2, 2, 64, 1000), 0, "init nspec=2");
	tap_is(dtd_spec_alloc(&ss, 0), 1u, "first speculation is 1");
	tap_is(dtd_spec_alloc(&ss, 0), 2u, "second is 2");
	tap_is(dtd_spec_alloc(&ss, 0), 0u, "third fails");
	tap_is(ss.dss_unavail, 1u, "counted as unavailable");
	tap_is(ss.dss_busy, 0u, "not as busy");
	/* discarding an ACTIVE one makes it busy until cleaned */
	dtd_spec_discard(&ss, 1, 0, 100);
	tap_is(dtd_spec_state(&ss, 1), DTD_SPEC_DISCARDING, "DISCARDING");
	tap_is(dtd_spec_alloc(&ss, 500), 0u, "busy: fails");
	tap_is(ss.dss_busy, 1u, "counted as busy");
	tap_is(dtd_spec_alloc(&ss, 1100), 1u, "cleaned after cleanrate");
	tap_is(dtd_spec_state(&ss, 1), DTD_SPEC_ACTIVE, "ACTIVE again");
	tap_ok(dtd_spec_valid(&ss, 0) && dtd_spec_valid(&ss, 2) &&
	    !dtd_spec_valid(&ss, 3), "ids 0..nspec are valid");
	dtd_spec_fini(&ss);
}

static void
test_commit(void)
{
	dtd_specs_t ss;
	dtd_buf_t b;
	char r[RECLEN];
	uint32_t got[8];
	uint32_t id;

	dtd_spec_init(&ss, 1, 2, 64, 1000);
	dtd_buf_init(&b, DTD_BUFPOLICY_SWITCH, 2, 1024);
	id = dtd_spec_alloc(&ss, 0);
	mkrec(r, 7, sizeof(r));
	tap_is(dtd_spec_write(&ss, id, 0, r, sizeof(r)), 0, "speculate 1");
	tap_is(dtd_spec_state(&ss, id), DTD_SPEC_ACTIVEONE, "ACTIVEONE");
	mkrec(r, 8, sizeof(r));
	tap_is(dtd_spec_write(&ss, id, 0, r, sizeof(r)), 0, "speculate 2");
	tap_is(dtd_spec_write(&ss, id, 0, r, sizeof(r)), -1,
	    "third does not fit in 64 bytes");
	tap_is(ss.dss_drops, 1u, "one speculative drop");
	tap_is(dtd_spec_commit(&ss, id, 0, &b, 1, 0), 0, "commit on CPU 0");
	tap_is(dtd_spec_state(&ss, id), DTD_SPEC_INACTIVE,
	    "same CPU: INACTIVE at once");
	tap_is(epids(&b, 0, got, 8), 2, "two records committed");
	tap_ok(got[0] == 7 && got[1] == 8, "in order");

	/* records on two CPUs, committed from CPU 1: busy until cleaned */
	id = dtd_spec_alloc(&ss, 0);
	mkrec(r, 9, sizeof(r));
	dtd_spec_write(&ss, id, 0, r, sizeof(r));
	mkrec(r, 10, sizeof(r));
	dtd_spec_write(&ss, id, 1, r, sizeof(r));
	tap_is(dtd_spec_state(&ss, id), DTD_SPEC_ACTIVEMANY, "ACTIVEMANY");
	dtd_spec_commit(&ss, id, 1, &b, 1, 10);
	tap_is(dtd_spec_state(&ss, id), DTD_SPEC_COMMITTINGMANY,
	    "COMMITTINGMANY");
	tap_ok(epids(&b, 0, got, 8) == 1 && got[0] == 9, "CPU 0's record");
	tap_ok(epids(&b, 1, got, 8) == 1 && got[0] == 10, "CPU 1's record");
	/* a committing speculation takes no more records */
	tap_is(dtd_spec_write(&ss, id, 0, r, sizeof(r)), 0, "ignored");
	dtd_spec_clean(&ss, 500);
	tap_is(dtd_spec_state(&ss, id), DTD_SPEC_COMMITTINGMANY,
	    "still busy before cleanrate");
	dtd_spec_clean(&ss, 1010);
	tap_is(dtd_spec_state(&ss, id), DTD_SPEC_INACTIVE, "cleaned");
	tap_is(epids(&b, 0, got, 8), 0, "nothing more committed");

	/* discard on the one CPU frees at once; id 0 does nothing */
	id = dtd_spec_alloc(&ss, 2000);
	dtd_spec_write(&ss, id, 1, r, sizeof(r));
	dtd_spec_discard(&ss, id, 1, 2000);
	tap_is(dtd_spec_state(&ss, id), DTD_SPEC_INACTIVE, "discard: free");
	tap_is(dtd_spec_write(&ss, 0, 0, r, sizeof(r)), 0, "speculate(0)");
	tap_is(dtd_spec_commit(&ss, 0, 0, &b, 1, 0), 0, "commit(0)");
	tap_is(ss.dss_drops, 1u, "id 0 drops nothing");
	dtd_buf_fini(&b);
	dtd_spec_fini(&ss);
}

int
main(void)
{
	test_alloc();
	test_commit();
	return tap_done();
}
