/*
 * ft_isa_x86.c: x86-64 decoding for probe sites and displaced execution.
 *
 * Zydis does the decoding; this file classifies what a probe needs to
 * know: is the instruction a return, a branch (and where to), a push or
 * a nop that can be emulated, a %rip-relative access that must be
 * relocated when run out of line, or a trap we must not overwrite.
 * ft_isa_function() walks a whole function the way illumos's pid
 * provider does: every instruction boundary is an offset-probe site;
 * every ret, and every jmp/jcc that leaves the function (a tail call), is
 * a return site; a function with an indirect jmp (a likely jump table)
 * gets only frame-teardown returns and no offset probes, because its
 * code may hold data and its boundaries cannot be trusted.
 */
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "ft.h"

static ZydisDecoder ft_isa_decoder;
static int ft_isa_ready;

static void
ft_isa_init(void)
{
	if (!ft_isa_ready) {
		ZydisDecoderInit(&ft_isa_decoder, ZYDIS_MACHINE_MODE_LONG_64,
		    ZYDIS_STACK_WIDTH_64);
		ft_isa_ready = 1;
	}
}

/*
 * Decode one instruction of at most avail bytes at address pc.
 * Returns 0, or -1 if the bytes are not a valid instruction.
 */
int
ft_isa_decode(const uint8_t *code, size_t avail, uint64_t pc, ft_insn_t *fi)
{
	ZydisDecodedInstruction in;
	int rel = 0, i;

	ft_isa_init();
	memset(fi, 0, sizeof(*fi));
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&ft_isa_decoder, NULL,
	    code, avail, &in)))
		return -1;
	fi->fi_len = in.length;
	fi->fi_type = FT_I_COMMON;

	if ((in.attributes & ZYDIS_ATTRIB_HAS_MODRM) && in.raw.modrm.mod == 0 &&
	    in.raw.modrm.rm == 5) {
		fi->fi_riprel = 1;
		fi->fi_dispoff = in.raw.disp.offset;
	}
	/* Zydis calls %rip-relative memory "relative" too: look at the imm. */
	for (i = 0; i < 2; i++) {
		if (in.raw.imm[i].is_relative) {
			fi->fi_target = pc + in.length +
			    (uint64_t)in.raw.imm[i].value.s;
			rel = 1;
			break;
		}
	}

	switch (in.mnemonic) {
	case ZYDIS_MNEMONIC_RET:
		fi->fi_type = FT_I_RET;
		break;
	case ZYDIS_MNEMONIC_JMP:
		fi->fi_type = rel ? FT_I_JMP : FT_I_JMPIND;
		break;
	case ZYDIS_MNEMONIC_CALL:
		fi->fi_type = rel ? FT_I_CALL : FT_I_CALLIND;
		break;
	case ZYDIS_MNEMONIC_PUSH:
		/* push %reg: 0x50-0x57, REX.B selects r8-r15 */
		if (in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
		    (in.opcode & 0xf8) == 0x50)
			fi->fi_type = FT_I_PUSH;
		break;
	case ZYDIS_MNEMONIC_POP:
		if (in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
		    in.opcode == 0x5d && !in.raw.rex.B)
			fi->fi_type = FT_I_POPBP;
		break;
	case ZYDIS_MNEMONIC_LEAVE:
		fi->fi_type = FT_I_LEAVE;
		break;
	case ZYDIS_MNEMONIC_NOP:
		fi->fi_type = FT_I_NOP;
		break;
	case ZYDIS_MNEMONIC_ENDBR64:
		fi->fi_type = FT_I_ENDBR;
		break;
	case ZYDIS_MNEMONIC_INT3:
		fi->fi_type = FT_I_INT3;
		break;
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INTO:
		fi->fi_type = FT_I_INT;
		break;
	case ZYDIS_MNEMONIC_SYSCALL:
		fi->fi_type = FT_I_SYSCALL;
		break;
	default:
		if (in.meta.category == ZYDIS_CATEGORY_COND_BR)
			fi->fi_type = FT_I_JCC;
		break;
	}
	return 0;
}

static int
ft_isa_push(uint32_t **arr, size_t *n, size_t *cap, uint32_t v)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		uint32_t *na = realloc(*arr, ncap * sizeof(uint32_t));

		if (na == NULL)
			return -1;
		*arr = na;
		*cap = ncap;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

/*
 * Analyse the size bytes of a function loaded at pc.  Returns 0, or -1 if
 * some bytes do not decode (the caller then offers only an entry probe).
 */
int
ft_isa_function(const uint8_t *code, size_t size, uint64_t pc, ft_fn_t *ff)
{
	size_t off = 0, icap = 0, rcap = 0;
	ft_insn_t prev, fi;
	int first = 1;

	memset(ff, 0, sizeof(*ff));
	memset(&prev, 0, sizeof(prev));
	/* First pass: boundaries and the jump-table verdict. */
	while (off < size) {
		if (ft_isa_decode(code + off, size - off, pc + off, &fi) == -1)
			goto fail;
		if (ft_isa_push(&ff->ff_insn, &ff->ff_ninsn, &icap, off) == -1)
			goto fail;
		if (fi.fi_type == FT_I_JMPIND)
			ff->ff_jumptable = 1;
		off += fi.fi_len;
	}
	/* Second pass: return sites. */
	for (size_t i = 0; i < ff->ff_ninsn; i++) {
		uint32_t at = ff->ff_insn[i];
		int isret = 0;

		ft_isa_decode(code + at, size - at, pc + at, &fi);
		switch (fi.fi_type) {
		case FT_I_RET:
			isret = !ff->ff_jumptable || (!first &&
			    (prev.fi_type == FT_I_LEAVE ||
			    prev.fi_type == FT_I_POPBP));
			break;
		case FT_I_JMP:
		case FT_I_JCC:
			/* a branch out of the function is a tail call */
			isret = !ff->ff_jumptable &&
			    (fi.fi_target < pc || fi.fi_target >= pc + size);
			break;
		default:
			break;
		}
		if (isret && ft_isa_push(&ff->ff_ret, &ff->ff_nret, &rcap,
		    at) == -1)
			goto fail;
		prev = fi;
		first = 0;
	}
	return 0;
fail:
	ft_isa_function_free(ff);
	return -1;
}

void
ft_isa_function_free(ft_fn_t *ff)
{
	free(ff->ff_insn);
	free(ff->ff_ret);
	memset(ff, 0, sizeof(*ff));
}

/* Is off the start of an instruction of the function? */
int
ft_isa_is_insn(const ft_fn_t *ff, uint32_t off)
{
	size_t lo = 0, hi = ff->ff_ninsn;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ff->ff_insn[mid] == off)
			return 1;
		if (ff->ff_insn[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* struct user_regs_struct, as an array of words, indexed by Zydis GPR64. */
#define	FT_ISA_RIDX(f)	((int8_t)(offsetof(struct user_regs_struct, f) / 8))

static int8_t
ft_isa_reg(ZydisRegister r)
{
	static const int8_t gpr[16] = {
		FT_ISA_RIDX(rax), FT_ISA_RIDX(rcx), FT_ISA_RIDX(rdx),
		FT_ISA_RIDX(rbx), FT_ISA_RIDX(rsp), FT_ISA_RIDX(rbp),
		FT_ISA_RIDX(rsi), FT_ISA_RIDX(rdi), FT_ISA_RIDX(r8),
		FT_ISA_RIDX(r9), FT_ISA_RIDX(r10), FT_ISA_RIDX(r11),
		FT_ISA_RIDX(r12), FT_ISA_RIDX(r13), FT_ISA_RIDX(r14),
		FT_ISA_RIDX(r15)
	};

	if (r == ZYDIS_REGISTER_NONE)
		return FT_REG_NONE;
	if (r == ZYDIS_REGISTER_RIP)
		return FT_REG_RIP;
	if (r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15)
		return gpr[r - ZYDIS_REGISTER_RAX];
	return -3;	/* a register we do not emulate with */
}

/*
 * Decide how a thread resumes after the int3 that replaced the
 * instruction at pc.  Branches and stack operations that are cheap to
 * emulate are emulated: running them out of line would compute targets
 * and return addresses from the scratch slot.  Everything else runs out
 * of line.  Returns 0, or -1 if the bytes do not decode.
 */
int
ft_isa_emul(const uint8_t *code, size_t avail, uint64_t pc, ft_emul_t *ee)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	const ZydisDecodedOperand *o;

	memset(ee, 0, sizeof(*ee));
	ee->ee_reg = ee->ee_base = ee->ee_index = ee->ee_seg = FT_REG_NONE;
	if (ft_isa_decode(code, avail, pc, &ee->ee_insn) == -1)
		return -1;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&ft_isa_decoder, code, avail,
	    &in, op)))
		return -1;

	switch (ee->ee_insn.fi_type) {
	case FT_I_INT3:
	case FT_I_INT:
		ee->ee_kind = FT_E_REFUSE;
		return 0;
	case FT_I_NOP:
	case FT_I_ENDBR:
		ee->ee_kind = FT_E_SKIP;
		return 0;
	case FT_I_RET:
		/* a far return (retf) is not ours to emulate */
		if (in.mnemonic != ZYDIS_MNEMONIC_RET)
			break;
		ee->ee_kind = FT_E_RET;
		if (in.operand_count_visible > 0 &&
		    op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			ee->ee_imm = (int64_t)op[0].imm.value.u;
		return 0;
	case FT_I_JMP:
		ee->ee_kind = FT_E_JMP;
		return 0;
	case FT_I_CALL:
		ee->ee_kind = FT_E_CALL;
		return 0;
	case FT_I_PUSH:
		if (in.operand_width != 64)
			break;
		ee->ee_kind = FT_E_PUSH;
		ee->ee_reg = ft_isa_reg(op[0].reg.value);
		if (ee->ee_reg < 0)
			break;
		return 0;
	case FT_I_JCC:
		switch (in.mnemonic) {
		case ZYDIS_MNEMONIC_LOOP:
			ee->ee_cc = FT_CC_LOOP;
			break;
		case ZYDIS_MNEMONIC_LOOPE:
			ee->ee_cc = FT_CC_LOOPE;
			break;
		case ZYDIS_MNEMONIC_LOOPNE:
			ee->ee_cc = FT_CC_LOOPNE;
			break;
		case ZYDIS_MNEMONIC_JRCXZ:
			ee->ee_cc = FT_CC_JRCXZ;
			break;
		case ZYDIS_MNEMONIC_JECXZ:
			ee->ee_cc = FT_CC_JECXZ;
			break;
		default:
			/* 0x70-0x7f, 0x0f 0x80-0x8f: the condition is the low nibble */
			if (!((in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
			    (in.opcode & 0xf0) == 0x70) ||
			    (in.opcode_map == ZYDIS_OPCODE_MAP_0F &&
			    (in.opcode & 0xf0) == 0x80))) {
				ee->ee_kind = FT_E_REFUSE;	/* xbegin */
				return 0;
			}
			ee->ee_kind = FT_E_JCC;
			ee->ee_cc = in.opcode & 0x0f;
			return 0;
		}
		ee->ee_kind = FT_E_LOOP;
		ee->ee_ecx = in.address_width == 32;
		return 0;
	case FT_I_JMPIND:
	case FT_I_CALLIND:
		if (in.mnemonic != ZYDIS_MNEMONIC_JMP &&
		    in.mnemonic != ZYDIS_MNEMONIC_CALL)
			break;
		o = &op[0];
		if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
			ee->ee_reg = ft_isa_reg(o->reg.value);
			if (ee->ee_reg < 0)
				break;
		} else if (o->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    o->size == 64 && in.address_width == 64) {
			ee->ee_mem = 1;
			ee->ee_base = ft_isa_reg(o->mem.base);
			ee->ee_index = ft_isa_reg(o->mem.index);
			ee->ee_scale = o->mem.scale;
			ee->ee_disp = o->mem.disp.value;
			if (ee->ee_base < FT_REG_RIP || ee->ee_index < FT_REG_NONE)
				break;
			if (o->mem.segment == ZYDIS_REGISTER_FS)
				ee->ee_seg = FT_ISA_RIDX(fs_base);
			else if (o->mem.segment == ZYDIS_REGISTER_GS)
				ee->ee_seg = FT_ISA_RIDX(gs_base);
		} else {
			break;
		}
		ee->ee_kind = ee->ee_insn.fi_type == FT_I_JMPIND ?
		    FT_E_JMPIND : FT_E_CALLIND;
		return 0;
	case FT_I_SYSCALL:
	default:
		break;
	}

	/* The frame set-up a function entry probe lands on most. */
	if ((in.mnemonic == ZYDIS_MNEMONIC_SUB ||
	    in.mnemonic == ZYDIS_MNEMONIC_ADD) && in.operand_count_visible == 2 &&
	    !(in.attributes & ZYDIS_ATTRIB_HAS_LOCK) &&
	    op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    op[0].reg.value == ZYDIS_REGISTER_RSP &&
	    op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		ee->ee_kind = in.mnemonic == ZYDIS_MNEMONIC_SUB ? FT_E_SUBRSP :
		    FT_E_ADDRSP;
		ee->ee_imm = op[1].imm.value.s;
		return 0;
	}
	if (in.mnemonic == ZYDIS_MNEMONIC_MOV && in.operand_count_visible == 2 &&
	    op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    op[0].reg.value == ZYDIS_REGISTER_RBP &&
	    op[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    op[1].reg.value == ZYDIS_REGISTER_RSP) {
		ee->ee_kind = FT_E_MOVRBP;
		return 0;
	}

	/*
	 * Out of line.  A relative branch of another kind (xbegin, a far or
	 * 16-bit form) would go astray from the slot: refuse it.
	 */
	if (ee->ee_insn.fi_type != FT_I_COMMON &&
	    ee->ee_insn.fi_type != FT_I_SYSCALL &&
	    ee->ee_insn.fi_type != FT_I_POPBP &&
	    ee->ee_insn.fi_type != FT_I_LEAVE &&
	    ee->ee_insn.fi_type != FT_I_PUSH) {
		ee->ee_kind = FT_E_REFUSE;
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		if (in.raw.imm[i].is_relative) {
			ee->ee_kind = FT_E_REFUSE;
			return 0;
		}
	}
	ee->ee_kind = FT_E_OOL;
	return 0;
}

/*
 * Copy the instruction at from (fi describes it) to out for execution at
 * to, rewriting a %rip-relative displacement so it reaches the same
 * byte.  Returns 0, or -1 if the new displacement does not fit in 32 bits
 * (the slot is too far from the data).
 */
int
ft_isa_relocate(const uint8_t *code, const ft_insn_t *fi, uint64_t from,
    uint64_t to, uint8_t *out)
{
	int32_t d32;
	int64_t nd;

	memcpy(out, code, fi->fi_len);
	if (!fi->fi_riprel)
		return 0;
	memcpy(&d32, code + fi->fi_dispoff, 4);
	nd = (int64_t)d32 + (int64_t)(from - to);
	if (nd < INT32_MIN || nd > INT32_MAX)
		return -1;
	d32 = (int32_t)nd;
	memcpy(out + fi->fi_dispoff, &d32, 4);
	return 0;
}

#define	FT_ISA_CF	0x0001
#define	FT_ISA_PF	0x0004
#define	FT_ISA_AF	0x0010
#define	FT_ISA_ZF	0x0040
#define	FT_ISA_SF	0x0080
#define	FT_ISA_OF	0x0800

/* Is the branch of a JCC or LOOP taken, given rflags and %rcx (after a
 * loop's decrement)? */
int
ft_isa_cond(const ft_emul_t *ee, uint64_t fl, uint64_t rcx)
{
	int r, cf = !!(fl & FT_ISA_CF), zf = !!(fl & FT_ISA_ZF),
	    sf = !!(fl & FT_ISA_SF), of = !!(fl & FT_ISA_OF),
	    pf = !!(fl & FT_ISA_PF);

	if (ee->ee_kind == FT_E_LOOP) {
		uint64_t c = ee->ee_ecx ? (uint32_t)rcx : rcx;

		switch (ee->ee_cc) {
		case FT_CC_LOOP:
			return c != 0;
		case FT_CC_LOOPE:
			return c != 0 && zf;
		case FT_CC_LOOPNE:
			return c != 0 && !zf;
		default:
			return c == 0;	/* jrcxz, jecxz: rcx not decremented */
		}
	}
	switch (ee->ee_cc >> 1) {
	case 0:
		r = of;
		break;
	case 1:
		r = cf;
		break;
	case 2:
		r = zf;
		break;
	case 3:
		r = cf || zf;
		break;
	case 4:
		r = sf;
		break;
	case 5:
		r = pf;
		break;
	case 6:
		r = sf != of;
		break;
	default:
		r = zf || sf != of;
		break;
	}
	return (ee->ee_cc & 1) ? !r : r;
}

/*
 * The rflags after a 64-bit add (sub == 0) or sub of b to/from a, giving
 * res: the emulated "sub $n,%rsp" must leave the flags the real one would.
 */
uint64_t
ft_isa_addsub_flags(uint64_t fl, uint64_t a, uint64_t b, int sub)
{
	uint64_t res = sub ? a - b : a + b;
	uint8_t lo = (uint8_t)res;

	fl &= ~(uint64_t)(FT_ISA_CF | FT_ISA_PF | FT_ISA_AF | FT_ISA_ZF |
	    FT_ISA_SF | FT_ISA_OF);
	if (sub ? a < b : res < a)
		fl |= FT_ISA_CF;
	if (!__builtin_parity(lo))
		fl |= FT_ISA_PF;
	if ((a ^ b ^ res) & 0x10)
		fl |= FT_ISA_AF;
	if (res == 0)
		fl |= FT_ISA_ZF;
	if (res >> 63)
		fl |= FT_ISA_SF;
	if (sub ? ((a ^ b) & (a ^ res)) >> 63 : (~(a ^ b) & (a ^ res)) >> 63)
		fl |= FT_ISA_OF;
	return fl;
}

/*
 * The thread-pointer offset an errno-style accessor returns, from its
 * code at pc: glibc's __errno_location is "mov X,%rax; add %fs:0,%rax;
 * ret" (in either order), where X is a GOT slot holding the TLS offset
 * (initial-exec: "mov off(%rip),%rax", the slot filled in by the dynamic
 * linker) or the offset itself (local-exec, a static executable: "mov
 * $imm,%rax").  1 with *slotp the slot's address, 0 with *offp the
 * offset, or -1 when the code is something else.
 */
int
ft_isa_tlsoff(const uint8_t *code, size_t avail, uint64_t pc,
    uint64_t *slotp, int64_t *offp)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisRegister reg = ZYDIS_REGISTER_NONE;
	int have = -1, fsadd = 0, n;
	size_t off = 0;

	ft_isa_init();
	memset(&in, 0, sizeof(in));
	for (n = 0; n < 4 && off < avail; n++) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&ft_isa_decoder,
		    code + off, avail - off, &in, op)))
			return -1;
		if (in.mnemonic == ZYDIS_MNEMONIC_RET)
			break;
		if (in.mnemonic == ZYDIS_MNEMONIC_ENDBR64 ||
		    in.mnemonic == ZYDIS_MNEMONIC_NOP) {
			off += in.length;
			continue;
		}
		if (in.operand_width != 64 || in.operand_count_visible != 2 ||
		    op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    (reg != ZYDIS_REGISTER_NONE && op[0].reg.value != reg))
			return -1;
		reg = op[0].reg.value;
		if (in.mnemonic == ZYDIS_MNEMONIC_MOV && have == -1 &&
		    op[1].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    op[1].mem.base == ZYDIS_REGISTER_RIP &&
		    op[1].mem.index == ZYDIS_REGISTER_NONE &&
		    op[1].mem.segment != ZYDIS_REGISTER_FS &&
		    op[1].mem.segment != ZYDIS_REGISTER_GS) {
			*slotp = pc + off + in.length +
			    (uint64_t)op[1].mem.disp.value;
			have = 1;
		} else if (in.mnemonic == ZYDIS_MNEMONIC_MOV && have == -1 &&
		    op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			*offp = op[1].imm.value.s;
			have = 0;
		} else if (!fsadd && (in.mnemonic == ZYDIS_MNEMONIC_ADD ||
		    (in.mnemonic == ZYDIS_MNEMONIC_MOV && have == -1)) &&
		    op[1].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    op[1].mem.segment == ZYDIS_REGISTER_FS &&
		    op[1].mem.base == ZYDIS_REGISTER_NONE &&
		    op[1].mem.index == ZYDIS_REGISTER_NONE &&
		    op[1].mem.disp.value == 0) {
			/* add %fs:0,%rax; or mov %fs:0,%rax, add X after */
			fsadd = 1;
		} else if (in.mnemonic == ZYDIS_MNEMONIC_ADD && fsadd &&
		    have == -1 && op[1].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    op[1].mem.base == ZYDIS_REGISTER_RIP &&
		    op[1].mem.index == ZYDIS_REGISTER_NONE) {
			*slotp = pc + off + in.length +
			    (uint64_t)op[1].mem.disp.value;
			have = 1;
		} else if (in.mnemonic == ZYDIS_MNEMONIC_ADD && fsadd &&
		    have == -1 && op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			*offp = op[1].imm.value.s;
			have = 0;
		} else
			return -1;
		off += in.length;
	}
	if (in.mnemonic != ZYDIS_MNEMONIC_RET || !fsadd ||
	    reg != ZYDIS_REGISTER_RAX)
		return -1;
	return have;
}
