/*
 * test_ft_sdt: fasttrap/ft_sdt.c.  The operand strings of <sys/sdt.h>
 * (registers of each width and %ah, constants, memory with base,
 * displacement, index and scale, sizes and signedness, operands not
 * understood keeping the count) and their values against a register
 * set and a memory reader, with exact results; and the notes of a
 * section built here: a prelinked object's addresses moved by
 * .stapsdt.base, other owners skipped, truncated and unterminated
 * notes refused without a read past the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ft.h"
#include "tap.h"

static uint8_t test_mem[64];
static const uint64_t test_membase = 0x1000;

static int
test_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < test_membase || addr + len > test_membase +
	    sizeof(test_mem))
		return -1;
	memcpy(buf, test_mem + (addr - test_membase), len);
	return 0;
}

static uint64_t
test_val(const char *spec, int i, const struct user_regs_struct *r,
    int *rcp)
{
	ft_sdtarg_t a[FT_SDT_MAXARGS];
	uint64_t v = 0xdead;
	int rc;

	if (ft_sdt_args(spec, a, FT_SDT_MAXARGS) <= i)
		return 0xbad;
	rc = ft_sdt_argval(&a[i], r, test_read, NULL, &v);
	if (rcp != NULL)
		*rcp = rc;
	return v;
}

static void
test_args(void)
{
	struct user_regs_struct r;
	ft_sdtarg_t a[FT_SDT_MAXARGS];
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.rax = 0x1122334455667788ULL;
	r.rdx = 0xfffffffffffffff6ULL;	/* -10 */
	r.rbp = test_membase + 16;
	r.rcx = 3;
	r.r12 = 0x80;
	memset(test_mem, 0, sizeof(test_mem));
	test_mem[8] = 0xfe;		/* a short of -2 at rbp - 8 */
	test_mem[9] = 0xff;
	test_mem[16 + 24] = 0x2a;	/* rbp + rcx * 8 */
	test_mem[4] = 0x07;		/* the absolute address 0x1004 */
	test_mem[6] = 0x33;		/* 0x1000 + rcx * 2 */

	tap_is(ft_sdt_args("-4@%edx 8@-16(%rbp) 4@$3", a, FT_SDT_MAXARGS), 3,
	    "three operands");
	tap_is(a[0].sa_kind, FT_SDTA_REG, "a register");
	tap_is(a[1].sa_kind, FT_SDTA_MEM, "a memory operand");
	tap_is(a[2].sa_kind, FT_SDTA_CONST, "a constant");
	tap_is(ft_sdt_args("", a, FT_SDT_MAXARGS), 0, "no operands");
	tap_is(ft_sdt_args("  8@%rax  ", a, FT_SDT_MAXARGS), 1,
	    "blanks around one operand");
	tap_is(ft_sdt_args("8@%rax 8@%rax 8@%rax", a, 2), 2,
	    "no more than asked for");

	tap_is(test_val("8@%rax", 0, &r, NULL), 0x1122334455667788ULL,
	    "8@%%rax: the whole register");
	tap_is(test_val("4@%eax", 0, &r, NULL), 0x55667788ULL,
	    "4@%%eax: the low 32 bits");
	tap_is(test_val("-4@%edx", 0, &r, NULL), (uint64_t)-10,
	    "-4@%%edx: signed 32 bits");
	tap_is(test_val("4@%edx", 0, &r, NULL), 0xfffffff6ULL,
	    "4@%%edx: unsigned 32 bits");
	tap_is(test_val("1@%al", 0, &r, NULL), 0x88, "1@%%al");
	tap_is(test_val("-1@%al", 0, &r, NULL), (uint64_t)(int64_t)(int8_t)0x88,
	    "-1@%%al: sign-extended");
	tap_is(test_val("1@%ah", 0, &r, NULL), 0x77, "1@%%ah: bits 8-15");
	tap_is(test_val("2@%ax", 0, &r, NULL), 0x7788, "2@%%ax");
	tap_is(test_val("%r12", 0, &r, NULL), 0x80,
	    "no size: the register's own width");
	tap_is(test_val("-4@$-5", 0, &r, NULL), (uint64_t)-5,
	    "-4@$-5: a negative constant");
	tap_is(test_val("8@$0x123456789a", 0, &r, NULL), 0x123456789aULL,
	    "8@$0x123456789a: a hex constant");
	tap_is(test_val("-2@-8(%rbp)", 0, &r, &rc), (uint64_t)-2,
	    "-2@-8(%%rbp): a signed short below the base");
	tap_is(rc, 0, "read well");
	tap_is(test_val("1@(%rbp,%rcx,8)", 0, &r, NULL), 0x2a,
	    "1@(%%rbp,%%rcx,8): base, index and scale");
	tap_is(test_val("1@4096(,%rcx,2)", 0, &r, NULL), 0x33,
	    "no base: the index alone (0x1006)");
	tap_is(test_val("1@4100", 0, &r, NULL), 7,
	    "an absolute address");
	tap_is(test_val("8@-100(%rbp)", 0, &r, &rc), 0,
	    "memory that cannot be read: 0");
	tap_is(rc, -1, "and an error");
	tap_is(ft_sdt_args("8@foo(%rip) 4@%eax", a, FT_SDT_MAXARGS), 2,
	    "a symbol operand keeps the count");
	tap_is(a[0].sa_kind, FT_SDTA_NONE, "and is not understood");
	tap_is(test_val("8@foo(%rip) 4@%eax", 1, &r, NULL), 0x55667788ULL,
	    "the operand after it reads right");
	tap_is(test_val("8@%xmm0 8@%fs:8", 0, &r, NULL), 0,
	    "an unknown register reads as 0");
	tap_is(ft_sdt_args("3@%eax", a, FT_SDT_MAXARGS), 1,
	    "a size that is not one counts");
	tap_is(a[0].sa_kind, FT_SDTA_NONE, "and is not understood");
	tap_is(ft_sdt_args("8@(%rax,%rip)", a, FT_SDT_MAXARGS), 1,
	    "%%rip as an index");
	tap_is(a[0].sa_kind, FT_SDTA_NONE, "is refused");
	tap_is(ft_sdt_args("8@(%rax,%rbx,3)", a, FT_SDT_MAXARGS), 1,
	    "scale 3");
	tap_is(a[0].sa_kind, FT_SDTA_NONE, "is refused");
	/* the most negative value, negated as unsigned (UBSan in fuzz_sdt) */
	tap_is(ft_sdt_args("-8@$-9223372036854775808", a, FT_SDT_MAXARGS), 1,
	    "$INT64_MIN");
	tap_is(a[0].sa_kind, FT_SDTA_CONST, "is a constant");
	tap_is((uint64_t)a[0].sa_val, 0x8000000000000000ULL, "of that value");
	tap_is(test_val("8@-9223372036854775808(%rbp)", 0, &r, &rc), 0,
	    "a displacement of INT64_MIN: memory that cannot be read");
	tap_is(rc, -1, "and an error");
}

/* Append a note to buf at *off: owner, type, and a descriptor. */
static void
test_note(uint8_t *buf, size_t *off, const char *owner, uint32_t type,
    const void *desc, uint32_t dlen)
{
	uint32_t nlen = (uint32_t)strlen(owner) + 1;

	memcpy(buf + *off, &nlen, 4);
	memcpy(buf + *off + 4, &dlen, 4);
	memcpy(buf + *off + 8, &type, 4);
	*off += 12;
	memcpy(buf + *off, owner, nlen);
	*off += (nlen + 3) & ~3U;
	memcpy(buf + *off, desc, dlen);
	*off += (dlen + 3) & ~3U;
}

static size_t
test_desc(uint8_t *d, uint64_t pc, uint64_t base, uint64_t sem,
    const char *prov, const char *name, const char *args)
{
	size_t n = 24;

	memcpy(d, &pc, 8);
	memcpy(d + 8, &base, 8);
	memcpy(d + 16, &sem, 8);
	strcpy((char *)d + n, prov);
	n += strlen(prov) + 1;
	strcpy((char *)d + n, name);
	n += strlen(name) + 1;
	strcpy((char *)d + n, args);
	n += strlen(args) + 1;
	return n;
}

typedef struct test_seen {
	int		n;
	char		line[4][128];
} test_seen_t;

static int
test_cb(void *arg, const ft_sdtnote_t *n)
{
	test_seen_t *s = arg;

	if (s->n < 4)
		snprintf(s->line[s->n], sizeof(s->line[0]), "%s:%s %llx %llx %s",
		    n->sn_prov, n->sn_name, (unsigned long long)n->sn_pc,
		    (unsigned long long)n->sn_sem, n->sn_args);
	s->n++;
	return 0;
}

static void
test_notes(void)
{
	uint8_t buf[1024], d[256];
	size_t off = 0, dl;
	test_seen_t s;

	memset(buf, 0, sizeof(buf));
	dl = test_desc(d, 0x1000, 0x2000, 0x3000, "py", "fn__entry",
	    "8@%rdi -4@%esi");
	test_note(buf, &off, "stapsdt", 3, d, (uint32_t)dl);
	test_note(buf, &off, "GNU", 3, "abcd", 4);	/* not ours */
	dl = test_desc(d, 0x1100, 0x2000, 0, "py", "gc", "");
	test_note(buf, &off, "stapsdt", 3, d, (uint32_t)dl);
	dl = test_desc(d, 0x1200, 0x2000, 0, "py", "x", "");
	test_note(buf, &off, "stapsdt", 2, d, (uint32_t)dl); /* type 2 */

	memset(&s, 0, sizeof(s));
	tap_is(ft_sdt_notes(buf, off, 0, 0, test_cb, &s), 0, "a section");
	tap_is(s.n, 2, "two probe notes: another owner's, a v2 one skipped");
	tap_str(s.line[0], "py:fn__entry 1000 3000 8@%rdi -4@%esi",
	    "the first note");
	tap_str(s.line[1], "py:gc 1100 0 ", "the second: no semaphore");

	memset(&s, 0, sizeof(s));
	(void)ft_sdt_notes(buf, off, 1, 0x2400, test_cb, &s);
	tap_str(s.line[0], "py:fn__entry 1400 3400 8@%rdi -4@%esi",
	    ".stapsdt.base moved: the probe and its semaphore move");
	tap_str(s.line[1], "py:gc 1500 0 ", "a missing semaphore stays 0");

	memset(&s, 0, sizeof(s));
	tap_is(ft_sdt_notes(buf, off - 1, 0, 0, test_cb, &s), 0,
	    "a section one byte short");
	tap_is(s.n, 2, "ends the walk at the broken note");

	/* strings not terminated within the descriptor */
	off = 0;
	memset(d, 'a', sizeof(d));
	memset(d, 0, 24);
	test_note(buf, &off, "stapsdt", 3, d, 40);
	memset(&s, 0, sizeof(s));
	tap_is(ft_sdt_notes(buf, off, 0, 0, test_cb, &s), 0,
	    "unterminated strings");
	tap_is(s.n, 0, "are no probe");

	/* a descriptor longer than the section */
	off = 0;
	dl = test_desc(d, 1, 2, 3, "p", "n", "");
	test_note(buf, &off, "stapsdt", 3, d, (uint32_t)dl);
	memcpy(buf + 4, &(uint32_t){ 4000 }, 4);
	memset(&s, 0, sizeof(s));
	tap_is(ft_sdt_notes(buf, off, 0, 0, test_cb, &s), 0,
	    "a descriptor size past the end");
	tap_is(s.n, 0, "is no probe");
}

int
main(void)
{
	test_args();
	test_notes();
	return tap_done();
}
