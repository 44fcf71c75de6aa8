/*
 * test_ft_isa.c: x86-64 classification and function analysis (Zydis),
 * and ELF function symbols (libelf), on hand-made code and on the real
 * libc of this machine, whose IFUNCs are resolved from this process's
 * own image of it, and which files without IFUNCs are remembered.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"
#include "tap.h"

static void
test_decode(void)
{
	static const struct {
		const char	*name;
		uint8_t		bytes[16];
		int		len;
		int		type;
		int		riprel;
		uint64_t	target;	/* from pc 0x1000 */
	} cases[] = {
		{ "push %rbp", { 0x55 }, 1, FT_I_PUSH, 0, 0 },
		{ "push %r13", { 0x41, 0x55 }, 2, FT_I_PUSH, 0, 0 },
		{ "pop %rbp", { 0x5d }, 1, FT_I_POPBP, 0, 0 },
		{ "pop %r13", { 0x41, 0x5d }, 2, FT_I_COMMON, 0, 0 },
		{ "mov %rsp,%rbp", { 0x48, 0x89, 0xe5 }, 3, FT_I_COMMON, 0, 0 },
		{ "ret", { 0xc3 }, 1, FT_I_RET, 0, 0 },
		{ "rep ret", { 0xf3, 0xc3 }, 2, FT_I_RET, 0, 0 },
		{ "ret $8", { 0xc2, 0x08, 0x00 }, 3, FT_I_RET, 0, 0 },
		{ "leave", { 0xc9 }, 1, FT_I_LEAVE, 0, 0 },
		{ "int3", { 0xcc }, 1, FT_I_INT3, 0, 0 },
		{ "int $0x80", { 0xcd, 0x80 }, 2, FT_I_INT, 0, 0 },
		{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, FT_I_ENDBR, 0, 0 },
		{ "nopl 0(%rax,%rax)", { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 5,
		    FT_I_NOP, 0, 0 },
		{ "call rel32", { 0xe8, 0x10, 0x00, 0x00, 0x00 }, 5, FT_I_CALL,
		    0, 0x1015 },
		{ "jmp . (rel8)", { 0xeb, 0xfe }, 2, FT_I_JMP, 0, 0x1000 },
		{ "je +5", { 0x74, 0x05 }, 2, FT_I_JCC, 0, 0x1007 },
		{ "jne rel32 back", { 0x0f, 0x85, 0xf0, 0xff, 0xff, 0xff }, 6,
		    FT_I_JCC, 0, 0x0ff6 },
		{ "loop", { 0xe2, 0x02 }, 2, FT_I_JCC, 0, 0x1004 },
		{ "jmp *%rax", { 0xff, 0xe0 }, 2, FT_I_JMPIND, 0, 0 },
		{ "call *%rax", { 0xff, 0xd0 }, 2, FT_I_CALLIND, 0, 0 },
		{ "mov 0x10(%rip),%rax", { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 }, 7,
		    FT_I_COMMON, 1, 0 },
		{ "jmp *0x10(%rip)", { 0xff, 0x25, 0x10, 0, 0, 0 }, 6,
		    FT_I_JMPIND, 1, 0 },
		{ "syscall", { 0x0f, 0x05 }, 2, FT_I_SYSCALL, 0, 0 },
		{ "vmovdqu64 (%rdi),%zmm16 (AVX-512)",
		    { 0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x07 }, 6, FT_I_COMMON, 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ft_insn_t fi;
		int ok;

		ok = ft_isa_decode(cases[i].bytes, sizeof(cases[i].bytes),
		    0x1000, &fi) == 0 && fi.fi_len == cases[i].len &&
		    fi.fi_type == cases[i].type &&
		    fi.fi_riprel == cases[i].riprel &&
		    (cases[i].target == 0 || fi.fi_target == cases[i].target);
		if (!tap_ok(ok, "decode %s", cases[i].name))
			printf("#   len %d type %d riprel %d target %#llx\n",
			    fi.fi_len, fi.fi_type, fi.fi_riprel,
			    (unsigned long long)fi.fi_target);
	}
	{
		ft_insn_t fi;
		static const uint8_t rip[] = { 0x48, 0x8b, 0x05, 1, 2, 3, 4 };
		static const uint8_t bad[] = { 0x0f, 0xff };
		static const uint8_t cut[] = { 0x48, 0x8b };

		ft_isa_decode(rip, sizeof(rip), 0, &fi);
		tap_is(fi.fi_dispoff, 3, "disp32 offset of a rip-relative mov");
		tap_is(ft_isa_decode(bad, sizeof(bad), 0, &fi), -1,
		    "undefined opcode rejected");
		tap_is(ft_isa_decode(cut, sizeof(cut), 0, &fi), -1,
		    "truncated instruction rejected");
	}
}

static void
test_function(void)
{
	/*
	 * 0: push %rbp; 1: mov %rsp,%rbp; 4: test %edi,%edi; 6: je 0xb;
	 * 8: pop %rbp; 9: ret; a: nop; b: pop %rbp; c: jmp 0x100 (tail call);
	 * 11: ret
	 */
	static const uint8_t fn[] = { 0x55, 0x48, 0x89, 0xe5, 0x85, 0xff, 0x74,
	    0x03, 0x5d, 0xc3, 0x90, 0x5d, 0xe9, 0xef, 0x00, 0x00, 0x00, 0xc3 };
	/* the same with an indirect jmp: only pop %rbp; ret counts */
	static const uint8_t jt[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xe0, 0x5d,
	    0xc3, 0x31, 0xc0, 0xc3, 0xe9, 0x00, 0x01, 0x00, 0x00 };
	ft_fn_t ff;

	tap_is(ft_isa_function(fn, sizeof(fn), 0x1000, &ff), 0,
	    "function decodes");
	tap_is(ff.ff_ninsn, 10, "10 instruction boundaries");
	tap_is(ff.ff_jumptable, 0, "no jump table");
	tap_ok(ff.ff_nret == 3 && ff.ff_ret[0] == 0x9 && ff.ff_ret[1] == 0xc &&
	    ff.ff_ret[2] == 0x11, "return sites: ret, tail jmp, ret");
	tap_ok(ft_isa_is_insn(&ff, 0x8) && !ft_isa_is_insn(&ff, 0x7) &&
	    ft_isa_is_insn(&ff, 0x11) && !ft_isa_is_insn(&ff, 0x12),
	    "instruction boundary lookup");
	ft_isa_function_free(&ff);

	tap_is(ft_isa_function(jt, sizeof(jt), 0x1000, &ff), 0,
	    "jump-table function decodes");
	tap_is(ff.ff_jumptable, 1, "indirect jmp marks a jump table");
	tap_ok(ff.ff_nret == 1 && ff.ff_ret[0] == 0x7,
	    "only the frame-teardown ret is a return site");
	ft_isa_function_free(&ff);
}

static void
test_libc(void)
{
	static const char *const paths[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6",
		"/lib64/libc.so.6",
	};
	const ft_sym_t *m, *a, *s;
	ft_elf_t *fe = NULL;
	char err[256];
	size_t i, n, bad = 0, rets = 0, dup = 0;
	size_t idlen;

	for (i = 0; i < 3 && fe == NULL; i++)
		fe = ft_elf_open(paths[i], err, sizeof(err));
	if (!tap_ok(fe != NULL, "open libc (%s)", fe ? "" : err))
		return;
	n = ft_elf_nsyms(fe);
	tap_ok(n > 1000, "libc has %zu functions", n);
	tap_ok(ft_elf_is_pie(fe), "libc is ET_DYN");
	tap_ok(ft_elf_buildid(fe, &idlen) != NULL && idlen == 20,
	    "libc has a 20-byte build-id");
	m = ft_elf_lookup(fe, "malloc");
	a = ft_elf_lookup(fe, "__libc_malloc");
	tap_ok(m != NULL && a != NULL && m->fs_addr == a->fs_addr,
	    "malloc and __libc_malloc are one function");
	s = m ? ft_elf_addr(fe, m->fs_addr + 1) : NULL;
	tap_ok(s != NULL && m != NULL && s->fs_addr == m->fs_addr,
	    "address inside malloc maps back to it");
	tap_ok(s != NULL && strcmp(s->fs_name, "malloc") == 0,
	    "the alias is listed under its preferred name (%s)",
	    s ? s->fs_name : "none");
	tap_ok(ft_elf_lookup(fe, "no_such_function_here") == NULL,
	    "unknown name not found");

	/* Zydis must decode every function of glibc, AVX-512 included. */
	for (i = 0; i < n; i++) {
		const ft_sym_t *f = ft_elf_sym(fe, i);
		uint8_t *code;
		ft_fn_t ff;

		if (i > 0 && ft_elf_sym(fe, i - 1)->fs_addr == f->fs_addr)
			dup++;
		if (f->fs_size == 0 || (code = malloc(f->fs_size)) == NULL)
			continue;
		if (ft_elf_read(fe, f->fs_addr, code, f->fs_size) != 0 ||
		    ft_isa_function(code, f->fs_size, f->fs_addr, &ff) != 0) {
			if (bad++ < 5)
				printf("# cannot decode %s\n", f->fs_name);
		} else {
			rets += ff.ff_nret;
			ft_isa_function_free(&ff);
		}
		free(code);
	}
	tap_is(dup, 0, "no address listed twice");
	tap_is(bad, 0, "every libc function decodes");
	tap_ok(rets > n / 2, "%zu return sites found", rets);
	ft_elf_close(fe);
}

static uint64_t test_libc_bias;

static int
test_libc_find(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	if (base != NULL && strcmp(base + 1, "libc.so.6") == 0) {
		*(const char **)arg = info->dlpi_name;
		test_libc_bias = info->dlpi_addr;
		return 1;
	}
	return 0;
}

/* ft_elf_slotrd_t: this process's own image of libc, relocated. */
static int
test_libc_slotrd(void *arg, uint64_t addr, uint64_t *vp)
{
	(void)arg;
	memcpy(vp, (const void *)(uintptr_t)(addr + test_libc_bias),
	    sizeof(*vp));
	*vp -= test_libc_bias;
	return 0;
}

/*
 * glibc's IFUNCs name what their resolvers chose in this process, which
 * is what the dynamic linker hands out for the name (dlsym); without a
 * live image they are not offered.
 */
static void
test_ifunc(void)
{
	static const char *const names[] = {
		"strlen", "memcpy", "memmove", "memset", "strcmp", "strchr",
	};
	const char *path = NULL;
	const ft_sym_t *s;
	ft_elf_t *fe;
	char err[256];
	size_t i;
	void *want, *libc;
	int fd;

	dl_iterate_phdr(test_libc_find, &path);
	/* libc's own, not a sanitizer's interceptor of the same name */
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (!tap_ok(path != NULL && libc != NULL, "this process has libc.so.6"))
		return;
	fe = ft_elf_open(path, err, sizeof(err));
	tap_ok(fe != NULL && ft_elf_lookup(fe, "strlen") == NULL,
	    "without a live image, no IFUNC is offered");
	ft_elf_close(fe);
	if ((fd = open(path, O_RDONLY)) == -1 ||
	    (fe = ft_elf_fdopen(fd, path, test_libc_slotrd, NULL, err,
	    sizeof(err))) == NULL) {
		tap_ok(0, "open libc with its live image (%s)", err);
		return;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint8_t *code;
		ft_fn_t ff;
		int ok = 0;

		s = ft_elf_lookup(fe, names[i]);
		want = dlsym(libc, names[i]);
		tap_ok(s != NULL && want != NULL && s->fs_addr +
		    test_libc_bias == (uint64_t)(uintptr_t)want,
		    "%s is the function its resolver chose (%#llx, %p)",
		    names[i], s ? (unsigned long long)s->fs_addr : 0ULL,
		    want);
		/* bounded by its FDE: it decodes, and returns */
		if (s != NULL && s->fs_size > 0 && s->fs_size < 65536 &&
		    (code = malloc(s->fs_size)) != NULL) {
			if (ft_elf_read(fe, s->fs_addr, code, s->fs_size) ==
			    0 && ft_isa_function(code, s->fs_size, s->fs_addr,
			    &ff) == 0) {
				ok = ff.ff_nret > 0;
				ft_isa_function_free(&ff);
			}
			free(code);
		}
		tap_ok(ok, "%s: %llu bytes that decode, with a return site",
		    names[i], s ? (unsigned long long)s->fs_size : 0ULL);
	}
	ft_elf_close(fe);
	dlclose(libc);
}

static uint64_t test_pick_fast;

/* ft_elf_slotrd_t: an image of the ifunc trigger, relocated. */
static int
test_pick_slotrd(void *arg, uint64_t addr, uint64_t *vp)
{
	(void)arg;
	(void)addr;
	*vp = test_pick_fast;
	return 0;
}

static int
test_copy(const char *from, int to)
{
	char buf[8192];
	ssize_t n;
	int fd;

	if ((fd = open(from, O_RDONLY)) == -1 || ftruncate(to, 0) == -1 ||
	    lseek(to, 0, SEEK_SET) == -1)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(to, buf, (size_t)n) != n)
			break;
	close(fd);
	return n == 0 ? 0 : -1;
}

/*
 * ft_elf_ifuncs_open remembers a file without IRELATIVE relocations by
 * its identity, and a file rewritten in place (a rebuilt program, one
 * inode) is read again.
 */
static void
test_ifunc_noirel(void)
{
	const char *top = getenv("top_builddir");
	char loop[PATH_MAX], ifn[PATH_MAX], tmp[] = "/tmp/test_ft_isa.XXXXXX";
	const ft_sym_t *s;
	ft_elf_t *fe;
	char err[256];
	int fd, i;

	snprintf(loop, sizeof(loop), "%s/tests/triggers/loop", top ? top : ".");
	snprintf(ifn, sizeof(ifn), "%s/tests/triggers/ifunc", top ? top : ".");
	fe = ft_elf_open(ifn, err, sizeof(err));
	s = fe != NULL ? ft_elf_lookup(fe, "pick_fast") : NULL;
	test_pick_fast = s != NULL ? s->fs_addr : 0;
	ft_elf_close(fe);
	if (!tap_ok(test_pick_fast != 0, "the ifunc trigger has pick_fast") ||
	    (fd = mkstemp(tmp)) == -1)
		return;
	for (i = 0; i < 2; i++) {
		fe = test_copy(loop, fd) == 0 ? ft_elf_ifuncs_open(open(tmp,
		    O_RDONLY), tmp, test_pick_slotrd, NULL, err, sizeof(err)) :
		    NULL;
		tap_ok(fe != NULL && ft_elf_nsyms(fe) == 0,
		    "loop: no IFUNC (%s time)", i ? "second" : "first");
		ft_elf_close(fe);
	}
	/* the same inode, now the ifunc trigger: its mtime and size moved */
	fe = test_copy(ifn, fd) == 0 ? ft_elf_ifuncs_open(open(tmp, O_RDONLY),
	    tmp, test_pick_slotrd, NULL, err, sizeof(err)) : NULL;
	s = fe != NULL ? ft_elf_lookup(fe, "pick") : NULL;
	tap_ok(s != NULL && s->fs_addr == test_pick_fast && s->fs_size > 0 &&
	    ft_elf_nsyms(fe) == 1,
	    "rewritten in place as the ifunc trigger: pick is pick_fast, alone");
	ft_elf_close(fe);
	close(fd);
	unlink(tmp);
}

int
main(void)
{
	test_decode();
	test_function();
	test_libc();
	test_ifunc();
	test_ifunc_noirel();
	return tap_done();
}
