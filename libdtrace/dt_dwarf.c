/*
 * dt_dwarf.c: the traced program's own types, from its DWARF, for the D
 * compiler: struct, union and enum tags, typedefs, enumerators, and the
 * parameter and return types that type args[] on pid entry and return
 * probes.
 *
 * The client compiles D, so the types are read here, from the files of
 * the target's modules (the map the daemon sends, dt_usym.c, or
 * /proc/PID/maps while it lives): the daemon never needs them.  Debug
 * information is looked for in the file itself, then in
 * /usr/lib/debug/.build-id/xx/yyyy.debug, then through .gnu_debuglink
 * (next to the file, in its .debug/, and under /usr/lib/debug); dwz's
 * .gnu_debugaltlink files are libdw's business.  Never the network.
 *
 * Lazily: nothing is opened until a name is looked up that D does not
 * know itself, and a module's index (its named top-level DIEs: tags,
 * typedefs, base types, functions, enumerators) is made on the first
 * lookup in that module.  A DIE becomes a dt_type_t once, on first use,
 * with what it needs; files, indexes and converted types are kept per
 * build-id on the handle, shared by every target and every compile, and
 * never rolled back (they describe files, not programs).
 *
 * What D cannot represent (__int128, complex and vector types, a
 * bit-field that straddles its storage unit, a struct passed in
 * registers) becomes a DT_TK_OPAQUE type of the right size and C name;
 * using one is a compile error naming it (dt_dwarf_check).
 */
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dt_impl.h"

#define DT_DWARF_DEBUGDIR	"/usr/lib/debug"
/* deeper than this, a pointer's pointee waits (dt_dwarf_pend_t) */
#define DT_DWARF_MAXDEPTH	8

/* name spaces of the index, as C has them */
#define DT_DWARF_NS_ORD		0	/* typedefs, base types */
#define DT_DWARF_NS_TAG		1	/* struct, union, enum tags */
#define DT_DWARF_NS_FUNC	2	/* functions */
#define DT_DWARF_NS_ENUMR	3	/* enumerators: de_value */

typedef struct dt_dwarf_ent {
	const char	*de_name;	/* in the DWARF's string data */
	Dwarf_Off	de_off;		/* the DIE (enumerator: its enum) */
	int64_t		de_value;
	uint8_t		de_ns;
	uint8_t		de_alt;		/* in the dwz alt file */
	uint16_t	de_tag;
	struct dt_dwarf_ent *de_next;
} dt_dwarf_ent_t;

typedef struct dt_dwarf_tcache {
	uint64_t	tc_key;
	const dt_type_t	*tc_type;
} dt_dwarf_tcache_t;

/*
 * A pointer made deep in a conversion: its pointee is converted after,
 * from the top (dt_dwarf_top), so that a long chain of structs linked by
 * pointers does not recurse as deep as it is long.
 */
typedef struct dt_dwarf_pend {
	dt_type_t	*pe_ptr;
	Dwarf_Die	pe_die;		/* the pointer's DIE */
	struct dt_dwarf_pend *pe_next;
} dt_dwarf_pend_t;

/* One object file's debug information, by build-id (else path). */
typedef struct dt_dwarf_file {
	char		*df_key;
	char		*df_path;
	int		df_fd;		/* the file holding the DWARF */
	Dwarf		*df_dw;		/* NULL: none found */
	Dwarf		*df_alt;
	int		df_indexed;
	dt_dwarf_ent_t	**df_hash;
	uint32_t	df_nhash;
	dt_dwarf_tcache_t *df_tc;	/* DIE -> type, open addressing */
	uint32_t	df_ntc, df_captc;
	dt_type_t	*df_types;	/* every type made, to free */
	struct dt_dwarf_pend *df_pend;	/* pointers whose pointee waits */
	struct dt_dwarf_file *df_next;
} dt_dwarf_file_t;

/* A path already resolved to its file (several targets, one libc). */
typedef struct dt_dwarf_path {
	char		*dp_path;
	int		dp_opened;	/* dp_file is known (maybe NULL) */
	dt_dwarf_file_t	*dp_file;
	struct dt_dwarf_path *dp_next;
} dt_dwarf_path_t;

struct dt_dwarf {
	dt_dwarf_file_t	*dd_files;
	dt_type_t	*dd_uptrs;	/* pointers into the target made
					   by casts (dt_dwarf_userptr) */
	const dt_type_t	**dd_ptypes;	/* what print()s show */
	uint32_t	dd_nptypes;
	dt_dwarf_path_t	*dd_paths;
	char		dd_err[512];
};

static const dt_type_t dt_dwarf_bool = { .dt_name = "_Bool",
    .dt_kind = DT_TK_INT, .dt_size = 1, .dt_signed = 0, .dt_rank = 1 };

static struct dt_dwarf *
dt_dwarf_state(dtrace_hdl_t *dtp)
{
	if (dtp->dt_dwarf == NULL)
		dtp->dt_dwarf = calloc(1, sizeof(struct dt_dwarf));
	return dtp->dt_dwarf;
}

/* Open path's DWARF file: its own, else by build-id, else debuglink. */
static int
dt_dwarf_try(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd;
}

static int
dt_dwarf_has_info(int fd)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	const char *n;
	int found = 0;

	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL)
		return 0;
	if (elf_getshdrstrndx(e, &shstr) == 0) {
		while (!found && (scn = elf_nextscn(e, scn)) != NULL) {
			if (gelf_getshdr(scn, &sh) == NULL ||
			    sh.sh_type == SHT_NOBITS)
				continue;
			n = elf_strptr(e, shstr, sh.sh_name);
			found = n != NULL && (strcmp(n, ".debug_info") == 0 ||
			    strcmp(n, ".zdebug_info") == 0);
		}
	}
	elf_end(e);
	return found;
}

static dt_dwarf_file_t *
dt_dwarf_open(struct dt_dwarf *dd, const char *path)
{
	dt_dwarf_file_t *df;
	char key[160], dpath[PATH_MAX], dir[PATH_MAX], *slash;
	const unsigned char *id = NULL;
	const char *link;
	GElf_Word crc;
	ssize_t n;
	Elf *e;
	int fd, dfd = -1, i, off;

	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
		close(fd);
		return NULL;
	}
	n = dwelf_elf_gnu_build_id(e, (const void **)&id);
	if (n > 0 && n <= 64) {
		for (i = 0, off = 0; i < n; i++)
			off += snprintf(key + off, sizeof(key) - off, "%02x",
			    id[i]);
	} else
		snprintf(key, sizeof(key), "%s", path);
	for (df = dd->dd_files; df != NULL; df = df->df_next) {
		if (strcmp(df->df_key, key) == 0) {
			elf_end(e);
			close(fd);
			return df;
		}
	}
	if ((df = calloc(1, sizeof(*df))) == NULL ||
	    (df->df_key = strdup(key)) == NULL ||
	    (df->df_path = strdup(path)) == NULL) {
		if (df != NULL)
			free(df->df_key);
		free(df);
		elf_end(e);
		close(fd);
		return NULL;
	}
	df->df_fd = -1;
	if (dt_dwarf_has_info(fd)) {
		dfd = fd;
		fd = -1;
	}
	/* Debian's -dbgsym packages, and objcopy --only-keep-debug */
	if (dfd == -1 && n > 1 && n <= 64) {
		off = snprintf(dpath, sizeof(dpath), "%s/.build-id/%02x/",
		    DT_DWARF_DEBUGDIR, id[0]);
		for (i = 1; i < n; i++)
			off += snprintf(dpath + off, sizeof(dpath) - off,
			    "%02x", id[i]);
		snprintf(dpath + off, sizeof(dpath) - off, ".debug");
		if ((dfd = dt_dwarf_try(dpath)) != -1 &&
		    !dt_dwarf_has_info(dfd)) {
			close(dfd);
			dfd = -1;
		}
	}
	if (dfd == -1 && (link = dwelf_elf_gnu_debuglink(e, &crc)) != NULL &&
	    strchr(link, '/') == NULL) {
		snprintf(dir, sizeof(dir), "%s", path);
		if ((slash = strrchr(dir, '/')) != NULL)
			*slash = '\0';
		else
			snprintf(dir, sizeof(dir), ".");
		const char *fmts[] = { "%s/%s", "%s/.debug/%s",
		    DT_DWARF_DEBUGDIR "%s/%s" };
		for (i = 0; i < 3 && dfd == -1; i++) {
			/* the file itself is no debug file of its own */
			snprintf(dpath, sizeof(dpath), fmts[i], dir, link);
			if (strcmp(dpath, path) == 0)
				continue;
			if ((dfd = dt_dwarf_try(dpath)) != -1 &&
			    !dt_dwarf_has_info(dfd)) {
				close(dfd);
				dfd = -1;
			}
		}
	}
	elf_end(e);
	if (fd != -1)
		close(fd);
	if (dfd != -1) {
		if ((df->df_dw = dwarf_begin(dfd, DWARF_C_READ)) == NULL)
			close(dfd);
		else {
			df->df_fd = dfd;
			df->df_alt = dwarf_getalt(df->df_dw);
		}
	}
	df->df_next = dd->dd_files;
	dd->dd_files = df;
	return df;
}

/* A module's path, remembered; its file is opened on first use. */
static dt_dwarf_path_t *
dt_dwarf_path(struct dt_dwarf *dd, const char *path)
{
	dt_dwarf_path_t *dp;

	for (dp = dd->dd_paths; dp != NULL; dp = dp->dp_next) {
		if (strcmp(dp->dp_path, path) == 0)
			return dp;
	}
	if ((dp = calloc(1, sizeof(*dp))) == NULL ||
	    (dp->dp_path = strdup(path)) == NULL) {
		free(dp);
		return NULL;
	}
	dp->dp_next = dd->dd_paths;
	dd->dd_paths = dp;
	return dp;
}

static dt_dwarf_file_t *
dt_dwarf_file(struct dt_dwarf *dd, dt_dwarf_path_t *dp)
{
	if (!dp->dp_opened) {
		dp->dp_opened = 1;
		dp->dp_file = dt_dwarf_open(dd, dp->dp_path);
	}
	return dp->dp_file;
}

static void
dt_dwarf_add(dt_dwarf_file_t *df, const char *name, int ns, Dwarf_Off off,
    int alt, int tag, int64_t value)
{
	uint32_t h = dt_idhash_hashstr(name) % df->df_nhash;
	dt_dwarf_ent_t *e;

	/* the first definition of a name stands: every CU repeats them */
	for (e = df->df_hash[h]; e != NULL; e = e->de_next) {
		if (e->de_ns == ns && strcmp(e->de_name, name) == 0)
			return;
	}
	if ((e = malloc(sizeof(*e))) == NULL)
		return;
	e->de_name = name;
	e->de_ns = (uint8_t)ns;
	e->de_off = off;
	e->de_alt = (uint8_t)alt;
	e->de_tag = (uint16_t)tag;
	e->de_value = value;
	e->de_next = df->df_hash[h];
	df->df_hash[h] = e;
}

static void dt_dwarf_index_unit(dt_dwarf_file_t *, Dwarf_Die *, int, int);

/* One top-level DIE of a unit. */
static void
dt_dwarf_index_die(dt_dwarf_file_t *df, Dwarf_Die *die, int alt, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die c, pu;
	Dwarf_Word uv;
	Dwarf_Sword sv;
	const char *name;
	int tag = dwarf_tag(die), ns;

	if (tag == DW_TAG_imported_unit) {
		/* dwz: the types moved to a partial unit, maybe elsewhere */
		if (depth < 8 && dwarf_attr(die, DW_AT_import, &a) != NULL &&
		    dwarf_formref_die(&a, &pu) != NULL)
			dt_dwarf_index_unit(df, &pu,
			    dwarf_cu_getdwarf(pu.cu) != df->df_dw, depth + 1);
		return;
	}
	switch (tag) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_class_type:
		ns = DT_DWARF_NS_TAG;
		break;
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		ns = DT_DWARF_NS_ORD;
		break;
	case DW_TAG_subprogram:
		ns = DT_DWARF_NS_FUNC;
		break;
	default:
		return;
	}
	if (tag == DW_TAG_enumeration_type && dwarf_child(die, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_enumerator ||
			    (name = dwarf_diename(&c)) == NULL ||
			    dwarf_attr(&c, DW_AT_const_value, &a) == NULL)
				continue;
			if (dwarf_formsdata(&a, &sv) == 0)
				dt_dwarf_add(df, name, DT_DWARF_NS_ENUMR,
				    dwarf_dieoffset(die), alt, tag, sv);
			else if (dwarf_formudata(&a, &uv) == 0)
				dt_dwarf_add(df, name, DT_DWARF_NS_ENUMR,
				    dwarf_dieoffset(die), alt, tag,
				    (int64_t)uv);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if ((name = dwarf_diename(die)) == NULL ||
	    dwarf_hasattr(die, DW_AT_declaration))
		return;
	dt_dwarf_add(df, name, ns, dwarf_dieoffset(die), alt, tag, 0);
}

static void
dt_dwarf_index_unit(dt_dwarf_file_t *df, Dwarf_Die *cu, int alt, int depth)
{
	Dwarf_Die c;

	if (dwarf_child(cu, &c) != 0)
		return;
	do {
		dt_dwarf_index_die(df, &c, alt, depth);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The module's named top-level DIEs, once. */
static void
dt_dwarf_index(dt_dwarf_file_t *df)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	size_t hsize;
	uint8_t utype;

	df->df_indexed = 1;
	if (df->df_dw == NULL)
		return;
	df->df_nhash = 4093;
	if ((df->df_hash = calloc(df->df_nhash, sizeof(*df->df_hash))) ==
	    NULL)
		return;
	while (dwarf_next_unit(df->df_dw, off, &next, &hsize, NULL, NULL,
	    &utype, NULL, NULL, NULL) == 0) {
		/* partial units come in through their imports */
		if (dwarf_offdie(df->df_dw, off + hsize, &cu) != NULL &&
		    dwarf_tag(&cu) == DW_TAG_compile_unit)
			dt_dwarf_index_unit(df, &cu, 0, 0);
		off = next;
	}
}

static dt_dwarf_ent_t *
dt_dwarf_find(dt_dwarf_file_t *df, const char *name, int ns, int tag)
{
	dt_dwarf_ent_t *e;

	if (df == NULL || df->df_dw == NULL)
		return NULL;
	if (!df->df_indexed)
		dt_dwarf_index(df);
	if (df->df_hash == NULL)
		return NULL;
	for (e = df->df_hash[dt_idhash_hashstr(name) % df->df_nhash];
	    e != NULL; e = e->de_next) {
		if (e->de_ns == ns && strcmp(e->de_name, name) == 0 &&
		    (tag == 0 || e->de_tag == tag))
			return e;
	}
	return NULL;
}

/* Type conversion */

static uint64_t
dt_dwarf_diekey(dt_dwarf_file_t *df, Dwarf_Die *die)
{
	return dwarf_dieoffset(die) |
	    (dwarf_cu_getdwarf(die->cu) != df->df_dw ? 1ULL << 63 : 0);
}

static const dt_type_t *
dt_dwarf_tc_get(dt_dwarf_file_t *df, uint64_t key)
{
	uint32_t i;

	if (df->df_captc == 0)
		return NULL;
	for (i = (uint32_t)(key * 0x9e3779b97f4a7c15ULL >> 40) %
	    df->df_captc; df->df_tc[i].tc_type != NULL;
	    i = (i + 1) % df->df_captc) {
		if (df->df_tc[i].tc_key == key)
			return df->df_tc[i].tc_type;
	}
	return NULL;
}

static void
dt_dwarf_tc_put(dt_dwarf_file_t *df, uint64_t key, const dt_type_t *t)
{
	dt_dwarf_tcache_t *old = df->df_tc;
	uint32_t i, oc = df->df_captc;

	if ((df->df_ntc + 1) * 2 > df->df_captc) {
		uint32_t nc = df->df_captc ? df->df_captc * 2 : 256;

		if ((df->df_tc = calloc(nc, sizeof(*df->df_tc))) == NULL) {
			df->df_tc = old;
			return;
		}
		df->df_captc = nc;
		df->df_ntc = 0;
		for (i = 0; i < oc; i++) {
			if (old[i].tc_type != NULL)
				dt_dwarf_tc_put(df, old[i].tc_key,
				    old[i].tc_type);
		}
		free(old);
	}
	for (i = (uint32_t)(key * 0x9e3779b97f4a7c15ULL >> 40) %
	    df->df_captc; df->df_tc[i].tc_type != NULL;
	    i = (i + 1) % df->df_captc)
		continue;
	df->df_tc[i].tc_key = key;
	df->df_tc[i].tc_type = t;
	df->df_ntc++;
}

static dt_type_t *
dt_dwarf_new(dt_dwarf_file_t *df, int kind, const char *name)
{
	dt_type_t *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	if ((t->dt_name = strdup(name != NULL ? name : "?")) == NULL) {
		free(t);
		return NULL;
	}
	t->dt_kind = (uint8_t)kind;
	t->dt_user = kind == DT_TK_PTR ? DT_TU_PTR : DT_TU_TYPE;
	t->dt_next = df->df_types;
	df->df_types = t;
	return t;
}

static const dt_type_t *dt_dwarf_conv(dt_dwarf_file_t *, Dwarf_Die *, int);
static int dt_dwarf_isanon(const dt_type_t *);

/* The type a DIE's DW_AT_type names; void if none. */
static const dt_type_t *
dt_dwarf_reftype(dt_dwarf_file_t *df, Dwarf_Die *die, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (dwarf_attr_integrate(die, DW_AT_type, &a) == NULL ||
	    dwarf_formref_die(&a, &t) == NULL)
		return &dt_type_void;
	return dt_dwarf_conv(df, &t, depth + 1);
}

static const dt_type_t *
dt_dwarf_opaque(dt_dwarf_file_t *df, const char *name, uint32_t size)
{
	dt_type_t *t = dt_dwarf_new(df, DT_TK_OPAQUE, name);

	if (t != NULL)
		t->dt_size = size;
	return t;
}

/* A base type: D's own where C's is the same, so arithmetic agrees. */
static const dt_type_t *
dt_dwarf_base(dt_dwarf_file_t *df, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0, size = 0;
	const char *name = dwarf_diename(die);
	int sg;

	if (dwarf_attr(die, DW_AT_encoding, &a) != NULL)
		(void)dwarf_formudata(&a, &enc);
	if (dwarf_attr(die, DW_AT_byte_size, &a) != NULL)
		(void)dwarf_formudata(&a, &size);
	switch (enc) {
	case DW_ATE_boolean:
		if (size == 1)
			return &dt_dwarf_bool;
		break;
	case DW_ATE_signed:
	case DW_ATE_signed_char:
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
		sg = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		switch (size) {
		case 1:
			if (name != NULL && strcmp(name, "char") == 0)
				return &dt_type_char;
			return sg ? &dt_type_schar : &dt_type_uchar;
		case 2:
			return sg ? &dt_type_short : &dt_type_ushort;
		case 4:
			return sg ? &dt_type_int : &dt_type_uint;
		case 8:
			if (name != NULL && strstr(name, "long long") != NULL)
				return sg ? &dt_type_llong : &dt_type_ullong;
			return sg ? &dt_type_long : &dt_type_ulong;
		}
		break;
	case DW_ATE_float:
		if (size == 4)
			return &dt_type_float;
		if (size == 8)
			return &dt_type_double;
		if (size == 16 && name != NULL &&
		    strcmp(name, "long double") == 0)
			return &dt_type_ldouble;
		break;
	}
	return dt_dwarf_opaque(df, name != NULL ? name : "<base type>",
	    (uint32_t)size);
}

static int
dt_dwarf_udata(Dwarf_Die *die, int at, Dwarf_Word *vp)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, at, &a) != NULL &&
	    dwarf_formudata(&a, vp) == 0;
}

static dt_member_t *
dt_dwarf_member_new(const char *name, const dt_type_t *t)
{
	dt_member_t *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	if (name != NULL && (m->dm_name = strdup(name)) == NULL) {
		free(m);
		return NULL;
	}
	m->dm_type = t;
	return m;
}

/* The members of an anonymous struct or union, found through it (C11). */
static void
dt_dwarf_flatten(dt_member_t ***tailp, const dt_type_t *anon, uint32_t off)
{
	const dt_member_t *im;
	dt_member_t *m;

	for (im = anon->dt_members; im != NULL; im = im->dm_next) {
		if (im->dm_name == NULL || (im->dm_flags & DT_MF_ANON))
			continue;
		if ((m = dt_dwarf_member_new(im->dm_name, im->dm_type)) ==
		    NULL)
			return;
		m->dm_off = off + im->dm_off;
		m->dm_bitoff = im->dm_bitoff;
		m->dm_bits = im->dm_bits;
		m->dm_flags = DT_MF_ANON;
		**tailp = m;
		*tailp = &m->dm_next;
	}
}

static void
dt_dwarf_sou(dt_dwarf_file_t *df, dt_type_t *t, Dwarf_Die *die, int depth)
{
	dt_member_t **tail = &t->dt_members, *m;
	Dwarf_Die c;
	Dwarf_Word loc, bsz, boff;
	Dwarf_Attribute a;
	const dt_type_t *mt;
	const char *name;
	uint64_t bitpos;
	uint32_t unit;
	char what[512];

	if (dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_inheritance) {
			/* C++: D has no base classes */
			snprintf(what, sizeof(what), "%s (a C++ class with "
			    "base classes)", t->dt_name);
			if ((name = strdup(what)) != NULL) {
				free((char *)t->dt_name);
				t->dt_name = name;
			}
			t->dt_kind = DT_TK_OPAQUE;
			return;
		}
		if (tag != DW_TAG_member || dwarf_hasattr(&c,
		    DW_AT_external))
			continue;
		name = dwarf_diename(&c);
		mt = dt_dwarf_reftype(df, &c, depth);
		if (mt == NULL)
			continue;
		loc = 0;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a) != NULL)
			(void)dwarf_formudata(&a, &loc);
		bitpos = loc * 8;
		if (dt_dwarf_udata(&c, DW_AT_data_bit_offset, &boff))
			bitpos = boff;
		if (dt_dwarf_udata(&c, DW_AT_bit_size, &bsz) && bsz > 0) {
			Dwarf_Word bo, sz;

			/* DWARF 2-4: from the top of a unit at loc */
			if (!dwarf_hasattr(&c, DW_AT_data_bit_offset) &&
			    dt_dwarf_udata(&c, DW_AT_bit_offset, &bo)) {
				sz = mt->dt_size;
				if (dt_dwarf_udata(&c, DW_AT_byte_size, &sz) ==
				    0)
					sz = mt->dt_size;
				bitpos = loc * 8 + sz * 8 - bo - bsz;
			}
			unit = mt->dt_size * 8;
			if ((m = dt_dwarf_member_new(name, mt)) == NULL)
				return;
			if (unit == 0 || !dt_decl_is_integral(mt) ||
			    bitpos % unit + bsz > unit) {
				snprintf(what, sizeof(what),
				    "%s:%u (a bit-field D cannot read)",
				    mt->dt_name, (unsigned)bsz);
				m->dm_type = dt_dwarf_opaque(df, what,
				    mt->dt_size);
				m->dm_off = (uint32_t)(bitpos / 8);
			} else {
				m->dm_off = (uint32_t)(bitpos / unit *
				    mt->dt_size);
				m->dm_bitoff = (uint8_t)(bitpos -
				    m->dm_off * 8ULL);
				m->dm_bits = (uint8_t)bsz;
			}
		} else {
			if ((m = dt_dwarf_member_new(name, mt)) == NULL)
				return;
			m->dm_off = (uint32_t)(bitpos / 8);
		}
		*tail = m;
		tail = &m->dm_next;
		if (name == NULL && (mt->dt_kind == DT_TK_STRUCT ||
		    mt->dt_kind == DT_TK_UNION))
			dt_dwarf_flatten(&tail, mt, m->dm_off);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void
dt_dwarf_enum(dt_type_t *t, Dwarf_Die *die)
{
	dt_member_t **tail = &t->dt_members, *m;
	Dwarf_Attribute a;
	Dwarf_Sword sv;
	Dwarf_Word uv;
	Dwarf_Die c;

	if (dwarf_child(die, &c) != 0)
		return;
	do {
		if (dwarf_tag(&c) != DW_TAG_enumerator ||
		    dwarf_attr(&c, DW_AT_const_value, &a) == NULL ||
		    (m = dt_dwarf_member_new(dwarf_diename(&c), t)) == NULL)
			continue;
		if (a.form == DW_FORM_sdata && dwarf_formsdata(&a, &sv) == 0)
			m->dm_value = sv;
		else if (dwarf_formudata(&a, &uv) == 0)
			m->dm_value = (int64_t)uv;
		else if (dwarf_formsdata(&a, &sv) == 0)
			m->dm_value = sv;
		*tail = m;
		tail = &m->dm_next;
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* A DWARF type, as D has it: made once per DIE. */
static const dt_type_t *
dt_dwarf_conv(dt_dwarf_file_t *df, Dwarf_Die *die, int depth)
{
	uint64_t key = dt_dwarf_diekey(df, die);
	const dt_type_t *t, *bt;
	dt_type_t *nt;
	Dwarf_Word size = 0, n;
	Dwarf_Die c, sub[16];
	const char *name;
	char buf[512];
	int tag, i;

	if ((t = dt_dwarf_tc_get(df, key)) != NULL)
		return t;
	if (depth > 64)
		return dt_dwarf_opaque(df, "<type nested too deeply>", 0);
	name = dwarf_diename(die);
	tag = dwarf_tag(die);
	(void)dt_dwarf_udata(die, DW_AT_byte_size, &size);
	switch (tag) {
	case DW_TAG_base_type:
		t = dt_dwarf_base(df, die);
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		/* D keeps no qualifiers */
		t = dt_dwarf_reftype(df, die, depth);
		break;
	case DW_TAG_typedef:
		bt = dt_dwarf_reftype(df, die, depth);
		if (bt == NULL)
			return NULL;
		/* an integer typedef keeps its name, as D's own do */
		if (bt->dt_kind == DT_TK_INT && name != NULL &&
		    strcmp(name, bt->dt_name) != 0) {
			if ((nt = dt_dwarf_new(df, DT_TK_INT, name)) == NULL)
				return NULL;
			nt->dt_size = bt->dt_size;
			nt->dt_signed = bt->dt_signed;
			nt->dt_rank = bt->dt_rank;
			nt->dt_align = bt->dt_align;
			t = nt;
		} else
			t = bt;
		/* typedef struct { ... } foo_t: the struct is foo_t */
		if ((bt->dt_kind == DT_TK_STRUCT || bt->dt_kind ==
		    DT_TK_UNION || bt->dt_kind == DT_TK_ENUM) &&
		    bt->dt_user == DT_TU_TYPE && name != NULL &&
		    dt_dwarf_isanon(bt)) {
			char *nn = strdup(name);

			if (nn != NULL) {
				free((char *)bt->dt_name);
				((dt_type_t *)(uintptr_t)bt)->dt_name = nn;
			}
		}
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if ((nt = dt_dwarf_new(df, DT_TK_PTR, "")) == NULL)
			return NULL;
		nt->dt_size = 8;
		nt->dt_rank = 4;
		/* in the cache first: struct s { struct s *next; } */
		dt_dwarf_tc_put(df, key, nt);
		if (depth > DT_DWARF_MAXDEPTH) {
			dt_dwarf_pend_t *pe = malloc(sizeof(*pe));

			nt->dt_base = &dt_type_void;
			if (pe == NULL)
				return nt;
			pe->pe_ptr = nt;
			pe->pe_die = *die;
			pe->pe_next = df->df_pend;
			df->df_pend = pe;
			return nt;
		}
		nt->dt_base = dt_dwarf_reftype(df, die, depth);
		if (nt->dt_base == NULL)
			nt->dt_base = &dt_type_void;
		{
			char *cn = dt_decl_cname(nt, "");

			if (cn != NULL) {
				free((char *)nt->dt_name);
				nt->dt_name = cn;
			}
		}
		return nt;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		snprintf(buf, sizeof(buf), "%s %s", tag == DW_TAG_union_type ?
		    "union" : "struct", name != NULL ? name : "<anon>");
		if ((nt = dt_dwarf_new(df, tag == DW_TAG_union_type ?
		    DT_TK_UNION : DT_TK_STRUCT, buf)) == NULL)
			return NULL;
		dt_dwarf_tc_put(df, key, nt);
		if (dwarf_hasattr(die, DW_AT_declaration))
			return nt;	/* incomplete */
		nt->dt_size = (uint32_t)size;
		nt->dt_align = 1;
		nt->dt_defined = 1;
		dt_dwarf_sou(df, nt, die, depth);
		{
			const dt_member_t *m;

			for (m = nt->dt_members; m != NULL; m = m->dm_next)
				if (dt_decl_align(m->dm_type) > nt->dt_align)
					nt->dt_align =
					    dt_decl_align(m->dm_type);
		}
		return nt;
	case DW_TAG_enumeration_type:
		snprintf(buf, sizeof(buf), "enum %s", name != NULL ? name :
		    "<anon>");
		if ((nt = dt_dwarf_new(df, DT_TK_ENUM, buf)) == NULL)
			return NULL;
		dt_dwarf_tc_put(df, key, nt);
		if (dwarf_hasattr(die, DW_AT_declaration))
			return nt;
		nt->dt_size = size != 0 ? (uint32_t)size : 4;
		bt = dt_dwarf_reftype(df, die, depth);
		nt->dt_signed = bt != NULL && bt->dt_kind == DT_TK_INT ?
		    bt->dt_signed : 1;
		nt->dt_rank = nt->dt_size > 4 ? 4 : 3;
		nt->dt_defined = 1;
		dt_dwarf_enum(nt, die);
		if (nt->dt_size != 1 && nt->dt_size != 2 &&
		    nt->dt_size != 4 && nt->dt_size != 8)
			nt->dt_kind = DT_TK_OPAQUE;
		return nt;
	case DW_TAG_array_type:
		bt = dt_dwarf_reftype(df, die, depth);
		if (bt == NULL)
			return NULL;
		/* int a[2][3]: two subranges, the last one innermost */
		i = 0;
		if (dwarf_child(die, &c) == 0) {
			do {
				if (dwarf_tag(&c) == DW_TAG_subrange_type &&
				    i < 16)
					sub[i++] = c;
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		t = bt;
		while (i-- > 0) {
			Dwarf_Word ub;

			n = 0;
			if (dt_dwarf_udata(&sub[i], DW_AT_count, &n))
				;
			else if (dt_dwarf_udata(&sub[i], DW_AT_upper_bound,
			    &ub))
				n = ub + 1;
			else if (dwarf_hasattr(&sub[i], DW_AT_upper_bound) ||
			    dwarf_hasattr(&sub[i], DW_AT_count))
				return dt_dwarf_opaque(df, "<variable-length "
				    "array>", 0);
			/* else a flexible array member: no elements */
			if ((nt = dt_dwarf_new(df, DT_TK_ARRAY, "")) == NULL)
				return NULL;
			nt->dt_base = t;
			nt->dt_nelems = (uint32_t)n;
			nt->dt_size = (uint32_t)(n * t->dt_size);
			nt->dt_align = dt_decl_align(t);
			{
				char *cn = dt_decl_cname(nt, "");

				if (cn != NULL) {
					free((char *)nt->dt_name);
					nt->dt_name = cn;
				}
			}
			t = nt;
		}
		if (dwarf_hasattr(die, DW_AT_GNU_vector)) {
			snprintf(buf, sizeof(buf), "%s (a vector type)",
			    t->dt_name);
			t = dt_dwarf_opaque(df, buf, t->dt_size);
		}
		break;
	case DW_TAG_subroutine_type: {
		dt_member_t **tail;

		bt = dt_dwarf_reftype(df, die, depth);
		if ((nt = dt_dwarf_new(df, DT_TK_FUNC, "function")) == NULL)
			return NULL;
		nt->dt_base = bt != NULL ? bt : &dt_type_void;
		nt->dt_defined = 1;
		tail = &nt->dt_members;
		if (dwarf_child(die, &c) == 0) {
			do {
				dt_member_t *m;

				if (dwarf_tag(&c) ==
				    DW_TAG_unspecified_parameters)
					nt->dt_signed = 1;
				if (dwarf_tag(&c) != DW_TAG_formal_parameter ||
				    (bt = dt_dwarf_reftype(df, &c, depth)) ==
				    NULL || (m = dt_dwarf_member_new(NULL,
				    bt)) == NULL)
					continue;
				*tail = m;
				tail = &m->dm_next;
				nt->dt_nelems++;
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		{
			char *cn = dt_decl_cname(nt, "");

			if (cn != NULL) {
				free((char *)nt->dt_name);
				nt->dt_name = cn;
			}
		}
		t = nt;
		break;
	}
	case DW_TAG_unspecified_type:
		/* C++'s decltype(nullptr) and the like */
		t = dt_dwarf_opaque(df, name != NULL ? name : "<unspecified>",
		    (uint32_t)size);
		break;
	default:
		snprintf(buf, sizeof(buf), "%s (DWARF tag 0x%x)",
		    name != NULL ? name : "<type>", tag);
		t = dt_dwarf_opaque(df, buf, (uint32_t)size);
		break;
	}
	if (t != NULL)
		dt_dwarf_tc_put(df, key, t);
	return t;
}

/*
 * Finish a conversion begun from the top: the pointees left waiting,
 * each from the top in turn, then the names of the pointers, arrays and
 * functions made since mark, which spell their pointees' names.
 */
static void
dt_dwarf_finish(dt_dwarf_file_t *df, const dt_type_t *mark)
{
	dt_dwarf_pend_t *pe;
	const dt_type_t *bt;
	dt_type_t *t;
	char *cn;

	while ((pe = df->df_pend) != NULL) {
		df->df_pend = pe->pe_next;
		bt = dt_dwarf_reftype(df, &pe->pe_die, 0);
		pe->pe_ptr->dt_base = bt != NULL ? bt : &dt_type_void;
		free(pe);
	}
	for (t = df->df_types; t != NULL && t != mark; t = t->dt_next) {
		if (t->dt_kind != DT_TK_PTR && t->dt_kind != DT_TK_ARRAY &&
		    t->dt_kind != DT_TK_FUNC)
			continue;
		if ((cn = dt_decl_cname(t, "")) != NULL) {
			free((char *)t->dt_name);
			t->dt_name = cn;
		}
	}
}

/* The type of a DIE, or of what a DIE's DW_AT_type names (ref), whole. */
static const dt_type_t *
dt_dwarf_top(dt_dwarf_file_t *df, Dwarf_Die *die, int ref)
{
	const dt_type_t *mark = df->df_types, *t;

	t = ref ? dt_dwarf_reftype(df, die, 0) : dt_dwarf_conv(df, die, 0);
	dt_dwarf_finish(df, mark);
	return t;
}

static const dt_type_t *
dt_dwarf_entype(dt_dwarf_file_t *df, const dt_dwarf_ent_t *e)
{
	Dwarf_Die die;
	Dwarf *dw = e->de_alt ? df->df_alt : df->df_dw;

	if (dw == NULL || dwarf_offdie(dw, e->de_off, &die) == NULL)
		return NULL;
	return dt_dwarf_top(df, &die, 0);
}

/* Modules: the target's objects, in map order, the executable first. */

typedef struct dt_dwarf_modlist {
	struct dt_dwarf	*ml_dd;
	const char	*ml_scope;	/* a module, or NULL: all */
	dt_dwarf_path_t	*ml_paths[256];	/* opened as the lookup reaches them */
	int		ml_n;
	int		ml_found;	/* a module of that name exists */
} dt_dwarf_modlist_t;

static int
dt_dwarf_modone(const char *path, int isexec, void *arg)
{
	dt_dwarf_modlist_t *ml = arg;
	const char *base = strrchr(path, '/');
	dt_dwarf_path_t *dp;

	base = base != NULL ? base + 1 : path;
	if (ml->ml_scope != NULL && strcmp(ml->ml_scope, base) != 0 &&
	    !(isexec && strcmp(ml->ml_scope, "a.out") == 0))
		return 0;
	ml->ml_found = 1;
	if (ml->ml_n == (int)(sizeof(ml->ml_paths) /
	    sizeof(ml->ml_paths[0])))
		return 1;
	if ((dp = dt_dwarf_path(ml->ml_dd, path)) != NULL)
		ml->ml_paths[ml->ml_n++] = dp;
	return 0;
}

/* The file of the list's module i, opened now if need be, or NULL. */
static dt_dwarf_file_t *
dt_dwarf_mlfile(dt_dwarf_modlist_t *ml, int i)
{
	return dt_dwarf_file(ml->ml_dd, ml->ml_paths[i]);
}

static void
dt_dwarf_modules(dtrace_hdl_t *dtp, pid_t pid, dt_dwarf_modlist_t *ml,
    const char *scope)
{
	memset(ml, 0, sizeof(*ml));
	ml->ml_dd = dt_dwarf_state(dtp);
	ml->ml_scope = scope;
	if (ml->ml_dd == NULL || pid <= 0)
		return;
	(void)dt_usym_modpaths(dtp, pid, dt_dwarf_modone, ml);
}

/*
 * Split "`mod`struct foo", "mod`foo_t", "struct mod`foo" into module
 * (or NULL), kind (0 or DT_TK_STRUCT...) and bare name, in buf.
 */
static int
dt_dwarf_parse(const char *s, char *buf, size_t len, const char **modp,
    int *kindp, const char **namep)
{
	char *p, *bq;
	static const struct {
		const char *kw;
		int kind;
	} kws[] = { { "struct ", DT_TK_STRUCT }, { "union ", DT_TK_UNION },
	    { "enum ", DT_TK_ENUM } };
	size_t i;

	if (snprintf(buf, len, "%s", s) >= (int)len)
		return -1;
	p = buf;
	*modp = NULL;
	*kindp = 0;
	for (i = 0; i < 3; i++) {
		if (strncmp(p, kws[i].kw, strlen(kws[i].kw)) == 0) {
			*kindp = kws[i].kind;
			p += strlen(kws[i].kw);
			while (*p == ' ')
				p++;
		}
	}
	if (*p == '`')
		p++;
	if ((bq = strchr(p, '`')) != NULL) {
		*bq = '\0';
		*modp = p;
		p = bq + 1;
		for (i = 0; i < 3 && *kindp == 0; i++) {
			if (strncmp(p, kws[i].kw, strlen(kws[i].kw)) == 0) {
				*kindp = kws[i].kind;
				p += strlen(kws[i].kw);
				while (*p == ' ' || *p == '\t')
					p++;
			}
		}
	}
	if (*p == '\0' || strchr(p, '`') != NULL)
		return -1;
	*namep = p;
	return 0;
}

static int
dt_dwarf_kindtag(int kind)
{
	return kind == DT_TK_STRUCT ? DW_TAG_structure_type :
	    kind == DT_TK_UNION ? DW_TAG_union_type :
	    kind == DT_TK_ENUM ? DW_TAG_enumeration_type : 0;
}

/*
 * A type of the target ($target, the first process) by name: "foo_t",
 * "struct foo" (kind then names the tag space), or scoped to one of its
 * modules with a backquote.  NULL if there is none; *scopedp says the
 * name was scoped (the caller's error is then about the module).
 */
const dt_type_t *
dt_dwarf_lookup(dtrace_hdl_t *dtp, const char *s, int kind)
{
	dt_dwarf_modlist_t ml;
	const dt_dwarf_ent_t *e;
	const char *mod, *name;
	char buf[512];
	int k, i, tag;

	if (dtp->dt_nprocs == 0 ||
	    dt_dwarf_parse(s, buf, sizeof(buf), &mod, &k, &name) != 0)
		return NULL;
	if (kind == 0)
		kind = k;
	dt_dwarf_modules(dtp, dt_usym_target(dtp), &ml, mod);
	tag = dt_dwarf_kindtag(kind);
	for (i = 0; i < ml.ml_n; i++) {
		dt_dwarf_file_t *df = dt_dwarf_mlfile(&ml, i);

		e = dt_dwarf_find(df, name, kind != 0 ?
		    DT_DWARF_NS_TAG : DT_DWARF_NS_ORD, tag);
		/* C++: a class is a struct */
		if (e == NULL && kind == DT_TK_STRUCT)
			e = dt_dwarf_find(df, name, DT_DWARF_NS_TAG,
			    DW_TAG_class_type);
		if (e != NULL)
			return dt_dwarf_entype(df, e);
	}
	return NULL;
}

/* Does the target have a module of that name (for scoping errors)? */
int
dt_dwarf_hasmod(dtrace_hdl_t *dtp, const char *mod)
{
	dt_dwarf_modlist_t ml;

	dt_dwarf_modules(dtp, dt_usym_target(dtp), &ml, mod);
	return ml.ml_found;
}

/* An enumerator of the target's enums: its value and enum type. */
int
dt_dwarf_enumerator(dtrace_hdl_t *dtp, const char *s, int64_t *vp,
    const dt_type_t **tp)
{
	dt_dwarf_modlist_t ml;
	const dt_dwarf_ent_t *e;
	const char *mod, *name;
	char buf[512];
	int k, i;

	if (dtp->dt_nprocs == 0 ||
	    dt_dwarf_parse(s, buf, sizeof(buf), &mod, &k, &name) != 0 ||
	    k != 0)
		return -1;
	dt_dwarf_modules(dtp, dt_usym_target(dtp), &ml, mod);
	for (i = 0; i < ml.ml_n; i++) {
		dt_dwarf_file_t *df = dt_dwarf_mlfile(&ml, i);

		if ((e = dt_dwarf_find(df, name, DT_DWARF_NS_ENUMR, 0)) ==
		    NULL)
			continue;
		*vp = e->de_value;
		*tp = dt_dwarf_entype(df, e);
		return *tp != NULL ? 0 : -1;
	}
	return -1;
}

/*
 * Can a value of type t be used where "what" says?  A type D cannot
 * represent is a compile error that names it.
 */
void
dt_dwarf_check(dt_pcb_t *pcb, int line, const dt_type_t *t, const char *what)
{
	if (t != NULL && t->dt_kind == DT_TK_OPAQUE)
		dt_parser_error(pcb, line, D_TYPE_ERR,
		    "%s has type %s, which D cannot represent", what,
		    t->dt_name);
}

/* args[]: the types of a pid probe's arguments, from its function. */

typedef struct dt_dwarf_argq {
	dt_pcb_t	*aq_pcb;
	int		aq_argno;
	int		aq_line;
	const dt_type_t	*aq_type;	/* agreed so far */
	int		aq_n;		/* probes seen */
	int		aq_untyped;	/* one had no DWARF */
	int		aq_differ;	/* they disagree */
	char		aq_why[1024];
} dt_dwarf_argq_t;

/* Is t passed in one general register (System V x86-64, INTEGER)? */
static int
dt_dwarf_intclass(const dt_type_t *t)
{
	return (t->dt_kind == DT_TK_INT || t->dt_kind == DT_TK_ENUM ||
	    t->dt_kind == DT_TK_PTR) && t->dt_size <= 8;
}

/* The address of function func in the ELF file at path, or 0. */
static uint64_t
dt_dwarf_symaddr(const char *path, const char *func)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *n;
	uint64_t addr = 0;
	size_t i, len = strlen(func);
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
		close(fd);
		return 0;
	}
	while (addr == 0 && (scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || (sh.sh_type !=
		    SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			if (gelf_getsym(d, (int)i, &sym) == NULL ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF ||
			    (n = elf_strptr(e, sh.sh_link, sym.st_name)) ==
			    NULL)
				continue;
			/* fclose, or fclose@@GLIBC_2.2.5 */
			if (strncmp(n, func, len) == 0 && (n[len] == '\0' ||
			    n[len] == '@')) {
				addr = sym.st_value;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return addr;
}

/*
 * The subprogram DIE that starts at addr: a function known by another
 * name in its DWARF (glibc's fclose is _IO_new_fclose).
 */
static int
dt_dwarf_funcat(dt_dwarf_file_t *df, uint64_t addr, Dwarf_Die *die)
{
	Dwarf_Die cu, c;

	if (addr == 0 || dwarf_addrdie(df->df_dw, addr, &cu) == NULL ||
	    dwarf_child(&cu, &c) != 0)
		return -1;
	/* its code may be in ranges (a cold part elsewhere) */
	do {
		if (dwarf_tag(&c) == DW_TAG_subprogram &&
		    dwarf_haspc(&c, addr) == 1) {
			*die = c;
			return 0;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return -1;
}

/*
 * The function DIE of mod`func in pid, or -1 with no DWARF for it, -2
 * if mod is not mapped there.
 */
static int
dt_dwarf_func(dtrace_hdl_t *dtp, pid_t pid, const char *mod,
    const char *func, dt_dwarf_file_t **dfp, Dwarf_Die *die)
{
	dt_dwarf_modlist_t ml;
	const dt_dwarf_ent_t *e;
	Dwarf *dw;
	int i;

	dt_dwarf_modules(dtp, pid, &ml, mod[0] != '\0' ? mod : NULL);
	for (i = 0; i < ml.ml_n; i++) {
		dt_dwarf_file_t *df = dt_dwarf_mlfile(&ml, i);

		if (df == NULL || df->df_dw == NULL)
			continue;
		if ((e = dt_dwarf_find(df, func, DT_DWARF_NS_FUNC, 0)) ==
		    NULL) {
			if (dt_dwarf_funcat(df, dt_dwarf_symaddr(df->df_path,
			    func), die) == 0) {
				*dfp = df;
				return 0;
			}
			continue;
		}
		dw = e->de_alt ? df->df_alt : df->df_dw;
		if (dw == NULL || dwarf_offdie(dw, e->de_off, die) == NULL)
			return -1;
		*dfp = df;
		return 0;
	}
	return mod[0] != '\0' && !ml.ml_found ? -2 : -1;
}

/* The type of args[argno] at one probe, into the query. */
static void
dt_dwarf_argone(dtrace_hdl_t *dtp, const char *prov, const char *mod,
    const char *func, const char *pname, dt_dwarf_argq_t *aq)
{
	dt_dwarf_file_t *df;
	Dwarf_Die fn, c;
	const dt_type_t *t = NULL, *pt;
	char *end;
	long pid;
	int n = 0, rv = 0, isret = strcmp(pname, "return") == 0;

	aq->aq_n++;
	pid = strtol(prov + 3, &end, 10);
	if (strncmp(prov, "pid", 3) != 0 || *end != '\0' || pid <= 0 ||
	    (!isret && strcmp(pname, "entry") != 0) ||
	    (rv = dt_dwarf_func(dtp, (pid_t)pid, mod, func, &df, &fn)) !=
	    0) {
		aq->aq_untyped = 1;
		if (rv == -2)
			snprintf(aq->aq_why, sizeof(aq->aq_why), "%s:%s:%s:%s "
			    "has no argument types (%s is not mapped in the "
			    "process yet)", prov, mod, func, pname, mod);
		else
			snprintf(aq->aq_why, sizeof(aq->aq_why), "%s:%s:%s:%s "
			    "has no argument types (no debug information for "
			    "%s)", prov, mod, func, pname, func);
		return;
	}
	if (isret) {
		/* args[0] is the offset of the return; args[1] the value */
		if (aq->aq_argno == 0)
			t = &dt_type_long;
		else if (aq->aq_argno == 1) {
			t = dt_dwarf_top(df, &fn, 1);
			if (t != NULL && t->dt_kind == DT_TK_VOID) {
				aq->aq_untyped = 1;
				snprintf(aq->aq_why, sizeof(aq->aq_why),
				    "%s returns void", func);
				return;
			}
			if (t != NULL && !dt_dwarf_intclass(t)) {
				snprintf(aq->aq_why, sizeof(aq->aq_why),
				    "%s returns %s, not in a register D "
				    "reads", func, t->dt_name);
				t = dt_dwarf_opaque(df, aq->aq_why,
				    t->dt_size);
			}
		}
	} else if (dwarf_child(&fn, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_formal_parameter)
				continue;
			if ((pt = dt_dwarf_top(df, &c, 1)) == NULL)
				break;
			if (!dt_dwarf_intclass(pt)) {
				/* it and every later one: registers shift */
				char w[256];

				snprintf(w, sizeof(w), "%s (parameter %d of "
				    "%s, passed otherwise than in a general "
				    "register)", pt->dt_name, n, func);
				if (n <= aq->aq_argno)
					t = dt_dwarf_opaque(df, w,
					    pt->dt_size);
				break;
			}
			if (n == aq->aq_argno) {
				t = pt;
				break;
			}
			n++;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (t == NULL) {
		aq->aq_untyped = 1;
		snprintf(aq->aq_why, sizeof(aq->aq_why), "%s has no args[%d]",
		    func, aq->aq_argno);
		return;
	}
	if (aq->aq_type == NULL)
		aq->aq_type = t;
	else if (aq->aq_type != t)
		aq->aq_differ = 1;
}

static int
dt_dwarf_argprobe(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd,
    void *arg)
{
	dt_dwarf_argone(dtp, pd->dtpd_provider, pd->dtpd_mod, pd->dtpd_func,
	    pd->dtpd_name, arg);
	return 0;
}

static int
dt_dwarf_isglob(const char *s)
{
	return s[0] == '\0' || strpbrk(s, "*?[") != NULL;
}

/*
 * The type of args[argno] in the clause being compiled: its
 * parameter's type at every pid entry probe it names (the return
 * value's at a return probe, args[1]) when they all agree; else NULL
 * (int64_t, untyped) with the reason in why.
 */
const dt_type_t *
dt_dwarf_argtype(dt_pcb_t *pcb, int argno, char *why, size_t len)
{
	dtrace_hdl_t *dtp = pcb->pcb_hdl;
	dtp_prog_t *pp = &pcb->pcb_prog->dp_prog;
	dt_dwarf_argq_t aq;
	dtrace_probedesc_t d;
	uint32_t i;

	memset(&aq, 0, sizeof(aq));
	aq.aq_pcb = pcb;
	aq.aq_argno = argno;
	snprintf(aq.aq_why, sizeof(aq.aq_why), "its probes have no "
	    "argument types");
	for (i = pcb->pcb_cstmt; i < pcb->pcb_cstmt + pcb->pcb_ncstmt &&
	    i < pp->dp_nstmt; i++) {
		const dtp_probedesc_t *pd = &pp->dp_stmt[i].ds_desc;

		if (strncmp(pd->dpd_provider, "pid", 3) != 0) {
			aq.aq_untyped = 1;
			snprintf(aq.aq_why, sizeof(aq.aq_why), "%s:%s:%s:%s "
			    "has no argument types", pd->dpd_provider,
			    pd->dpd_mod, pd->dpd_func, pd->dpd_name);
			continue;
		}
		if (!dt_dwarf_isglob(pd->dpd_provider) &&
		    !dt_dwarf_isglob(pd->dpd_mod) &&
		    !dt_dwarf_isglob(pd->dpd_func) &&
		    !dt_dwarf_isglob(pd->dpd_name)) {
			dt_dwarf_argone(dtp, pd->dpd_provider, pd->dpd_mod,
			    pd->dpd_func, pd->dpd_name, &aq);
			continue;
		}
		memset(&d, 0, sizeof(d));
		strcpy(d.dtpd_provider, pd->dpd_provider);
		strcpy(d.dtpd_mod, pd->dpd_mod);
		strcpy(d.dtpd_func, pd->dpd_func);
		strcpy(d.dtpd_name, pd->dpd_name);
		(void)dtrace_probe_iter(dtp, &d, dt_dwarf_argprobe, &aq);
	}
	if (aq.aq_differ) {
		snprintf(why, len, "the probes of the clause give it "
		    "different types");
		return NULL;
	}
	if (aq.aq_untyped || aq.aq_type == NULL) {
		snprintf(why, len, "%s", aq.aq_why);
		return NULL;
	}
	return aq.aq_type;
}

/*
 * The pointer into the target to base: a cast of argN to a pointer to a
 * target's type makes one, as do flexible array members.  The DWARF's
 * own pointer types are made in dt_dwarf_conv.
 */
const dt_type_t *
dt_dwarf_userptr(dtrace_hdl_t *dtp, const dt_type_t *base)
{
	struct dt_dwarf *dd = dt_dwarf_state(dtp);
	dt_type_t *t;
	char *cn;

	if (dd == NULL)
		return NULL;
	for (t = dd->dd_uptrs; t != NULL; t = t->dt_next) {
		if (t->dt_base == base)
			return t;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->dt_kind = DT_TK_PTR;
	t->dt_user = DT_TU_PTR;
	t->dt_size = 8;
	t->dt_rank = 4;
	t->dt_base = base;
	if ((cn = dt_decl_cname(t, "")) == NULL) {
		free(t);
		return NULL;
	}
	t->dt_name = cn;
	t->dt_next = dd->dd_uptrs;
	dd->dd_uptrs = t;
	return t;
}

/* print(): a number for the type it shows, in the record (dt_cc.c) */
int
dt_dwarf_ptype(dtrace_hdl_t *dtp, const dt_type_t *t, uint32_t *idp)
{
	struct dt_dwarf *dd = dt_dwarf_state(dtp);
	const dt_type_t **nt;
	uint32_t i;

	if (dd == NULL)
		return -1;
	for (i = 0; i < dd->dd_nptypes; i++) {
		if (dd->dd_ptypes[i] == t) {
			*idp = i;
			return 0;
		}
	}
	if ((nt = reallocarray(dd->dd_ptypes, dd->dd_nptypes + 1,
	    sizeof(*nt))) == NULL)
		return -1;
	dd->dd_ptypes = nt;
	nt[dd->dd_nptypes] = t;
	*idp = dd->dd_nptypes++;
	return 0;
}

/* Are the n bytes at p all zero?  (print() leaves such members out) */
static int
dt_dwarf_iszero(const unsigned char *p, size_t n)
{
	while (n-- > 0) {
		if (*p++ != 0)
			return 0;
	}
	return 1;
}

static uint64_t
dt_dwarf_getu(const unsigned char *p, uint32_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, size < 8 ? size : 8);
		return u64;
	}
}

static int64_t
dt_dwarf_gets(const unsigned char *p, uint32_t size)
{
	uint64_t u = dt_dwarf_getu(p, size);
	int sh = size < 8 ? 64 - (int)size * 8 : 0;

	return (int64_t)(u << sh) >> sh;
}

/*
 * print() shows a value in one of two forms: dtrace-utils' for print()
 * of a pointer (dt_dwarf_print), illumos's for an array or a float
 * (dt_dwarf_printv).  Both walk arrays, structs, unions and bit-fields
 * alike (dt_dwarf_pwalk); a dt_dwarf_pfmt_t holds what each form
 * prints of what the walk finds.
 */
typedef struct dt_dwarf_pfmt {
	/* an integer, a pointer or a floating-point value */
	void	(*pf_scalar)(FILE *, const dt_type_t *,
		    const unsigned char *);
	/* a char array as a string: 1, or 0 to show its elements */
	int	(*pf_string)(FILE *, const dt_type_t *,
		    const unsigned char *);
	/* a line's left margin at a depth */
	void	(*pf_indent)(FILE *, int);
	/*
	 * The start of a member's line, up to its value, or all of a
	 * bit-field's line but its end (its value is u): 0 leaves the
	 * member out.  Then its value, then pf_mend.
	 */
	int	(*pf_member)(FILE *, const dt_member_t *,
		    const unsigned char *, int);
	int	(*pf_bits)(FILE *, const dt_member_t *, uint64_t, int);
	const char *pf_mend;
	/* an array's elements a line each, a level deeper, as members */
	int	pf_lines;
	/* a struct or union cut short shows the members it holds */
	int	pf_partial;
} dt_dwarf_pfmt_t;

static void dt_dwarf_pwalk(const dt_dwarf_pfmt_t *, FILE *,
    const dt_type_t *, const unsigned char *, size_t, int);

/* "struct <anon>": a struct with no tag, and no typedef for it */
static int
dt_dwarf_isanon(const dt_type_t *t)
{
	size_t n = strlen(t->dt_name);

	return n > 7 && strcmp(t->dt_name + n - 7, " <anon>") == 0;
}

/* Is t shown on lines of its own: a struct, a union, an array not of char? */
static int
dt_dwarf_isblock(const dt_type_t *t)
{
	return t->dt_kind == DT_TK_STRUCT || t->dt_kind == DT_TK_UNION ||
	    (t->dt_kind == DT_TK_ARRAY && !(t->dt_base->dt_kind == DT_TK_INT &&
	    t->dt_base->dt_size == 1));
}

/* An enum's value: its enumerator's name, or the number if none has it */
static void
dt_dwarf_penum(FILE *fp, const dt_type_t *t, const unsigned char *p)
{
	int64_t v = t->dt_signed ? dt_dwarf_gets(p, t->dt_size) :
	    (int64_t)dt_dwarf_getu(p, t->dt_size);
	const dt_member_t *m;

	for (m = t->dt_members; m != NULL; m = m->dm_next) {
		if (m->dm_value == v)
			break;
	}
	if (m != NULL && m->dm_name != NULL)
		fprintf(fp, "%s", m->dm_name);
	else
		fprintf(fp, "%lld", (long long)v);
}

/*
 * dtrace-utils' form, after the value's "(type)": an integer in
 * decimal, a bit-field in hex, an enum by its enumerator's name, a
 * pointer in hex, a char array as a string, other arrays and structs
 * one element or member a line, members that are all zero left out.
 */
static void
dt_dwarf_pvalue_scalar(FILE *fp, const dt_type_t *t, const unsigned char *p)
{
	double d;
	float f;

	switch (t->dt_kind) {
	case DT_TK_INT:
		if (t->dt_signed)
			fprintf(fp, "%lld", (long long)dt_dwarf_gets(p,
			    t->dt_size));
		else
			fprintf(fp, "%llu", (unsigned long long)
			    dt_dwarf_getu(p, t->dt_size));
		break;
	case DT_TK_PTR:
		fprintf(fp, "0x%llx", (unsigned long long)dt_dwarf_getu(p, 8));
		break;
	default:
		if (t->dt_size == 4) {
			memcpy(&f, p, 4);
			fprintf(fp, "%f", (double)f);
		} else if (t->dt_size == 8) {
			memcpy(&d, p, 8);
			fprintf(fp, "%f", d);
		} else
			fprintf(fp, "?");
		break;
	}
}

static int
dt_dwarf_pvalue_string(FILE *fp, const dt_type_t *t, const unsigned char *p)
{
	uint32_t i;

	if (t->dt_base->dt_kind != DT_TK_INT || t->dt_base->dt_size != 1)
		return 0;
	fputc('"', fp);
	for (i = 0; i < t->dt_nelems && p[i] != '\0'; i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(fp, "\\%c", p[i]);
		else if (p[i] >= 0x20 && p[i] < 0x7f)
			fputc(p[i], fp);
		else
			fprintf(fp, "\\%03o", p[i]);
	}
	fputc('"', fp);
	return 1;
}

/* A line of print()'s output: the left margin, then depth spaces */
static void
dt_dwarf_pindent(FILE *fp, int depth)
{
	fprintf(fp, "%*s", 44 + depth, "");
}

static int
dt_dwarf_pvalue_member(FILE *fp, const dt_member_t *m,
    const unsigned char *p, int depth)
{
	const dt_type_t *mt = m->dm_type;

	if (dt_dwarf_iszero(p, mt->dt_size))
		return 0;
	dt_dwarf_pindent(fp, depth);
	if (m->dm_name != NULL)
		fprintf(fp, ".%s = ", m->dm_name);
	/* an anonymous struct or union: "(union)" */
	fprintf(fp, "(%.*s)%s", (int)(strlen(mt->dt_name) -
	    (dt_dwarf_isanon(mt) ? 7 : 0)), mt->dt_name,
	    dt_dwarf_isblock(mt) ? " " : "");
	return 1;
}

static int
dt_dwarf_pvalue_bits(FILE *fp, const dt_member_t *m, uint64_t u, int depth)
{
	if (u == 0)
		return 0;
	dt_dwarf_pindent(fp, depth);
	fprintf(fp, ".%s = (%s)0x%llx", m->dm_name, m->dm_type->dt_name,
	    (unsigned long long)u);
	return 1;
}

static const dt_dwarf_pfmt_t dt_dwarf_pvalue = {
	.pf_scalar = dt_dwarf_pvalue_scalar,
	.pf_string = dt_dwarf_pvalue_string,
	.pf_indent = dt_dwarf_pindent,
	.pf_member = dt_dwarf_pvalue_member,
	.pf_bits = dt_dwarf_pvalue_bits,
	.pf_mend = ",\n",
	.pf_lines = 1,
	.pf_partial = 1,
};

/*
 * illumos's form: integers and pointers in hex ("%#llx": 0 is "0"), a
 * char as 'c', an enum by its name, floating point as "%+.7e" (long
 * double "%+.16Le"), an array as "[ a, b ]" (a char array as a string
 * when it holds one), a struct or union as "{", then a member a line
 * ("type name = value", four spaces deeper for each level), then "}".
 */
static int
dt_dwarf_pill_ischar(const dt_type_t *t)
{
	return t->dt_kind == DT_TK_INT && t->dt_size == 1 &&
	    strstr(t->dt_name, "char") != NULL;
}

static void
dt_dwarf_pill_indent(FILE *fp, int nest)
{
	fprintf(fp, "%*s", nest * 4, "");
}

static void
dt_dwarf_pill_char(FILE *fp, unsigned char c)
{
	if (c == '\0')
		fprintf(fp, "'\\0'");
	else if (isprint(c))
		fprintf(fp, "'%c'", c);
	else
		fprintf(fp, "'\\%03o'", c);
}

static void
dt_dwarf_pill_scalar(FILE *fp, const dt_type_t *t, const unsigned char *p)
{
	long double ld;
	double d;
	float f;

	switch (t->dt_kind) {
	case DT_TK_INT:
		if (dt_dwarf_pill_ischar(t))
			dt_dwarf_pill_char(fp, p[0]);
		else
			fprintf(fp, "%#llx", (unsigned long long)
			    dt_dwarf_getu(p, t->dt_size));
		break;
	case DT_TK_PTR:
		fprintf(fp, "%#llx", (unsigned long long)dt_dwarf_getu(p, 8));
		break;
	default:
		if (t->dt_size == sizeof(f)) {
			memcpy(&f, p, sizeof(f));
			fprintf(fp, "%+.7e", (double)f);
		} else if (t->dt_size == sizeof(d)) {
			memcpy(&d, p, sizeof(d));
			fprintf(fp, "%+.7e", d);
		} else if (t->dt_size == sizeof(ld)) {
			memcpy(&ld, p, sizeof(ld));
			fprintf(fp, "%+.16Le", ld);
		} else
			fprintf(fp, "?");
		break;
	}
}

/*
 * A char array shown as a string: printable characters up to a NUL or
 * the end of the array (an empty string too), whatever follows the NUL.
 */
static int
dt_dwarf_pill_string(FILE *fp, const dt_type_t *t, const unsigned char *p)
{
	uint32_t i;

	if (!dt_dwarf_pill_ischar(t->dt_base))
		return 0;
	for (i = 0; i < t->dt_nelems && p[i] != '\0'; i++) {
		if (!isprint(p[i]))
			return 0;
	}
	fprintf(fp, "\"%.*s\"", (int)t->dt_nelems, p);
	return 1;
}

static int
dt_dwarf_pill_member(FILE *fp, const dt_member_t *m,
    const unsigned char *p, int nest)
{
	dt_dwarf_pill_indent(fp, nest);
	fprintf(fp, "%s %s = ", m->dm_type->dt_name,
	    m->dm_name != NULL ? m->dm_name : "");
	return 1;
}

static int
dt_dwarf_pill_bits(FILE *fp, const dt_member_t *m, uint64_t u, int nest)
{
	dt_dwarf_pill_member(fp, m, NULL, nest);
	fprintf(fp, "%#llx", (unsigned long long)u);
	return 1;
}

static const dt_dwarf_pfmt_t dt_dwarf_pill = {
	.pf_scalar = dt_dwarf_pill_scalar,
	.pf_string = dt_dwarf_pill_string,
	.pf_indent = dt_dwarf_pill_indent,
	.pf_member = dt_dwarf_pill_member,
	.pf_bits = dt_dwarf_pill_bits,
	.pf_mend = "\n",
	.pf_lines = 0,
	.pf_partial = 0,
};

/*
 * The value of type t at p (avail bytes of it recorded) in form pf,
 * depth levels deep: what is not recorded, or has no form, is "?".
 */
static void
dt_dwarf_pwalk(const dt_dwarf_pfmt_t *pf, FILE *fp, const dt_type_t *t,
    const unsigned char *p, size_t avail, int depth)
{
	const dt_member_t *m;
	uint32_t i, esz;
	uint64_t u;

	if (t->dt_size > avail && !(pf->pf_partial &&
	    (t->dt_kind == DT_TK_STRUCT || t->dt_kind == DT_TK_UNION))) {
		fprintf(fp, "?");
		return;
	}
	switch (t->dt_kind) {
	case DT_TK_INT:
	case DT_TK_PTR:
	case DT_TK_FLOAT:
		pf->pf_scalar(fp, t, p);
		break;
	case DT_TK_ENUM:
		dt_dwarf_penum(fp, t, p);
		break;
	case DT_TK_ARRAY:
		if (pf->pf_string(fp, t, p))
			break;
		esz = t->dt_base->dt_size;
		fprintf(fp, pf->pf_lines ? "[\n" : "[ ");
		for (i = 0; i < t->dt_nelems && esz != 0; i++) {
			if (pf->pf_lines)
				pf->pf_indent(fp, depth + 1);
			else if (i > 0)
				fprintf(fp, ", ");
			dt_dwarf_pwalk(pf, fp, t->dt_base, p + (size_t)i * esz,
			    avail - (size_t)i * esz, depth + pf->pf_lines);
			if (pf->pf_lines)
				fprintf(fp, "%s", pf->pf_mend);
		}
		if (pf->pf_lines) {
			pf->pf_indent(fp, depth);
			fprintf(fp, "]");
		} else
			fprintf(fp, " ]");
		break;
	case DT_TK_STRUCT:
	case DT_TK_UNION:
		fprintf(fp, "{\n");
		for (m = t->dt_members; m != NULL; m = m->dm_next) {
			const dt_type_t *mt = m->dm_type;
			const unsigned char *mp = p + m->dm_off;

			/*
			 * an anonymous member's members show under it; an
			 * unnamed bit-field is padding (no compiler of ours
			 * describes one, but DWARF may)
			 */
			if ((m->dm_flags & DT_MF_ANON) ||
			    (m->dm_bits != 0 && m->dm_name == NULL))
				continue;
			if (m->dm_off > avail ||
			    mt->dt_size > avail - m->dm_off)
				continue;
			if (m->dm_bits != 0) {
				u = dt_dwarf_getu(mp, mt->dt_size);
				u = (u >> m->dm_bitoff) & (m->dm_bits >= 64 ?
				    ~0ULL : (1ULL << m->dm_bits) - 1);
				if (!pf->pf_bits(fp, m, u, depth + 1))
					continue;
			} else {
				if (!pf->pf_member(fp, m, mp, depth + 1))
					continue;
				/* an opaque member's value is "?" */
				dt_dwarf_pwalk(pf, fp, mt, mp,
				    avail - m->dm_off, depth + 1);
			}
			fprintf(fp, "%s", pf->pf_mend);
		}
		pf->pf_indent(fp, depth);
		fprintf(fp, "}");
		break;
	default:
		fprintf(fp, "?");
		break;
	}
}

/*
 * A print() record: "0xaddr = *", then the object it points to, each
 * line at a margin of 44 columns, as dtrace-utils prints it.
 */
int
dt_dwarf_print(dtrace_hdl_t *dtp, FILE *fp, uint32_t id, const char *addr,
    const char *data, size_t size)
{
	struct dt_dwarf *dd = dtp->dt_dwarf;
	const dt_type_t *t;
	uint64_t a;

	if (dd == NULL || id >= dd->dd_nptypes) {
		errno = EINVAL;
		return -1;
	}
	t = dd->dd_ptypes[id];
	memcpy(&a, addr, sizeof(a));
	fprintf(fp, "0x%llx = *\n", (unsigned long long)a);
	dt_dwarf_pindent(fp, 0);
	fprintf(fp, "(%s)%s", t->dt_name, dt_dwarf_isblock(t) ? " " : "");
	dt_dwarf_pwalk(&dt_dwarf_pvalue, fp, t, (const unsigned char *)data,
	    size, 0);
	if (fprintf(fp, "\n") < 0)
		return -1;
	return 0;
}

/* print() of an array or a float's value: "int [3] [ 0x1, 0x2, 0x3 ]" */
int
dt_dwarf_printv(dtrace_hdl_t *dtp, FILE *fp, uint32_t id, const char *data,
    size_t size)
{
	struct dt_dwarf *dd = dtp->dt_dwarf;
	const dt_type_t *t;

	if (dd == NULL || id >= dd->dd_nptypes) {
		errno = EINVAL;
		return -1;
	}
	t = dd->dd_ptypes[id];
	fprintf(fp, "%s ", t->dt_name);
	dt_dwarf_pwalk(&dt_dwarf_pill, fp, t, (const unsigned char *)data,
	    size, 0);
	if (fprintf(fp, "\n") < 0)
		return -1;
	return 0;
}

void
dt_dwarf_fini(dtrace_hdl_t *dtp)
{
	struct dt_dwarf *dd = dtp->dt_dwarf;
	dt_dwarf_file_t *df;
	dt_dwarf_path_t *dp;
	dt_dwarf_ent_t *e;
	dt_type_t *t;
	dt_member_t *m;
	uint32_t i;

	if (dd == NULL)
		return;
	free(dd->dd_ptypes);
	while ((t = dd->dd_uptrs) != NULL) {
		dd->dd_uptrs = t->dt_next;
		free((char *)t->dt_name);
		free(t);
	}
	while ((dp = dd->dd_paths) != NULL) {
		dd->dd_paths = dp->dp_next;
		free(dp->dp_path);
		free(dp);
	}
	while ((df = dd->dd_files) != NULL) {
		dd->dd_files = df->df_next;
		for (i = 0; i < df->df_nhash; i++) {
			while ((e = df->df_hash[i]) != NULL) {
				df->df_hash[i] = e->de_next;
				free(e);
			}
		}
		free(df->df_hash);
		free(df->df_tc);
		while ((t = df->df_types) != NULL) {
			df->df_types = t->dt_next;
			while ((m = t->dt_members) != NULL) {
				t->dt_members = m->dm_next;
				free(m->dm_name);
				free(m);
			}
			free((char *)t->dt_name);
			free(t);
		}
		if (df->df_dw != NULL)
			dwarf_end(df->df_dw);
		if (df->df_fd != -1)
			close(df->df_fd);
		free(df->df_key);
		free(df->df_path);
		free(df);
	}
	free(dd);
	dtp->dt_dwarf = NULL;
}
