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
 * IFUNC symbols name resolvers, not the functions callers reach, so they
 * are not offered.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
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
};

static int
ft_elf_cmp_name(const void *a, const void *b)
{
	return strcmp(((const ft_sym_t *)a)->fs_name,
	    ((const ft_sym_t *)b)->fs_name);
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

/* Collect the function symbols of one symbol table section. */
static int
ft_elf_symtab(Elf_Scn *scn, const GElf_Shdr *sh, Elf *elf, ft_sym_t **syms,
    size_t *n, size_t *cap, size_t *strbytes)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *ver = ft_elf_versym(elf, scn);
	size_t i, count;
	const char *at;
	GElf_Versym vs;

	if (data == NULL || sh->sh_entsize == 0)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;

		if (gelf_getsym(data, i, &sym) == NULL)
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name == NULL || name[0] == '\0')
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 1024;
			ft_sym_t *ns = realloc(*syms, ncap * sizeof(ft_sym_t));

			if (ns == NULL)
				return -1;
			*syms = ns;
			*cap = ncap;
		}
		(*syms)[*n].fs_name = name;
		(*syms)[*n].fs_addr = sym.st_value;
		(*syms)[*n].fs_size = sym.st_size;
		(*syms)[*n].fs_bind = GELF_ST_BIND(sym.st_info);
		/* a compat version: hidden in versym, or spelled name@VER */
		(*syms)[*n].fs_hidden = (ver != NULL && gelf_getversym(ver,
		    (int)i, &vs) != NULL && (vs & 0x8000) != 0) ||
		    ((at = strchr(name, '@')) != NULL && at[1] != '@');
		(*n)++;
		*strbytes += strlen(name) + 1;
	}
	return 0;
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
	return ft_elf_fdopen(fd, path, err, errlen);
}

/*
 * The object open on fd, which it owns from now on (closed on failure
 * too); path names it in errors only.  A target's files come here from
 * ft_procfs_mapopen(), so that what is read is the file mapped.
 */
ft_elf_t *
ft_elf_fdopen(int fd, const char *path, char *err, size_t errlen)
{
	ft_elf_t *fe;
	ft_sym_t *all = NULL;
	size_t nall = 0, cap = 0, strbytes = 0, i, j;
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
	fe->fe_fd = fd;
	if ((fe->fe_elf = elf_begin(fe->fe_fd, ELF_C_READ_MMAP, NULL)) == NULL ||
	    elf_kind(fe->fe_elf) != ELF_K_ELF || gelf_getehdr(fe->fe_elf, &eh) ==
	    NULL || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64) {
		ft_elf_err(err, errlen, path, "not an x86-64 ELF object");
		goto fail;
	}
	fe->fe_pie = eh.e_type == ET_DYN;

	while ((scn = elf_nextscn(fe->fe_elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			if (ft_elf_symtab(scn, &sh, fe->fe_elf, &all, &nall,
			    &cap, &strbytes) == -1) {
				ft_elf_err(err, errlen, path, strerror(errno));
				goto fail;
			}
		} else if (sh.sh_type == SHT_NOTE && fe->fe_buildidlen == 0) {
			ft_elf_note_buildid(fe, scn);
		}
	}

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
		qsort(all, nall, sizeof(ft_sym_t), ft_elf_cmp_name);
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
	free(all);
	return fe;
fail:
	free(all);
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
