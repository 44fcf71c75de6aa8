/*
 * test_dtd_limit.c: dtraced -L: parsing and describing the limits, and
 * the accounts of one uid over several consumers (charged, refused,
 * uncharged), with root exempt.
 */
#include <stdlib.h>
#include <string.h>

#include "dtd.h"
#include "tap.h"

/* A consumer of uid with nprog programs and necb ECBs, as dtd_limit sees. */
static dtd_consumer_t *
mk(uid_t uid, uint32_t nprog, uint32_t necb)
{
	dtd_consumer_t *c = calloc(1, sizeof(*c));

	c->dc_uid = uid;
	c->dc_nprog = nprog;
	c->dc_necb = necb;
	return c;
}

int
main(void)
{
	char err[256], buf[256];
	dtd_consumer_t *a, *b, *r;
	uint64_t v;
	int which;

	dtd_limit_describe(buf, sizeof(buf), 0);
	tap_str(buf, "programs=64,probes=250000,memory=256m,user-programs=256,"
	    "user-probes=500000,user-memory=1g,user-connections=64",
	    "the defaults");
	dtd_limit_describe(buf, sizeof(buf), 1);
	tap_str(buf, "output=16m,output-timeout=60",
	    "the defaults of every client");
	tap_is(dtd_limit_connect(1000, 63, err, sizeof(err)), 0,
	    "a 64th connection");
	tap_is(dtd_limit_connect(1000, 64, err, sizeof(err)), -1,
	    "a 65th connection refused");
	tap_str(err, "too many connections from uid 1000: dtraced allows 64 "
	    "per user", "with its reason");
	tap_is(dtd_limit_connect(0, 100000, err, sizeof(err)), 0,
	    "root's connections are not counted");
	tap_is(dtd_limit_parse("output-timeout=86401", err, sizeof(err)), -1,
	    "an output-timeout over a day refused");

	tap_is(dtd_limit_parse("memory=0", err, sizeof(err)), -1,
	    "memory=0 refused");
	tap_str(err, "-L memory=0: not a positive number", "with its reason");
	tap_is(dtd_limit_parse("programs=3,bogus=1", err, sizeof(err)), -1,
	    "an unknown name refused");
	tap_str(err, "-L bogus: unknown limit", "with its reason");
	dtd_limit_describe(buf, sizeof(buf), 0);
	tap_ok(strncmp(buf, "programs=64,", 12) == 0,
	    "a refused list changes nothing");
	tap_is(dtd_limit_parse("memory", err, sizeof(err)), -1,
	    "no value refused");
	tap_is(dtd_limit_parse("memory=1x", err, sizeof(err)), -1,
	    "a bad suffix refused");
	tap_is(dtd_limit_parse("memory=99999999999t", err, sizeof(err)), -1,
	    "an overflowing size refused");

	tap_is(dtd_limit_parse("programs=2,probes=10,memory=8m", err,
	    sizeof(err)), 0, "programs=2,probes=10,memory=8m");
	tap_is(dtd_limit_parse("user-programs=3", err, sizeof(err)), 0,
	    "user-programs=3");
	tap_is(dtd_limit_parse("user-probes=15,user-memory=12m", err,
	    sizeof(err)), 0, "user-probes=15,user-memory=12m");
	tap_is(dtd_limit_parse("user-connections=2,output=1m,"
	    "output-timeout=5", err, sizeof(err)), 0,
	    "user-connections=2,output=1m,output-timeout=5");
	dtd_limit_describe(buf, sizeof(buf), 0);
	tap_str(buf, "programs=2,probes=10,memory=8m,user-programs=3,"
	    "user-probes=15,user-memory=12m,user-connections=2",
	    "described as given");
	dtd_limit_describe(buf, sizeof(buf), 1);
	tap_str(buf, "output=1m,output-timeout=5", "described as given");
	tap_is(dtd_limit_connect(1000, 2, err, sizeof(err)), -1,
	    "a third connection refused");
	tap_is(dtd_limit_get()->dl_umemory, 12u << 20, "12m is 12 MiB");

	/* one consumer of uid 1000: its own limits */
	a = mk(1000, 0, 0);
	tap_is(dtd_limit_program(a, err, sizeof(err)), 0, "a first program");
	tap_is(dtd_limit_probes(a, 1u << 20, &which), 10,
	    "10 probes for a client");
	tap_is(which, 0, "the client's limit binds");
	tap_is(dtd_limit_memory(a, 1ull << 30, &which), 8u << 20,
	    "8m for a client");
	tap_is(which, 1, "the client's limit binds");
	a->dc_nprog = 1;
	a->dc_necb = 8;
	dtd_limit_charge(a, 1, 8, 6u << 20);
	a->dc_nprog = 2;
	tap_is(dtd_limit_program(a, err, sizeof(err)), -1,
	    "a third program refused");
	tap_str(err, "too many programs: dtraced allows 2 per client",
	    "in words");

	/* a second consumer of the same uid: what a holds counts */
	b = mk(1000, 0, 0);
	tap_is(dtd_limit_probes(b, 1u << 20, &which), 7,
	    "15 - 8 probes for the uid's second client");
	tap_is(which, 1, "the uid's limit binds");
	dtd_limit_probes_err(b, which, err, sizeof(err));
	tap_str(err, "too many enabled probes: dtraced allows 15 per user "
	    "(uid 1000)", "in words");
	v = dtd_limit_memory(b, 1ull << 30, &which);
	tap_is(v, 6u << 20, "12m - 6m for the uid's second client");
	tap_is(which, 2, "the uid's limit binds");
	dtd_limit_memory_err(b, which, err, sizeof(err));
	tap_str(err, "Not enough space: dtraced allows 12m of buffers per "
	    "user (uid 1000), in use by its other consumers: 6291456 bytes",
	    "in words");
	dtd_limit_charge(b, 1, 0, 0);
	tap_is(dtd_limit_program(b, err, sizeof(err)), 0,
	    "the uid's third program");
	dtd_limit_charge(b, 1, 0, 0);
	b->dc_nprog = 2;
	tap_is(dtd_limit_program(b, err, sizeof(err)), -1,
	    "the uid's fourth refused");
	tap_str(err, "too many programs: dtraced allows 2 per client",
	    "by the client's limit first");
	b->dc_nprog = 1;
	tap_is(dtd_limit_program(b, err, sizeof(err)), -1,
	    "and by the uid's");
	tap_str(err, "too many programs: dtraced allows 3 per user "
	    "(uid 1000)", "in words");

	/* another uid and root are not affected */
	r = mk(1001, 0, 0);
	tap_is(dtd_limit_memory(r, 1ull << 30, &which), 8u << 20,
	    "another uid has its own account");
	r->dc_uid = 0;
	tap_is(dtd_limit_memory(r, 1ull << 30, &which), 1ull << 30,
	    "root: the ceiling");
	tap_is(which, 0, "no limit applies to root");
	tap_is(dtd_limit_probes(r, 1u << 20, &which), 1u << 20,
	    "root: the probe ceiling");
	dtd_limit_charge(r, 100, 100, 100);
	tap_ok(!r->dc_limited, "root is not charged");

	/* a goes: the uid gets its share back */
	dtd_limit_uncharge(a);
	tap_is(dtd_limit_memory(b, 1ull << 30, &which), 8u << 20,
	    "a gone: the client's limit binds again");
	tap_is(dtd_limit_memory(b, 4u << 20, &which), 4u << 20,
	    "a ceiling below the limits binds");
	tap_is(which, 3, "and says so");
	tap_is(dtd_limit_probes(b, 1u << 20, &which), 10, "and 10 probes");
	dtd_limit_uncharge(b);
	dtd_limit_uncharge(b);
	tap_ok(!b->dc_limited, "uncharging twice is harmless");
	b->dc_nprog = 0;
	tap_is(dtd_limit_program(b, err, sizeof(err)), 0,
	    "everything given back");

	dtd_limit_enforce(0);
	tap_is(dtd_limit_memory(b, 1ull << 30, &which), 1ull << 30,
	    "not enforced (a private daemon): the ceiling");
	dtd_limit_describe(buf, sizeof(buf), 0);
	tap_str(buf, "none", "described as none");
	tap_is(dtd_limit_connect(1000, 2, err, sizeof(err)), 0,
	    "not enforced: connections not counted");
	tap_is(dtd_limit_output(&v, &which), 0,
	    "not enforced: no output bound");
	free(a);
	free(b);
	free(r);
	return tap_done();
}
