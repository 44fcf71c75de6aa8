/*
 * ft_ool.c: how a thread stopped on one of the ptrace backend's int3s
 * resumes, in one stop per hit.  The displaced instruction is emulated
 * when that is simple (ft_isa_emul says how); else it runs out of line
 * from the thread's slot in a scratch chunk that the tracer maps into
 * the target (an mmap run in a stopped thread), near the code so that
 * a %rip-relative operand still reaches its data once relocated, and
 * followed by a jump back.
 *
 * A slot (FT_SLOTSIZE bytes) is laid out so that any tracer can tell
 * where a thread found inside it belongs, reading only target memory:
 *	+0	the original address of the displaced instruction (8 bytes)
 *	+8	its length (1 byte)
 *	+16	the instruction, relocated
 *	+16+len	jmp *0(%rip); .quad original address + len
 * A thread at +16 has not run the instruction (it goes back to the
 * original address); a thread at +16+len has (it goes to the next one).
 * ft_ool_unslot() moves a thread found in a slot back to the original
 * code: a signal, a fork child, a detach.
 */
#include <sys/mman.h>
#include <sys/syscall.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

#ifndef MAP_FIXED_NOREPLACE
#define	MAP_FIXED_NOREPLACE	0x100000
#endif

#define	FT_CHUNKSIZE	((uint64_t)FT_NSLOTS * FT_SLOTSIZE)
#define	FT_SLOTHDR	16

/* Registers as an array of words; ft_emul_t names them by index. */
#define	FT_REG(r, i)	(((unsigned long long *)(void *)(r))[(i)])

/*
 * A free address range of len bytes within 1 GiB of near, from
 * /proc/PID/maps, so that %rip-relative operands reach their data from
 * the slot.  0 if there is none.
 */
static uint64_t
ft_ool_gap(ft_proc_t *p, uint64_t near, uint64_t len)
{
	char path[64], line[512];
	uint64_t prev = 0x10000, best = 0, bestd = UINT64_MAX;
	const uint64_t range = 1ULL << 30;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pr_pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (lo > prev && lo - prev >= len) {
			/* the end of the gap nearest to near */
			uint64_t a = near < prev ? prev : (near + len > lo ?
			    lo - len : near);
			uint64_t d;

			a &= ~(uint64_t)4095;
			if (a < prev)
				a = (prev + 4095) & ~(uint64_t)4095;
			d = a > near ? a - near : near - a;
			if (a + len <= lo && d < range && d < bestd) {
				best = a;
				bestd = d;
			}
		}
		if (hi > prev)
			prev = hi;
	}
	fclose(f);
	return best;
}

/* Map a scratch chunk near addr.  Returns its index, or -1. */
static int
ft_ool_chunk(ft_proc_t *p, ft_thread_t *t, uint64_t near)
{
	uint64_t hint;
	long r = -1;

	if (p->pr_nchunks == FT_MAXCHUNKS)
		return -1;
	if ((hint = ft_ool_gap(p, near, FT_CHUNKSIZE)) != 0)
		r = ft_ptrace_syscall(p, t, SYS_mmap, (long)hint,
		    (long)FT_CHUNKSIZE, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (r < 0 && r > -4096)
		r = ft_ptrace_syscall(p, t, SYS_mmap, 0, (long)FT_CHUNKSIZE,
		    PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r < 0 && r > -4096)
		return -1;
	p->pr_chunk[p->pr_nchunks] = (uint64_t)r;
	return p->pr_nchunks++;
}

/*
 * Fill t's slot for the displaced instruction of site (copied in s) and
 * return the address to resume at, or 0.
 */
static uint64_t
ft_ool_slot(ft_proc_t *p, ft_thread_t *t, const ft_site_t *s)
{
	uint8_t buf[FT_SLOTSIZE];
	const ft_insn_t *fi = &s->st_emul.ee_insn;
	uint64_t slot = 0, back = s->st_addr + fi->fi_len;
	int c, i, tries;

	if (t->th_slot < 0) {
		for (i = 0; i < FT_NSLOTS && p->pr_slotused[i]; i++)
			;
		if (i == FT_NSLOTS)
			return 0;
		p->pr_slotused[i] = 1;
		t->th_slot = i;
	}
	memset(buf, 0xcc, sizeof(buf));
	memcpy(buf, &s->st_addr, 8);
	buf[8] = fi->fi_len;
	for (tries = 0, c = 0; tries < 2; tries++) {
		for (c = 0; c < p->pr_nchunks; c++) {
			slot = p->pr_chunk[c] + (uint64_t)t->th_slot *
			    FT_SLOTSIZE;
			if (ft_isa_relocate(s->st_orig, fi, s->st_addr,
			    slot + FT_SLOTHDR, buf + FT_SLOTHDR) == 0)
				break;
		}
		if (c < p->pr_nchunks)
			break;
		if (ft_ool_chunk(p, t, s->st_addr) == -1)
			return 0;
	}
	if (c == p->pr_nchunks)
		return 0;
	if (t->th_slotkey[c] != s->st_serial) {
		uint8_t *j = buf + FT_SLOTHDR + fi->fi_len;

		/* jmp *0(%rip); .quad back */
		j[0] = 0xff;
		j[1] = 0x25;
		memset(j + 2, 0, 4);
		memcpy(j + 6, &back, 8);
		if (pwrite(p->pr_memfd, buf, FT_SLOTSIZE, (off_t)slot) !=
		    FT_SLOTSIZE)
			return 0;
		t->th_slotkey[c] = s->st_serial;
	}
	return slot + FT_SLOTHDR;
}

/*
 * If r->rip is inside a scratch slot, move it to the original code: back
 * to the displaced instruction if it has not run (*skip then names it, so
 * that its probe does not fire twice), else on to the next one.  Reads
 * the slot header from the memory of pid (a fork child has a copy).
 */
int
ft_ool_unslot(ft_proc_t *p, pid_t pid, struct user_regs_struct *r,
    uint64_t *skip)
{
	uint64_t slot, orig;
	uint8_t len;
	int c;

	for (c = 0; c < p->pr_nchunks; c++) {
		if (r->rip < p->pr_chunk[c] || r->rip >= p->pr_chunk[c] +
		    FT_CHUNKSIZE)
			continue;
		slot = r->rip - (r->rip - p->pr_chunk[c]) % FT_SLOTSIZE;
		if (ft_ptrace_vmread(pid, slot, &orig, 8) == -1 ||
		    ft_ptrace_vmread(pid, slot + 8, &len, 1) == -1)
			return 0;
		if (r->rip == slot + FT_SLOTHDR) {
			r->rip = orig;
			if (skip != NULL)
				*skip = orig;
			return 1;
		}
		if (r->rip == slot + FT_SLOTHDR + len) {
			r->rip = orig + len;
			return 1;
		}
	}
	return 0;
}

/*
 * Resume t after its hit at s->st_addr: emulate, or run out of line.
 * r holds the registers with rip at the site; they are set for the
 * resume, which is the caller's.  A fault of the emulated instruction
 * becomes the SIGSEGV the instruction itself would have had.  -1: no
 * slot (no room for a chunk near the data, or too many threads): never
 * harm the target, the caller gives the site up so that the original
 * instruction runs (r is left at the site).
 */
int
ft_ool_step(ft_proc_t *p, ft_thread_t *t, struct user_regs_struct *r,
    const ft_site_t *s)
{
	const ft_emul_t *ee = &s->st_emul;
	uint64_t pc = s->st_addr, next = pc + ee->ee_insn.fi_len, v, a;
	pid_t tid = t->th_tid;

	switch (ee->ee_kind) {
	case FT_E_SKIP:
		r->rip = next;
		break;
	case FT_E_PUSH:
		v = FT_REG(r, ee->ee_reg);
		if (ft_ptrace_poke(tid, r->rsp - 8, v) == -1)
			goto fault;
		r->rsp -= 8;
		r->rip = next;
		break;
	case FT_E_JMP:
		r->rip = ee->ee_insn.fi_target;
		break;
	case FT_E_CALL:
		if (ft_ptrace_poke(tid, r->rsp - 8, next) == -1)
			goto fault;
		r->rsp -= 8;
		r->rip = ee->ee_insn.fi_target;
		break;
	case FT_E_RET:
		if (ft_ptrace_peek(tid, r->rsp, &v) == -1)
			goto fault;
		r->rsp += 8 + (uint64_t)ee->ee_imm;
		r->rip = v;
		break;
	case FT_E_JCC:
		r->rip = ft_isa_cond(ee, r->eflags, r->rcx) ?
		    ee->ee_insn.fi_target : next;
		break;
	case FT_E_LOOP:
		if (ee->ee_cc != FT_CC_JRCXZ && ee->ee_cc != FT_CC_JECXZ) {
			if (ee->ee_ecx)
				r->rcx = (uint32_t)(r->rcx - 1);
			else
				r->rcx--;
		}
		r->rip = ft_isa_cond(ee, r->eflags, r->rcx) ?
		    ee->ee_insn.fi_target : next;
		break;
	case FT_E_ADDRSP:
	case FT_E_SUBRSP:
		r->eflags = ft_isa_addsub_flags(r->eflags, r->rsp,
		    (uint64_t)ee->ee_imm, ee->ee_kind == FT_E_SUBRSP);
		r->rsp = ee->ee_kind == FT_E_SUBRSP ? r->rsp -
		    (uint64_t)ee->ee_imm : r->rsp + (uint64_t)ee->ee_imm;
		r->rip = next;
		break;
	case FT_E_MOVRBP:
		r->rbp = r->rsp;
		r->rip = next;
		break;
	case FT_E_JMPIND:
	case FT_E_CALLIND:
		if (!ee->ee_mem) {
			v = FT_REG(r, ee->ee_reg);
		} else {
			a = (uint64_t)ee->ee_disp;
			if (ee->ee_base == FT_REG_RIP)
				a += next;
			else if (ee->ee_base >= 0)
				a += FT_REG(r, ee->ee_base);
			if (ee->ee_index >= 0)
				a += FT_REG(r, ee->ee_index) * ee->ee_scale;
			if (ee->ee_seg >= 0)
				a += FT_REG(r, ee->ee_seg);
			if (ft_ptrace_peek(tid, a, &v) == -1)
				goto fault;
		}
		if (ee->ee_kind == FT_E_CALLIND) {
			if (ft_ptrace_poke(tid, r->rsp - 8, next) == -1)
				goto fault;
			r->rsp -= 8;
		}
		r->rip = v;
		break;
	default:
		if ((v = ft_ool_slot(p, t, s)) == 0)
			return -1;
		r->rip = v;
		break;
	}
	return 0;
fault:
	/* as the instruction itself would have: a SIGSEGV at the site */
	r->rip = pc;
	t->th_skip = pc;
	t->th_sig = SIGSEGV;
	return 0;
}
