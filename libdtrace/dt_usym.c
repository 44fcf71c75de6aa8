/*
 * dt_usym.c: naming user addresses, for ustack(), usym(), ufunc(),
 * umod(), uaddr() and printf's %a and %A, in illumos's words:
 * "module`function+0xoffset", "module`function", "module`0xaddress" or
 * "0xaddress"; the module is the basename of the object's file (the
 * executable's own name, libc.so.6, ...).
 *
 * The daemon sends each target's module map (DT_MSG_MODMAP: file, where
 * it is mapped, its load bias) when it grabs it and whenever the map
 * changes; symbols are read from the files with libdwfl (.symtab, else
 * the local debug file named by the build-id under /usr/lib/debug, as
 * Debian's -dbg packages install them, else .dynsym; never debuginfod),
 * so they stay available after the target exits.  A map that replaces
 * another keeps the modules of the old one that nothing new overlaps:
 * records taken before a dlclose() or exec can still be named.  A
 * process we have no map for (a child of a target) is looked up in
 * /proc while it lives.  printa()'s %k and the usym()/umod() keys that
 * aggregate by function or module (dt_usym_start) use the same names.
 *
 * A function an IFUNC chose (glibc's strlen: __strlen_avx2, which no
 * symbol of a stripped libc names) comes with the map, as the daemon
 * resolved it (fasttrap/ft_elf.c), and goes by the IFUNC's name, as its
 * probes do.
 *
 * Several names for one function (malloc and __libc_malloc, free and
 * glibc's compat cfree@GLIBC_2.2.5, foo and foo.localalias) give the one
 * the daemon's fasttrap/ft_elf.c lists it under, by the same rule
 * (dt_usym_alias_cmp here, ft_sym_cmp there: the consumer does not
 * include fasttrap, and tests/unit/test_dt_usym checks that the two
 * order every kind of name alike), so that -l, probefunc and ufunc()
 * agree.  Each module's table of them (dt_usym_alias_t, in the module's
 * libdwfl userdata) is made on first use.
 *
 * dtrace -lv: the C types of a function's parameters, from the DWARF in
 * the module's file where there is some (dt_usym_argtypes).
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"

#define DT_USYM_DEBUGDIR	"/usr/lib/debug"

/* A function an IFUNC chose, as the daemon names it (DT_MSG_MODMAP). */
typedef struct dt_usym_ifunc {
	uint64_t	ui_addr;	/* where it runs */
	uint64_t	ui_size;
	char		*ui_name;
} dt_usym_ifunc_t;

typedef struct dt_usym_mod {
	uint64_t	um_lo;
	uint64_t	um_hi;
	uint64_t	um_bias;
	uint32_t	um_flags;	/* DT_MODMAP_* */
	char		*um_path;
	char		*um_name;	/* in stacks: the executable's as run */
	dt_usym_ifunc_t	*um_ifuncs;	/* by address */
	uint32_t	um_nifuncs;
	/* -lv: its functions' DIEs by name, made on first use */
	struct dt_usym_fnent *um_fns;
	size_t		um_nfns;
	int		um_indexed;
} dt_usym_mod_t;

typedef struct dt_usym_fnent {
	char		*fe_name;
	Dwarf_Off	fe_off;
} dt_usym_fnent_t;

typedef struct dt_usym_aliases {
	dt_usym_alias_t	*ua_tab;
	size_t		ua_n;
} dt_usym_aliases_t;

struct dt_usym_proc {
	pid_t			up_pid;
	dt_usym_mod_t		*up_mods;
	uint32_t		up_nmods;
	int			up_hasmap;	/* a DT_MSG_MODMAP came */
	Dwfl			*up_dwfl;	/* built on first use */
	int			up_built;
	struct dt_usym_proc	*up_next;
};

/*
 * A module's separate debug file: /usr/lib/debug/.build-id/xx/yyyy.debug
 * on this machine, or none.  Never the network (debuginfod).
 */
static int
dt_usym_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file, const char *debuglink,
    GElf_Word crc, char **debugfile)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	char path[PATH_MAX];
	int n, i, off, fd;

	(void)userdata; (void)modname; (void)base; (void)file;
	(void)debuglink; (void)crc;
	if ((n = dwfl_module_build_id(mod, &id, &vaddr)) < 2 || n > 64)
		return -1;
	off = snprintf(path, sizeof(path), "%s/.build-id/%02x/",
	    DT_USYM_DEBUGDIR, id[0]);
	for (i = 1; i < n; i++)
		off += snprintf(path + off, sizeof(path) - off, "%02x", id[i]);
	snprintf(path + off, sizeof(path) - off, ".debug");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if ((*debugfile = strdup(path)) == NULL) {
		close(fd);
		return -1;
	}
	return fd;
}

static char *dt_usym_debugpath = NULL;

static const Dwfl_Callbacks dt_usym_mapcb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dt_usym_debuginfo,
	.debuginfo_path = &dt_usym_debugpath,
};

static const Dwfl_Callbacks dt_usym_livecb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dt_usym_debuginfo,
	.debuginfo_path = &dt_usym_debugpath,
};

static int
dt_usym_alias_free(Dwfl_Module *mod, void **userdata, const char *name,
    Dwarf_Addr start, void *arg)
{
	dt_usym_aliases_t *ua = *userdata;

	(void)mod; (void)name; (void)start; (void)arg;
	if (ua != NULL) {
		free(ua->ua_tab);
		free(ua);
		*userdata = NULL;
	}
	return DWARF_CB_OK;
}

/* dwfl_end, with the alias tables kept in its modules */
static void
dt_usym_dwfl_end(Dwfl *d)
{
	if (d == NULL)
		return;
	(void)dwfl_getmodules(d, dt_usym_alias_free, NULL, 0);
	dwfl_end(d);
}

static void
dt_usym_mod_clear(dt_usym_mod_t *m)
{
	size_t i;

	for (i = 0; i < m->um_nfns; i++)
		free(m->um_fns[i].fe_name);
	free(m->um_fns);
	m->um_fns = NULL;
	m->um_nfns = 0;
	m->um_indexed = 0;
	free(m->um_path);
	m->um_path = NULL;
	free(m->um_name);
	m->um_name = NULL;
	for (i = 0; i < m->um_nifuncs; i++)
		free(m->um_ifuncs[i].ui_name);
	free(m->um_ifuncs);
	m->um_ifuncs = NULL;
	m->um_nifuncs = 0;
}

static void
dt_usym_mods_free(dt_usym_mod_t *m, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		dt_usym_mod_clear(&m[i]);
	free(m);
}

static struct dt_usym_proc *
dt_usym_proc(dtrace_hdl_t *dtp, pid_t pid, int create)
{
	struct dt_usym_proc *up;

	for (up = dtp->dt_usyms; up != NULL; up = up->up_next) {
		if (up->up_pid == pid)
			return up;
	}
	if (!create || (up = calloc(1, sizeof(*up))) == NULL)
		return NULL;
	up->up_pid = pid;
	up->up_next = dtp->dt_usyms;
	dtp->dt_usyms = up;
	return up;
}

static int
dt_usym_ifunc_cmp(const void *a, const void *b)
{
	const dt_usym_ifunc_t *x = a, *y = b;

	return x->ui_addr < y->ui_addr ? -1 : x->ui_addr > y->ui_addr;
}

/* A module's IFUNCs in DT_MSG_MODMAP: 0, or -1 if they are malformed. */
static int
dt_usym_modmap_ifuncs(dt_msg_t *m, dt_usym_mod_t *um)
{
	uint32_t n = dt_msg_get_u32(m), i;
	dt_usym_ifunc_t *ui;

	/* each takes at least 20 bytes: n is bounded by the message */
	if (m->dm_err || n > (m->dm_len - m->dm_off) / 20)
		return -1;
	if (n == 0)
		return 0;
	if ((um->um_ifuncs = calloc(n, sizeof(*um->um_ifuncs))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		ui = &um->um_ifuncs[i];
		ui->ui_addr = dt_msg_get_u64(m);
		ui->ui_size = dt_msg_get_u64(m);
		ui->ui_name = dt_msg_get_strdup(m, 4096);
		if (ui->ui_name == NULL)
			return -1;
		um->um_nifuncs++;
	}
	qsort(um->um_ifuncs, n, sizeof(*um->um_ifuncs), dt_usym_ifunc_cmp);
	return 0;
}

/* DT_MSG_MODMAP: the objects mapped in a target. */
void
dt_usym_modmap(dtrace_hdl_t *dtp, dt_msg_t *m)
{
	pid_t pid = (pid_t)dt_msg_get_u32(m);
	uint32_t n = dt_msg_get_u32(m), i, j, nn = 0;
	struct dt_usym_proc *up;
	dt_usym_mod_t *nm;

	/* each module takes at least 40 bytes: n is bounded by the message */
	if (m->dm_err || n > (m->dm_len - m->dm_off) / 40 ||
	    (nm = calloc((size_t)n + 1, sizeof(*nm))) == NULL)
		return;
	for (i = 0; i < n; i++) {
		nm[i].um_lo = dt_msg_get_u64(m);
		nm[i].um_hi = dt_msg_get_u64(m);
		nm[i].um_bias = dt_msg_get_u64(m);
		nm[i].um_flags = dt_msg_get_u32(m);
		nm[i].um_path = dt_msg_get_strdup(m, 4096);
		nm[i].um_name = dt_msg_get_strdup(m, 4096);
		if (nm[i].um_path == NULL || nm[i].um_name == NULL ||
		    nm[i].um_lo >= nm[i].um_hi ||
		    dt_usym_modmap_ifuncs(m, &nm[i]) == -1)
			break;
		nn++;
	}
	if (i < n || !dt_msg_done(m) ||
	    (up = dt_usym_proc(dtp, pid, 1)) == NULL) {
		dt_usym_mods_free(nm, i + (i < n));
		return;
	}
	/* keep the old modules that no new one overlaps */
	for (j = 0; j < up->up_nmods; j++) {
		dt_usym_mod_t *o = &up->up_mods[j], *grown;

		for (i = 0; i < n; i++) {
			if (o->um_lo < nm[i].um_hi && nm[i].um_lo < o->um_hi)
				break;
		}
		if (i < n) {
			dt_usym_mod_clear(o);
			continue;
		}
		if ((grown = realloc(nm, (nn + 1) * sizeof(*nm))) == NULL) {
			dt_usym_mod_clear(o);
			continue;
		}
		nm = grown;
		nm[nn++] = *o;
	}
	free(up->up_mods);
	up->up_mods = nm;
	up->up_nmods = nn;
	up->up_hasmap = 1;
	dt_usym_dwfl_end(up->up_dwfl);
	up->up_dwfl = NULL;
	up->up_built = 0;
}

static const char *
dt_usym_basename(const char *path)
{
	const char *p = strrchr(path, '/');

	return p != NULL ? p + 1 : path;
}

/* The Dwfl of pid: from its map, else from /proc while it lives. */
static Dwfl *
dt_usym_dwfl(dtrace_hdl_t *dtp, pid_t pid)
{
	struct dt_usym_proc *up;
	Dwfl *d;
	uint32_t i;

	if ((up = dt_usym_proc(dtp, pid, 1)) == NULL)
		return NULL;
	if (up->up_built)
		return up->up_dwfl;
	up->up_built = 1;
	if (up->up_hasmap) {
		if ((d = dwfl_begin(&dt_usym_mapcb)) == NULL)
			return NULL;
		dwfl_report_begin(d);
		for (i = 0; i < up->up_nmods; i++) {
			const dt_usym_mod_t *um = &up->up_mods[i];

			/* a file that is gone or changed is left out */
			(void)dwfl_report_elf(d, um->um_name, um->um_path,
			    -1, um->um_bias, true);
		}
	} else {
		if (pid <= 0 || (d = dwfl_begin(&dt_usym_livecb)) == NULL)
			return NULL;
		dwfl_report_begin(d);
		if (dwfl_linux_proc_report(d, pid) != 0) {
			dwfl_end(d);
			return NULL;
		}
	}
	if (dwfl_report_end(d, NULL, NULL) != 0) {
		dwfl_end(d);
		return NULL;
	}
	up->up_dwfl = d;
	return d;
}

/*
 * By address, and at one address the preferred name first: the name a
 * function with several goes by, as illumos picks it (global or weak
 * over local, fewer leading underscores, the smaller size), and two
 * rules of ours (a default symbol version over a hidden compat one, a
 * plain name over one with a compiler-made suffix such as
 * `.localalias').  The daemon names probes by the same rule
 * (fasttrap's ft_sym_cmp); test_dt_usym holds the two to it.
 */
int
dt_usym_alias_cmp(const void *a, const void *b)
{
	const dt_usym_alias_t *x = a, *y = b;
	const char *xn = x->al_name, *yn = y->al_name;
	int xd, yd;

	if (x->al_addr != y->al_addr)
		return x->al_addr < y->al_addr ? -1 : 1;
	if ((x->al_bind == STB_LOCAL) != (y->al_bind == STB_LOCAL))
		return x->al_bind == STB_LOCAL ? 1 : -1;
	if (x->al_hidden != y->al_hidden)
		return x->al_hidden ? 1 : -1;
	if ((xn[0] == '$') != (yn[0] == '$'))
		return xn[0] == '$' ? 1 : -1;
	while (*xn == '_' && *yn == '_') {
		xn++;
		yn++;
	}
	if ((*xn == '_') != (*yn == '_'))
		return *xn == '_' ? 1 : -1;
	xd = strchr(x->al_name, '.') != NULL;
	yd = strchr(y->al_name, '.') != NULL;
	if (xd != yd)
		return xd ? 1 : -1;
	if (x->al_size != y->al_size)
		return x->al_size < y->al_size ? -1 : 1;
	return strcmp(x->al_name, y->al_name);
}

/*
 * The GNU version table of the symbols libdwfl indexes in elf: only when
 * they are its .dynsym (no .symtab), all n of them, where libdwfl's
 * index is the table's.
 */
static Elf_Data *
dt_usym_versym(Elf *elf, int n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *v = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return NULL;
		if (sh.sh_type == SHT_GNU_versym)
			v = elf_getdata(scn, NULL);
	}
	if (v != NULL && v->d_size / sizeof(GElf_Versym) != (size_t)n)
		return NULL;
	return v;
}

/* mod's function names by address, the preferred one of each; or NULL */
static dt_usym_aliases_t *
dt_usym_aliases(Dwfl_Module *mod)
{
	dt_usym_aliases_t *ua;
	void **udp = NULL;
	Elf *elf, *velf = NULL;
	Elf_Data *ver = NULL;
	GElf_Versym vs;
	GElf_Addr a;
	GElf_Word shndx;
	GElf_Sym sym;
	const char *name, *at;
	int i, n;
	size_t j, k;

	if (dwfl_module_info(mod, &udp, NULL, NULL, NULL, NULL, NULL,
	    NULL) == NULL || udp == NULL)
		return NULL;
	if (*udp != NULL)
		return *udp;
	if ((ua = calloc(1, sizeof(*ua))) == NULL)
		return NULL;
	if ((n = dwfl_module_getsymtab(mod)) > 0 &&
	    (ua->ua_tab = calloc((size_t)n, sizeof(*ua->ua_tab))) == NULL) {
		free(ua);
		return NULL;
	}
	for (i = 1; i < n; i++) {
		dt_usym_alias_t *e = &ua->ua_tab[ua->ua_n];

		elf = NULL;
		name = dwfl_module_getsym_info(mod, i, &sym, &a, &shndx, &elf,
		    NULL);
		if (name == NULL || name[0] == '\0' ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    shndx == SHN_UNDEF || a == 0)
			continue;
		if (elf != NULL && elf != velf) {
			velf = elf;
			ver = dt_usym_versym(elf, n);
		}
		e->al_addr = a;
		e->al_size = sym.st_size;
		e->al_name = name;
		e->al_bind = GELF_ST_BIND(sym.st_info);
		e->al_hidden = (ver != NULL && gelf_getversym(ver, i, &vs) !=
		    NULL && (vs & 0x8000) != 0) ||
		    ((at = strchr(name, '@')) != NULL && at[1] != '@');
		ua->ua_n++;
	}
	qsort(ua->ua_tab, ua->ua_n, sizeof(*ua->ua_tab), dt_usym_alias_cmp);
	for (j = 0, k = 0; j < ua->ua_n; j++)
		if (k == 0 || ua->ua_tab[k - 1].al_addr != ua->ua_tab[j].al_addr)
			ua->ua_tab[k++] = ua->ua_tab[j];
	ua->ua_n = k;
	*udp = ua;
	return ua;
}

/* The preferred name of the function that starts at addr in mod, or NULL */
static const char *
dt_usym_alias(Dwfl_Module *mod, uint64_t addr)
{
	dt_usym_aliases_t *ua = dt_usym_aliases(mod);
	size_t lo = 0, hi, mid;

	if (ua == NULL)
		return NULL;
	hi = ua->ua_n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ua->ua_tab[mid].al_addr == addr)
			return ua->ua_tab[mid].al_name;
		if (ua->ua_tab[mid].al_addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The function an IFUNC chose that holds addr in pid, as the daemon
 * named it, and its module (*ump); or NULL.
 */
static const dt_usym_ifunc_t *
dt_usym_ifunc(dtrace_hdl_t *dtp, pid_t pid, uint64_t addr,
    const dt_usym_mod_t **ump)
{
	struct dt_usym_proc *up = dt_usym_proc(dtp, pid, 0);
	const dt_usym_mod_t *um;
	const dt_usym_ifunc_t *ui;
	uint32_t i, lo, hi, mid;

	for (i = 0; up != NULL && i < up->up_nmods; i++) {
		um = &up->up_mods[i];
		if (um->um_nifuncs == 0 || addr < um->um_lo ||
		    addr >= um->um_hi)
			continue;
		/* the last that starts at or before addr */
		for (lo = 0, hi = um->um_nifuncs; lo < hi; ) {
			mid = lo + (hi - lo) / 2;
			if (um->um_ifuncs[mid].ui_addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			continue;
		ui = &um->um_ifuncs[lo - 1];
		if (addr - ui->ui_addr < ui->ui_size) {
			*ump = um;
			return ui;
		}
	}
	return NULL;
}

/*
 * -x noresolve (dtrace-utils'): no symbol, "mod:0xoff", where off is the
 * address in the module's file (as addr2line -e reads it); "0xaddr" in
 * no module.
 */
static void
dt_usym_noresolve(Dwfl *d, uint64_t addr, char *buf, size_t len)
{
	Dwfl_Module *mod;
	const char *file = NULL, *mname;
	Dwarf_Addr bias = 0;

	if (d == NULL || (mod = dwfl_addrmodule(d, addr)) == NULL ||
	    (mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL,
	    &file, NULL)) == NULL) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return;
	}
	mname = dt_usym_basename(file != NULL ? file : mname);
	if (dwfl_module_getelf(mod, &bias) == NULL)
		bias = 0;
	snprintf(buf, len, "%s:0x%" PRIx64, mname, addr - (uint64_t)bias);
}

/*
 * C++ names as the program's source spells them (ns::K::f(int), not
 * _ZN2ns1K1fEi), by the C++ runtime's own demangler, the C++ ABI's
 * __cxa_demangle, from the libstdc++ every C++ program on the system
 * runs with (looked up once, when the first such name is printed; a
 * system without it prints names as the symbol table has them).
 */
typedef char	*(*dt_usym_demangler_t)(const char *, char *, size_t *,
		    int *);

static dt_usym_demangler_t
dt_usym_demangler(void)
{
	static dt_usym_demangler_t fn;
	static int looked;
	void *h;

	if (!looked) {
		looked = 1;
		if ((h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)) !=
		    NULL)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

/*
 * The first len bytes of symbol name s as printed: a mangled C++ name
 * demangled into buf (size bytes; NULL where it is none, or too long);
 * else NULL.
 */
static const char *
dt_usym_demangle(const char *s, int len, char *buf, size_t size)
{
	dt_usym_demangler_t fn;
	char mangled[1024], *d;
	size_t n;
	int st;

	if (len < 3 || strncmp(s, "_Z", 2) != 0 ||
	    (size_t)len >= sizeof(mangled) || (fn = dt_usym_demangler()) ==
	    NULL)
		return NULL;
	memcpy(mangled, s, (size_t)len);
	mangled[len] = '\0';
	if ((d = fn(mangled, NULL, &n, &st)) == NULL || st != 0)
		return NULL;
	n = strlen(d);
	if (n >= size) {
		free(d);
		return NULL;
	}
	memcpy(buf, d, n + 1);
	free(d);
	return buf;
}

/*
 * Name addr in process pid, as illumos does, into buf: with DT_USYM_ADDR
 * "mod`func+0xoff" (ustack(), uaddr(), %A), with DT_USYM_FUNC
 * "mod`func" (usym(), ufunc()), with DT_USYM_MOD "mod" (umod()); an
 * address in no symbol is "mod`0xaddr", in no module "0xaddr".
 */
void
dt_usym_name(dtrace_hdl_t *dtp, pid_t pid, uint64_t addr, int how,
    char *buf, size_t len)
{
	Dwfl *d = dt_usym_dwfl(dtp, pid);
	Dwfl_Module *mod = NULL;
	const char *mname = NULL, *sname = NULL, *file = NULL, *at, *alias;
	const char *dm;
	const dt_usym_ifunc_t *ui;
	const dt_usym_mod_t *um;
	char dbuf[1024];
	GElf_Off off = 0;
	GElf_Sym sym;
	int slen = 0;

	if (how & DT_USYM_KERNEL) {
		dt_ksym_name(dtp, addr, how & ~DT_USYM_KERNEL, buf, len);
		return;
	}
	if (how != DT_USYM_MOD &&
	    dtp->dt_options[DTRACEOPT_NORESOLVE] != DTRACEOPT_UNSET) {
		dt_usym_noresolve(d, addr, buf, len);
		return;
	}
	if (d != NULL && (mod = dwfl_addrmodule(d, addr)) != NULL) {
		mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL,
		    &file, NULL);
		/* the map's names; /proc's are paths */
		if (mname != NULL)
			mname = dt_usym_basename(mname);
		else if (file != NULL)
			mname = dt_usym_basename(file);
		if (how != DT_USYM_MOD &&
		    (sname = dwfl_module_addrinfo(mod, addr, &off, &sym,
		    NULL, NULL, NULL)) != NULL &&
		    (alias = dt_usym_alias(mod, addr - off)) != NULL)
			sname = alias;
	}
	/*
	 * A function an IFUNC chose goes by the IFUNC's name, as its probes
	 * do (strlen, not __strlen_avx2, which only a debug file names)
	 */
	if (how != DT_USYM_MOD &&
	    (ui = dt_usym_ifunc(dtp, pid, addr, &um)) != NULL) {
		sname = ui->ui_name;
		off = addr - ui->ui_addr;
		if (mname == NULL)
			mname = dt_usym_basename(um->um_name);
	}
	/* a debug file's .symtab may spell the version: foo@@GLIBC_2.34 */
	if (sname != NULL) {
		slen = (int)strlen(sname);
		if ((at = strchr(sname, '@')) != NULL && at > sname)
			slen = (int)(at - sname);
		if ((dm = dt_usym_demangle(sname, slen, dbuf,
		    sizeof(dbuf))) != NULL) {
			sname = dm;
			slen = (int)strlen(dm);
		}
	}
	if (how == DT_USYM_MOD) {
		if (mname != NULL)
			snprintf(buf, len, "%s", mname);
		else
			snprintf(buf, len, "0x%" PRIx64, addr);
	} else if (sname != NULL && sname[0] != '\0') {
		if (how == DT_USYM_ADDR && off > 0)
			snprintf(buf, len, "%s`%.*s+0x%" PRIx64, mname, slen,
			    sname, (uint64_t)off);
		else
			snprintf(buf, len, "%s`%.*s", mname, slen, sname);
	} else if (mname != NULL) {
		snprintf(buf, len, "%s`0x%" PRIx64, mname, addr);
	} else {
		snprintf(buf, len, "0x%" PRIx64, addr);
	}
}

/*
 * Where the function (DT_USYM_FUNC) or module (DT_USYM_MOD) holding addr
 * starts; addr itself if it is in none.
 */
uint64_t
dt_usym_start(dtrace_hdl_t *dtp, pid_t pid, uint64_t addr, int how)
{
	const dt_usym_ifunc_t *ui;
	const dt_usym_mod_t *um;
	Dwfl *d;
	Dwfl_Module *mod;
	Dwarf_Addr start;
	GElf_Off off = 0;
	GElf_Sym sym;

	if (how & DT_USYM_KERNEL)
		return dt_ksym_start(dtp, addr, how & ~DT_USYM_KERNEL);
	/* noresolve names each address alone: keys stay apart */
	if (how != DT_USYM_MOD &&
	    dtp->dt_options[DTRACEOPT_NORESOLVE] != DTRACEOPT_UNSET)
		return addr;
	if (how != DT_USYM_MOD &&
	    (ui = dt_usym_ifunc(dtp, pid, addr, &um)) != NULL)
		return ui->ui_addr;
	d = dt_usym_dwfl(dtp, pid);
	if (d == NULL || (mod = dwfl_addrmodule(d, addr)) == NULL)
		return addr;
	if (how == DT_USYM_MOD) {
		if (dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL,
		    NULL) == NULL)
			return addr;
		return start;
	}
	if (dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL,
	    NULL) == NULL)
		return addr;
	return addr - off;
}

/*
 * How a record of action act (DTRACEACT_*) or a key of kind (DTP_KEY_*)
 * names its address: DT_USYM_*, with DT_USYM_KERNEL for sym(), func()
 * and mod(); -1 for any other.
 */
int
dt_usym_acthow(uint32_t act)
{
	switch (act) {
	case DTRACEACT_USYM:
		return DT_USYM_FUNC;
	case DTRACEACT_UMOD:
		return DT_USYM_MOD;
	case DTRACEACT_UADDR:
		return DT_USYM_ADDR;
	case DTRACEACT_SYM:
		return DT_USYM_FUNC | DT_USYM_KERNEL;
	case DTRACEACT_MOD:
		return DT_USYM_MOD | DT_USYM_KERNEL;
	default:
		return -1;
	}
}

int
dt_usym_keyhow(uint32_t kind)
{
	switch (kind) {
	case DTP_KEY_USYM:
		return DT_USYM_FUNC;
	case DTP_KEY_UMOD:
		return DT_USYM_MOD;
	case DTP_KEY_UADDR:
		return DT_USYM_ADDR;
	case DTP_KEY_SYM:
		return DT_USYM_FUNC | DT_USYM_KERNEL;
	case DTP_KEY_MOD:
		return DT_USYM_MOD | DT_USYM_KERNEL;
	default:
		return -1;
	}
}

/*
 * The name of frame i of a stack record, in buf; 0 past the last frame,
 * else 1.  A ustack() record is the pid, then the frames' pcs, 0 after
 * the last; a stack() record (how DT_USYM_KERNEL) the kernel pcs alone.
 */
static int
dt_usym_frame(dtrace_hdl_t *dtp, const char *data, uint32_t i, int how,
    char *buf, size_t size)
{
	size_t pcs = how & DT_USYM_KERNEL ? 0 : 8;
	uint64_t pid, pc;

	memcpy(&pc, data + pcs + 8 * (size_t)i, sizeof(pc));
	if (pc == 0)
		return 0;
	if (how & DT_USYM_KERNEL) {
		dt_ksym_name(dtp, pc, DT_USYM_ADDR, buf, size);
		return 1;
	}
	memcpy(&pid, data, sizeof(pid));
	dt_usym_name(dtp, (pid_t)pid, pc, DT_USYM_ADDR, buf, size);
	return 1;
}

/*
 * A ustack() record of nframes pcs, or a stack() record (how
 * DT_USYM_KERNEL), as illumos prints one: a newline, then one frame a
 * line, each indented by the stackindent option.  A stack() with no
 * frame (no kernel context at the hit) is the newline alone.
 */
int
dt_usym_print_stack(dtrace_hdl_t *dtp, FILE *fp, const char *data,
    uint32_t nframes, int how)
{
	dtrace_optval_t ind = dtp->dt_options[DTRACEOPT_STACKINDENT];
	char name[1024];
	uint32_t i;

	if (nframes == 0)
		return 0;
	if (ind == DTRACEOPT_UNSET || ind < 0 || ind > 1024)
		ind = 14;
	if (fprintf(fp, "\n") < 0)
		return -1;
	for (i = 0; i < nframes && dt_usym_frame(dtp, data, i, how, name,
	    sizeof(name)); i++)
		if (fprintf(fp, "%*s%s\n", (int)ind, "", name) < 0)
			return -1;
	return 0;
}

/*
 * The name of a usym(), umod() or uaddr() record or key (u64 pid, u64
 * address), as how (DT_USYM_*) says.
 */
void
dt_usym_recname(dtrace_hdl_t *dtp, const char *data, int how, char *buf,
    size_t size)
{
	uint64_t pid, pc;

	memcpy(&pid, data, sizeof(pid));
	memcpy(&pc, data + 8, sizeof(pc));
	dt_usym_name(dtp, (pid_t)pid, pc, how, buf, size);
}

/* A usym(), umod() or uaddr() record: "  %-50s". */
int
dt_usym_print_sym(dtrace_hdl_t *dtp, FILE *fp, const char *data, int how)
{
	char name[1024];

	dt_usym_recname(dtp, data, how, name, sizeof(name));
	return fprintf(fp, "  %-50s", name) < 0 ? -1 : 0;
}

/* oformat=json: a stack (how as above) as an array of frame names. */
void
dt_usym_json_stack(dtrace_hdl_t *dtp, dt_json_t *j, const char *data,
    uint32_t nframes, int how)
{
	char name[1024];
	uint32_t i;

	dt_json_array_begin(j);
	for (i = 0; i < nframes && dt_usym_frame(dtp, data, i, how, name,
	    sizeof(name)); i++)
		dt_json_string(j, name, sizeof(name));
	dt_json_array_end(j);
}

/* snprintf, for names that may be cut short at len */
static void
dt_usym_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* The C spelling of a DWARF type (NULL: void), shortened as C would. */
static void
dt_usym_typename(Dwarf_Die *die, char *buf, size_t len, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die inner, *ip = NULL;
	const char *name, *tag = NULL;
	char sub[256];

	if (len == 0)
		return;
	if (die == NULL || depth > 16) {
		dt_usym_fmt(buf, len, "%s", die == NULL ? "void" : "...");
		return;
	}
	if (dwarf_attr_integrate(die, DW_AT_type, &a) != NULL &&
	    dwarf_formref_die(&a, &inner) != NULL)
		ip = &inner;
	name = dwarf_diename(die);
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		dt_usym_fmt(buf, len, "%s", name != NULL ? name : "?");
		return;
	case DW_TAG_structure_type:
		tag = "struct";
		break;
	case DW_TAG_union_type:
		tag = "union";
		break;
	case DW_TAG_enumeration_type:
		tag = "enum";
		break;
	case DW_TAG_class_type:
		tag = "class";
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		if (ip != NULL && dwarf_tag(ip) == DW_TAG_subroutine_type) {
			Dwarf_Attribute ra;
			Dwarf_Die ret, *rp = NULL;

			if (dwarf_attr_integrate(ip, DW_AT_type, &ra) != NULL &&
			    dwarf_formref_die(&ra, &ret) != NULL)
				rp = &ret;
			dt_usym_typename(rp, sub, sizeof(sub), depth + 1);
			dt_usym_fmt(buf, len, "%s (*)()", sub);
			return;
		}
		dt_usym_typename(ip, sub, sizeof(sub), depth + 1);
		dt_usym_fmt(buf, len, "%s%s*", sub,
		    sub[0] != '\0' && sub[strlen(sub) - 1] == '*' ? "" : " ");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: {
		const char *q = dwarf_tag(die) == DW_TAG_const_type ? "const" :
		    dwarf_tag(die) == DW_TAG_volatile_type ? "volatile" :
		    "restrict";

		dt_usym_typename(ip, sub, sizeof(sub), depth + 1);
		if (sub[0] != '\0' && sub[strlen(sub) - 1] == '*')
			dt_usym_fmt(buf, len, "%s%s", sub, q);
		else
			dt_usym_fmt(buf, len, "%s %s", q, sub);
		return;
	}
	case DW_TAG_array_type:
		dt_usym_typename(ip, sub, sizeof(sub), depth + 1);
		dt_usym_fmt(buf, len, "%s []", sub);
		return;
	default:
		dt_usym_fmt(buf, len, "%s", name != NULL ? name : "?");
		return;
	}
	dt_usym_fmt(buf, len, "%s %s", tag, name != NULL ? name : "<anon>");
}

typedef struct dt_usym_idx {
	dt_usym_mod_t	*ui_mod;
	size_t		ui_cap;
	int		ui_err;
} dt_usym_idx_t;

static int
dt_usym_fnone(Dwarf_Die *die, void *arg)
{
	dt_usym_idx_t *ui = arg;
	dt_usym_mod_t *um = ui->ui_mod;
	const char *name = dwarf_diename(die);
	dt_usym_fnent_t *nf;

	if (name == NULL || dwarf_hasattr(die, DW_AT_declaration))
		return DWARF_CB_OK;
	if (um->um_nfns == ui->ui_cap) {
		ui->ui_cap = ui->ui_cap ? ui->ui_cap * 2 : 256;
		if ((nf = reallocarray(um->um_fns, ui->ui_cap,
		    sizeof(*nf))) == NULL) {
			ui->ui_err = 1;
			return DWARF_CB_ABORT;
		}
		um->um_fns = nf;
	}
	if ((um->um_fns[um->um_nfns].fe_name = strdup(name)) == NULL) {
		ui->ui_err = 1;
		return DWARF_CB_ABORT;
	}
	um->um_fns[um->um_nfns++].fe_off = dwarf_dieoffset(die);
	return DWARF_CB_OK;
}

static int
dt_usym_fncmp(const void *a, const void *b)
{
	const dt_usym_fnent_t *l = a, *r = b;
	int c = strcmp(l->fe_name, r->fe_name);

	/* the first definition of a name wins: keep DWARF order */
	if (c != 0)
		return c;
	return l->fe_off < r->fe_off ? -1 : l->fe_off > r->fe_off;
}

/* Every function the module's DWARF defines, by name, once. */
static void
dt_usym_index(dt_usym_mod_t *um, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	dt_usym_idx_t ui;
	size_t hsize;

	um->um_indexed = 1;
	memset(&ui, 0, sizeof(ui));
	ui.ui_mod = um;
	while (!ui.ui_err &&
	    dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) != NULL)
			(void)dwarf_getfuncs(&cu, dt_usym_fnone, &ui, 0);
		off = next;
	}
	if (um->um_nfns > 0)
		qsort(um->um_fns, um->um_nfns, sizeof(*um->um_fns),
		    dt_usym_fncmp);
}

static int
dt_usym_namecmp(const void *a, const void *b)
{
	const dt_usym_fnent_t *l = a, *r = b;

	return strcmp(l->fe_name, r->fe_name);
}

/*
 * The parameter types of function func in module mod ("a.out" for the
 * executable) of process pid, from DWARF: at most max names of len
 * bytes each.  Returns how many, or -1 when there is no DWARF for it.
 */
int
dt_usym_argtypes(dtrace_hdl_t *dtp, pid_t pid, const char *mod,
    const char *func, char (*types)[128], int max)
{
	struct dt_usym_proc *up;
	Dwfl *d = dt_usym_dwfl(dtp, pid);
	Dwfl_Module *dm;
	Dwarf *dw;
	Dwarf_Addr bias;
	Dwarf_Die fn, child, tdie;
	Dwarf_Attribute a;
	dt_usym_mod_t *um = NULL;
	dt_usym_fnent_t key, *fe;
	uint32_t i;
	int n = 0;

	if (d == NULL || (up = dt_usym_proc(dtp, pid, 0)) == NULL)
		return -1;
	for (i = 0; i < up->up_nmods && um == NULL; i++) {
		if (strcmp(mod, "a.out") == 0 ? (up->up_mods[i].um_flags &
		    DT_MODMAP_EXEC) != 0 :
		    strcmp(up->up_mods[i].um_name, mod) == 0)
			um = &up->up_mods[i];
	}
	if (um == NULL || (dm = dwfl_addrmodule(d, um->um_lo)) == NULL ||
	    (dw = dwfl_module_getdwarf(dm, &bias)) == NULL)
		return -1;
	if (!um->um_indexed)
		dt_usym_index(um, dw);
	key.fe_name = (char *)(uintptr_t)func;
	key.fe_off = 0;
	/* the lowest offset of the name: bsearch, then back to the first */
	if ((fe = bsearch(&key, um->um_fns, um->um_nfns, sizeof(*fe),
	    dt_usym_namecmp)) == NULL)
		return -1;
	while (fe > um->um_fns && strcmp(fe[-1].fe_name, func) == 0)
		fe--;
	if (dwarf_offdie(dw, fe->fe_off, &fn) == NULL)
		return -1;
	if (dwarf_child(&fn, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		if (n >= max)
			break;
		if (dwarf_attr_integrate(&child, DW_AT_type, &a) != NULL &&
		    dwarf_formref_die(&a, &tdie) != NULL)
			dt_usym_typename(&tdie, types[n], 128, 0);
		else
			snprintf(types[n], 128, "(unknown)");
		n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/*
 * Call cb with the file of each object mapped in pid, the executable
 * first (its int argument set), then in map order: from the map the
 * daemon sent, else from /proc while the process lives.  For the types
 * of dt_dwarf.c.  Stops when cb returns non-zero.
 */
int
dt_usym_modpaths(dtrace_hdl_t *dtp, pid_t pid,
    int (*cb)(const char *, int, void *), void *arg)
{
	struct dt_usym_proc *up = dt_usym_proc(dtp, pid, 0);
	char path[64], exe[PATH_MAX], line[PATH_MAX + 128], last[PATH_MAX];
	const char *p;
	uint32_t i;
	ssize_t n;
	FILE *f;
	int pass;

	if (up != NULL && up->up_hasmap) {
		for (pass = 0; pass < 2; pass++) {
			for (i = 0; i < up->up_nmods; i++) {
				const dt_usym_mod_t *um = &up->up_mods[i];
				int isexec = (um->um_flags &
				    DT_MODMAP_EXEC) != 0;

				if (isexec != (pass == 0))
					continue;
				if (cb(um->um_path, isexec, arg) != 0)
					return 0;
			}
		}
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) <= 0)
		return -1;
	exe[n] = '\0';
	if (cb(exe, 1, arg) != 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	last[0] = '\0';
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((p = strchr(line, '/')) == NULL || strcmp(p, exe) == 0 ||
		    strcmp(p, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", p);
		if (cb(p, 0, arg) != 0)
			break;
	}
	fclose(f);
	return 0;
}

/* The pid $target names: the first target, or 0. */
pid_t
dt_usym_target(const dtrace_hdl_t *dtp)
{
	return dt_proc_target(dtp);
}

void
dt_usym_fini(dtrace_hdl_t *dtp)
{
	struct dt_usym_proc *up;

	while ((up = dtp->dt_usyms) != NULL) {
		dtp->dt_usyms = up->up_next;
		dt_usym_dwfl_end(up->up_dwfl);
		dt_usym_mods_free(up->up_mods, up->up_nmods);
		free(up);
	}
}
