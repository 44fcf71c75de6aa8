/*
 * ft_elf.c: function symbols of an ELF object, with libelf.
 *
 * Functions come from .symtab when the object has one and from .dynsym
 * always (stripped libraries have only that).  Several names for one
 * address (malloc and __libc_malloc) are one function: it is listed once,
 * under its preferred name, and every name still finds it by lookup.
 * The preferred name follows illumos's rules for naming an address (a
 * global or weak symbol over a local one, then the name with fewer
 * leading underscores, then the smaller size, then the first in
 * strcmp order), with two for what illumos objects do not have: a
 * default version over a hidden one (glibc's compat cfree@GLIBC_2.2.5 is
 * not free@@GLIBC_2.2.5's name) and a plain name over a compiler-made
 * local one (foo.localalias, foo.part.0, foo.cold).  libdtrace's
 * dt_usym.c names addresses by the same rules, so that -l and ufunc()
 * agree.
 * An IFUNC symbol (strlen, memcpy in glibc) names a resolver, which the
 * dynamic linker calls once to pick the function callers reach, by the
 * CPU.  With a reader of the live image (ft_proc_mod_elf) the name goes
 * to that function: the object's R_X86_64_IRELATIVE relocation whose
 * addend is the resolver has a slot that holds, once relocated, the
 * function picked; its extent is its FDE's in .eh_frame, as such
 * functions have no symbol of their own in a stripped library.  An
 * IFUNC that the object never calls itself has no such slot, and one
 * read before the linker relocated the object (a process held before
 * its libraries are relocated, or a library at dlopen's hook) has
 * nothing there yet: those are not offered, as a probe on a resolver
 * would not fire.
 */
#include <sys/stat.h>

#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

struct ft_elf {
	int		fe_fd;
	Elf		*fe_elf;
	int		fe_pie;		/* ET_DYN */
	ft_sym_t	*fe_syms;	/* functions, by address, one per address */
	size_t		fe_nsyms;
	ft_sym_t	*fe_names;	/* every name, by name */
	size_t		fe_nnames;
	ft_sym_t	*fe_aliases;	/* every name, by address, preferred first */
	char		*fe_strs;	/* the names' storage */
	uint8_t		fe_buildid[64];
	size_t		fe_buildidlen;
	size_t		fe_nirel;	/* IRELATIVE relocations read */
};

/*
 * Files known to have no IRELATIVE relocation, and so no IFUNC to
 * resolve in any process, by device, inode, size and modification time:
 * most objects, which ft_elf_ifuncs_open() would otherwise read again
 * for every process that maps them (a profile of the whole machine
 * sends the map of each process it samples).  A ring: when it is full
 * the oldest is forgotten.
 */
#define FT_ELF_NOIREL		1024
static struct ft_elf_file {
	dev_t		ef_dev;
	ino_t		ef_ino;
	off_t		ef_size;
	struct timespec	ef_mtime;
} ft_elf_noirel[FT_ELF_NOIREL];
static size_t ft_elf_nnoirel, ft_elf_noirelnext;
static pthread_mutex_t ft_elf_noirel_lock = PTHREAD_MUTEX_INITIALIZER;

static ft_elf_t	*ft_elf_load(int, const char *, ft_elf_slotrd_t *, void *,
		    int, char *, size_t);

static int
ft_elf_cmp_name(const void *a, const void *b)
{
	return strcmp(((const ft_sym_t *)a)->fs_name,
	    ((const ft_sym_t *)b)->fs_name);
}

/*
 * Order by name and, for one name, what it names first: the default
 * version over a compat one (memcpy@@GLIBC_2.14 over memcpy@GLIBC_2.2.5,
 * a function elsewhere), a global over a local.
 */
static int
ft_elf_cmp_namepref(const void *a, const void *b)
{
	const ft_sym_t *x = a, *y = b;
	int c;

	if ((c = strcmp(x->fs_name, y->fs_name)) != 0)
		return c;
	if (x->fs_hidden != y->fs_hidden)
		return x->fs_hidden ? 1 : -1;
	if ((x->fs_bind == STB_LOCAL) != (y->fs_bind == STB_LOCAL))
		return x->fs_bind == STB_LOCAL ? 1 : -1;
	return x->fs_addr < y->fs_addr ? -1 : x->fs_addr > y->fs_addr;
}

/* Order by address, then the preferred name first (ft_sym_cmp). */
static int
ft_elf_cmp_addr(const void *a, const void *b)
{
	return ft_sym_cmp(a, b);
}

static void
ft_elf_err(char *err, size_t errlen, const char *path, const char *what)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: %s", path, what);
}

/* The GNU version table (SHT_GNU_versym) of symbol table scn, or NULL. */
static Elf_Data *
ft_elf_versym(Elf *elf, Elf_Scn *scn)
{
	size_t ndx = elf_ndxscn(scn);
	Elf_Scn *v = NULL;
	GElf_Shdr sh;

	while ((v = elf_nextscn(elf, v)) != NULL)
		if (gelf_getshdr(v, &sh) != NULL &&
		    sh.sh_type == SHT_GNU_versym && sh.sh_link == ndx)
			return elf_getdata(v, NULL);
	return NULL;
}

/* Append s to the vector *v of *n (room for *cap). */
static int
ft_elf_push(ft_sym_t **v, size_t *n, size_t *cap, const ft_sym_t *s)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		ft_sym_t *nv = realloc(*v, ncap * sizeof(ft_sym_t));

		if (nv == NULL)
			return -1;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *s;
	return 0;
}

/* What ft_elf_fdopen collects from the sections before it builds. */
struct ft_elf_scan {
	ft_sym_t	*es_syms;	/* function symbols */
	size_t		es_nsyms, es_capsyms;
	ft_sym_t	*es_ifuncs;	/* IFUNCs: fs_addr is the resolver */
	size_t		es_nifuncs, es_capifuncs;
	uint64_t	(*es_irel)[2];	/* IRELATIVE: resolver, slot */
	size_t		es_nirel, es_capirel;
	int		es_ifonly;	/* IFUNCs alone (ft_elf_ifuncs_open) */
	size_t		es_pending;	/* slots the linker has not filled */
};

/* Collect the function and IFUNC symbols of one symbol table section. */
static int
ft_elf_symtab(Elf_Scn *scn, const GElf_Shdr *sh, Elf *elf,
    struct ft_elf_scan *es)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *ver = ft_elf_versym(elf, scn);
	size_t i, count;
	const char *at;
	GElf_Versym vs;
	ft_sym_t fs;
	int type, rc;

	if (data == NULL || sh->sh_entsize == 0)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;

		if (gelf_getsym(data, i, &sym) == NULL)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name == NULL || name[0] == '\0')
			continue;
		fs.fs_name = name;
		fs.fs_addr = sym.st_value;
		fs.fs_size = sym.st_size;
		fs.fs_bind = GELF_ST_BIND(sym.st_info);
		/* a compat version: hidden in versym, or spelled name@VER */
		fs.fs_hidden = (ver != NULL && gelf_getversym(ver, (int)i,
		    &vs) != NULL && (vs & 0x8000) != 0) ||
		    ((at = strchr(name, '@')) != NULL && at[1] != '@');
		if (type == STT_FUNC && es->es_ifonly)
			continue;
		if (type == STT_FUNC)
			rc = ft_elf_push(&es->es_syms, &es->es_nsyms,
			    &es->es_capsyms, &fs);
		else
			rc = ft_elf_push(&es->es_ifuncs, &es->es_nifuncs,
			    &es->es_capifuncs, &fs);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/* Collect the R_X86_64_IRELATIVE relocations of one SHT_RELA section. */
static int
ft_elf_irelative(Elf_Scn *scn, const GElf_Shdr *sh, struct ft_elf_scan *es)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, count;
	GElf_Rela r;

	if (data == NULL || sh->sh_entsize == 0)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < count; i++) {
		if (gelf_getrela(data, (int)i, &r) == NULL ||
		    GELF_R_TYPE(r.r_info) != R_X86_64_IRELATIVE)
			continue;
		if (es->es_nirel == es->es_capirel) {
			size_t ncap = es->es_capirel ? es->es_capirel * 2 : 64;
			uint64_t (*nv)[2] = realloc(es->es_irel,
			    ncap * sizeof(*nv));

			if (nv == NULL)
				return -1;
			es->es_irel = nv;
			es->es_capirel = ncap;
		}
		es->es_irel[es->es_nirel][0] = (uint64_t)r.r_addend;
		es->es_irel[es->es_nirel][1] = r.r_offset;
		es->es_nirel++;
	}
	return 0;
}

/* Whether link-time address a is in an executable loadable segment. */
static int
ft_elf_intext(Elf *elf, uint64_t a)
{
	size_t nph, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph) != 0)
		return 0;
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(elf, i, &ph) != NULL &&
		    ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    a >= ph.p_vaddr && a < ph.p_vaddr + ph.p_filesz)
			return 1;
	return 0;
}

static int
ft_elf_cmp_irel(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The function IFUNC s chose in the live image (rd), from the slot of
 * its IRELATIVE relocation: 0 and *addr, or -1 if there is none yet.
 */
static int
ft_elf_ifunc_chosen(ft_elf_t *fe, struct ft_elf_scan *es, const ft_sym_t *s,
    ft_elf_slotrd_t *rd, void *arg, uint64_t *addr)
{
	uint64_t (*r)[2], live, file;

	if ((r = bsearch(&s->fs_addr, es->es_irel, es->es_nirel,
	    sizeof(*r), ft_elf_cmp_irel)) == NULL ||
	    rd(arg, (*r)[1], &live) == -1)
		return -1;
	/* what the file has there (zeros past its bytes) is unrelocated */
	if (ft_elf_read(fe, (*r)[1], &file, sizeof(file)) == -1)
		file = 0;
	if (live == file) {
		es->es_pending++;
		return -1;
	}
	if (live == s->fs_addr || !ft_elf_intext(fe->fe_elf, live))
		return -1;
	*addr = live;
	return 0;
}

/* The bytes of a pointer of DWARF encoding enc (DW_EH_PE_*), or 0. */
static size_t
ft_elf_eh_size(uint8_t enc)
{
	static const uint8_t size[16] = { 8, 0, 2, 4, 8, 0, 0, 0,
	    0, 0, 2, 4, 8, 0, 0, 0 };

	return size[enc & 0x0f];
}

/*
 * A pointer of DWARF encoding enc at p, which lies at link-time address
 * pc, no further than end: 0 and *vp, or -1 for an encoding this reader
 * does not take (none that GCC or glibc emit in .eh_frame: LEB128,
 * datarel, indirect).
 */
static int
ft_elf_eh_ptr(uint8_t enc, const uint8_t *p, const uint8_t *end, uint64_t pc,
    uint64_t *vp)
{
	size_t n = ft_elf_eh_size(enc), i;
	uint64_t v = 0;

	if (n == 0 || end < p || (size_t)(end - p) < n ||
	    (enc & 0x70) > 0x10 || (enc & 0x80) != 0)
		return -1;
	for (i = 0; i < n; i++)			/* little-endian */
		v |= (uint64_t)p[i] << (8 * i);
	if ((enc & 0x08) != 0 && n < 8 && (v >> (8 * n - 1)) != 0)
		v |= ~(uint64_t)0 << (8 * n);	/* sign-extend */
	if ((enc & 0x70) == 0x10)		/* pcrel */
		v += pc;
	*vp = v;
	return 0;
}

/* The FDE pointer encoding of a CIE (its 'R' augmentation), or -1. */
static int
ft_elf_cie_enc(const Dwarf_CIE *cie)
{
	const uint8_t *d = cie->augmentation_data;
	const uint8_t *e = d + cie->augmentation_data_size;
	const char *a = cie->augmentation;
	uint64_t v;

	if (a[0] != 'z')
		return a[0] == '\0' ? 0x00 : -1;	/* absptr */
	for (a++; *a != '\0'; a++) {
		switch (*a) {
		case 'R':
			return d < e ? *d : -1;
		case 'L':
			d++;
			break;
		case 'S':
		case 'B':
			break;
		case 'P':		/* the personality routine: skipped */
			if (d >= e || ft_elf_eh_ptr(*d, d + 1, e, 0, &v) == -1)
				return -1;
			d += 1 + ft_elf_eh_size(*d);
			break;
		default:
			return -1;
		}
	}
	return 0x00;
}

/*
 * For each of the n link-time addresses a (sorted), the end of the FDE
 * in .eh_frame that covers it (hi[i]; 0 if none): where the function
 * whose code it starts ends, as stripped code has no symbol to say.
 */
static void
ft_elf_fde_ends(ft_elf_t *fe, const uint64_t *a, size_t n, uint64_t *hi)
{
	struct { Dwarf_Off off; int enc; } cie[16];
	size_t ncie = 0, i, lo, top;
	Dwarf_Off off, next;
	uint64_t addr, start, range;
	Dwarf_CFI_Entry ent;
	const uint8_t *p;
	Elf_Data data;
	const void *d;
	char *ident;
	int enc, rc;

	memset(hi, 0, n * sizeof(*hi));
	memset(&data, 0, sizeof(data));
	if (ft_elf_section(fe, ".eh_frame", &d, &data.d_size, &addr) == -1 ||
	    (ident = elf_getident(fe->fe_elf, NULL)) == NULL)
		return;
	data.d_buf = (void *)d;
	data.d_type = ELF_T_BYTE;
	data.d_version = EV_CURRENT;
	for (off = 0; (rc = dwarf_next_cfi((unsigned char *)ident, &data,
	    true, off, &next, &ent)) != 1 && next != (Dwarf_Off)-1 &&
	    next > off; off = next) {
		if (rc != 0)
			continue;
		if (dwarf_cfi_cie_p(&ent)) {
			/* a handful per object: one per language and kind */
			if (ncie < sizeof(cie) / sizeof(cie[0])) {
				cie[ncie].off = off;
				cie[ncie++].enc = ft_elf_cie_enc(&ent.cie);
			}
			continue;
		}
		for (i = 0, enc = -1; i < ncie; i++)
			if (cie[i].off == ent.fde.CIE_pointer)
				enc = cie[i].enc;
		/* initial_location, then address_range (never pcrel) */
		p = ent.fde.start;
		if (enc == -1 || ft_elf_eh_ptr((uint8_t)enc, p, ent.fde.end,
		    addr + (uint64_t)(p - (const uint8_t *)d), &start) == -1 ||
		    ft_elf_eh_ptr((uint8_t)enc & 0x0f, p + ft_elf_eh_size(
		    (uint8_t)enc), ent.fde.end, 0, &range) == -1)
			continue;
		/* the first address at or past start */
		for (lo = 0, top = n; lo < top; ) {
			i = (lo + top) / 2;
			if (a[i] < start)
				lo = i + 1;
			else
				top = i;
		}
		for (i = lo; i < n && a[i] - start < range; i++)
			hi[i] = start + range;
	}
}

/*
 * Give each IFUNC of es the function its slot holds in the live image
 * (rd), sized by its FDE, and add it to es's function symbols; those
 * that cannot be resolved are left out.
 */
static int
ft_elf_ifuncs(ft_elf_t *fe, struct ft_elf_scan *es, ft_elf_slotrd_t *rd,
    void *arg)
{
	uint64_t *a, *hi, *sorted;
	size_t i, n = es->es_nifuncs, k;
	ft_sym_t fs;
	int rc = 0;

	if ((a = calloc(3 * n, sizeof(*a))) == NULL)
		return -1;
	hi = a + n;
	sorted = hi + n;
	qsort(es->es_irel, es->es_nirel, sizeof(*es->es_irel),
	    ft_elf_cmp_irel);
	for (i = 0, k = 0; i < n; i++) {
		if (ft_elf_ifunc_chosen(fe, es, &es->es_ifuncs[i], rd, arg,
		    &a[i]) == -1)
			a[i] = 0;
		else
			sorted[k++] = a[i];
	}
	if (k > 0)
		qsort(sorted, k, sizeof(*sorted), ft_elf_cmp_irel);
	ft_elf_fde_ends(fe, sorted, k, hi);
	for (i = 0; i < n && rc == 0; i++) {
		uint64_t *s;

		if (a[i] == 0 || (s = bsearch(&a[i], sorted, k,
		    sizeof(*sorted), ft_elf_cmp_irel)) == NULL ||
		    hi[s - sorted] <= a[i])
			continue;
		fs = es->es_ifuncs[i];
		fs.fs_addr = a[i];
		fs.fs_size = hi[s - sorted] - a[i];
		rc = ft_elf_push(&es->es_syms, &es->es_nsyms, &es->es_capsyms,
		    &fs);
	}
	free(a);
	return rc;
}

static void
ft_elf_note_buildid(ft_elf_t *fe, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	if (data == NULL)
		return;
	while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + noff, "GNU", 4) == 0 &&
		    nh.n_descsz <= sizeof(fe->fe_buildid)) {
			memcpy(fe->fe_buildid, (char *)data->d_buf + doff,
			    nh.n_descsz);
			fe->fe_buildidlen = nh.n_descsz;
			return;
		}
	}
}

/* An object by path: for files of our own (tests), never a target's. */
ft_elf_t *
ft_elf_open(const char *path, char *err, size_t errlen)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		ft_elf_err(err, errlen, path, strerror(errno));
		return NULL;
	}
	return ft_elf_fdopen(fd, path, NULL, NULL, err, errlen);
}

/*
 * The object open on fd, which it owns from now on (closed on failure
 * too); path names it in errors only.  A target's files come here from
 * ft_procfs_mapopen(), so that what is read is the file mapped, with rd
 * reading its live image so that IFUNCs name the functions they chose;
 * without rd (NULL) IFUNCs are not offered.
 */
ft_elf_t *
ft_elf_fdopen(int fd, const char *path, ft_elf_slotrd_t *rd, void *arg,
    char *err, size_t errlen)
{
	return ft_elf_load(fd, path, rd, arg, 0, err, errlen);
}

/*
 * The IFUNCs of the object open on fd alone, resolved through rd as
 * ft_elf_fdopen does, for naming addresses in what the consumer is sent
 * (the chosen functions have no symbol of their own in a stripped
 * library).  fd is closed before it returns; of the result only the
 * symbol lookups (ft_elf_nsyms, ft_elf_sym, ft_elf_lookup, ft_elf_addr)
 * may be used.  Cheap for an object without IRELATIVE relocations (most
 * have none): no symbol is read.  NULL and EAGAIN if the linker has not
 * relocated the object yet.
 */
ft_elf_t *
ft_elf_ifuncs_open(int fd, const char *path, ft_elf_slotrd_t *rd, void *arg,
    char *err, size_t errlen)
{
	struct stat st;
	ft_elf_t *fe;
	size_t i;
	int known = 0;

	memset(&st, 0, sizeof(st));
	if (fstat(fd, &st) == 0) {
		pthread_mutex_lock(&ft_elf_noirel_lock);
		for (i = 0; i < ft_elf_nnoirel && !known; i++) {
			const struct ft_elf_file *f = &ft_elf_noirel[i];

			known = f->ef_dev == st.st_dev &&
			    f->ef_ino == st.st_ino &&
			    f->ef_size == st.st_size &&
			    f->ef_mtime.tv_sec == st.st_mtim.tv_sec &&
			    f->ef_mtime.tv_nsec == st.st_mtim.tv_nsec;
		}
		pthread_mutex_unlock(&ft_elf_noirel_lock);
	}
	/* a known file: without a reader, no relocation is read */
	if ((fe = ft_elf_load(fd, path, known ? NULL : rd, arg, 1, err,
	    errlen)) == NULL)
		return NULL;
	if (!known && fe->fe_nirel == 0 && st.st_ino != 0) {
		pthread_mutex_lock(&ft_elf_noirel_lock);
		ft_elf_noirel[ft_elf_noirelnext].ef_dev = st.st_dev;
		ft_elf_noirel[ft_elf_noirelnext].ef_ino = st.st_ino;
		ft_elf_noirel[ft_elf_noirelnext].ef_size = st.st_size;
		ft_elf_noirel[ft_elf_noirelnext].ef_mtime = st.st_mtim;
		ft_elf_noirelnext = (ft_elf_noirelnext + 1) % FT_ELF_NOIREL;
		if (ft_elf_nnoirel < FT_ELF_NOIREL)
			ft_elf_nnoirel++;
		pthread_mutex_unlock(&ft_elf_noirel_lock);
	}
	elf_end(fe->fe_elf);
	fe->fe_elf = NULL;
	close(fe->fe_fd);
	fe->fe_fd = -1;
	return fe;
}

static ft_elf_t *
ft_elf_load(int fd, const char *path, ft_elf_slotrd_t *rd, void *arg,
    int ifonly, char *err, size_t errlen)
{
	struct ft_elf_scan es;
	ft_elf_t *fe;
	ft_sym_t *all;
	size_t nall, strbytes = 0, i, j;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	char *sp;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		ft_elf_err(err, errlen, path, "libelf is out of date");
		close(fd);
		return NULL;
	}
	if ((fe = calloc(1, sizeof(*fe))) == NULL) {
		ft_elf_err(err, errlen, path, strerror(errno));
		close(fd);
		return NULL;
	}
	memset(&es, 0, sizeof(es));
	fe->fe_fd = fd;
	if ((fe->fe_elf = elf_begin(fe->fe_fd, ELF_C_READ_MMAP, NULL)) == NULL ||
	    elf_kind(fe->fe_elf) != ELF_K_ELF || gelf_getehdr(fe->fe_elf, &eh) ==
	    NULL || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64) {
		ft_elf_err(err, errlen, path, "not an x86-64 ELF object");
		goto fail;
	}
	fe->fe_pie = eh.e_type == ET_DYN;
	es.es_ifonly = ifonly;

	/* the IRELATIVE slots first: IFUNCs alone need no symbol without */
	while (rd != NULL && (scn = elf_nextscn(fe->fe_elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_RELA &&
		    ft_elf_irelative(scn, &sh, &es) == -1) {
			ft_elf_err(err, errlen, path, strerror(errno));
			goto fail;
		}
	}
	while ((!ifonly || es.es_nirel > 0) &&
	    (scn = elf_nextscn(fe->fe_elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			if (ft_elf_symtab(scn, &sh, fe->fe_elf, &es) == -1) {
				ft_elf_err(err, errlen, path, strerror(errno));
				goto fail;
			}
		} else if (sh.sh_type == SHT_NOTE && fe->fe_buildidlen == 0) {
			ft_elf_note_buildid(fe, scn);
		}
	}
	fe->fe_nirel = es.es_nirel;
	if (rd != NULL && es.es_nifuncs > 0 && es.es_nirel > 0 &&
	    ft_elf_ifuncs(fe, &es, rd, arg) == -1) {
		ft_elf_err(err, errlen, path, strerror(errno));
		goto fail;
	}
	if (ifonly && es.es_pending > 0) {
		ft_elf_err(err, errlen, path, "not relocated yet");
		errno = EAGAIN;
		goto fail;
	}
	all = es.es_syms;
	nall = es.es_nsyms;
	for (i = 0; i < nall; i++)
		strbytes += strlen(all[i].fs_name) + 1;

	/* Own the names, so the symbols outlive libelf's string tables. */
	if ((fe->fe_strs = malloc(strbytes + 1)) == NULL ||
	    (fe->fe_names = calloc(nall + 1, sizeof(ft_sym_t))) == NULL ||
	    (fe->fe_syms = calloc(nall + 1, sizeof(ft_sym_t))) == NULL ||
	    (fe->fe_aliases = calloc(nall + 1, sizeof(ft_sym_t))) == NULL) {
		ft_elf_err(err, errlen, path, strerror(errno));
		goto fail;
	}
	sp = fe->fe_strs;
	for (i = 0; i < nall; i++) {
		size_t len = strlen(all[i].fs_name) + 1;

		memcpy(sp, all[i].fs_name, len);
		all[i].fs_name = sp;
		sp += len;
	}

	/*
	 * Every distinct name (the same symbol is often in both tables).
	 * A stripped object may have none: all is NULL then, and qsort
	 * must not see it.
	 */
	if (nall > 0)
		qsort(all, nall, sizeof(ft_sym_t), ft_elf_cmp_namepref);
	for (i = 0; i < nall; i++) {
		if (fe->fe_nnames > 0 && strcmp(fe->fe_names[fe->fe_nnames -
		    1].fs_name, all[i].fs_name) == 0)
			continue;
		fe->fe_names[fe->fe_nnames++] = all[i];
	}

	/* One function per address, under its preferred name. */
	memcpy(fe->fe_syms, fe->fe_names, fe->fe_nnames * sizeof(ft_sym_t));
	qsort(fe->fe_syms, fe->fe_nnames, sizeof(ft_sym_t), ft_elf_cmp_addr);
	memcpy(fe->fe_aliases, fe->fe_syms, fe->fe_nnames * sizeof(ft_sym_t));
	for (i = 0, j = 0; i < fe->fe_nnames; i++) {
		if (j > 0 && fe->fe_syms[j - 1].fs_addr == fe->fe_syms[i].fs_addr) {
			if (fe->fe_syms[j - 1].fs_size == 0)
				fe->fe_syms[j - 1].fs_size = fe->fe_syms[i].fs_size;
			continue;
		}
		fe->fe_syms[j++] = fe->fe_syms[i];
	}
	fe->fe_nsyms = j;
	/* an alias without a size has its function's */
	for (i = 0, j = 0; i < fe->fe_nnames; i++) {
		while (j < fe->fe_nsyms &&
		    fe->fe_syms[j].fs_addr < fe->fe_aliases[i].fs_addr)
			j++;
		if (fe->fe_aliases[i].fs_size == 0 && j < fe->fe_nsyms)
			fe->fe_aliases[i].fs_size = fe->fe_syms[j].fs_size;
	}
	free(es.es_syms);
	free(es.es_ifuncs);
	free(es.es_irel);
	return fe;
fail:
	free(es.es_syms);
	free(es.es_ifuncs);
	free(es.es_irel);
	ft_elf_close(fe);
	return NULL;
}

void
ft_elf_close(ft_elf_t *fe)
{
	if (fe == NULL)
		return;
	if (fe->fe_elf != NULL)
		elf_end(fe->fe_elf);
	if (fe->fe_fd != -1)
		close(fe->fe_fd);
	free(fe->fe_syms);
	free(fe->fe_aliases);
	free(fe->fe_names);
	free(fe->fe_strs);
	free(fe);
}

int
ft_elf_is_pie(const ft_elf_t *fe)
{
	return fe->fe_pie;
}

size_t
ft_elf_nsyms(const ft_elf_t *fe)
{
	return fe->fe_nsyms;
}

const ft_sym_t *
ft_elf_sym(const ft_elf_t *fe, size_t i)
{
	return i < fe->fe_nsyms ? &fe->fe_syms[i] : NULL;
}

/*
 * Every name, ordered by address and, at one address, preferred first:
 * a glob takes the first name of each function that matches (illumos).
 */
size_t
ft_elf_naliases(const ft_elf_t *fe)
{
	return fe->fe_nnames;
}

const ft_sym_t *
ft_elf_alias(const ft_elf_t *fe, size_t i)
{
	return i < fe->fe_nnames ? &fe->fe_aliases[i] : NULL;
}

/* Find a function by any of its names. */
const ft_sym_t *
ft_elf_lookup(const ft_elf_t *fe, const char *name)
{
	ft_sym_t key;

	key.fs_name = name;
	return bsearch(&key, fe->fe_names, fe->fe_nnames, sizeof(ft_sym_t),
	    ft_elf_cmp_name);
}

/* The function containing addr (a link-time address), or NULL. */
const ft_sym_t *
ft_elf_addr(const ft_elf_t *fe, uint64_t addr)
{
	size_t lo = 0, hi = fe->fe_nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const ft_sym_t *s = &fe->fe_syms[mid];

		if (addr < s->fs_addr)
			hi = mid;
		else if (addr >= s->fs_addr + (s->fs_size ? s->fs_size : 1))
			lo = mid + 1;
		else
			return s;
	}
	return NULL;
}

/*
 * Read len bytes of the object's loaded image at link-time address
 * vaddr, from the file's PT_LOAD segments.  Returns 0 or -1.
 */
int
ft_elf_read(const ft_elf_t *fe, uint64_t vaddr, void *buf, size_t len)
{
	size_t nph, i;

	if (elf_getphdrnum(fe->fe_elf, &nph) != 0)
		return -1;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(fe->fe_elf, i, &ph) == NULL ||
		    ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr + len > ph.p_vaddr + ph.p_filesz)
			continue;
		if (pread(fe->fe_fd, buf, len, ph.p_offset +
		    (vaddr - ph.p_vaddr)) != (ssize_t)len)
			return -1;
		return 0;
	}
	errno = EFAULT;
	return -1;
}

const uint8_t *
ft_elf_buildid(const ft_elf_t *fe, size_t *lenp)
{
	*lenp = fe->fe_buildidlen;
	return fe->fe_buildidlen ? fe->fe_buildid : NULL;
}

/*
 * The bytes of the section called name (its file contents, in the
 * object's own byte order) and its link-time address; -1 if there is
 * none or it has no bytes (SHT_NOBITS).
 */
int
ft_elf_section(const ft_elf_t *fe, const char *name, const void **datap,
    size_t *lenp, uint64_t *addrp)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(fe->fe_elf, &shstrndx) != 0)
		return -1;
	while ((scn = elf_nextscn(fe->fe_elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (n = elf_strptr(fe->fe_elf, shstrndx, sh.sh_name)) == NULL ||
		    strcmp(n, name) != 0)
			continue;
		if (sh.sh_type == SHT_NOBITS ||
		    (d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL)
			return -1;
		*datap = d->d_buf;
		*lenp = d->d_size;
		*addrp = sh.sh_addr;
		return 0;
	}
	return -1;
}

/* The link-time address and size of the dynamic section (PT_DYNAMIC). */
int
ft_elf_dynamic(const ft_elf_t *fe, uint64_t *vaddr, uint64_t *size)
{
	size_t nph, i;

	if (elf_getphdrnum(fe->fe_elf, &nph) != 0)
		return -1;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(fe->fe_elf, i, &ph) != NULL &&
		    ph.p_type == PT_DYNAMIC) {
			*vaddr = ph.p_vaddr;
			*size = ph.p_memsz;
			return 0;
		}
	}
	return -1;
}


/*
 * The load bias of the object open on fd whose mapping of file offset
 * off starts at start: from the ELF header and program headers alone
 * (cheap, unlike reading its symbol tables).  0, or -1 if it is not an
 * x86-64 ELF object with a loadable segment there.
 */
int
ft_elf_bias(int fd, uint64_t start, uint64_t off, uint64_t *bias)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		uint64_t lo;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i *
		    sizeof(ph))) != (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type != PT_LOAD)
			continue;
		lo = ph.p_offset & ~(uint64_t)0xfff;
		if (off < lo || off >= ph.p_offset + ph.p_filesz + 0x1000)
			continue;
		*bias = start - (ph.p_vaddr - ph.p_offset + off);
		return 0;
	}
	return -1;
}
