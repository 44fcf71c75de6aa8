/*
 * test_dt_usym.c: the consumer names a function with several names by
 * the rule the daemon lists its probes by, without including fasttrap:
 * dt_usym_alias_cmp (libdtrace/dt_usym.c) and ft_sym_cmp (fasttrap/ft.h)
 * must order every pair of symbols alike.  The pairs are every mix of
 * the things the rule looks at: address, binding, a hidden version,
 * leading underscores and '$', a '.' suffix, size and name.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "dt_impl.h"
#include "ft.h"
#include "tap.h"

static const char *const names[] = {
	"foo", "_foo", "__foo", "___foo", "$foo", "$_foo", "foo.localalias",
	"_foo.cold", "bar", "__libc_malloc", "malloc", "cfree", "_", "__",
};
static const uint8_t binds[] = { STB_LOCAL, STB_GLOBAL, STB_WEAK };
static const uint64_t sizes[] = { 0, 8, 16 };
static const uint64_t addrs[] = { 0x1000, 0x2000 };

#define NN	(sizeof(names) / sizeof(names[0]))
#define NSYM	(NN * 3 * 2 * 3 * 2)

static ft_sym_t fs[NSYM];
static dt_usym_alias_t al[NSYM];

static int
sign(int v)
{
	return v < 0 ? -1 : v > 0;
}

int
main(void)
{
	size_t n = 0, i, j, b, h, z, a;
	long long pairs = 0, differ = 0;

	for (i = 0; i < NN; i++)
	for (b = 0; b < 3; b++)
	for (h = 0; h < 2; h++)
	for (z = 0; z < 3; z++)
	for (a = 0; a < 2; a++) {
		fs[n].fs_name = al[n].al_name = names[i];
		fs[n].fs_bind = al[n].al_bind = binds[b];
		fs[n].fs_hidden = al[n].al_hidden = (uint8_t)h;
		fs[n].fs_size = al[n].al_size = sizes[z];
		fs[n].fs_addr = al[n].al_addr = addrs[a];
		n++;
	}
	tap_is(n, NSYM, "%zu symbols made", (size_t)NSYM);
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			int f = sign(ft_sym_cmp(&fs[i], &fs[j]));
			int d = sign(dt_usym_alias_cmp(&al[i], &al[j]));

			pairs++;
			if (f != d && differ++ < 5)
				printf("# %s/%u/%u/%llu vs %s/%u/%u/%llu: "
				    "fasttrap %d, libdtrace %d\n",
				    fs[i].fs_name, fs[i].fs_bind,
				    fs[i].fs_hidden,
				    (unsigned long long)fs[i].fs_size,
				    fs[j].fs_name, fs[j].fs_bind,
				    fs[j].fs_hidden,
				    (unsigned long long)fs[j].fs_size, f, d);
		}
	}
	tap_is(differ, 0, "the %lld pairs are ordered alike", pairs);

	/* and the rule itself, on the cases README names */
	{
		dt_usym_alias_t m = { "malloc", 0x1000, 8, STB_GLOBAL, 0 };
		dt_usym_alias_t lm = { "__libc_malloc", 0x1000, 8,
		    STB_GLOBAL, 0 };
		dt_usym_alias_t f = { "free", 0x2000, 8, STB_GLOBAL, 0 };
		dt_usym_alias_t cf = { "cfree", 0x2000, 8, STB_GLOBAL, 1 };
		dt_usym_alias_t la = { "foo.localalias", 0x3000, 8,
		    STB_LOCAL, 0 };
		dt_usym_alias_t fo = { "foo", 0x3000, 8, STB_LOCAL, 0 };

		tap_ok(dt_usym_alias_cmp(&m, &lm) < 0,
		    "malloc before __libc_malloc");
		tap_ok(dt_usym_alias_cmp(&f, &cf) < 0,
		    "free before the compat cfree");
		tap_ok(dt_usym_alias_cmp(&fo, &la) < 0,
		    "foo before foo.localalias");
		tap_ok(dt_usym_alias_cmp(&cf, &m) > 0,
		    "a higher address after a lower");
	}
	return tap_done();
}
