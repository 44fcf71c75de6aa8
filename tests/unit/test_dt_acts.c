/*
 * test_dt_acts.c: libdtrace's public dtrace.h gives consumers the action
 * kinds (dtrd_action) so that they need not include the wire protocol;
 * its list must be the protocol's, name for name and value for value.
 * dt_acts_proto.c holds the protocol's values; this file dtrace.h's.
 * Both headers are also read as text: a kind added to one and not to
 * the other (or not to dt_acts.h) fails here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtrace.h"
#include "dt_acts.h"
#include "tap.h"

extern const dt_act_name_t dt_acts_proto[];
static const dt_act_name_t dt_acts_pub[] = { DT_ACTS(DT_ACT_ENTRY) };
#define NACTS	(sizeof(dt_acts_pub) / sizeof(dt_acts_pub[0]))

/* The object-like DTRACEACT_ and DTRACEAGG_ macros path defines. */
static int
defined_kinds(const char *path, char names[][64], int max)
{
	char line[512], name[64];
	FILE *f;
	int n = 0;

	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "#define %63s", name) != 1 ||
		    (strncmp(name, "DTRACEACT_", 10) != 0 &&
		    strncmp(name, "DTRACEAGG_", 10) != 0) ||
		    strchr(name, '(') != NULL)
			continue;
		if (n < max)
			strcpy(names[n], name);
		n++;
	}
	fclose(f);
	return n;
}

static int
listed(const char *name)
{
	size_t i;

	for (i = 0; i < NACTS; i++) {
		if (strcmp(dt_acts_pub[i].an_name, name) == 0)
			return 1;
	}
	return 0;
}

static void
check_header(const char *srcdir, const char *file)
{
	char path[4096], names[128][64];
	int i, n, missing = 0;

	snprintf(path, sizeof(path), "%s/%s", srcdir, file);
	n = defined_kinds(path, names, 128);
	tap_is(n, (long long)NACTS, "%s defines the %zu kinds", file, NACTS);
	for (i = 0; i < n && i < 128; i++) {
		if (!listed(names[i])) {
			printf("# %s: %s not in dt_acts.h\n", file, names[i]);
			missing++;
		}
	}
	tap_is(missing, 0, "%s: every kind it defines is compared", file);
}

int
main(void)
{
	const char *srcdir = getenv("top_srcdir");
	size_t i;
	int diff = 0;

	for (i = 0; i < NACTS; i++) {
		if (strcmp(dt_acts_pub[i].an_name,
		    dt_acts_proto[i].an_name) != 0 ||
		    dt_acts_pub[i].an_value != dt_acts_proto[i].an_value) {
			printf("# %s: dtrace.h %ld, dt_proto.h %ld\n",
			    dt_acts_pub[i].an_name, dt_acts_pub[i].an_value,
			    dt_acts_proto[i].an_value);
			diff++;
		}
	}
	tap_is(diff, 0, "dtrace.h and dt_proto.h number the %zu kinds alike",
	    NACTS);
	tap_is(DTRACEACT_EXIT, 2, "exit() is kind 2, as in illumos");
	if (srcdir == NULL)
		srcdir = ".";
	check_header(srcdir, "libdtrace/dtrace.h");
	check_header(srcdir, "proto/dt_proto.h");
	return tap_done();
}
