/*
 * ft.h: fasttrap, user-space instrumentation.  Knows nothing of D: it
 * finds probe sites in ELF objects and x86-64 code, and (with the pid
 * provider) controls traced processes through its backends.
 *
 * Files: ft_elf.c (function symbols from .symtab and .dynsym, reading an
 * object's bytes by virtual address), ft_isa_x86.c (Zydis decoding:
 * instruction classes, branch targets, RIP-relative operands, and the
 * entry/return/offset sites of a whole function).
 */
#ifndef FT_H
#define FT_H

#include <stddef.h>
#include <stdint.h>

/* A function symbol.  Aliases (several names, one address) appear once. */
typedef struct ft_sym {
	const char	*fs_name;
	uint64_t	fs_addr;	/* st_value: link-time virtual address */
	uint64_t	fs_size;
	uint8_t		fs_bind;	/* STB_* */
} ft_sym_t;

typedef struct ft_elf ft_elf_t;

/* ft_elf.c */
ft_elf_t	*ft_elf_open(const char *, char *, size_t);
void		ft_elf_close(ft_elf_t *);
int		ft_elf_is_pie(const ft_elf_t *);
size_t		ft_elf_nsyms(const ft_elf_t *);
const ft_sym_t	*ft_elf_sym(const ft_elf_t *, size_t);
const ft_sym_t	*ft_elf_lookup(const ft_elf_t *, const char *);
const ft_sym_t	*ft_elf_addr(const ft_elf_t *, uint64_t);
int		ft_elf_read(const ft_elf_t *, uint64_t, void *, size_t);
const uint8_t	*ft_elf_buildid(const ft_elf_t *, size_t *);

/* Instruction classes that matter to probes. */
enum ft_itype {
	FT_I_COMMON = 0,	/* anything else: run out of line */
	FT_I_RET,		/* ret, rep ret, ret imm16 */
	FT_I_JMP,		/* jmp rel8/rel32 */
	FT_I_JMPIND,		/* jmp through a register or memory */
	FT_I_JCC,		/* jcc, loop*, jrcxz: conditional, relative */
	FT_I_CALL,		/* call rel32 */
	FT_I_CALLIND,		/* call through a register or memory */
	FT_I_PUSH,		/* push reg */
	FT_I_POPBP,		/* pop %rbp */
	FT_I_LEAVE,		/* leave */
	FT_I_NOP,		/* nop of any length */
	FT_I_ENDBR,		/* endbr64 */
	FT_I_INT3,		/* int3: someone else's breakpoint */
	FT_I_INT,		/* int N, int1, into: refused */
	FT_I_SYSCALL		/* syscall */
};

typedef struct ft_insn {
	uint8_t		fi_len;		/* bytes */
	uint8_t		fi_type;	/* enum ft_itype */
	uint8_t		fi_riprel;	/* has a %rip-relative memory operand */
	uint8_t		fi_dispoff;	/* offset of that operand's disp32 */
	uint64_t	fi_target;	/* absolute target of a relative branch */
} ft_insn_t;

/* What a whole function offers to the pid provider. */
typedef struct ft_fn {
	uint32_t	*ff_insn;	/* offset of every instruction */
	size_t		ff_ninsn;
	uint32_t	*ff_ret;	/* offsets of return sites */
	size_t		ff_nret;
	int		ff_jumptable;	/* has an indirect jmp: be conservative */
} ft_fn_t;

/* ft_isa_x86.c */
int		ft_isa_decode(const uint8_t *, size_t, uint64_t, ft_insn_t *);
int		ft_isa_function(const uint8_t *, size_t, uint64_t, ft_fn_t *);
void		ft_isa_function_free(ft_fn_t *);
int		ft_isa_is_insn(const ft_fn_t *, uint32_t);

#endif /* FT_H */
