/*
 * ft.h: fasttrap, user-space instrumentation.  Knows nothing of D: it
 * finds probe sites in ELF objects and x86-64 code, and (with the pid
 * provider) controls traced processes through its backends.
 *
 * Files: ft_elf.c (function symbols from .symtab and .dynsym, reading an
 * object's bytes by virtual address, its sections), ft_sdt.c (the
 * <sys/sdt.h> probe notes of an object and their argument operands),
 * ft_isa_x86.c (Zydis decoding:
 * instruction classes, branch targets, RIP-relative operands, the
 * entry/return/offset sites of a whole function, and how to resume after
 * a trap: emulate or run out of line; errno's thread-pointer offset from
 * __errno_location), ft_proc.c (a traced process: its modules, functions,
 * where its threads' errno is; the public ft_proc_* API over the table
 * of backends, the exec step they share), ft_site.c (the site table of
 * a backend, and a hit's copy of its users), ft_ptrace.c (the ptrace
 * backend: the tracer thread, int3 patching, the hit path), ft_ool.c
 * (its out-of-line steps: emulation, scratch slots), ft_uprobe.c (the
 * uprobe backend: sites as BPF uprobe_multi links, the drain thread, the
 * hit snapshot), ft_bpf.c (its kernel side: the capture program, ring
 * and links over raw bpf(2); and the system call capture, a capture
 * source of the syscall provider), ft_btf.c (the %fs base offset in a task,
 * from the kernel's BTF), ft_guard.c (crash-time restore: the guardian
 * process that restores every patched byte when the daemon dies of
 * SIGKILL, and the fatal table a signal handler restores from),
 * ft_perf.c (perf sampling as a capture source: the rings, the samples
 * and their registers and stack copy), ft_unwind.c (user stacks with
 * libdw, from a hit's registers and a memory accessor, whatever the
 * backend), ft_procfs.c (the parsers of
 * /proc/PID/maps and stat, and a mapped file opened as the process maps
 * it: every file of a target is read through it).
 */
#ifndef FT_H
#define FT_H

#include <sys/types.h>
#include <sys/user.h>

#include <elf.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A function symbol.  Aliases (several names, one address) appear once. */
typedef struct ft_sym {
	const char	*fs_name;
	uint64_t	fs_addr;	/* st_value: link-time virtual address */
	uint64_t	fs_size;
	uint8_t		fs_bind;	/* STB_* */
	uint8_t		fs_hidden;	/* a hidden (compat) symbol version */
} ft_sym_t;

/*
 * Symbols by address, and at one address the preferred name first: the
 * name a function with several goes by, as illumos picks it (global or
 * weak over local, fewer leading underscores, the smaller size), and
 * two rules of ours (a default symbol version over a hidden compat one,
 * a plain name over one with a compiler-made suffix such as
 * `.localalias').  The daemon names probes with it (ft_elf.c); the
 * consumer, which may not include this header, names addresses by the
 * same rule in libdtrace/dt_usym.c (dt_usym_alias_cmp, which
 * test_dt_usym holds equal to this one), so -l, probefunc and ufunc()
 * agree.
 */
static inline int
ft_sym_cmp(const ft_sym_t *x, const ft_sym_t *y)
{
	const char *xn = x->fs_name, *yn = y->fs_name;
	int xd, yd;

	if (x->fs_addr != y->fs_addr)
		return x->fs_addr < y->fs_addr ? -1 : 1;
	if ((x->fs_bind == STB_LOCAL) != (y->fs_bind == STB_LOCAL))
		return x->fs_bind == STB_LOCAL ? 1 : -1;
	if (x->fs_hidden != y->fs_hidden)
		return x->fs_hidden ? 1 : -1;
	if ((xn[0] == '$') != (yn[0] == '$'))
		return xn[0] == '$' ? 1 : -1;
	while (*xn == '_' && *yn == '_') {
		xn++;
		yn++;
	}
	if ((*xn == '_') != (*yn == '_'))
		return *xn == '_' ? 1 : -1;
	xd = strchr(x->fs_name, '.') != NULL;
	yd = strchr(y->fs_name, '.') != NULL;
	if (xd != yd)
		return xd ? 1 : -1;
	if (x->fs_size != y->fs_size)
		return x->fs_size < y->fs_size ? -1 : 1;
	return strcmp(x->fs_name, y->fs_name);
}

typedef struct ft_elf ft_elf_t;
typedef struct ft_proc ft_proc_t;

/*
 * ft_elf.c.  An ft_elf_slotrd_t reads the 8 bytes at a link-time address
 * of the object's live image and gives them as a link-time address (less
 * the load bias); 0 or -1.
 */
typedef int	ft_elf_slotrd_t(void *, uint64_t, uint64_t *);
ft_elf_t	*ft_elf_open(const char *, char *, size_t);
ft_elf_t	*ft_elf_fdopen(int, const char *, ft_elf_slotrd_t *, void *,
		    char *, size_t);
ft_elf_t	*ft_elf_ifuncs_open(int, const char *, ft_elf_slotrd_t *,
		    void *, char *, size_t);
void		ft_elf_close(ft_elf_t *);
int		ft_elf_is_pie(const ft_elf_t *);
size_t		ft_elf_nsyms(const ft_elf_t *);
const ft_sym_t	*ft_elf_sym(const ft_elf_t *, size_t);
size_t		ft_elf_naliases(const ft_elf_t *);
const ft_sym_t	*ft_elf_alias(const ft_elf_t *, size_t);
const ft_sym_t	*ft_elf_lookup(const ft_elf_t *, const char *);
const ft_sym_t	*ft_elf_addr(const ft_elf_t *, uint64_t);
int		ft_elf_read(const ft_elf_t *, uint64_t, void *, size_t);
const uint8_t	*ft_elf_buildid(const ft_elf_t *, size_t *);
int		ft_elf_dynamic(const ft_elf_t *, uint64_t *, uint64_t *);
int		ft_elf_section(const ft_elf_t *, const char *, const void **,
		    size_t *, uint64_t *);
int		ft_elf_bias(int, uint64_t, uint64_t, uint64_t *);

/*
 * ft_sdt.c: statically defined probes as systemtap's <sys/sdt.h> puts
 * them in an object (SystemTap SDT v3 notes, NT_STAPSDT in
 * .note.stapsdt, owner "stapsdt"): a provider, a name, the probe's
 * address (a nop), the address of its is-enabled semaphore (a 16-bit
 * counter, 0: none) and its arguments as gas operands, "-4@%edx
 * 8@-16(%rbp) 4@$3".  Addresses are link-time ones, already moved by
 * the object's .stapsdt.base when it was prelinked.  ft_sdt_args()
 * parses an argument string; ft_sdt_argval() reads one argument at a
 * hit, from its registers and a memory accessor.
 */
#define	FT_SDT_MAXARGS	12	/* <sys/sdt.h> has at most 12 */

#define	FT_SDTA_NONE	0	/* not understood: reads as 0 */
#define	FT_SDTA_CONST	1	/* $imm */
#define	FT_SDTA_REG	2	/* %reg */
#define	FT_SDTA_MEM	3	/* disp(%base,%index,scale) */

typedef struct ft_sdtarg {
	uint8_t		sa_kind;	/* FT_SDTA_* */
	int8_t		sa_size;	/* bytes; negative: signed */
	int8_t		sa_reg;		/* REG, or MEM's base: a user_regs index */
	int8_t		sa_index;	/* MEM: FT_REG_NONE, or a register */
	uint8_t		sa_scale;
	uint8_t		sa_shift;	/* REG: %ah and the like, 8 */
	int64_t		sa_val;		/* CONST: the value; MEM: disp */
} ft_sdtarg_t;

typedef struct ft_sdtnote {
	const char	*sn_prov;
	const char	*sn_name;	/* as written: function__entry */
	const char	*sn_args;	/* "" when it has none */
	uint64_t	sn_pc;		/* link-time */
	uint64_t	sn_sem;		/* link-time; 0: no semaphore */
} ft_sdtnote_t;

int		ft_sdt_notes(const void *, size_t, int, uint64_t,
		    int (*)(void *, const ft_sdtnote_t *), void *);
int		ft_sdt_elf(const ft_elf_t *,
		    int (*)(void *, const ft_sdtnote_t *), void *);
int		ft_sdt_args(const char *, ft_sdtarg_t *, int);
int		ft_sdt_argval(const ft_sdtarg_t *,
		    const struct user_regs_struct *,
		    int (*)(void *, uint64_t, void *, size_t), void *,
		    uint64_t *);

/*
 * One line of /proc/PID/maps, and the file of a mapping opened as the
 * process has it mapped, never by a path the user controls; a field of
 * /proc/PID/stat (ft_procfs.c).
 */
typedef struct ft_mapent {
	uint64_t	me_lo;
	uint64_t	me_hi;
	uint64_t	me_off;
	uint64_t	me_dev;		/* makedev(major, minor) */
	uint64_t	me_ino;
	char		me_perm[5];	/* "r-xp" */
	const char	*me_path;	/* "" for an anonymous mapping */
} ft_mapent_t;

/* ft_procfs.c */
void		ft_procfs_setwarn(void (*)(const char *, ...));
int		ft_procfs_mapline(char *, ft_mapent_t *);
int		ft_procfs_mapopen(pid_t, const ft_mapent_t *, char *,
		    size_t);
int		ft_procfs_mapfind(pid_t, uint64_t, ft_mapent_t *, char *,
		    size_t);
int		ft_procfs_stat(const char *, int, uint64_t *);
int		ft_procfs_statusline(const char *, const char *, long *,
		    long *);
int		ft_procfs_nsdepth(pid_t);

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

/*
 * How to resume a thread stopped on the int3 that replaced an instruction
 * (illumos calls this the tracepoint type).  Registers are named by their
 * index in struct user_regs_struct seen as an array of 64-bit words.
 */
enum ft_ekind {
	FT_E_REFUSE = 0,	/* cannot be instrumented (int3, int N, ...) */
	FT_E_OOL,		/* run out of line from a scratch slot */
	FT_E_SKIP,		/* nop, endbr64: rip += len */
	FT_E_PUSH,		/* push %reg (64-bit) */
	FT_E_JMP,		/* jmp rel */
	FT_E_CALL,		/* call rel */
	FT_E_RET,		/* ret [imm16] */
	FT_E_JCC,		/* jcc rel; ee_cc is the condition (0-15) */
	FT_E_LOOP,		/* loop, loope, loopne, jrcxz, jecxz: ee_cc */
	FT_E_ADDRSP,		/* add $imm,%rsp */
	FT_E_SUBRSP,		/* sub $imm,%rsp */
	FT_E_MOVRBP,		/* mov %rsp,%rbp */
	FT_E_JMPIND,		/* jmp *reg or *mem */
	FT_E_CALLIND		/* call *reg or *mem */
};

/* ee_cc for FT_E_LOOP */
#define	FT_CC_LOOP	0
#define	FT_CC_LOOPE	1
#define	FT_CC_LOOPNE	2
#define	FT_CC_JRCXZ	3
#define	FT_CC_JECXZ	4

/* A register index for ee_reg, ee_base, ee_index: none. */
#define	FT_REG_NONE	(-1)
/* ee_base: %rip (the address of the next instruction) */
#define	FT_REG_RIP	(-2)

typedef struct ft_emul {
	ft_insn_t	ee_insn;
	uint8_t		ee_kind;	/* enum ft_ekind */
	uint8_t		ee_cc;
	uint8_t		ee_ecx;		/* loop: 32-bit counter */
	uint8_t		ee_mem;		/* JMPIND/CALLIND through memory */
	int8_t		ee_reg;		/* PUSH, or the register of *reg */
	int8_t		ee_base;	/* memory operand */
	int8_t		ee_index;
	uint8_t		ee_scale;
	int8_t		ee_seg;		/* FT_REG_NONE, or fs_base/gs_base */
	int64_t		ee_disp;
	int64_t		ee_imm;		/* RET, ADDRSP, SUBRSP */
} ft_emul_t;

/* ft_isa_x86.c */
int		ft_isa_decode(const uint8_t *, size_t, uint64_t, ft_insn_t *);
int		ft_isa_function(const uint8_t *, size_t, uint64_t, ft_fn_t *);
void		ft_isa_function_free(ft_fn_t *);
int		ft_isa_is_insn(const ft_fn_t *, uint32_t);
int		ft_isa_emul(const uint8_t *, size_t, uint64_t, ft_emul_t *);
int		ft_isa_relocate(const uint8_t *, const ft_insn_t *, uint64_t,
		    uint64_t, uint8_t *);
int		ft_isa_cond(const ft_emul_t *, uint64_t, uint64_t);
uint64_t	ft_isa_addsub_flags(uint64_t, uint64_t, uint64_t, int);
int		ft_isa_tlsoff(const uint8_t *, size_t, uint64_t, uint64_t *,
		    int64_t *);

/*
 * A traced process (ft_proc.c, ft_ptrace.c).
 *
 * ft_proc_grab() seizes every thread of a running process; ft_proc_hold()
 * seizes a process that is about to execve() (e.g. a child of the client
 * waiting on a pipe) and runs the new image to its hold point (FT_HOLD_*;
 * by default its entry point, AT_ENTRY: the dynamic linker has mapped the
 * libraries, no main-program code has run), calls fo_held, and keeps it stopped there until ft_proc_run() (or
 * ft_proc_kill(), or ft_proc_release()).
 *
 * Threads.  Each process has one tracer thread, started by grab/hold:
 * ptrace answers only the thread that attached.  Every ft_ops_t callback
 * runs on that tracer thread (or, under uprobes, on the drain thread).
 * Under ptrace fo_hit runs with the hitting thread stopped, so
 * ft_hit_read() is exact; it must not block for long (the thread
 * waits).  All other ft_proc_* functions may be called from any
 * thread, including from inside a callback, except ft_proc_release(),
 * which joins the tracer thread and so must not be called from a
 * callback.  Site users (the void * given to ft_proc_site_add) must stay
 * valid until ft_proc_site_remove() has returned: when it returns, no hit
 * still runs with that user (unless called from a callback itself).
 * The tracer thread interrupts its waitpid() with signal FT_WAKESIG
 * (SIGRTMIN + 5, handler installed by the library, without SA_RESTART);
 * the rest of the program should leave that signal alone.
 *
 * Sites.  ft_proc_site_add() patches an int3 at addr (the first time) and
 * records user; several users share one address, the int3 goes when the
 * last is removed.  Errors (errno): ESRCH the process is gone, EFAULT addr
 * is not readable, EBUSY the instruction there already is an int3 (a
 * debugger's breakpoint), ENOTSUP an instruction that cannot be resumed
 * from (int N, xbegin, ...), EINVAL bytes that do not decode.  The
 * caller picks instruction boundaries (ft_isa_function) and executable
 * addresses (module functions).  exec() drops every site (fo_exec says
 * so, once the new image reached its entry point); a fork child gets none.
 *
 * Release restores every patched byte, moves every thread that is inside
 * a scratch slot back to the original code, and detaches; the scratch
 * mappings stay (a thread may still return through one).
 * ft_proc_observe() models a process that is not traced (modules,
 * symbols, reads; no sites, no callbacks): a profile sample's process.
 * ft_proc_fatal_restore() is async-signal-safe: from a fatal-signal
 * handler it writes back the original bytes of every site of every
 * traced process, with pwrite(2) on /proc/PID/mem descriptors opened
 * beforehand, and does nothing else (ft_guard.c keeps that table).
 */

/* A loaded object of a traced process: the executable or a library. */
typedef struct ft_mod {
	char		*fm_path;	/* path in /proc/PID/maps */
	const char	*fm_name;	/* basename, less " (deleted)"; the exec's as run */
	char		*fm_ownname;	/* that name, if not fm_path's */
	uint64_t	fm_lo;		/* lowest mapped address */
	uint64_t	fm_hi;		/* end of the highest mapping */
	uint64_t	fm_bias;	/* runtime address - link address */
	uint64_t	fm_dev;
	uint64_t	fm_ino;
	int		fm_exec;	/* the main executable (a.out) */
	int		fm_text;	/* has an executable mapping */
	int		fm_live;	/* still mapped */
	ft_elf_t	*fm_elf;	/* ft_proc_mod_elf(), opened once */
	ft_elf_t	*fm_ifuncs;	/* ft_proc_mod_ifuncs(), made once */
	struct ft_mod	*fm_next;
} ft_mod_t;

/*
 * A probe hit, as the backend hands it to fo_hit.  It carries its memory
 * accessor: ft_hit_read() reads the process as this hit sees it, exact
 * for a thread the backend keeps stopped (ptrace), the bytes captured at
 * the hit first and then the memory now for a thread that ran on
 * (uprobes).  ft_hit_stackread() reads the stack as it was at the hit
 * and nothing else, for the unwinder: the same as ft_hit_read() for a
 * stopped thread, only the captured bytes for one that ran on (fh_stkread;
 * NULL: fh_read serves both), so that a stack is never made of a later
 * moment's frames.  Valid only while fo_hit runs.
 */
typedef struct ft_hit {
	pid_t		fh_pid;
	pid_t		fh_tid;
	uint64_t	fh_addr;	/* the site; fh_regs.rip == fh_addr */
	/* the CPU the thread ran on; -1: ask ft_proc_cpu() if needed */
	int		fh_cpu;
	uint64_t	fh_time;	/* CLOCK_MONOTONIC, ns */
	struct user_regs_struct fh_regs;
	ft_proc_t	*fh_proc;
	int		(*fh_read)(const struct ft_hit *, uint64_t, void *,
			    size_t);
	int		(*fh_stkread)(const struct ft_hit *, uint64_t, void *,
			    size_t);
	const void	*fh_priv;	/* the backend's: what fh_read serves */
} ft_hit_t;

typedef struct ft_ops {
	/* a thread hit a site that has users */
	void	(*fo_hit)(void *, ft_proc_t *, const ft_hit_t *,
		    void *const *, int);
	/* the process is gone; the wait status as waitpid() gives it */
	void	(*fo_exited)(void *, ft_proc_t *, int);
	/* the process exec'd: every site is gone; it is at its new entry */
	void	(*fo_exec)(void *, ft_proc_t *);
	/* libraries were loaded or unloaded (dlopen, dlclose) */
	void	(*fo_modules)(void *, ft_proc_t *);
	/* ft_proc_hold(): the program is at its hold point, stopped */
	void	(*fo_held)(void *, ft_proc_t *);
	/* uprobe backend: n more hits on cpu were lost (ring full) */
	void	(*fo_lost)(void *, ft_proc_t *, int, uint64_t);
	/*
	 * The process exec'd, its new credentials committed, and nothing
	 * of the new image has run for us (ptrace: the exec stop; uprobes:
	 * the capture program is closed to it): 0 trace it on, -1 let it
	 * go (sites and links dropped, detached; it runs on untraced, and
	 * ft_proc_alive() says no).  Before fo_exec, which does not follow
	 * a -1.
	 */
	int	(*fo_execok)(void *, ft_proc_t *);
} ft_ops_t;

/*
 * Backends.  A backend is one row of a table (ft_backend_t, below): a
 * process is grabbed (or held) by the backend that can seize one
 * (FT_CAP_GRAB: ptrace); before its first site, ft_proc_setbackend() may
 * move it to another (for good: one backend per process), which attaches
 * while the grabbing one still holds it.  A grabbed process is let go by
 * the grabbing backend at once; a held one stays held until
 * ft_proc_run(), which puts the new backend's sites in place first, then
 * lets the grabbing one go.  ft_proc_caps() says what the backend of a
 * process can do (FT_CAP_*).
 *
 * Under a batching backend (FT_CAP_BATCH: uprobes), sites are not put
 * in place by ft_proc_site_add() but by ft_proc_sync(), which puts the
 * current set in place (one BPF uprobe_multi link per file: new links
 * first, then the old ones go); the caller calls it after a batch of
 * adds and removes (elsewhere a no-op).  Without FT_CAP_SYNC hits are
 * samples: fo_hit runs on the process's drain thread after the fact, the
 * thread does not wait; ft_hit_read() serves the stack bytes at %rsp
 * captured at the hit from the sample, and reads anything else live,
 * later than the hit; ft_hit_stackread() serves the captured bytes
 * only.  The kernel cannot probe some instructions
 * (lock and segment prefixes, a few opcodes): their sites are accepted
 * but never hit; ft_proc_sync() returns how many there are.  fo_lost
 * reports samples the ring had no room for.  fo_exec (a
 * sched_process_exec raw tracepoint) and fo_modules (a uprobe on the
 * dynamic linker's hook) come after the fact, on the drain thread, while
 * the process runs on: calls made in the new image or library before
 * the caller's next ft_proc_sync() are missed.
 */
/*
 * Where ft_proc_hold() holds the new image (dtrace's evaltime): at the
 * exec itself (only the executable and the dynamic linker are mapped),
 * at the linker's first consistent r_debug state (libraries mapped,
 * their initialisers not run; a program without a dynamic linker is
 * held at its entry point instead), at the entry point (the default),
 * or at the executable's main (a temporary int3; without a `main'
 * symbol it is held at its entry point).
 */
#define	FT_HOLD_POSTINIT	0
#define	FT_HOLD_EXEC		1
#define	FT_HOLD_PREINIT		2
#define	FT_HOLD_MAIN		3

/* Backends: their rows in ft_proc.c's table */
#define	FT_BACKEND_PTRACE	0
#define	FT_BACKEND_UPROBE	1
#define	FT_BACKEND_INLINE	2	/* uprobes, and jmps where they fit */
#define	FT_NBACKENDS		3

/* What a backend can do */
#define	FT_CAP_GRAB	0x01	/* seizes a process (grab, hold) */
#define	FT_CAP_SYNC	0x02	/* fo_hit runs while the thread waits:
				   its reads are exact, copyout is safe */
#define	FT_CAP_STOP	0x04	/* may stop the thread (stop(), holds) */
#define	FT_CAP_BATCH	0x08	/* sites go in place at ft_proc_sync() */
#define	FT_CAP_PATCH	0x10	/* writes the text: memory opened rw */

/* ft_proc.c */
ft_proc_t	*ft_proc_grab(pid_t, int, const ft_ops_t *, void *, char *,
		    size_t);
ft_proc_t	*ft_proc_hold(pid_t, int, const ft_ops_t *, void *, int,
		    char *, size_t);
ft_proc_t	*ft_proc_observe(pid_t, char *, size_t);
int		ft_proc_run(ft_proc_t *);
int		ft_proc_kill(ft_proc_t *);
void		ft_proc_release(ft_proc_t *);
pid_t		ft_proc_pid(const ft_proc_t *);
int		ft_proc_alive(const ft_proc_t *);
int		ft_proc_gone(const ft_proc_t *);
int		ft_proc_site_add(ft_proc_t *, uint64_t, void *);
int		ft_proc_site_remove(ft_proc_t *, uint64_t, void *);
size_t		ft_proc_nsites(ft_proc_t *);
int		ft_proc_read(ft_proc_t *, uint64_t, void *, size_t);
int		ft_proc_write(ft_proc_t *, uint64_t, const void *, size_t);
int		ft_proc_cpu(ft_proc_t *, pid_t);
void		ft_proc_refresh(ft_proc_t *);
int		ft_proc_mod_iter(ft_proc_t *, const char *,
		    int (*)(void *, ft_proc_t *, ft_mod_t *), void *);
int		ft_proc_mod_match(const ft_mod_t *, const char *);
int		ft_proc_modname_match(const char *, const char *);
ft_elf_t	*ft_proc_mod_elf(ft_proc_t *, ft_mod_t *, char *, size_t);
const ft_elf_t	*ft_proc_mod_ifuncs(ft_proc_t *, ft_mod_t *);
int		ft_proc_func_iter(ft_proc_t *, const char *, const char *,
		    int (*)(void *, ft_mod_t *, const ft_sym_t *, uint64_t),
		    void *);
int		ft_proc_func_sites(ft_proc_t *, ft_mod_t *, const ft_sym_t *,
		    ft_fn_t *);
int		ft_proc_lookup(ft_proc_t *, uint64_t, ft_mod_t **,
		    const ft_sym_t **);
int		ft_proc_errno_off(ft_proc_t *, int64_t *);
int		ft_proc_statfield(pid_t, pid_t, int, uint64_t *);
int		ft_proc_mayptrace(pid_t, uid_t, gid_t, int *);
void		ft_proc_fatal_restore(void);
void		ft_proc_fatal_detach(void);
int		ft_proc_backend(const ft_proc_t *);
int		ft_proc_caps(const ft_proc_t *);
const char	*ft_proc_backend_name(int);
int		ft_proc_backend_ok(int, char *, size_t);
int		ft_proc_setbackend(ft_proc_t *, int, size_t, char *, size_t);
int		ft_proc_sync(ft_proc_t *);
int		ft_proc_stack(ft_proc_t *, size_t);
int		ft_hit_read(const ft_hit_t *, uint64_t, void *, size_t);
int		ft_hit_stackread(const ft_hit_t *, uint64_t, void *, size_t);

/*
 * ft_bpf.c: the kernel side of the uprobe backend (and of the syscall
 * provider, below).  A sample as the
 * capture program writes it: struct pt_regs (the first FT_BPF_NREGS
 * words of struct user_regs_struct, same order), the %fs base (from the
 * task_struct, through the kernel's BTF) and errno there, and
 * br_stklen bytes of user stack from %rsp up: the rest of %rsp's page
 * and the whole pages above it that could be read, at most FT_BPF_STACK
 * and at most the bound of ft_bpf_stack() (0 if even %rsp's could not,
 * or the bound is 0).  The copy ends at the top of the
 * stack's mapping for a shallow stack, at FT_BPF_STACK for a deep one:
 * the unwinder reads nothing beyond it (ft_hit_stackread), so a stack
 * deeper than the copy ends where the copy does.  8 KiB holds a hundred
 * frames of ordinary C; a record in the ring is its header and
 * br_stklen bytes (the exec record: its header alone).
 */
#define	FT_BPF_NREGS	21
#define	FT_BPF_PAGE	4096
#ifndef FT_BPF_STACK
#define	FT_BPF_STACK	(2 * FT_BPF_PAGE)	/* whole pages */
#endif

typedef struct ft_bpfrec {
	uint64_t	br_regs[FT_BPF_NREGS];
	uint64_t	br_pidtgid;	/* tgid << 32 | tid */
	uint64_t	br_time;	/* CLOCK_MONOTONIC, ns */
	uint64_t	br_cookie;	/* the site's runtime address */
	uint64_t	br_fsbase;	/* the thread's %fs base, 0 unknown */
	int32_t		br_errno;	/* its errno, if br_errok */
	uint32_t	br_errok;
	uint32_t	br_cpu;
	uint32_t	br_stklen;
	uint8_t		br_stack[FT_BPF_STACK];
} ft_bpfrec_t;

typedef struct ft_bpf ft_bpf_t;

#define	FT_BPF_EXEC	UINT64_MAX	/* br_cookie: the process exec'd */

ft_bpf_t	*ft_bpf_open(size_t, char *, size_t);
void		ft_bpf_close(ft_bpf_t *);
int		ft_bpf_fd(const ft_bpf_t *);
/*
 * A uprobe link's cookies: the site's address, and above it a tag, the
 * file's number among the process's linked files and the link's
 * generation; a hit fires only if that generation is the file's current
 * one (ft_bpf_current).  Tag 0: always fires.  Records carry the
 * address alone.
 */
#define	FT_BPF_TAGSHIFT	48
#define	FT_BPF_NFILES	1024		/* file numbers 1 .. 1023 */
#define	FT_BPF_GENSHIFT	10		/* a tag's bits above the file's */
#define	FT_BPF_NGEN	64		/* generations, wrapping */
#define	FT_BPF_COOKIE(addr, file, gen) \
	((addr) | ((uint64_t)((file) | (gen) << FT_BPF_GENSHIFT) << \
	FT_BPF_TAGSHIFT))
int		ft_bpf_current(ft_bpf_t *, uint32_t, uint32_t);
int		ft_bpf_link(ft_bpf_t *, const char *, const uint64_t *,
		    const uint64_t *, uint32_t, pid_t);
size_t		ft_bpf_drain(ft_bpf_t *, void (*)(void *, const ft_bpfrec_t *),
		    void *, uint64_t);
int		ft_bpf_lost(const ft_bpf_t *, uint64_t *, int);
int		ft_bpf_exec(ft_bpf_t *, pid_t);
int		ft_bpf_pidns(void);
int		ft_bpf_gate(ft_bpf_t *, uint64_t);
int		ft_bpf_tlsoff(ft_bpf_t *, int64_t);
int		ft_bpf_stack(ft_bpf_t *, size_t);

/*
 * The system call capture (ft_bpf_sys_*, one for the daemon): programs
 * on the raw tracepoints sys_enter and sys_exit that capture, for the
 * system calls the daemon wants (FT_BPF_SYS_* of each number, below
 * FT_BPF_SYSMAX) of every 64-bit process but the daemon's, the user
 * registers at entry (the return value in ax at return), the thread,
 * its credentials and name, the time, the CPU, and the user stack as
 * the uprobe capture copies it (up to the bound of ft_bpf_sys_stack(),
 * 0 at first), and memory the call names (FT_BPF_SYS_CAPTURE).
 * FT_BPF_SYS_SIDE asks for both records of a call whoever wants it, for
 * what it says of the process (an exec, an exit).
 */
#define	FT_BPF_SYSMAX		512
#define	FT_BPF_SYS_ENTRY	1
#define	FT_BPF_SYS_RETURN	2
#define	FT_BPF_SYS_SIDE		4
/*
 * Memory the call reads or writes, copied at the hit: at entry (or, with
 * FT_BPF_SYS_CAPRET, at return) the memory that register PTR (a struct
 * pt_regs index) points to: a NUL-terminated string (FT_BPF_SYS_STR),
 * or as many bytes as register LEN says (FT_BPF_SYS_BUF; at return, ax
 * is the call's value), at most FT_BPF_SYSCAP.  ft_bpf_sys_want()'s
 * flags | FT_BPF_SYS_CAPSPEC(kind, ptr, len).
 */
#define	FT_BPF_SYS_CAPTURE	8
#define	FT_BPF_SYS_CAPRET	16
/*
 * ... and, for memory copied at entry, again at return (its registers
 * are the entry's but ax): a path in a page the program had not touched
 * yet cannot be read at entry, and can once the call has read it.
 */
#define	FT_BPF_SYS_CAPEXIT	32
#define	FT_BPF_SYS_STR		1
#define	FT_BPF_SYS_BUF		2
#define	FT_BPF_SYS_CAPSPEC(kind, ptr, len) \
	((uint32_t)(kind) << 24 | (uint32_t)(len) << 16 | (uint32_t)(ptr) << 8)
#define	FT_BPF_SYSCAP		256

/*
 * Process events, captured with the system calls (for the proc
 * provider): programs on the raw tracepoints below, over the same ring,
 * wanted as a system call is (FT_BPF_SYS_ENTRY in the want word at
 * FT_BPF_EVNR(ev)).  A record's sr_nr is FT_BPF_EVNR(ev), its registers
 * are all 0 (no user context is read), and sr_ev[] holds what the event
 * says (task ids as tgid << 32 | tid, the kernel's numbers):
 *   FORK	sched_process_fork: [0] the new task (a thread when its tgid
 *		is the caller's)
 *   EXEC	sched_process_exec, in the new image: [0] the pid before it
 *   EXIT	sched_process_exit: [0] 1 when the thread is the process's
 *		last, [1] the group's exit code (signal_struct), [2] the
 *		thread's
 *   SIGGEN	signal_generate: [0] the signal (low 32 bits) and its
 *		siginfo's si_code (high 32; 0 when it has none), [1] the
 *		task it is for,
 *		[2] that task's parent's tgid (0: unknown), [3] the result
 *		(0 delivered, 1 ignored, 2 already pending, ...); its
 *		process's name in sr_tcomm ("" unknown)
 *   SIGDLV	signal_deliver: [0] the signal, [1] the handler the thread
 *		runs (0 SIG_DFL, 1 SIG_IGN, else its address)
 * Each also copies the caller's arguments as its exec left them (the
 * bytes from its mm's arg_start to arg_end, NUL-separated, at most
 * FT_BPF_SYSCAP) into sr_cap (sr_capaddr: arg_start), while it has an
 * mm (a thread past its exit_mm has none).
 * Needs the task offsets of ft_btf_offs() (bo_pid, bo_signal ...): an
 * event whose offsets are unknown is not captured.
 */
#define	FT_BPF_EV_FORK		0
#define	FT_BPF_EV_EXEC		1
#define	FT_BPF_EV_EXIT		2
#define	FT_BPF_EV_SIGGEN	3
#define	FT_BPF_EV_SIGDLV	4
#define	FT_BPF_NEV		5
#define	FT_BPF_EVNR(ev)		(FT_BPF_SYSMAX + (uint32_t)(ev))

typedef struct ft_bpfsysrec {
	uint64_t	sr_regs[FT_BPF_NREGS];	/* as ft_bpfrec_t's */
	uint64_t	sr_pidtgid;	/* tgid << 32 | tid */
	uint64_t	sr_time;	/* CLOCK_MONOTONIC, ns */
	uint64_t	sr_uidgid;	/* gid << 32 | uid */
	uint32_t	sr_nr;		/* the call's number */
	uint32_t	sr_return;	/* 0: entry, 1: return */
	char		sr_comm[16];	/* the process's name (its main
					   thread's), else the thread's */
	uint64_t	sr_capaddr;	/* memory copied at the hit: from */
	uint32_t	sr_caplen;	/* bytes (0: none) */
	uint32_t	sr_capstr;	/* a string: nothing after its NUL */
	uint8_t		sr_cap[FT_BPF_SYSCAP];
	/*
	 * What the kernel's ptrace check reads of the process at the call
	 * (ft_btf_offs()), if sr_credok is FT_BPF_CRED_OK: its uid, gid,
	 * suid, sgid, euid, egid, fsuid, fsgid; its permitted
	 * capabilities; its mm's flags.  FT_BPF_CRED_UNASKED: not copied,
	 * as ft_bpf_sys_creds() asked (nobody but root looks); 0: could not
	 * be read.
	 */
#define	FT_BPF_CRED_OK		1
#define	FT_BPF_CRED_UNASKED	2
	uint32_t	sr_cred[8];
	uint64_t	sr_capprm;
	uint64_t	sr_mmflags;
	uint32_t	sr_credok;
	uint32_t	sr_ppid;	/* its parent's tgid (0: unknown) */
	/*
	 * the parent's ancestors' tgids, its parent first, as far as
	 * FT_BPF_NANC; 0 after the last known (init's parent), and all 0
	 * unless ft_bpf_sys_ancestry() asked for them
	 */
#define	FT_BPF_NANC	7
	uint32_t	sr_anc[FT_BPF_NANC];
	uint32_t	sr_pad2;
	uint64_t	sr_ev[4];	/* a process event's (above) */
	char		sr_tcomm[16];	/* SIGGEN: the target process's name */
	uint32_t	sr_cpu;
	uint32_t	sr_stklen;
	uint8_t		sr_stack[FT_BPF_STACK];
} ft_bpfsysrec_t;

typedef struct ft_bpfsys ft_bpfsys_t;

ft_bpfsys_t	*ft_bpf_sys_open(size_t, char *, size_t);
void		ft_bpf_sys_close(ft_bpfsys_t *);
int		ft_bpf_sys_fd(const ft_bpfsys_t *);
int		ft_bpf_sys_want(ft_bpfsys_t *, uint32_t, uint32_t);
int		ft_bpf_sys_events(ft_bpfsys_t *, char *, size_t);
int		ft_bpf_sys_stack(ft_bpfsys_t *, size_t);
int		ft_bpf_sys_ancestry(ft_bpfsys_t *, int);
int		ft_bpf_sys_creds(ft_bpfsys_t *, int);
size_t		ft_bpf_sys_drain(ft_bpfsys_t *,
		    void (*)(void *, const ft_bpfsysrec_t *), void *);
int		ft_bpf_sys_lost(const ft_bpfsys_t *, uint64_t *, int);

/*
 * ft_btf.c: byte offsets in the kernel's structures, from its BTF; -1
 * where unknown.
 */
typedef struct ft_btfoffs {
	long	bo_fsbase;	/* task_struct: thread.fsbase */
	long	bo_cred;	/* task_struct: real_cred (a pointer) */
	long	bo_uid;		/* cred: uid, gid, suid, sgid, euid, egid,
				   fsuid, fsgid, 8 u32 in a row */
	long	bo_capprm;	/* cred: cap_permitted (u64) */
	long	bo_mm;		/* task_struct: mm (a pointer) */
	long	bo_mmflags;	/* mm_struct: flags (dumpable: low 2 bits) */
	long	bo_argstart;	/* mm_struct: arg_start, arg_end (u64s) */
	long	bo_argend;
	long	bo_leader;	/* task_struct: group_leader (a pointer) */
	long	bo_comm;	/* task_struct: comm (16 bytes) */
	long	bo_pid;		/* task_struct: pid, then tgid (2 s32) */
	long	bo_parent;	/* task_struct: real_parent (a pointer) */
	long	bo_exitcode;	/* task_struct: exit_code (s32) */
	long	bo_signal;	/* task_struct: signal (a pointer) */
	long	bo_grpexit;	/* signal_struct: group_exit_code (s32) */
} ft_btfoffs_t;

const ft_btfoffs_t *ft_btf_offs(void);
long		ft_btf_fsbase_off(void);

/*
 * ft_guard.c: the guardian.  ft_guard_start() forks it; call it once,
 * before any thread exists.  When the daemon is gone, however it went
 * (SIGKILL included), the guardian writes back the original byte of every
 * site still recorded and exits.  Without ft_guard_start() the rest is a
 * no-op.  ft_guard_add/ft_guard_del are for the backends: record a site
 * before patching it, forget it once restored or gone.  A thread whose
 * exit lets tracees go (a ptrace tracer thread) holds ft_guard_watch()
 * for its whole life, so that the guardian acts as it starts to exit.
 */
int		ft_guard_start(char *, size_t);
pid_t		ft_guard_pid_get(void);
uint64_t	ft_guard_starttime(pid_t);
int		ft_guard_add(pid_t, uint64_t, uint64_t, uint8_t);
void		ft_guard_del(int);
int		ft_guard_watch(void);
void		ft_guard_unwatch(int);

/*
 * ft_perf.c: perf sampling as a capture source (cpu-clock samples of a
 * CPU, or of chosen processes on it, with user registers, the top
 * FT_PERF_STACK bytes of the user stack and, if opened with kframes,
 * the kernel frames of a sample taken in the kernel, at most kframes
 * and perf_event_max_stack; and perf's side-band records).
 * ft_perf_drain() hands each sample to po_sample (ph_stack and ph_kpcs
 * are valid until it returns) and each record to po_event: a process's
 * executable mappings changed (FT_PERF_MODS), it exec'd, or it exited.
 * ft_perf_read() is a sample's memory accessor: the copy, then the
 * process now; ft_perf_stackread() the unwinder's: the copy alone.
 */
#ifndef FT_PERF_STACK
#define	FT_PERF_STACK	16384	/* bytes of user stack a sample copies */
#endif

#define	FT_PERF_MODS	1
#define	FT_PERF_EXEC	2
#define	FT_PERF_EXIT	3

typedef struct ft_perf ft_perf_t;

typedef struct ft_perfhit {
	pid_t		ph_pid;		/* 0: the idle thread */
	pid_t		ph_tid;
	int		ph_cpu;
	uint64_t	ph_time;	/* CLOCK_MONOTONIC, ns */
	uint64_t	ph_ip;		/* kernel or user PC */
	int		ph_user;	/* ph_regs are the user registers */
	struct user_regs_struct ph_regs;
	uint64_t	ph_sp;		/* where ph_stack was copied from */
	const uint8_t	*ph_stack;
	uint64_t	ph_stklen;
	const uint64_t	*ph_kpcs;	/* kernel frames, the PC first */
	uint32_t	ph_nkpcs;	/* 0: in user mode, or not asked */
	/* other memory copied at the hit (a system call's), or none */
	uint64_t	ph_capaddr;
	const uint8_t	*ph_cap;
	uint32_t	ph_caplen;
	int		ph_capstr;	/* a string: no more after its NUL */
} ft_perfhit_t;

typedef struct ft_perfops {
	void	(*po_sample)(void *, const ft_perfhit_t *);
	void	(*po_event)(void *, pid_t, int);
} ft_perfops_t;

ft_perf_t	*ft_perf_open_cpu(int, uint64_t, uint32_t);
ft_perf_t	*ft_perf_open_task(int, uint64_t, uint32_t, int *);
void		ft_perf_follow(ft_perf_t *, const pid_t *, uint32_t);
void		ft_perf_close(ft_perf_t *);
int		ft_perf_fd(const ft_perf_t *);
uint64_t	ft_perf_drain(ft_perf_t *, const ft_perfops_t *, void *);
int		ft_perf_stackread(const ft_perfhit_t *, uint64_t, void *,
		    size_t);
int		ft_perf_read(const ft_perfhit_t *, ft_proc_t *, uint64_t,
		    void *, size_t);

/*
 * ft_unwind.c: a process's unwinder.  ft_unwind_stack() takes the
 * registers at a hit and a memory accessor (0 or an error from it), so
 * it serves a stopped thread and a stack copy alike; gen is the caller's
 * module generation: change it when modules come or go.  p (or NULL)
 * is the process as fasttrap knows it: when its /proc entry is gone (a
 * sample drained after the process exited) its module list stands in.
 */
typedef struct ft_unwind ft_unwind_t;
typedef int (*ft_uread_f)(void *, uint64_t, void *, size_t);

ft_unwind_t	*ft_unwind_create(pid_t);
void		ft_unwind_destroy(ft_unwind_t *);
int		ft_unwind_stack(ft_unwind_t *, uint64_t, ft_proc_t *, pid_t,
		    const struct user_regs_struct *, ft_uread_f, void *,
		    uint64_t *, uint32_t);

/*
 * Internal to fasttrap: the process, its threads and sites, shared by
 * ft_proc.c (modules, the API), ft_site.c (the site table) and the
 * backends.
 */
#define	FT_SLOTSIZE	64	/* bytes of one thread's scratch slot */
#define	FT_NSLOTS	1024	/* slots per scratch chunk: threads */
#define	FT_MAXCHUNKS	16	/* scratch chunks per process */
#define	FT_NBUCKETS	1024	/* site hash buckets */

typedef struct ft_site {
	uint64_t	st_addr;
	uint64_t	st_serial;	/* identifies the slot content */
	uint8_t		st_orig[16];	/* the instruction's original bytes */
	ft_emul_t	st_emul;
	int		st_rbrk;	/* the dynamic linker's hook */
	int		st_nolink;	/* uprobe: the kernel refuses it */
	void		**st_users;
	int		st_nusers;
	int		st_cap;
	struct ft_site	*st_next;
} ft_site_t;

/*
 * A backend: one row of ft_proc.c's table, its functions in a file of
 * its own.  Every function but fb_ok takes the process; those marked
 * "pr_lock" are called with it held.  A NULL function is not needed by
 * that backend (see each).
 */
typedef struct ft_backend {
	int		fb_id;		/* FT_BACKEND_*: its row */
	const char	*fb_name;
	int		fb_caps;	/* FT_CAP_* */
	/* may this daemon use it?  0, or -1 with the reason (NULL: yes) */
	int		(*fb_ok)(char *, size_t);
	/* FT_CAP_GRAB: seize p (held, if pr_hold); 0, or -1 with pr_err */
	int		(*fb_grab)(ft_proc_t *);
	/* take p over from its grabbing backend, a ring of n bytes */
	int		(*fb_attach)(ft_proc_t *, size_t, char *, size_t);
	/* p runs on: a held one goes, an attached one starts (NULL: no-op) */
	int		(*fb_run)(ft_proc_t *);
	/* a new site, before it is in the table (no lock): may it be? */
	int		(*fb_site_check)(ft_proc_t *, ft_site_t *);
	/* pr_lock: a new site goes in place (NULL: at fb_sync) */
	int		(*fb_site_arm)(ft_proc_t *, ft_site_t *);
	/* pr_lock: a site goes; restore its bytes if the flag says so */
	void		(*fb_site_disarm)(ft_proc_t *, ft_site_t *, int);
	/* FT_CAP_BATCH: put the table in place; -1, or refused sites */
	int		(*fb_sync)(ft_proc_t *);
	/*
	 * Let p go: restore, detach, stop its threads; p is freed next,
	 * with any site still in the table (NULL: nothing to stop).  What
	 * it returns is given to fb_close once p is freed (a wait that
	 * must end before the process is traced again).
	 */
	void		*(*fb_release)(ft_proc_t *);
	void		(*fb_close)(void *);
	/* the memory of the image being traced, now */
	int		(*fb_read)(ft_proc_t *, uint64_t, void *, size_t);
	int		(*fb_write)(ft_proc_t *, uint64_t, const void *,
			    size_t);
	/* the CPU of a thread stopped in fo_hit (NULL: fh_cpu has it) */
	int		(*fb_cpu)(ft_proc_t *, pid_t);
	/*
	 * From a fatal-signal handler (async-signal-safe): let p go.  1
	 * if another thread was asked to, and needs a moment.
	 */
	int		(*fb_fatal_detach)(ft_proc_t *);
	/*
	 * A backend that copies the stack at a hit for later: at most n
	 * bytes from now on (NULL: it reads the stopped thread's own).
	 */
	int		(*fb_stack)(ft_proc_t *, size_t);
	/*
	 * FT_CAP_GRAB: while p is held (stopped at its hold point, before
	 * ft_proc_run), run fn on the thread that traces it, with the held
	 * thread's id: fn may ptrace it (registers, system calls run in
	 * it).  fn's result, or -1 (EAGAIN) if p is not held.
	 */
	int		(*fb_held)(ft_proc_t *, int (*)(void *, ft_proc_t *,
			    pid_t), void *);
} ft_backend_t;

extern const ft_backend_t ft_backend_ptrace;	/* ft_ptrace.c */
extern const ft_backend_t ft_backend_uprobe;	/* ft_uprobe.c */
extern const ft_backend_t ft_backend_inline;	/* ft_uprobe.c, ft_inline.c */

/*
 * The sites of one backend of a process (ft_site.c), keyed by address,
 * under the process's pr_lock.  A held process has two for a while:
 * the grabbing backend's (its hook on the dynamic linker) and the
 * attached one's.
 */
typedef struct ft_sitetab {
	const ft_backend_t *sb_be;
	ft_site_t	*sb_hash[FT_NBUCKETS];
	size_t		sb_n;
	uint64_t	sb_serial;
	void		**sb_ubuf;	/* users of the site being hit */
	int		sb_ubufcap;
} ft_sitetab_t;

typedef struct ft_thread {
	pid_t		th_tid;
	int		th_new;		/* before its first stop */
	int		th_stopped;	/* in a stop we have not resumed */
	int		th_listen;	/* in group-stop (PTRACE_LISTEN) */
	int		th_foreign;	/* a vfork child sharing our text */
	int		th_sig;		/* signal to deliver on resume */
	int		th_slot;	/* scratch slot index, or -1 */
	int		th_rseqtries;
	uint64_t	th_rseq;	/* struct rseq address, 0 unknown */
	uint64_t	th_skip;	/* do not fire at this address once */
	uint64_t	th_slotkey[FT_MAXCHUNKS];	/* site serial in slot */
	struct ft_thread *th_next;
} ft_thread_t;

typedef struct ft_fatal {
	uint64_t	ff_addr;
	uint8_t		ff_byte;
	int		ff_guard;	/* the guardian's slot, or -1 */
} ft_fatal_t;

struct ft_proc {
	pid_t		pr_pid;
	const ft_backend_t *pr_be;	/* sites and hits; NULL: observed */
	const ft_backend_t *pr_grab;	/* the one that seized it */
	int		pr_grabgone;	/* ... and has let it go */
	void		*pr_bdata;	/* an attached backend's state */
	uint64_t	pr_start;	/* start time (ft_guard_starttime) */
	int		pr_pidfd;	/* ours (dup), or -1 */
	int		pr_memfd;	/* /proc/PID/mem, read-write */
	const ft_ops_t	*pr_ops;
	void		*pr_arg;
	int		pr_hold;	/* ft_proc_hold(), until held */
	int		pr_holdreq;	/* ft_proc_hold() */
	int		pr_holdat;	/* FT_HOLD_*: where it is held */
	int		pr_runreq;	/* ft_proc_run() called */
	int		pr_observe;	/* ft_proc_observe(): not traced */

	/* modules: pr_modlock (recursive) */
	pthread_mutex_t	pr_modlock;
	ft_mod_t	*pr_mods;	/* live and gone, never freed early */
	int		pr_modsdirty;
	uint64_t	pr_modgen;	/* counts re-reads of the maps */
	uint64_t	pr_tlsgen;	/* pr_modgen + 1 of pr_tlsoff; 0 none */
	int64_t		pr_tlsoff;	/* errno - fs_base, or INT64_MIN */

	/* sites and the fatal table: pr_lock */
	pthread_mutex_t	pr_lock;
	ft_sitetab_t	pr_tab[FT_NBACKENDS];	/* by fb_id */
	ft_fatal_t	*volatile pr_fatal;
	volatile size_t	pr_nfatal;
	size_t		pr_fatalcap;
	void		**pr_fatalold;	/* replaced tables, freed at release */
	size_t		pr_nfatalold;
	uint64_t	*pr_patched;	/* every address that ever had our int3 */
	size_t		pr_npatched;
	size_t		pr_patchedcap;
	volatile int	pr_incb;	/* hits running (ft_site_enter) */
	volatile uint64_t pr_cbgen;	/* hits ended */

	/* the tracer thread and its handshakes */
	pthread_t	pr_thread;
	pthread_cond_t	pr_cv;
	int		pr_ready;	/* 0 attaching, 1 attached, -1 failed */
	char		pr_err[256];
	volatile int	pr_cmd;		/* FT_CMD_* bits, atomic */
	volatile int	pr_dead;	/* the process is gone */
	volatile int	pr_done;	/* the tracer thread has finished */

	/* tracer-thread state */
	ft_thread_t	*pr_threads;
	int		pr_nthreads;
	uint8_t		pr_slotused[FT_NSLOTS];
	uint64_t	pr_chunk[FT_MAXCHUNKS];	/* scratch chunk addresses */
	int		pr_nchunks;
	uint64_t	pr_entry;	/* temporary int3 at AT_ENTRY (or at
					 * main, pr_atmain), or 0 */
	uint8_t		pr_entryorig;
	int		pr_atmain;	/* pr_entry is main's */
	int		pr_held;	/* stopped at the entry point */
	uint64_t	pr_rdebug;	/* struct r_debug, or 0 */
	uint64_t	pr_rbrk;
	struct { pid_t o_pid; int o_status; } pr_orphan[8];
	int		pr_norphans;
	int		pr_regslot;	/* index in the fatal registry, or -1 */
	volatile pid_t	pr_tracertid;	/* the tracer thread's kernel tid */
	volatile pid_t	pr_steptid;	/* thread whose hit is being resumed */
	volatile int	pr_stepset;	/* its new registers are in place */
	int		pr_guardwatch;	/* the tracer's ft_guard_watch() */
	/* fb_held: a call for the tracer thread, under pr_lock */
	int		(*pr_callfn)(void *, ft_proc_t *, pid_t);
	void		*pr_callarg;
	int		pr_callrc;
	int		pr_callerr;	/* its errno, if it failed */
	int		pr_calldone;
};

#define	FT_CMD_RELEASE	0x1
#define	FT_CMD_RUN	0x2
#define	FT_CMD_CALL	0x4	/* fb_held: run pr_callfn */

/* ft_proc.c, for the backends */
ft_sitetab_t	*ft_proc_sites(ft_proc_t *, const ft_backend_t *);
int		ft_proc_exec(ft_proc_t *, const ft_backend_t *);
int		ft_proc_memread(ft_proc_t *, uint64_t, void *, size_t);
int		ft_proc_memwrite(ft_proc_t *, uint64_t, const void *, size_t);
int		ft_proc_hitlive(const ft_hit_t *, uint64_t, void *, size_t);
int		ft_hit_stackcopy(uint64_t, const uint8_t *, size_t, uint64_t,
		    void *, size_t);
int		ft_proc_rdebug(ft_proc_t *, uint64_t *, uint64_t *);
int		ft_proc_heldcall(ft_proc_t *, int (*)(void *, ft_proc_t *,
		    pid_t), void *);
int		ft_proc_main(ft_proc_t *, uint64_t *);

/*
 * ft_site.c: a backend's site table.  A site has users (the void * of
 * ft_proc_site_add); the dynamic linker's hook (rbrk) has none.
 * ft_site_enter() starts a hit: it copies the site and its users out
 * under the lock, and until ft_site_leave() a removal of a user from
 * another thread waits for the hit to end.
 */
ft_site_t	**ft_site_slot(ft_sitetab_t *, uint64_t);
int		ft_site_add(ft_proc_t *, ft_sitetab_t *, uint64_t, void *,
		    int);
int		ft_site_remove(ft_proc_t *, ft_sitetab_t *, uint64_t, void *);
void		ft_site_drop(ft_proc_t *, ft_sitetab_t *, ft_site_t **, int);
size_t		ft_site_purge(ft_proc_t *, ft_sitetab_t *, int, uint64_t *,
		    size_t);
void		ft_site_sweep(ft_proc_t *, ft_sitetab_t *,
		    int (*)(ft_proc_t *, const ft_site_t *));
void		ft_site_each(ft_sitetab_t *, void (*)(void *, ft_site_t *),
		    void *);
size_t		ft_site_count(ft_proc_t *, ft_sitetab_t *, int);
int		ft_site_enter(ft_proc_t *, ft_sitetab_t *, uint64_t,
		    ft_site_t *, void *const **);
void		ft_site_leave(ft_proc_t *);
void		ft_site_free(ft_sitetab_t *);

/* ft_guard.c: the fatal table of a process, for crash-time restore */
void		ft_guard_register(ft_proc_t *);
void		ft_guard_unregister(ft_proc_t *);
void		ft_guard_fatal_add(ft_proc_t *, uint64_t, uint8_t);
void		ft_guard_fatal_del(ft_proc_t *, uint64_t);
void		ft_guard_fatal_clear(ft_proc_t *);
void		ft_guard_fatal_free(ft_proc_t *);
void		ft_guard_fatal_restore(void);
void		ft_guard_fatal_detach(void);

/*
 * ft_inline.c: the trap-free function entries of the inline backend,
 * for ft_uprobe.c (whose row it is, with the sites it patches taken out
 * of the links): ft_inline_sync() patches the wanted function entries
 * that fit and restores the ones no longer wanted, under a private stop
 * of every thread; the drain pass gathers the ring's records in time
 * order (ft_inline_gather) and hands out those before a time
 * (ft_inline_drain), so that they interleave with the uprobe records by
 * time.  See ft_inline.c.
 */
typedef struct ft_inl ft_inl_t;

ft_inl_t	*ft_inline_new(void);
void		ft_inline_free(ft_inl_t *);
void		ft_inline_exec(ft_inl_t *);
int		ft_inline_patched(ft_inl_t *, uint64_t);
int		ft_inline_sync(ft_proc_t *, ft_inl_t *, const uint64_t *,
		    const uint8_t *, size_t, size_t, size_t);
void		ft_inline_release(ft_proc_t *, ft_inl_t *);
size_t		ft_inline_gather(ft_inl_t *);
uint64_t	ft_inline_passtime(const ft_inl_t *);
void		ft_inline_drain(ft_proc_t *, ft_inl_t *, uint64_t,
		    void (*)(ft_proc_t *, ft_hit_t *));
uint64_t	ft_inline_lost(ft_inl_t *);
void		ft_inline_kids(ft_proc_t *, ft_inl_t *);
int		ft_inline_ok(char *, size_t);

/* PTRACE_GET_RSEQ_CONFIGURATION's answer: a thread's struct rseq */
#ifndef PTRACE_GET_RSEQ_CONFIGURATION
#define	PTRACE_GET_RSEQ_CONFIGURATION	0x420f
#endif
typedef struct ft_rseqconf {
	uint64_t	rseq_abi_pointer;
	uint32_t	rseq_abi_size;
	uint32_t	signature;
	uint32_t	flags;
	uint32_t	pad;
} ft_rseqconf_t;

/* ft_ptrace.c, for ft_ool.c */
int		ft_ptrace_peek(pid_t, uint64_t, uint64_t *);
int		ft_ptrace_poke(pid_t, uint64_t, uint64_t);
int		ft_ptrace_vmread(pid_t, uint64_t, void *, size_t);
long		ft_ptrace_syscall(ft_proc_t *, ft_thread_t *, long, long, long,
		    long, long, long, long);

/*
 * ft_ool.c: how a thread stopped on a ptrace int3 resumes: the displaced
 * instruction emulated, or run out of line from the thread's slot in a
 * scratch chunk mapped into the target.
 */
int		ft_ool_step(ft_proc_t *, ft_thread_t *,
		    struct user_regs_struct *, const ft_site_t *);
int		ft_ool_unslot(ft_proc_t *, pid_t, struct user_regs_struct *,
		    uint64_t *);

#endif /* FT_H */
