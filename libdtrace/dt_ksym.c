/*
 * dt_ksym.c: naming kernel addresses, for sym(), func() and mod() (a
 * profile sample's arg0 is the kernel PC when it hit the kernel) and
 * the frames of stack(), as illumos names them: "module`function" and
 * "module", "module`function+0xoff" in a stack, else "0xaddr".  Under
 * -x noresolve a stack's frames (and %a, %A) are "0xaddr".
 *
 * The names are /proc/kallsyms's, read once, on the first kernel
 * address named: the core kernel's symbols are module "vmlinux" (as
 * dtrace-utils names it: illumos's "genunix" has no Linux equal), a
 * loadable module's carry its name ("[ext4]").  kallsyms gives no sizes:
 * a function runs to the next symbol.  Where kallsyms hides addresses
 * (kptr_restrict, a consumer without CAP_SYSLOG) every address reads 0,
 * nothing is named, and addresses print as numbers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

typedef struct dt_ksym {
	uint64_t	ks_addr;
	char		*ks_name;
	size_t		ks_mod;		/* its module: kt_mods[ks_mod] */
} dt_ksym_t;

typedef struct dt_ksym_mod {
	char		*km_name;
	uint64_t	km_first;	/* its lowest symbol's address */
} dt_ksym_mod_t;

typedef struct dt_ksym_tab {
	dt_ksym_t	*kt_syms;	/* by address */
	size_t		kt_nsyms;
	dt_ksym_mod_t	*kt_mods;	/* each module once */
	size_t		kt_nmods;
} dt_ksym_tab_t;

/* Overridden by the tests: a kallsyms-format file to read instead. */
static const char *
dt_ksym_path(void)
{
	const char *p = getenv("_DTRACE_KALLSYMS");

	return p != NULL && p[0] != '\0' ? p : "/proc/kallsyms";
}

static int
dt_ksym_cmp(const void *a, const void *b)
{
	const dt_ksym_t *x = a, *y = b;

	if (x->ks_addr != y->ks_addr)
		return x->ks_addr < y->ks_addr ? -1 : 1;
	/* aliases at one address: the first listed stays first */
	return x < y ? -1 : x > y;
}

/* The index of module name (added if new), or -1. */
static long
dt_ksym_modname(dt_ksym_tab_t *t, const char *name, uint64_t addr)
{
	dt_ksym_mod_t *v;
	size_t i;

	for (i = t->kt_nmods; i > 0; i--) {
		if (strcmp(t->kt_mods[i - 1].km_name, name) == 0) {
			if (addr < t->kt_mods[i - 1].km_first)
				t->kt_mods[i - 1].km_first = addr;
			return (long)i - 1;
		}
	}
	if ((v = realloc(t->kt_mods, (t->kt_nmods + 1) * sizeof(*v))) ==
	    NULL)
		return -1;
	t->kt_mods = v;
	if ((v[t->kt_nmods].km_name = strdup(name)) == NULL)
		return -1;
	v[t->kt_nmods].km_first = addr;
	return (long)t->kt_nmods++;
}

/* Text symbols only: a PC is in code, and data symbols would split it. */
static dt_ksym_tab_t *
dt_ksym_load(void)
{
	dt_ksym_tab_t *t;
	FILE *fp;
	char line[1024], name[512], mod[256], type;
	unsigned long long addr;
	size_t cap = 0;
	dt_ksym_t *v;
	long m;
	int n;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	if ((fp = fopen(dt_ksym_path(), "r")) == NULL)
		return t;
	while (fgets(line, sizeof(line), fp) != NULL) {
		mod[0] = '\0';
		n = sscanf(line, "%llx %c %511s [%255[^]]]", &addr, &type,
		    name, mod);
		if (n < 3 || addr == 0)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (t->kt_nsyms == cap) {
			cap = cap == 0 ? 4096 : cap * 2;
			if ((v = realloc(t->kt_syms, cap * sizeof(*v))) ==
			    NULL)
				break;
			t->kt_syms = v;
		}
		v = &t->kt_syms[t->kt_nsyms];
		v->ks_addr = addr;
		if ((m = dt_ksym_modname(t, mod[0] != '\0' ? mod : "vmlinux",
		    addr)) == -1 || (v->ks_name = strdup(name)) == NULL)
			break;
		v->ks_mod = (size_t)m;
		t->kt_nsyms++;
	}
	fclose(fp);
	if (t->kt_nsyms > 0)
		qsort(t->kt_syms, t->kt_nsyms, sizeof(*t->kt_syms),
		    dt_ksym_cmp);
	return t;
}

/* The symbol holding addr (the last at or below it), or NULL. */
static const dt_ksym_t *
dt_ksym_lookup(dtrace_hdl_t *dtp, uint64_t addr)
{
	dt_ksym_tab_t *t;
	size_t lo = 0, hi, mid;

	if (dtp->dt_ksyms == NULL && (dtp->dt_ksyms = dt_ksym_load()) == NULL)
		return NULL;
	t = dtp->dt_ksyms;
	hi = t->kt_nsyms;
	if (hi == 0 || addr < t->kt_syms[0].ks_addr)
		return NULL;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (t->kt_syms[mid].ks_addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the first name listed at that address */
	while (lo > 0 && t->kt_syms[lo - 1].ks_addr == t->kt_syms[lo].ks_addr)
		lo--;
	return &t->kt_syms[lo];
}

/*
 * Name kernel address addr into buf: DT_USYM_FUNC "mod`func" (sym(),
 * func()), DT_USYM_MOD "mod" (mod()), DT_USYM_ADDR "mod`func+0xoff".
 */
void
dt_ksym_name(dtrace_hdl_t *dtp, uint64_t addr, int how, char *buf,
    size_t len)
{
	const dt_ksym_t *s;
	const char *mod;

	if (how != DT_USYM_MOD &&
	    dtp->dt_options[DTRACEOPT_NORESOLVE] != DTRACEOPT_UNSET)
		s = NULL;
	else
		s = dt_ksym_lookup(dtp, addr);
	if (s == NULL) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return;
	}
	mod = ((dt_ksym_tab_t *)dtp->dt_ksyms)->kt_mods[s->ks_mod].km_name;
	if (how == DT_USYM_MOD)
		snprintf(buf, len, "%s", mod);
	else if (how == DT_USYM_ADDR && addr > s->ks_addr)
		snprintf(buf, len, "%s`%s+0x%" PRIx64, mod, s->ks_name,
		    addr - s->ks_addr);
	else
		snprintf(buf, len, "%s`%s", mod, s->ks_name);
}

/*
 * Where the function (DT_USYM_FUNC) or module (DT_USYM_MOD: its first
 * symbol) holding addr starts, so that keys aggregate by them; addr
 * itself if it is in none.
 */
uint64_t
dt_ksym_start(dtrace_hdl_t *dtp, uint64_t addr, int how)
{
	const dt_ksym_t *s;
	const dt_ksym_tab_t *t;

	/* noresolve names each address alone: keys stay apart */
	if (how != DT_USYM_MOD &&
	    dtp->dt_options[DTRACEOPT_NORESOLVE] != DTRACEOPT_UNSET)
		return addr;
	if ((s = dt_ksym_lookup(dtp, addr)) == NULL)
		return addr;
	t = dtp->dt_ksyms;
	if (how == DT_USYM_MOD)
		return t->kt_mods[s->ks_mod].km_first;
	return s->ks_addr;
}

void
dt_ksym_fini(dtrace_hdl_t *dtp)
{
	dt_ksym_tab_t *t = dtp->dt_ksyms;
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->kt_nsyms; i++)
		free(t->kt_syms[i].ks_name);
	for (i = 0; i < t->kt_nmods; i++)
		free(t->kt_mods[i].km_name);
	free(t->kt_syms);
	free(t->kt_mods);
	free(t);
	dtp->dt_ksyms = NULL;
}
