/*
 * fuzz_elf.c: libFuzzer target for what the daemon reads of a traced
 * process's files, which the process's owner writes: the input is one
 * file, put in a memfd as ft_procfs_mapopen() would hand it over.  On it
 * run the load-bias reader (ft_elf_bias), the symbol table, note and
 * build-id reader (ft_elf_fdopen, with its IFUNCs resolved from a live
 * image that the input describes, through .eh_frame) and every lookup the pid provider
 * makes of it (by name, by address, the bytes of each function, the
 * dynamic section), the decoding of each function's bytes into probe
 * sites (ft_isa_function, as ft_proc_func_sites does) and of
 * __errno_location's into errno's TLS offset (ft_isa_tlsoff, as
 * ft_proc_errno_mod does), and the unwinder's use of libdw: the module
 * reported from the descriptor, as ft_unwind.c's find_elf gives it, and
 * the call frame information (.eh_frame and .debug_frame) looked up at
 * each function.  Any input must end in a clean refusal or a clean
 * result.
 */
#include <sys/mman.h>

#include <elfutils/libdwfl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_ELF_MAXSYMS	256	/* lookups per input: bounded time */

static int fuzz_elf_fd = -1;

static int
fuzz_elf_nodebug(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file, const char *debuglink,
    GElf_Word crc, char **debugfile)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file;
	(void)debuglink; (void)crc; (void)debugfile;
	return -1;
}

static int
fuzz_elf_noelf(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, char **file, Elf **elfp)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file;
	(void)elfp;
	return -1;
}

static char *fuzz_elf_debugpath = NULL;

/* As ft_unwind.c's: no separate debuginfo, files only as given. */
static const Dwfl_Callbacks fuzz_elf_callbacks = {
	.find_elf = fuzz_elf_noelf,
	.find_debuginfo = fuzz_elf_nodebug,
	.debuginfo_path = &fuzz_elf_debugpath,
};

/* The frame rules of CFI at addr, read as the unwinder reads them. */
static void
fuzz_elf_frame(Dwarf_CFI *cfi, Dwarf_Addr addr)
{
	Dwarf_Frame *fr;
	Dwarf_Op *ops, dummy[3];
	size_t nops;
	int r;

	if (cfi == NULL || dwarf_cfi_addrframe(cfi, addr, &fr) != 0)
		return;
	(void)dwarf_frame_cfa(fr, &ops, &nops);
	for (r = 0; r < 17; r++)
		(void)dwarf_frame_register(fr, r, dummy, &ops, &nops);
	free(fr);
}

static void
fuzz_elf_cfi(int fd, const ft_elf_t *fe)
{
	Dwfl *d;
	Dwfl_Module *mod;
	Dwarf_CFI *eh, *dw;
	Dwarf_Addr bias = 0, dbias = 0;
	size_t i, n;
	int dfd;

	if ((dfd = dup(fd)) == -1)
		return;
	if ((d = dwfl_begin(&fuzz_elf_callbacks)) == NULL) {
		close(dfd);
		return;
	}
	dwfl_report_begin(d);
	/* at a PIE's usual place; an ET_EXEC goes where it says */
	mod = dwfl_report_elf(d, "fuzz", "fuzz", dfd, 0x555555554000ULL,
	    false);
	if (mod == NULL)
		close(dfd);
	if (dwfl_report_end(d, NULL, NULL) != 0 || mod == NULL) {
		dwfl_end(d);
		return;
	}
	eh = dwfl_module_eh_cfi(mod, &bias);
	dw = dwfl_module_dwarf_cfi(mod, &dbias);
	n = fe != NULL ? ft_elf_nsyms(fe) : 0;
	if (n > FUZZ_ELF_MAXSYMS)
		n = FUZZ_ELF_MAXSYMS;
	for (i = 0; i < n; i++) {
		const ft_sym_t *s = ft_elf_sym(fe, i);

		fuzz_elf_frame(eh, s->fs_addr);
		fuzz_elf_frame(eh, s->fs_addr + 1);
		fuzz_elf_frame(dw, s->fs_addr);
	}
	/* and where no symbol says: the entry of a stripped object */
	fuzz_elf_frame(eh, 0x1000);
	fuzz_elf_frame(dw, 0x1000);
	dwfl_end(d);
}

/* ft_proc_func_sites: the function's bytes, from the file, decoded. */
static void
fuzz_elf_sites(const ft_elf_t *fe, const ft_sym_t *s)
{
	uint8_t *buf;
	ft_fn_t ff;
	uint32_t off;

	/* the daemon's bound is 16 MB; no input here is bigger than this */
	if (s->fs_size == 0 || s->fs_size > 65536 ||
	    (buf = malloc(s->fs_size)) == NULL)
		return;
	if (ft_elf_read(fe, s->fs_addr, buf, s->fs_size) == 0 &&
	    ft_isa_function(buf, s->fs_size, s->fs_addr, &ff) == 0) {
		for (off = 0; off < s->fs_size; off++)
			(void)ft_isa_is_insn(&ff, off);
		ft_isa_function_free(&ff);
	}
	free(buf);
}

/* ft_proc_errno_mod: errno's offset from __errno_location's code. */
static void
fuzz_elf_errno(const ft_elf_t *fe)
{
	const ft_sym_t *s;
	uint8_t code[32];
	uint64_t slot;
	int64_t off;
	size_t n;

	if ((s = ft_elf_lookup(fe, "__errno_location")) == NULL)
		return;
	n = s->fs_size != 0 && s->fs_size < sizeof(code) ? s->fs_size :
	    sizeof(code);
	if (ft_elf_read(fe, s->fs_addr, code, n) == 0)
		(void)ft_isa_tlsoff(code, n, s->fs_addr, &slot, &off);
}

static void
fuzz_elf_syms(const ft_elf_t *fe)
{
	const ft_sym_t *s, *a;
	uint64_t v, sz;
	uint8_t buf[16];
	size_t i, n, len;

	(void)ft_elf_is_pie(fe);
	(void)ft_elf_buildid(fe, &len);
	(void)ft_elf_dynamic(fe, &v, &sz);
	n = ft_elf_nsyms(fe);
	for (i = 0; i < n && i < FUZZ_ELF_MAXSYMS; i++) {
		s = ft_elf_sym(fe, i);
		(void)ft_elf_addr(fe, s->fs_addr);
		if (ft_elf_lookup(fe, s->fs_name) == NULL)
			abort();	/* every function is found by its name */
		len = s->fs_size < sizeof(buf) ? (size_t)s->fs_size :
		    sizeof(buf);
		(void)ft_elf_read(fe, s->fs_addr, buf, len ? len : 1);
		(void)ft_elf_addr(fe, s->fs_addr + s->fs_size);
		fuzz_elf_sites(fe, s);
	}
	fuzz_elf_errno(fe);
	n = ft_elf_naliases(fe);
	for (i = 0; i < n && i < FUZZ_ELF_MAXSYMS; i++) {
		a = ft_elf_alias(fe, i);
		if (ft_elf_lookup(fe, a->fs_name) == NULL)
			abort();
	}
	(void)ft_elf_lookup(fe, "main");
	(void)ft_elf_read(fe, UINT64_MAX - 4, buf, 8);
}

/*
 * ft_proc_slotrd, for the IFUNCs: the live image as the input says.  A
 * slot holds its own address plus the number in e_ident's padding
 * (bytes 8 to 15, which nothing else reads), so that one input can
 * point every IRELATIVE slot into its text, as a relocated image does.
 */
static int
fuzz_elf_slotrd(void *arg, uint64_t addr, uint64_t *vp)
{
	const uint8_t *data = arg;
	uint64_t delta;

	memcpy(&delta, data + 8, sizeof(delta));
	*vp = addr + delta;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	ft_elf_t *fe;
	uint64_t bias;
	int fd;

	if (fuzz_elf_fd == -1 &&
	    (fuzz_elf_fd = memfd_create("fuzz_elf", MFD_CLOEXEC)) == -1) {
		perror("fuzz_elf: memfd_create");
		abort();
	}
	if (ftruncate(fuzz_elf_fd, 0) == -1 || (size > 0 &&
	    pwrite(fuzz_elf_fd, data, size, 0) != (ssize_t)size))
		abort();

	/* ft_proc_maps: the bias, for a mapping of offset 0 and one past */
	(void)ft_elf_bias(fuzz_elf_fd, 0x555555554000ULL, 0, &bias);
	(void)ft_elf_bias(fuzz_elf_fd, 0x555555555000ULL, 0x1000, &bias);

	/* ft_proc_mod_elf: the descriptor is the object's from now on */
	if ((fd = dup(fuzz_elf_fd)) == -1)
		abort();
	fe = ft_elf_fdopen(fd, "fuzz", size >= 16 ? fuzz_elf_slotrd : NULL,
	    (void *)data, err, sizeof(err));
	if (fe != NULL)
		fuzz_elf_syms(fe);
	fuzz_elf_cfi(fuzz_elf_fd, fe);
	ft_elf_close(fe);
	return 0;
}
