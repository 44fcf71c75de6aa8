/*
 * test_dtd_probe.c: the probe table: tick-N parsing, glob matching,
 * profile probes (the defaults at fixed ids, others on demand), and
 * probes of providers made and destroyed in bulk: found by id and by
 * name, walked in id order across providers, ids never reused.
 */
#include <string.h>

#include "dtd.h"
#include "tap.h"

static void
parse(const char *name, int ok, int kind, uint64_t ns)
{
	uint64_t got = 0;
	int k = 0, rv;

	rv = dtd_prov_profile_parse(name, &k, &got);
	if (!ok) {
		tap_is(rv, -1, "%s rejected", name);
		return;
	}
	tap_ok(rv == 0 && k == kind && got == ns, "%s = %llu ns", name,
	    (unsigned long long)ns);
	if (rv != 0 || got != ns)
		printf("#   rv %d kind %d ns %llu\n", rv, k,
		    (unsigned long long)got);
}

static int
count_cb(dtd_probe_t *p, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

/* the ids cb sees, in order */
typedef struct ids {
	uint32_t	id[8];
	int		n;
} ids_t;

static int
ids_cb(dtd_probe_t *p, void *arg)
{
	ids_t *v = arg;

	if (v->n < 8)
		v->id[v->n] = p->dpr_id;
	v->n++;
	return 0;
}

static void
walk_cb(dtd_probe_t *p, void *arg)
{
	(void)p;
	(*(int *)arg)++;
}

/* doomed: arg alone */
static int
only_cb(const dtd_probe_t *p, void *arg)
{
	return p == arg;
}

static int
nmatch(const char *prov, const char *mod, const char *func, const char *name)
{
	dtp_probedesc_t d;
	int n = 0;

	memset(&d, 0, sizeof(d));
	strcpy(d.dpd_provider, prov);
	strcpy(d.dpd_mod, mod);
	strcpy(d.dpd_func, func);
	strcpy(d.dpd_name, name);
	dtd_probe_iter(&d, NULL, count_cb, &n, NULL, 0);
	return n;
}

/* Two providers' probes, interleaved, many; then one's destroyed. */
static void
bulk(void)
{
	static const dtd_provider_t pa = { .dpv_name = "bulka" };
	static const dtd_provider_t pb = { .dpv_name = "bulkb" };
	char fn[32];
	dtd_probe_t *p, *keep = NULL;
	dtp_probedesc_t d;
	uint32_t first = 0, i, keepid, n0 = dtd_probe_count();
	int bad = 0, nw = 0;
	ids_t v;

	for (i = 0; i < 20000; i++) {
		snprintf(fn, sizeof(fn), "f%u", i / 2);
		p = dtd_probe_create(i % 2 ? &pb : &pa, "mod", fn, "entry",
		    NULL);
		if (p == NULL) {
			bad++;
			continue;
		}
		if (i == 0)
			first = p->dpr_id;
		if (i == 4)
			keep = p;
	}
	tap_is(bad, 0, "20000 probes created");
	tap_is(dtd_probe_count(), n0 + 20000, "counted");
	p = dtd_probe_find("bulkb", "mod", "f777", "entry");
	tap_ok(p != NULL && p->dpr_prov == &pb &&
	    strcmp(p->dpr_func, "f777") == 0 && p->dpr_id == first + 1555,
	    "found by name");
	tap_ok(p != NULL && dtd_probe_lookup(p->dpr_id) == p, "found by id");
	tap_ok(dtd_probe_find("bulkb", "mod", "f777", "return") == NULL &&
	    dtd_probe_find("bulka", "mod", "f10000", "entry") == NULL,
	    "names not made are not found");
	tap_is(nmatch("bulk?", "", "f1", ""), 2, "bulk?::f1: one of each");
	memset(&d, 0, sizeof(d));
	strcpy(d.dpd_provider, "bulk*");
	strcpy(d.dpd_func, "f[0-3]");
	memset(&v, 0, sizeof(v));
	dtd_probe_iter(&d, NULL, ids_cb, &v, NULL, 0);
	tap_ok(v.n == 8 && v.id[0] == first && v.id[1] == first + 1 &&
	    v.id[2] == first + 2 && v.id[7] == first + 7,
	    "two providers' matches in id order");

	/* an enabled probe survives its provider's destruction */
	keep->dpr_necb = 1;
	dtd_probe_destroy_prov(&pa, NULL, NULL);
	tap_is(dtd_probe_count(), n0 + 10000 + 1, "bulka's probes gone "
	    "but the enabled one");
	tap_ok(dtd_probe_find("bulka", "mod", "f2", "entry") == keep &&
	    dtd_probe_lookup(keep->dpr_id) == keep, "the enabled one stays");
	tap_ok(dtd_probe_find("bulka", "mod", "f3", "entry") == NULL &&
	    dtd_probe_lookup(first) == NULL, "the others are not found");
	dtd_probe_walk_prov(&pa, walk_cb, &nw);
	tap_is(nw, 1, "bulka has one probe left");
	tap_is(nmatch("bulkb", "", "", ""), 10000, "bulkb's all stay");
	/*
	 * retired, still enabled: by id alone, and its names are another
	 * probe's; only what doomed picks goes
	 */
	dtd_probe_retire(keep);
	tap_ok(dtd_probe_find("bulka", "mod", "f2", "entry") == NULL &&
	    dtd_probe_lookup(keep->dpr_id) == keep, "retired: by id alone");
	p = dtd_probe_create(&pa, "mod", "f2", "entry", NULL);
	tap_ok(p != NULL && p != keep &&
	    dtd_probe_find("bulka", "mod", "f2", "entry") == p,
	    "a new probe takes a retired one's names");
	keep->dpr_necb = 0;
	keepid = keep->dpr_id;
	dtd_probe_destroy_prov(&pa, only_cb, keep);
	tap_ok(dtd_probe_lookup(keepid) == NULL &&
	    dtd_probe_find("bulka", "mod", "f2", "entry") == p,
	    "doomed: the retired one goes, the new one stays");
	dtd_probe_destroy_prov(&pa, NULL, NULL);
	dtd_probe_destroy_prov(&pb, NULL, NULL);
	tap_is(dtd_probe_count(), n0, "all gone");
	tap_is(nmatch("bulk*", "", "", ""), 0, "none matches");
	p = dtd_probe_create(&pa, "mod", "f0", "entry", NULL);
	tap_ok(p != NULL && p->dpr_id == first + 20001, "ids are not reused");
	tap_ok(p != NULL && dtd_probe_find("bulka", "mod", "f0", "entry") == p,
	    "a new probe of a destroyed name is found");
	if (p != NULL)
		dtd_probe_destroy(p);
	tap_is(dtd_probe_count(), n0, "and destroyed");
}

int
main(void)
{
	static const char *const defaults[] = {
		"profile-97", "profile-199", "profile-499", "profile-997",
		"profile-1999", "profile-4001", "profile-4999", "tick-1",
		"tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000",
	};
	dtd_probe_t *p;
	size_t i;
	int nsys, base;

	parse("tick-100", 1, DTD_PROFILE_TICK, 10000000);
	parse("tick-1s", 1, DTD_PROFILE_TICK, 1000000000);
	parse("tick-1sec", 1, DTD_PROFILE_TICK, 1000000000);
	parse("tick-10ms", 1, DTD_PROFILE_TICK, 10000000);
	parse("tick-1hz", 1, DTD_PROFILE_TICK, 1000000000);
	parse("tick-1000", 1, DTD_PROFILE_TICK, 1000000);
	parse("tick-5000hz", 1, DTD_PROFILE_TICK, 200000);
	parse("tick-500us", 1, DTD_PROFILE_TICK, 500000);
	parse("tick-2m", 1, DTD_PROFILE_TICK, 120000000000ull);
	parse("tick-1h", 1, DTD_PROFILE_TICK, 3600000000000ull);
	parse("tick-1d", 1, DTD_PROFILE_TICK, 86400000000000ull);
	parse("tick-300000ns", 1, DTD_PROFILE_TICK, 300000);
	parse("profile-97", 1, DTD_PROFILE_PROFILE, 1000000000 / 97);
	parse("profile-1ms", 1, DTD_PROFILE_PROFILE, 1000000);
	parse("tick-10000", 0, 0, 0);
	parse("tick-1us", 0, 0, 0);
	parse("tick-0", 0, 0, 0);
	parse("tick-", 0, 0, 0);
	parse("tick-1x", 0, 0, 0);
	parse("tick-s", 0, 0, 0);
	parse("tick-1 s", 0, 0, 0);
	parse("tick-99999999999999999999999", 0, 0, 0);
	parse("tock-1", 0, 0, 0);
	parse("BEGIN", 0, 0, 0);

	tap_ok(dtd_probe_glob("", "anything"), "empty field matches anything");
	tap_ok(dtd_probe_glob("*", ""), "* matches empty");
	tap_ok(dtd_probe_glob("b?gin", "begin"), "? glob");
	tap_ok(dtd_probe_glob("[BE]*", "END"), "bracket glob");
	tap_ok(!dtd_probe_glob("BEGIN", "BEGINX"), "no partial match");
	tap_ok(!dtd_probe_glob("foo", ""), "literal does not match empty");

	tap_is(dtd_probe_init(), 0, "init");
	p = dtd_probe_lookup(DTD_PROBE_BEGIN);
	tap_ok(p != NULL && strcmp(p->dpr_name, "BEGIN") == 0, "BEGIN is id 1");
	p = dtd_probe_lookup(DTD_PROBE_END);
	tap_ok(p != NULL && strcmp(p->dpr_name, "END") == 0, "END is id 2");
	p = dtd_probe_lookup(DTD_PROBE_ERROR);
	tap_ok(p != NULL && strcmp(p->dpr_name, "ERROR") == 0, "ERROR is id 3");
	tap_ok(dtd_probe_lookup(0) == NULL, "no probe 0");
	/* then illumos's default profile probes, in its order */
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		p = dtd_probe_lookup(4 + (uint32_t)i);
		tap_ok(p != NULL &&
		    strcmp(p->dpr_prov->dpv_name, "profile") == 0 &&
		    strcmp(p->dpr_name, defaults[i]) == 0,
		    "id %u is profile:::%s", 4 + (unsigned)i, defaults[i]);
	}
	/* then syscall's, an entry and a return of each call */
	nsys = nmatch("syscall", "", "", "");
	tap_ok(nsys > 600 && nsys % 2 == 0, "syscall::: %u probes", nsys);
	tap_is(nmatch("syscall", "", "", "entry"), nsys / 2,
	    "syscall:::entry, half of them");
	tap_is(nmatch("syscall", "", "read", ""), 2, "syscall::read:");
	p = dtd_probe_lookup(17);
	tap_ok(p != NULL && strcmp(p->dpr_prov->dpv_name, "syscall") == 0 &&
	    strcmp(p->dpr_func, "read") == 0 &&
	    strcmp(p->dpr_name, "entry") == 0, "id 17 is syscall::read:entry");
	p = dtd_probe_lookup(18);
	tap_ok(p != NULL && strcmp(p->dpr_func, "read") == 0 &&
	    strcmp(p->dpr_name, "return") == 0,
	    "id 18 is syscall::read:return");
	/* then proc's fourteen, create first */
	tap_is(nmatch("proc", "", "", ""), 14, "proc::: 14 probes");
	p = dtd_probe_lookup(17 + (uint32_t)nsys);
	tap_ok(p != NULL && strcmp(p->dpr_prov->dpv_name, "proc") == 0 &&
	    strcmp(p->dpr_name, "create") == 0, "proc:::create follows");
	base = 16 + nsys + 14;
	tap_ok(dtd_probe_lookup(base + 1) == NULL, "no other probes yet");

	tap_is(nmatch("dtrace", "", "", "BEGIN"), 1, "dtrace:::BEGIN");
	tap_is(nmatch("", "", "", "BEGIN"), 1, ":::BEGIN");
	tap_is(nmatch("dtrace", "", "", ""), 3, "dtrace:::");
	tap_is(nmatch("dtrace", "*", "*", "E*"), 2, "dtrace:*:*:E*");
	tap_is(nmatch("d?race", "", "", "[BE]*"), 3, "d?race:::[BE]*");
	tap_is(nmatch("dtrace", "x", "", "BEGIN"), 0, "dtrace:x::BEGIN");
	tap_is(nmatch("pid123", "", "", ""), 0, "unknown provider");
	tap_is(nmatch("profile", "", "", ""), 13, "profile::: the defaults");
	tap_is(nmatch("profile", "", "", "profile-997"), 1,
	    "profile-997 exists, not created again");
	tap_is(dtd_probe_count(), base, "3 + 13 probes, syscall's and proc's");

	tap_is(nmatch("profile", "", "", "tick-1s"), 1,
	    "profile:::tick-1s created on demand");
	tap_is(dtd_probe_count(), base + 1, "one probe more");
	p = dtd_probe_lookup(base + 1);
	tap_ok(p != NULL && strcmp(p->dpr_prov->dpv_name, "profile") == 0 &&
	    strcmp(p->dpr_name, "tick-1s") == 0,
	    "the next id is profile:::tick-1s");
	tap_is(nmatch("profile", "", "", "tick-1s"), 1, "not created twice");
	tap_is(nmatch("", "", "", "tick-1s"), 1, "empty provider finds it");
	tap_is(nmatch("", "", "", "tick-10ms"), 1,
	    "empty provider creates tick-10ms");
	tap_is(dtd_probe_count(), base + 2, "tick-10ms has the next id");
	tap_is(nmatch("profile", "", "", "tick-*"), 8,
	    "glob matches existing ticks (6 defaults, 2 made), creates none");
	tap_is(dtd_probe_count(), base + 2, "no more");
	tap_is(nmatch("profile", "", "", "profile-98"), 1,
	    "profile:::profile-98 created on demand");
	tap_is(dtd_probe_count(), base + 3, "profile-98 has the next id");
	tap_is(nmatch("profile", "", "", "tick-1us"), 0, "too fast: no probe");
	tap_is(nmatch("profile", "", "", "profile-5000000hz"), 0,
	    "too fast profile-N: no probe");
	tap_is(nmatch("profile", "mod", "", "tick-2s"), 0,
	    "module named: no tick probe");
	tap_is(nmatch("dtrace", "", "", "tick-3s"), 0,
	    "other provider named: no tick probe");
	tap_is(dtd_probe_count(), base + 3, "nothing else created");
	tap_is(nmatch("", "", "", ""), base + 3, "::: lists all");

	bulk();
	dtd_probe_fini();
	return tap_done();
}
