/*
 * fuzz_sdt.c: libFuzzer target for the <sys/sdt.h> probe notes the USDT
 * provider reads of a traced process's objects (fasttrap/ft_sdt.c),
 * which the process's owner writes.  An input that is an ELF object
 * (it starts with \177ELF) goes in a memfd and is read as
 * dtd_prov_usdt.c reads one: ft_elf_fdopen, then ft_sdt_elf; any other
 * input is the bytes of a .note.stapsdt section, walked as it is and as
 * a prelinked object's (.stapsdt.base moved).  Each note's argument
 * string is parsed (ft_sdt_args) and every argument read at a made-up
 * hit (ft_sdt_argval), whose registers and memory come from the input
 * too.  Any input must end in a clean refusal or a clean result.
 */
#include <sys/mman.h>
#include <sys/user.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int fuzz_sdt_fd = -1;

/* The made-up hit's memory: the input, from address 0x10000. */
struct fuzz_sdt_mem {
	const uint8_t	*fm_data;
	size_t		fm_len;
	size_t		fm_notes;	/* notes seen */
};

#define	FUZZ_SDT_MEMBASE	0x10000ULL

static int
fuzz_sdt_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct fuzz_sdt_mem *m = arg;

	if (len > 8)
		abort();	/* ft_sdt_argval reads at most a word */
	if (addr < FUZZ_SDT_MEMBASE || addr - FUZZ_SDT_MEMBASE > m->fm_len ||
	    len > m->fm_len - (addr - FUZZ_SDT_MEMBASE))
		return -1;
	memcpy(buf, m->fm_data + (addr - FUZZ_SDT_MEMBASE), len);
	return 0;
}

/* ft_sdt_elf's callback, as dtd_prov_usdt_note uses a note. */
static int
fuzz_sdt_note(void *arg, const ft_sdtnote_t *n)
{
	struct fuzz_sdt_mem *m = arg;
	ft_sdtarg_t a[FT_SDT_MAXARGS];
	struct user_regs_struct regs;
	uint64_t *r = (uint64_t *)(void *)&regs, v;
	size_t i, nr = sizeof(regs) / sizeof(uint64_t);
	int k, na;

	if (n->sn_prov == NULL || n->sn_name == NULL || n->sn_args == NULL ||
	    n->sn_prov[0] == '\0' || n->sn_name[0] == '\0')
		abort();	/* ft_sdt_notes promised strings */
	(void)strlen(n->sn_args);
	na = ft_sdt_args(n->sn_args, a, FT_SDT_MAXARGS);
	if (na < 0 || na > FT_SDT_MAXARGS)
		abort();
	/* registers that point into the memory, or at its edges */
	for (i = 0; i < nr; i++)
		r[i] = FUZZ_SDT_MEMBASE + (i * 13) % (m->fm_len + 1);
	r[0] = 0;
	r[1] = UINT64_MAX;
	for (k = 0; k < na; k++) {
		if (a[k].sa_kind == FT_SDTA_REG && (a[k].sa_reg < 0 ||
		    (size_t)a[k].sa_reg >= nr))
			abort();
		if (a[k].sa_kind == FT_SDTA_MEM && ((a[k].sa_reg !=
		    FT_REG_NONE && (a[k].sa_reg < 0 ||
		    (size_t)a[k].sa_reg >= nr)) || (a[k].sa_index !=
		    FT_REG_NONE && (a[k].sa_index < 0 ||
		    (size_t)a[k].sa_index >= nr))))
			abort();
		(void)ft_sdt_argval(&a[k], &regs, fuzz_sdt_read, m, &v);
	}
	/* a bounded count, as the provider's bound on a single object */
	return ++m->fm_notes >= 4096;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_sdt_mem m;
	char err[256];
	ft_elf_t *fe;
	int fd;

	m.fm_data = data;
	m.fm_len = size;
	m.fm_notes = 0;
	if (size < 4 || memcmp(data, "\177ELF", 4) != 0) {
		(void)ft_sdt_notes(data, size, 0, 0, fuzz_sdt_note, &m);
		m.fm_notes = 0;
		(void)ft_sdt_notes(data, size, 1, 0x401000, fuzz_sdt_note,
		    &m);
		return 0;
	}
	if (fuzz_sdt_fd == -1 &&
	    (fuzz_sdt_fd = memfd_create("fuzz_sdt", MFD_CLOEXEC)) == -1) {
		perror("fuzz_sdt: memfd_create");
		abort();
	}
	if (ftruncate(fuzz_sdt_fd, 0) == -1 ||
	    pwrite(fuzz_sdt_fd, data, size, 0) != (ssize_t)size)
		abort();
	if ((fd = dup(fuzz_sdt_fd)) == -1)
		abort();
	if ((fe = ft_elf_fdopen(fd, "fuzz", NULL, NULL, err,
	    sizeof(err))) != NULL) {
		(void)ft_sdt_elf(fe, fuzz_sdt_note, &m);
		ft_elf_close(fe);
	}
	return 0;
}
