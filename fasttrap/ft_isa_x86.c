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
