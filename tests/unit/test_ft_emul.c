/*
 * test_ft_emul.c: how a thread resumes after a probe's int3 (fasttrap):
 * which instructions are emulated, which run out of line, which are
 * refused; %rip-relative relocation; branch conditions and the flags of an
 * emulated add/sub to %rsp, checked against the CPU itself; errno's
 * thread-pointer offset decoded from __errno_location.
 */
#include <sys/user.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"
#include "tap.h"

#define	RIDX(f)	((int)(offsetof(struct user_regs_struct, f) / 8))

static void
test_kinds(void)
{
	static const struct {
		const char	*name;
		uint8_t		bytes[16];
		int		kind;
		int		reg;
		int64_t		imm;
	} cases[] = {
		{ "push %rbp", { 0x55 }, FT_E_PUSH, RIDX(rbp), 0 },
		{ "push %r12", { 0x41, 0x54 }, FT_E_PUSH, RIDX(r12), 0 },
		{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, FT_E_SKIP, -1, 0 },
		{ "nop", { 0x90 }, FT_E_SKIP, -1, 0 },
		{ "jmp rel8", { 0xeb, 0x10 }, FT_E_JMP, -1, 0 },
		{ "call rel32", { 0xe8, 1, 0, 0, 0 }, FT_E_CALL, -1, 0 },
		{ "ret", { 0xc3 }, FT_E_RET, -1, 0 },
		{ "ret $16", { 0xc2, 0x10, 0x00 }, FT_E_RET, -1, 16 },
		{ "jne rel8", { 0x75, 0x02 }, FT_E_JCC, -1, 0 },
		{ "loop", { 0xe2, 0x02 }, FT_E_LOOP, -1, 0 },
		{ "sub $0x18,%rsp", { 0x48, 0x83, 0xec, 0x18 }, FT_E_SUBRSP, -1,
		    0x18 },
		{ "add $0x1000,%rsp", { 0x48, 0x81, 0xc4, 0, 0x10, 0, 0 },
		    FT_E_ADDRSP, -1, 0x1000 },
		{ "mov %rsp,%rbp", { 0x48, 0x89, 0xe5 }, FT_E_MOVRBP, -1, 0 },
		{ "jmp *%rax", { 0xff, 0xe0 }, FT_E_JMPIND, RIDX(rax), 0 },
		{ "call *%r11", { 0x41, 0xff, 0xd3 }, FT_E_CALLIND, RIDX(r11), 0 },
		{ "jmp *0x10(%rip)", { 0xff, 0x25, 0x10, 0, 0, 0 }, FT_E_JMPIND,
		    -1, 0 },
		{ "call *8(%rax,%rbx,8)", { 0xff, 0x54, 0xd8, 0x08 },
		    FT_E_CALLIND, -1, 0 },
		{ "mov %rdi,%rax", { 0x48, 0x89, 0xf8 }, FT_E_OOL, -1, 0 },
		{ "mov 0x10(%rip),%rax", { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 },
		    FT_E_OOL, -1, 0 },
		{ "pop %rbp", { 0x5d }, FT_E_OOL, -1, 0 },
		{ "syscall", { 0x0f, 0x05 }, FT_E_OOL, -1, 0 },
		{ "int3", { 0xcc }, FT_E_REFUSE, -1, 0 },
		{ "int $0x80", { 0xcd, 0x80 }, FT_E_REFUSE, -1, 0 },
		{ "xbegin", { 0xc7, 0xf8, 0, 0, 0, 0 }, FT_E_REFUSE, -1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ft_emul_t ee;
		int ok;

		ok = ft_isa_emul(cases[i].bytes, 16, 0x1000, &ee) == 0 &&
		    ee.ee_kind == cases[i].kind &&
		    (cases[i].reg < 0 || ee.ee_reg == cases[i].reg) &&
		    ee.ee_imm == cases[i].imm;
		tap_ok(ok, "emul: %s (kind %d)", cases[i].name, ee.ee_kind);
	}
}

static void
test_memop(void)
{
	static const uint8_t jrip[] = { 0xff, 0x25, 0x10, 0, 0, 0 };
	static const uint8_t cidx[] = { 0xff, 0x54, 0xd8, 0x08 };
	static const uint8_t cfs[] = { 0x64, 0xff, 0x14, 0x25, 0x28, 0, 0, 0 };
	ft_emul_t ee;

	ft_isa_emul(jrip, sizeof(jrip), 0x1000, &ee);
	tap_ok(ee.ee_mem && ee.ee_base == FT_REG_RIP && ee.ee_disp == 0x10,
	    "jmp *0x10(%%rip): memory at next + 0x10");
	ft_isa_emul(cidx, sizeof(cidx), 0x1000, &ee);
	tap_ok(ee.ee_mem && ee.ee_base == RIDX(rax) &&
	    ee.ee_index == RIDX(rbx) && ee.ee_scale == 8 && ee.ee_disp == 8,
	    "call *8(%%rax,%%rbx,8): base, index, scale, displacement");
	ft_isa_emul(cfs, sizeof(cfs), 0x1000, &ee);
	tap_ok(ee.ee_kind == FT_E_CALLIND && ee.ee_mem &&
	    ee.ee_seg == RIDX(fs_base) && ee.ee_disp == 0x28,
	    "call *%%fs:0x28: through fs_base");
}

static void
test_relocate(void)
{
	/* mov 0x10(%rip),%rax at 0x1000 reads 0x1017 */
	static const uint8_t mov[] = { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 };
	uint8_t out[16];
	ft_insn_t fi;
	int32_t d;

	ft_isa_decode(mov, sizeof(mov), 0x1000, &fi);
	tap_ok(ft_isa_relocate(mov, &fi, 0x1000, 0x5000, out) == 0,
	    "relocate within reach");
	memcpy(&d, out + fi.fi_dispoff, 4);
	tap_is(0x5000 + 7 + d, 0x1017, "relocated operand reaches the same byte");
	tap_is(ft_isa_relocate(mov, &fi, 0x1000, 0x100001000ULL, out), -1,
	    "relocation beyond 2 GiB is refused");
}

/* The CPU's own flags after sub/add, to compare with the emulation. */
static uint64_t
cpu_addsub(uint64_t a, uint64_t b, int sub)
{
	uint64_t fl;

	if (sub)
		__asm__ volatile("sub %2, %1\n\tpushfq\n\tpopq %0" :
		    "=r" (fl), "+r" (a) : "r" (b) : "cc");
	else
		__asm__ volatile("add %2, %1\n\tpushfq\n\tpopq %0" :
		    "=r" (fl), "+r" (a) : "r" (b) : "cc");
	return fl;
}

static void
test_flags(void)
{
	static const uint64_t v[] = { 0, 1, 8, 0x18, 0x7fffffffffffffffULL,
	    0x8000000000000000ULL, 0xffffffffffffffffULL, 0x7ffc12345678ULL,
	    0x10, 0xf };
	const uint64_t mask = 0x8d5;	/* CF PF AF ZF SF OF */
	size_t i, j;
	int bad = 0, sub;

	for (sub = 0; sub < 2; sub++)
		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			for (j = 0; j < sizeof(v) / sizeof(v[0]); j++)
				if ((ft_isa_addsub_flags(0x202, v[i], v[j],
				    sub) & mask) != (cpu_addsub(v[i], v[j],
				    sub) & mask))
					bad++;
	tap_is(bad, 0, "add/sub flags equal the CPU's");
}

static void
test_cond(void)
{
	ft_emul_t ee;
	uint8_t jcc[2] = { 0x70, 0 };
	int cc, fl, bad = 0;

	/* each condition against its definition, over every flag mix */
	for (cc = 0; cc < 16; cc++) {
		jcc[0] = 0x70 + cc;
		ft_isa_emul(jcc, 2, 0, &ee);
		for (fl = 0; fl < 32; fl++) {
			uint64_t f = (fl & 1 ? 0x1 : 0) | (fl & 2 ? 0x4 : 0) |
			    (fl & 4 ? 0x40 : 0) | (fl & 8 ? 0x80 : 0) |
			    (fl & 16 ? 0x800 : 0);
			int cf = fl & 1, pf = !!(fl & 2), zf = !!(fl & 4),
			    sf = !!(fl & 8), of = !!(fl & 16), want;

			switch (cc >> 1) {
			case 0: want = of; break;
			case 1: want = cf; break;
			case 2: want = zf; break;
			case 3: want = cf || zf; break;
			case 4: want = sf; break;
			case 5: want = pf; break;
			case 6: want = sf != of; break;
			default: want = zf || sf != of; break;
			}
			if (cc & 1)
				want = !want;
			if (ft_isa_cond(&ee, f, 0) != want)
				bad++;
		}
	}
	tap_is(bad, 0, "the 16 jcc conditions");
	{
		static const uint8_t loop[] = { 0xe2, 0x02 },
		    jrcxz[] = { 0xe3, 0x02 };

		ft_isa_emul(loop, 2, 0, &ee);
		tap_ok(ft_isa_cond(&ee, 0, 1) && !ft_isa_cond(&ee, 0, 0),
		    "loop: taken while %%rcx (decremented) is not 0");
		ft_isa_emul(jrcxz, 2, 0, &ee);
		tap_ok(ft_isa_cond(&ee, 0, 0) && !ft_isa_cond(&ee, 0, 5),
		    "jrcxz: taken when %%rcx is 0");
	}
}

/* errno's TLS offset from the shapes of __errno_location */
static void
test_tlsoff(void)
{
	/* glibc 2.36 libc.so.6: mov 0x1ab779(%rip),%rax; add %fs:0,%rax */
	static const uint8_t ie[] = { 0x48, 0x8b, 0x05, 0x79, 0xb7, 0x1a, 0x00,
	    0x64, 0x48, 0x03, 0x04, 0x25, 0, 0, 0, 0, 0xc3 };
	/* static: mov $-0x48,%rax; add %fs:0,%rax */
	static const uint8_t le[] = { 0x48, 0xc7, 0xc0, 0xb8, 0xff, 0xff, 0xff,
	    0x64, 0x48, 0x03, 0x04, 0x25, 0, 0, 0, 0, 0xc3 };
	/* the other order: mov %fs:0,%rax; add 0x10(%rip),%rax */
	static const uint8_t rev[] = { 0x64, 0x48, 0x8b, 0x04, 0x25, 0, 0, 0, 0,
	    0x48, 0x03, 0x05, 0x10, 0, 0, 0, 0xc3 };
	/* something else: mov 0x10(%rip),%rax; ret (no thread pointer) */
	static const uint8_t none[] = { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0,
	    0xc3 };
	uint64_t slot = 0;
	int64_t off = 0;

	tap_ok(ft_isa_tlsoff(ie, sizeof(ie), 0x27660, &slot, &off) == 1 &&
	    slot == 0x27667 + 0x1ab779, "initial-exec: the GOT slot");
	tap_ok(ft_isa_tlsoff(le, sizeof(le), 0x403c90, &slot, &off) == 0 &&
	    off == -0x48, "local-exec: the offset");
	tap_ok(ft_isa_tlsoff(rev, sizeof(rev), 0x1000, &slot, &off) == 1 &&
	    slot == 0x1010 + 0x10, "fs:0 first, then the GOT slot");
	tap_ok(ft_isa_tlsoff(none, sizeof(none), 0x1000, &slot, &off) == -1,
	    "no thread pointer: refused");
	tap_ok(ft_isa_tlsoff(ie, 7, 0x27660, &slot, &off) == -1,
	    "cut short: refused");
}

int
main(void)
{
	test_kinds();
	test_memop();
	test_relocate();
	test_flags();
	test_cond();
	test_tlsoff();
	return tap_done();
}
