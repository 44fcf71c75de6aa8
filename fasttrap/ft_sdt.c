/*
 * ft_sdt.c: statically defined probes of systemtap's <sys/sdt.h>, as
 * Debian's python3, PostgreSQL and libstdc++ carry them.
 *
 * Each probe is an ELF note (type 3, owner "stapsdt") in .note.stapsdt
 * whose descriptor is three addresses (the probe's nop, the link-time
 * address of .stapsdt.base when the note was assembled, the semaphore)
 * and three strings (provider, name, arguments).  A prelinked object
 * moved .stapsdt.base and not the notes: the difference between the
 * section's address and the note's is added to the other two.
 *
 * The argument string is what gas was given for each operand, after a
 * size: "N@OP" (N bytes, negative when signed), OP a register, an
 * immediate or a memory operand.  The bytes come from the traced
 * process's files (its owner writes them): every field is bounded.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"

#define	FT_SDT_NOTETYPE	3

/* A register as gas names it: its index in user_regs_struct, width. */
typedef struct ft_sdtreg {
	const char	*sr_name;
	int8_t		sr_idx;
	uint8_t		sr_size;
	uint8_t		sr_shift;
} ft_sdtreg_t;

/* user_regs_struct, as 64-bit words */
#define	R15	0
#define	R14	1
#define	R13	2
#define	R12	3
#define	RBP	4
#define	RBX	5
#define	R11	6
#define	R10	7
#define	R9	8
#define	R8	9
#define	RAX	10
#define	RCX	11
#define	RDX	12
#define	RSI	13
#define	RDI	14
#define	RIP	16
#define	RSP	19

static const ft_sdtreg_t ft_sdt_regs[] = {
	{ "rax", RAX, 8, 0 }, { "eax", RAX, 4, 0 }, { "ax", RAX, 2, 0 },
	{ "al", RAX, 1, 0 }, { "ah", RAX, 1, 8 },
	{ "rbx", RBX, 8, 0 }, { "ebx", RBX, 4, 0 }, { "bx", RBX, 2, 0 },
	{ "bl", RBX, 1, 0 }, { "bh", RBX, 1, 8 },
	{ "rcx", RCX, 8, 0 }, { "ecx", RCX, 4, 0 }, { "cx", RCX, 2, 0 },
	{ "cl", RCX, 1, 0 }, { "ch", RCX, 1, 8 },
	{ "rdx", RDX, 8, 0 }, { "edx", RDX, 4, 0 }, { "dx", RDX, 2, 0 },
	{ "dl", RDX, 1, 0 }, { "dh", RDX, 1, 8 },
	{ "rsi", RSI, 8, 0 }, { "esi", RSI, 4, 0 }, { "si", RSI, 2, 0 },
	{ "sil", RSI, 1, 0 },
	{ "rdi", RDI, 8, 0 }, { "edi", RDI, 4, 0 }, { "di", RDI, 2, 0 },
	{ "dil", RDI, 1, 0 },
	{ "rbp", RBP, 8, 0 }, { "ebp", RBP, 4, 0 }, { "bp", RBP, 2, 0 },
	{ "bpl", RBP, 1, 0 },
	{ "rsp", RSP, 8, 0 }, { "esp", RSP, 4, 0 }, { "sp", RSP, 2, 0 },
	{ "spl", RSP, 1, 0 },
	{ "rip", RIP, 8, 0 },
	{ "r8", R8, 8, 0 }, { "r8d", R8, 4, 0 }, { "r8w", R8, 2, 0 },
	{ "r8b", R8, 1, 0 },
	{ "r9", R9, 8, 0 }, { "r9d", R9, 4, 0 }, { "r9w", R9, 2, 0 },
	{ "r9b", R9, 1, 0 },
	{ "r10", R10, 8, 0 }, { "r10d", R10, 4, 0 }, { "r10w", R10, 2, 0 },
	{ "r10b", R10, 1, 0 },
	{ "r11", R11, 8, 0 }, { "r11d", R11, 4, 0 }, { "r11w", R11, 2, 0 },
	{ "r11b", R11, 1, 0 },
	{ "r12", R12, 8, 0 }, { "r12d", R12, 4, 0 }, { "r12w", R12, 2, 0 },
	{ "r12b", R12, 1, 0 },
	{ "r13", R13, 8, 0 }, { "r13d", R13, 4, 0 }, { "r13w", R13, 2, 0 },
	{ "r13b", R13, 1, 0 },
	{ "r14", R14, 8, 0 }, { "r14d", R14, 4, 0 }, { "r14w", R14, 2, 0 },
	{ "r14b", R14, 1, 0 },
	{ "r15", R15, 8, 0 }, { "r15d", R15, 4, 0 }, { "r15w", R15, 2, 0 },
	{ "r15b", R15, 1, 0 },
};

/* The little-endian 64-bit word at p. */
static uint64_t
ft_sdt_word(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t
ft_sdt_word32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/*
 * Call fn for each probe note of a .note.stapsdt section's bytes;
 * hasbase: the object has .stapsdt.base, at link-time address base.
 * Stops at fn's first non-zero return, which it returns; notes that are
 * not well formed are skipped, a truncated section ends the walk.
 */
int
ft_sdt_notes(const void *data, size_t len, int hasbase, uint64_t base,
    int (*fn)(void *, const ft_sdtnote_t *), void *arg)
{
	const uint8_t *p = data;
	size_t off = 0, nsz, dsz, i;
	ft_sdtnote_t n;
	const char *s[3];
	const uint8_t *d;
	uint32_t type;
	int rc;

	while (len - off >= 12) {
		nsz = ft_sdt_word32(p + off);
		dsz = ft_sdt_word32(p + off + 4);
		type = ft_sdt_word32(p + off + 8);
		off += 12;
		if (nsz > len - off || ((nsz + 3) & ~(size_t)3) > len - off)
			return 0;
		if (type != FT_SDT_NOTETYPE || nsz != 8 ||
		    memcmp(p + off, "stapsdt", 8) != 0) {
			off += (nsz + 3) & ~(size_t)3;
			if (dsz > len - off)
				return 0;
			off += (dsz + 3) & ~(size_t)3;
			if (off > len)
				return 0;
			continue;
		}
		off += 8;
		if (dsz > len - off)
			return 0;
		d = p + off;
		off += (dsz + 3) & ~(size_t)3;
		if (off > len)
			off = len;
		if (dsz < 24 + 3)
			continue;
		/* three NUL-terminated strings after the addresses */
		for (i = 0, s[0] = (const char *)d + 24; i < 3; i++) {
			const char *e = memchr(s[i], '\0',
			    dsz - (size_t)((const uint8_t *)s[i] - d));

			if (e == NULL)
				break;
			if (i < 2) {
				s[i + 1] = e + 1;
				if ((const uint8_t *)s[i + 1] >= d + dsz)
					break;
			}
		}
		if (i < 3 || s[0][0] == '\0' || s[1][0] == '\0')
			continue;
		memset(&n, 0, sizeof(n));
		n.sn_pc = ft_sdt_word(d);
		n.sn_sem = ft_sdt_word(d + 16);
		if (hasbase) {
			uint64_t diff = base - ft_sdt_word(d + 8);

			n.sn_pc += diff;
			if (n.sn_sem != 0)
				n.sn_sem += diff;
		}
		n.sn_prov = s[0];
		n.sn_name = s[1];
		n.sn_args = s[2];
		if ((rc = fn(arg, &n)) != 0)
			return rc;
	}
	return 0;
}

/* The probe notes of an object (ft_sdt_notes); 0 when it has none. */
int
ft_sdt_elf(const ft_elf_t *fe, int (*fn)(void *, const ft_sdtnote_t *),
    void *arg)
{
	const void *data, *bdata;
	size_t len, blen;
	uint64_t addr, base = 0;
	int hasbase;

	if (ft_elf_section(fe, ".note.stapsdt", &data, &len, &addr) == -1)
		return 0;
	/* SHT_NOBITS or not, its address is what matters */
	hasbase = ft_elf_section(fe, ".stapsdt.base", &bdata, &blen,
	    &base) == 0;
	return ft_sdt_notes(data, len, hasbase, base, fn, arg);
}

/* A register name after '%' at *sp: its row, *sp past it; NULL if none. */
static const ft_sdtreg_t *
ft_sdt_reg(const char **sp)
{
	const char *s = *sp;
	size_t n = 0, i;

	while (isalnum((unsigned char)s[n]))
		n++;
	for (i = 0; i < sizeof(ft_sdt_regs) / sizeof(ft_sdt_regs[0]); i++) {
		if (strlen(ft_sdt_regs[i].sr_name) == n &&
		    strncmp(ft_sdt_regs[i].sr_name, s, n) == 0) {
			*sp = s + n;
			return &ft_sdt_regs[i];
		}
	}
	return NULL;
}

/* A decimal or 0x number, with an optional sign; -1 if none. */
static int
ft_sdt_num(const char **sp, int64_t *vp)
{
	const char *s = *sp;
	char *end;
	int neg = 0;
	uint64_t v;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtoull(s, &end, 0);
	/* negated unsigned: "-9223372036854775808" must not overflow */
	*vp = (int64_t)(neg ? 0 - v : v);
	*sp = end;
	return 0;
}

/* One operand, after its size: a; s points past it.  -1: not ours. */
static int
ft_sdt_operand(const char **sp, ft_sdtarg_t *a)
{
	const char *s = *sp;
	const ft_sdtreg_t *r;
	int64_t v;

	if (*s == '$') {
		s++;
		if (ft_sdt_num(&s, &v) == -1)
			return -1;
		a->sa_kind = FT_SDTA_CONST;
		a->sa_val = v;
		*sp = s;
		return 0;
	}
	if (*s == '%') {
		s++;
		if ((r = ft_sdt_reg(&s)) == NULL)
			return -1;
		a->sa_kind = FT_SDTA_REG;
		a->sa_reg = r->sr_idx;
		a->sa_shift = r->sr_shift;
		if (a->sa_size == 0)
			a->sa_size = (int8_t)r->sr_size;
		*sp = s;
		return 0;
	}
	/* disp(%base[,%index[,scale]]), disp optional, base optional */
	a->sa_kind = FT_SDTA_MEM;
	a->sa_reg = FT_REG_NONE;
	a->sa_index = FT_REG_NONE;
	a->sa_scale = 1;
	a->sa_val = 0;
	if (*s != '(' && ft_sdt_num(&s, &a->sa_val) == -1)
		return -1;	/* a symbol: sym(%rip) is not resolved here */
	if (*s != '(') {
		/* an absolute address */
		*sp = s;
		return 0;
	}
	s++;
	if (*s == '%') {
		s++;
		if ((r = ft_sdt_reg(&s)) == NULL || r->sr_size != 8)
			return -1;
		a->sa_reg = r->sr_idx;
	}
	if (*s == ',') {
		s++;
		if (*s++ != '%' || (r = ft_sdt_reg(&s)) == NULL ||
		    r->sr_size != 8 || r->sr_idx == RIP)
			return -1;
		a->sa_index = r->sr_idx;
		if (*s == ',') {
			s++;
			if (ft_sdt_num(&s, &v) == -1 || (v != 1 && v != 2 &&
			    v != 4 && v != 8))
				return -1;
			a->sa_scale = (uint8_t)v;
		}
	}
	if (*s++ != ')')
		return -1;
	*sp = s;
	return 0;
}

/*
 * Parse an argument string into at most max arguments; returns how many
 * there are.  An operand not understood (a symbol, a segment) gets kind
 * FT_SDTA_NONE and keeps the count right.
 */
int
ft_sdt_args(const char *spec, ft_sdtarg_t *args, int max)
{
	const char *s = spec, *at;
	ft_sdtarg_t *a;
	int64_t v;
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || n == max)
			break;
		a = &args[n++];
		memset(a, 0, sizeof(*a));
		a->sa_reg = a->sa_index = FT_REG_NONE;
		/* "N@": the size; without it (old notes) the operand's */
		at = s;
		if (ft_sdt_num(&at, &v) == 0 && *at == '@' &&
		    (v == 1 || v == 2 || v == 4 || v == 8 || v == -1 ||
		    v == -2 || v == -4 || v == -8)) {
			a->sa_size = (int8_t)v;
			s = at + 1;
		}
		if (ft_sdt_operand(&s, a) == -1 ||
		    (*s != '\0' && *s != ' ' && *s != '\t')) {
			a->sa_kind = FT_SDTA_NONE;
			while (*s != '\0' && *s != ' ' && *s != '\t')
				s++;
		}
		if (a->sa_size == 0)
			a->sa_size = 8;
	}
	return n;
}

/* v cut to the argument's size, sign- or zero-extended. */
static uint64_t
ft_sdt_extend(const ft_sdtarg_t *a, uint64_t v)
{
	int size = a->sa_size < 0 ? -a->sa_size : a->sa_size;
	int bits = size * 8;

	if (bits >= 64)
		return v;
	v &= (UINT64_C(1) << bits) - 1;
	if (a->sa_size < 0 && (v >> (bits - 1)) != 0)
		v |= ~((UINT64_C(1) << bits) - 1);
	return v;
}

/*
 * The value of argument a at a hit: regs are the thread's at the probe
 * (%rip its address), rd reads its memory.  0, or -1 if the memory
 * cannot be read (*vp is then 0).
 */
int
ft_sdt_argval(const ft_sdtarg_t *a, const struct user_regs_struct *regs,
    int (*rd)(void *, uint64_t, void *, size_t), void *arg, uint64_t *vp)
{
	const uint64_t *r = (const uint64_t *)regs;
	int size = a->sa_size < 0 ? -a->sa_size : a->sa_size;
	uint8_t buf[8];
	uint64_t addr, v = 0;
	int i;

	*vp = 0;
	switch (a->sa_kind) {
	case FT_SDTA_CONST:
		v = (uint64_t)a->sa_val;
		break;
	case FT_SDTA_REG:
		v = r[a->sa_reg] >> a->sa_shift;
		break;
	case FT_SDTA_MEM:
		addr = (uint64_t)a->sa_val;
		if (a->sa_reg != FT_REG_NONE)
			addr += r[a->sa_reg];
		if (a->sa_index != FT_REG_NONE)
			addr += r[a->sa_index] * a->sa_scale;
		if (size < 1 || size > 8 || rd(arg, addr, buf, size) != 0)
			return -1;
		for (i = size - 1; i >= 0; i--)
			v = v << 8 | buf[i];
		break;
	default:
		return 0;
	}
	*vp = ft_sdt_extend(a, v);
	return 0;
}
