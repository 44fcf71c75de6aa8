/*
 * ft_unwind.c: user stacks, with libdw's unwinder (dwfl).
 *
 * One code path for every backend: the caller hands over the registers
 * of the thread at the hit (struct user_regs_struct) and a memory
 * accessor, which reads the live memory of a stopped thread (ptrace) or
 * the copy of the top of its stack taken at the hit (uprobes, perf
 * samples), and nothing beyond the copy: memory there is a later
 * moment's.  A walk stops at the first frame whose CFA or return
 * address would need bytes the accessor does not have; the stack then
 * ends with the last frame it could prove, as illumos prints what it
 * has.  libdw finds each frame's
 * CFI (.eh_frame; no separate debuginfo, never debuginfod) and falls
 * back to the frame pointer where a module has none.  A module's file is
 * the one the process has mapped (ft_unwind_find_elf), never the one its
 * path in /proc/PID/maps names now.
 *
 * Cost: a Dwfl holding the process's modules and their CFI is kept per
 * process and rebuilt only when the caller's module generation changes
 * (exec, dlopen, dlclose), so a hit pays for the walk alone; and the
 * walk reads the stack a page at a time (uw_page), not a word per
 * system call.  One process's hits are unwound one at a time (uw_lock).
 */
#include <sys/types.h>
#include <sys/user.h>

#include <sys/stat.h>

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

#define FT_UNWIND_PAGE		4096
#define FT_UNWIND_NPAGES	4	/* pages of stack one walk keeps */

typedef struct ft_unwind_page {
	uint64_t	up_base;
	int		up_valid;
	uint8_t		up_data[FT_UNWIND_PAGE];
} ft_unwind_page_t;

struct ft_unwind {
	pthread_mutex_t	uw_lock;
	pid_t		uw_pid;
	uint64_t	uw_gen;		/* uw_dwfl's module generation */
	Dwfl		*uw_dwfl;	/* NULL: build on the next walk */
	int		uw_broken;	/* uw_gen could not be reported */
	/* the walk under way */
	pid_t		uw_tid;
	const struct user_regs_struct *uw_regs;
	ft_uread_f	uw_uread;
	void		*uw_uarg;
	ft_unwind_page_t uw_page[FT_UNWIND_NPAGES];	/* this walk's */
	int		uw_nextpage;
};

typedef struct ft_unwind_walk {
	uint64_t	*uk_pcs;
	uint32_t	uk_max;
	uint32_t	uk_n;
} ft_unwind_walk_t;

/* No separate debuginfo: unwinding needs .eh_frame, and never network. */
static int
ft_unwind_nodebuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file, const char *debuglink,
    GElf_Word crc, char **debugfile)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file;
	(void)debuglink; (void)crc; (void)debugfile;
	return -1;
}

/*
 * A module's file: the one the process has mapped at the module's start
 * (ft_procfs.c), never the path dwfl_linux_proc_report read in
 * /proc/PID/maps.  The module's userdata is its ft_unwind_t (set in
 * ft_unwind_build).  The vdso has no file: libdw reads it from memory.
 */
static int
ft_unwind_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, char **file, Elf **elfp)
{
	ft_unwind_t *u = *userdata;
	char path[PATH_MAX];
	ft_mapent_t me;
	int fd;

	if (modname[0] != '/')
		return dwfl_linux_proc_find_elf(mod, userdata, modname, base,
		    file, elfp);
	if (u == NULL || ft_procfs_mapfind(u->uw_pid, base, &me, path,
	    sizeof(path)) == -1 ||
	    (fd = ft_procfs_mapopen(u->uw_pid, &me, NULL, 0)) == -1)
		return -1;
	if ((*file = strdup(modname)) == NULL) {
		close(fd);
		return -1;
	}
	*elfp = NULL;
	return fd;
}

/* Each module's userdata: the unwinder (ft_unwind_find_elf). */
static int
ft_unwind_setmod(Dwfl_Module *mod, void **userdata, const char *name,
    Dwarf_Addr start, void *arg)
{
	(void)mod; (void)name; (void)start;
	*userdata = arg;
	return DWARF_CB_OK;
}

static char *ft_unwind_debugpath = NULL;

static const Dwfl_Callbacks ft_unwind_callbacks = {
	.find_elf = ft_unwind_find_elf,
	.find_debuginfo = ft_unwind_nodebuginfo,
	.debuginfo_path = &ft_unwind_debugpath,
};

/* The one thread of a walk: the one that hit. */
static pid_t
ft_unwind_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	ft_unwind_t *u = arg;

	(void)dwfl;
	if (*thread_argp != NULL)
		return 0;
	*thread_argp = u;
	return u->uw_tid;
}

static bool
ft_unwind_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	ft_unwind_t *u = arg;

	(void)dwfl;
	if (tid != u->uw_tid)
		return false;
	*thread_argp = u;
	return true;
}

static bool
ft_unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
    void *arg)
{
	ft_unwind_t *u = arg;
	uint64_t v, base = addr & ~(uint64_t)(FT_UNWIND_PAGE - 1);
	ft_unwind_page_t *pg;
	int i;

	(void)dwfl;
	if (addr - base <= FT_UNWIND_PAGE - sizeof(v)) {
		for (i = 0; i < FT_UNWIND_NPAGES; i++) {
			pg = &u->uw_page[i];
			if (pg->up_valid && pg->up_base == base) {
				memcpy(&v, pg->up_data + (addr - base),
				    sizeof(v));
				*result = v;
				return true;
			}
		}
		/*
		 * A whole page is mapped or not: read it once.  A copy may
		 * hold only part of it: then word by word, below, and the
		 * pages kept stay.
		 */
		pg = &u->uw_page[u->uw_nextpage];
		pg->up_valid = u->uw_uread(u->uw_uarg, base, pg->up_data,
		    FT_UNWIND_PAGE) == 0;
		pg->up_base = base;
		if (pg->up_valid) {
			u->uw_nextpage = (u->uw_nextpage + 1) %
			    FT_UNWIND_NPAGES;
			memcpy(&v, pg->up_data + (addr - base), sizeof(v));
			*result = v;
			return true;
		}
	}
	/* across pages, or a copy that holds only part of the page */
	if (u->uw_uread(u->uw_uarg, addr, &v, sizeof(v)) != 0)
		return false;
	*result = v;
	return true;
}

/* The registers at the hit, in x86-64 DWARF numbering (16: the pc). */
static bool
ft_unwind_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	ft_unwind_t *u = thread_arg;
	const struct user_regs_struct *r = u->uw_regs;
	Dwarf_Word regs[17];

	regs[0] = r->rax;
	regs[1] = r->rdx;
	regs[2] = r->rcx;
	regs[3] = r->rbx;
	regs[4] = r->rsi;
	regs[5] = r->rdi;
	regs[6] = r->rbp;
	regs[7] = r->rsp;
	regs[8] = r->r8;
	regs[9] = r->r9;
	regs[10] = r->r10;
	regs[11] = r->r11;
	regs[12] = r->r12;
	regs[13] = r->r13;
	regs[14] = r->r14;
	regs[15] = r->r15;
	regs[16] = r->rip;
	dwfl_thread_state_register_pc(thread, r->rip);
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks ft_unwind_thread_callbacks = {
	.next_thread = ft_unwind_next_thread,
	.get_thread = ft_unwind_get_thread,
	.memory_read = ft_unwind_memory_read,
	.set_initial_registers = ft_unwind_initial_registers,
};

ft_unwind_t *
ft_unwind_create(pid_t pid)
{
	ft_unwind_t *u;

	if ((u = calloc(1, sizeof(*u))) == NULL)
		return NULL;
	pthread_mutex_init(&u->uw_lock, NULL);
	u->uw_pid = pid;
	return u;
}

void
ft_unwind_destroy(ft_unwind_t *u)
{
	if (u == NULL)
		return;
	if (u->uw_dwfl != NULL)
		dwfl_end(u->uw_dwfl);
	pthread_mutex_destroy(&u->uw_lock);
	free(u);
}

/*
 * A module of fasttrap's list, for a process whose /proc entry is gone:
 * its file by path, if it is still the file mapped (device and inode).
 */
static int
ft_unwind_reportmod(void *arg, ft_proc_t *p, ft_mod_t *m)
{
	Dwfl *d = arg;
	struct stat st;
	int fd;

	(void)p;
	if (!m->fm_text || m->fm_path == NULL || m->fm_path[0] != '/')
		return 0;
	if ((fd = open(m->fm_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) == -1)
		return 0;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_dev != m->fm_dev ||
	    (uint64_t)st.st_ino != m->fm_ino) {
		close(fd);
		return 0;
	}
	/* the descriptor is libdw's from now on, even on failure */
	(void)dwfl_report_elf(d, m->fm_path, m->fm_path, fd, m->fm_bias,
	    true);
	return 0;
}

/*
 * The modules of the process as they are now, and the unwinder on them;
 * if the process is gone from /proc (a sample drained after its exit),
 * as fasttrap last saw them (p; NULL: none).
 */
static int
ft_unwind_build(ft_unwind_t *u, uint64_t gen, ft_proc_t *p)
{
	Dwfl *d;
	int ok;

	if (u->uw_dwfl != NULL) {
		dwfl_end(u->uw_dwfl);
		u->uw_dwfl = NULL;
	}
	u->uw_gen = gen;
	u->uw_broken = 1;
	if ((d = dwfl_begin(&ft_unwind_callbacks)) == NULL)
		return -1;
	dwfl_report_begin(d);
	ok = dwfl_linux_proc_report(d, u->uw_pid) == 0;
	if (!ok && p != NULL) {
		dwfl_report_begin(d);
		ok = ft_proc_mod_iter(p, NULL, ft_unwind_reportmod, d) == 0;
	}
	if (!ok || dwfl_report_end(d, NULL, NULL) != 0 ||
	    dwfl_getmodules(d, ft_unwind_setmod, u, 0) != 0 ||
	    !dwfl_attach_state(d, NULL, u->uw_pid,
	    &ft_unwind_thread_callbacks, u)) {
		dwfl_end(d);
		return -1;
	}
	u->uw_dwfl = d;
	u->uw_broken = 0;
	return 0;
}

static int
ft_unwind_frame(Dwfl_Frame *state, void *arg)
{
	ft_unwind_walk_t *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	w->uk_pcs[w->uk_n++] = pc;
	return w->uk_n < w->uk_max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/*
 * Walk the stack of thread tid of u's process from registers r, reading
 * memory with uread(uarg, ...); gen is the caller's module generation
 * (any change rebuilds the module list).  Stores at most max program
 * counters, the hit's own first, and returns how many; if even the
 * modules cannot be had, the first is r->rip alone.
 */
int
ft_unwind_stack(ft_unwind_t *u, uint64_t gen, ft_proc_t *p, pid_t tid,
    const struct user_regs_struct *r, ft_uread_f uread, void *uarg,
    uint64_t *pcs, uint32_t max)
{
	ft_unwind_walk_t w;
	int i;

	if (max == 0)
		return 0;
	pthread_mutex_lock(&u->uw_lock);
	if (u->uw_gen != gen || (u->uw_dwfl == NULL && !u->uw_broken))
		(void)ft_unwind_build(u, gen, p);
	if (u->uw_dwfl == NULL) {
		pthread_mutex_unlock(&u->uw_lock);
		pcs[0] = r->rip;
		return 1;
	}
	for (i = 0; i < FT_UNWIND_NPAGES; i++)
		u->uw_page[i].up_valid = 0;
	u->uw_tid = tid;
	u->uw_regs = r;
	u->uw_uread = uread;
	u->uw_uarg = uarg;
	w.uk_pcs = pcs;
	w.uk_max = max;
	w.uk_n = 0;
	/* the walk ends at the outermost frame, or with an error: either way */
	(void)dwfl_getthread_frames(u->uw_dwfl, tid, ft_unwind_frame, &w);
	u->uw_regs = NULL;
	u->uw_uread = NULL;
	u->uw_uarg = NULL;
	pthread_mutex_unlock(&u->uw_lock);
	if (w.uk_n == 0) {
		pcs[0] = r->rip;
		w.uk_n = 1;
	}
	return (int)w.uk_n;
}
