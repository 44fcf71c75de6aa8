/*
 * ft_ptrace.c: the ptrace backend.  One tracer thread per traced process
 * (ptrace answers only the thread that attached) seizes every thread,
 * follows clone, fork, vfork, exec and exit, and serves the probe hits:
 * an int3 patched through /proc/PID/mem stops a thread, the tracer
 * reads its registers, calls the user, and resumes it with one stop per
 * hit: the displaced instruction is emulated when that is simple, else it
 * runs out of line from the thread's slot in a scratch chunk mapped into
 * the target, relocated if it is %rip-relative, followed by a jump back.
 *
 * A slot (FT_SLOTSIZE bytes) is laid out so that any tracer can tell
 * where a thread found inside it belongs, reading only target memory:
 *	+0	the original address of the displaced instruction (8 bytes)
 *	+8	its length (1 byte)
 *	+16	the instruction, relocated
 *	+16+len	jmp *0(%rip); .quad original address + len
 * A thread at +16 has not run the instruction (it goes back to the
 * original address); a thread at +16+len has (it goes to the next one).
 */
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ft.h"

#ifndef PTRACE_GET_RSEQ_CONFIGURATION
#define	PTRACE_GET_RSEQ_CONFIGURATION	0x420f
#endif
#ifndef MAP_FIXED_NOREPLACE
#define	MAP_FIXED_NOREPLACE	0x100000
#endif
#ifndef KCMP_VM
#define	KCMP_VM		1
#endif

#define	FT_PTRACE_OPTS	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)
#define	FT_CHUNKSIZE	((uint64_t)FT_NSLOTS * FT_SLOTSIZE)
#define	FT_SLOTHDR	16

struct ft_ptrace_rseq {
	uint64_t	rseq_abi_pointer;
	uint32_t	rseq_abi_size;
	uint32_t	signature;
	uint32_t	flags;
	uint32_t	pad;
};

/* Registers as an array of words; ft_emul_t names them by index. */
#define	FT_REG(r, i)	(((unsigned long long *)(void *)(r))[(i)])

static pthread_once_t ft_ptrace_once = PTHREAD_ONCE_INIT;

/*
 * The daemon is dying of a fatal signal (ft_proc_fatal_detach): each
 * tracer thread, woken by FT_WAKESIG, lets its process go properly from
 * inside the handler and then waits there for the end.
 */
static volatile int	ft_ptrace_dying;
static __thread ft_proc_t *ft_ptrace_self;

static void
ft_ptrace_wakehandler(int sig)
{
	(void)sig;
	if (ft_ptrace_dying && ft_ptrace_self != NULL) {
		ft_ptrace_fatal_detach(ft_ptrace_self);
		for (;;)
			pause();
	}
}

void
ft_ptrace_fatal_start(void)
{
	ft_ptrace_dying = 1;
}

/* A decimal number from a NUL-terminated name; -1 if it is not one. */
static long
ft_ptrace_fatal_num(const char *s)
{
	long v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* "/proc/PID/task" or "/proc/PID/task/TID/status", without snprintf. */
static void
ft_ptrace_fatal_path(char *buf, pid_t pid, pid_t tid)
{
	char num[16];
	int n, i;
	long v;

	strcpy(buf, "/proc/");
	for (i = 0; i < 2; i++) {
		v = i == 0 ? pid : tid;
		if (i == 1 && tid <= 0)
			break;
		n = 0;
		do {
			num[n++] = '0' + v % 10;
			v /= 10;
		} while (v > 0);
		buf += strlen(buf);
		while (n > 0)
			*buf++ = num[--n];
		*buf = '\0';
		strcat(buf, i == 0 ? "/task" : "/");
	}
	if (tid > 0)
		strcat(buf, "status");
}

/* Is a SIGTRAP pending for tid?  From /proc/PID/task/TID/status. */
static int
ft_ptrace_fatal_trappending(pid_t pid, pid_t tid)
{
	char path[80], buf[4096], *l;
	unsigned long long pnd = 0;
	ssize_t n;
	int fd;

	ft_ptrace_fatal_path(path, pid, tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((l = strstr(buf, "\nSigPnd:\t")) == NULL)
		return 0;
	for (l += 9; (*l >= '0' && *l <= '9') || (*l >= 'a' && *l <= 'f');
	    l++)
		pnd = pnd * 16 + (uint64_t)(*l <= '9' ? *l - '0' : *l - 'a' + 10);
	return (pnd >> (SIGTRAP - 1)) & 1;
}

static int
ft_ptrace_fatal_patched(ft_proc_t *p, uint64_t addr)
{
	size_t i, n = p->pr_npatched;

	for (i = 0; i < n; i++)
		if (p->pr_patched[i] == addr)
			return 1;
	return 0;
}

/* Wait (a bounded time) for a stop of tid; 0 when it came. */
static int
ft_ptrace_fatal_wait(pid_t tid, int *stp)
{
	struct timespec ts = { 0, 1000000 };
	int i;

	for (i = 0; i < 500; i++) {
		if (waitpid(tid, stp, __WALL | WNOHANG) == tid)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/*
 * One thread of a process we let go as the daemon dies: stop it, and if
 * it has just executed one of our int3s (its SIGTRAP in a stop or still
 * pending), put rip back on the instruction and swallow the trap; then
 * detach, passing on any signal that was the program's own.
 */
static void
ft_ptrace_fatal_thread(ft_proc_t *p, pid_t tid)
{
	struct user_regs_struct r;
	siginfo_t si;
	int st, sig = 0;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) == -1) {
		if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == -1 ||
		    ft_ptrace_fatal_wait(tid, &st) == -1 ||
		    ptrace(PTRACE_GETREGS, tid, 0, &r) == -1)
			return;
	}
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 &&
	    (si.si_code >> 8) == 0 && si.si_signo != 0) {
		/*
		 * A signal-delivery stop.  A kernel SIGTRAP is one of our
		 * int3s: just hit (put rip back on the instruction), or
		 * already being handled when we were interrupted (rip
		 * emulated past it, or into a scratch slot that jumps
		 * back): either way it must not reach the program.
		 */
		if (si.si_signo == SIGTRAP && si.si_code == SI_KERNEL) {
			if (!(p->pr_steptid == tid && p->pr_stepset) &&
			    ft_ptrace_fatal_patched(p, r.rip - 1)) {
				r.rip--;
				ptrace(PTRACE_SETREGS, tid, 0, &r);
			}
		} else {
			sig = si.si_signo;
		}
	} else if (ft_ptrace_fatal_patched(p, r.rip - 1) &&
	    ft_ptrace_fatal_trappending(p->pr_pid, tid)) {
		/* the trap is queued behind this stop: take it and drop it */
		r.rip--;
		ptrace(PTRACE_SETREGS, tid, 0, &r);
		if (ptrace(PTRACE_CONT, tid, 0, 0) == 0)
			(void)ft_ptrace_fatal_wait(tid, &st);
	}
	ptrace(PTRACE_DETACH, tid, 0, (void *)(uintptr_t)sig);
}

/*
 * Let every thread of p go, from a signal handler on p's tracer thread:
 * only system calls and plain memory.  Returns the threads seen.
 */
int
ft_ptrace_fatal_detach(ft_proc_t *p)
{
	char path[80], buf[4096];
	long n, off, tid;
	int fd, seen = 0;

	ft_ptrace_fatal_path(path, p->pr_pid, 0);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 0;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; ) {
			struct {
				uint64_t	d_ino;
				int64_t		d_off;
				unsigned short	d_reclen;
				unsigned char	d_type;
				char		d_name[];
			} *d = (void *)(buf + off);

			if ((tid = ft_ptrace_fatal_num(d->d_name)) > 0) {
				ft_ptrace_fatal_thread(p, (pid_t)tid);
				seen++;
			}
			off += d->d_reclen;
		}
	}
	close(fd);
	return seen;
}

static void
ft_ptrace_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ft_ptrace_wakehandler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: waitpid must return EINTR */
	sigaction(SIGRTMIN + 5, &sa, NULL);

	/*
	 * Every ptrace stop of a tracee (each probe hit) generates a
	 * SIGCHLD for the tracer's process.  While SIGCHLD is left at
	 * SIG_DFL the kernel discards it, unless the daemon is itself
	 * traced (strace, gdb) or a handler is installed: then it is
	 * queued and wakes the event loop once per hit, on the other CPU.
	 * Our tracer threads learn of stops from waitpid alone, so ask for
	 * SIGCHLD on exits only, keeping any handler installed.
	 */
	if (sigaction(SIGCHLD, NULL, &sa) == 0) {
		sa.sa_flags |= SA_NOCLDSTOP;
		sigaction(SIGCHLD, &sa, NULL);
	}
}

static uint64_t
ft_ptrace_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int
ft_ptrace_vmread(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

/*
 * One word of a stopped tracee's memory.  On the hit path these beat
 * process_vm_readv/writev, which pin pages for a bigger copy.
 */
static int
ft_ptrace_peek(pid_t tid, uint64_t addr, uint64_t *v)
{
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)addr, 0);
	if (w == -1 && errno != 0)
		return -1;
	*v = (uint64_t)w;
	return 0;
}

static int
ft_ptrace_poke(pid_t tid, uint64_t addr, uint64_t v)
{
	return (int)ptrace(PTRACE_POKEDATA, tid, (void *)(uintptr_t)addr,
	    (void *)(uintptr_t)v);
}

/*
 * The fatal table: one (address, original byte) per patched site, read
 * by ft_proc_fatal_restore() from a signal handler at any moment.  Entries
 * below pr_nfatal are always valid; a grown table is published before the
 * count and the old one is kept until release.  Called with pr_lock held.
 */
static void
ft_ptrace_fatal_add(ft_proc_t *p, uint64_t addr, uint8_t byte)
{
	if (p->pr_nfatal == p->pr_fatalcap) {
		size_t ncap = p->pr_fatalcap ? p->pr_fatalcap * 2 : 256;
		ft_fatal_t *nt = calloc(ncap, sizeof(*nt));
		void **nold;

		if (nt == NULL)
			return;	/* only the fatal path loses this site */
		nold = realloc(p->pr_fatalold, (p->pr_nfatalold + 1) *
		    sizeof(void *));
		if (nold == NULL) {
			free(nt);
			return;
		}
		p->pr_fatalold = nold;
		if (p->pr_fatal != NULL)
			memcpy(nt, p->pr_fatal, p->pr_nfatal * sizeof(*nt));
		p->pr_fatalold[p->pr_nfatalold++] = p->pr_fatal;
		__atomic_store_n(&p->pr_fatal, nt, __ATOMIC_RELEASE);
		p->pr_fatalcap = ncap;
	}
	if (p->pr_start == 0)
		p->pr_start = ft_guard_starttime(p->pr_pid);
	p->pr_fatal[p->pr_nfatal].ff_addr = addr;
	p->pr_fatal[p->pr_nfatal].ff_byte = byte;
	p->pr_fatal[p->pr_nfatal].ff_guard = ft_guard_add(p->pr_pid,
	    p->pr_start, addr, byte);
	__atomic_store_n(&p->pr_nfatal, p->pr_nfatal + 1, __ATOMIC_RELEASE);
}

static void
ft_ptrace_fatal_del(ft_proc_t *p, uint64_t addr)
{
	size_t i, n = p->pr_nfatal;

	for (i = 0; i < n; i++) {
		if (p->pr_fatal[i].ff_addr != addr)
			continue;
		/* a stale duplicate is harmless: it restores the same byte */
		ft_guard_del(p->pr_fatal[i].ff_guard);
		p->pr_fatal[i] = p->pr_fatal[n - 1];
		__atomic_store_n(&p->pr_nfatal, n - 1, __ATOMIC_RELEASE);
		return;
	}
}

/*
 * Every site is gone or restored (exec, exit, release): empty the table
 * and the guardian's copy of it.  pr_lock held.
 */
static void
ft_ptrace_fatal_clear(ft_proc_t *p)
{
	size_t i, n = p->pr_nfatal;

	__atomic_store_n(&p->pr_nfatal, 0, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++)
		ft_guard_del(p->pr_fatal[i].ff_guard);
}

/* From a fatal-signal handler: pwrite(2) only. */
void
ft_ptrace_fatal_one(ft_proc_t *p)
{
	ft_fatal_t *t = __atomic_load_n(&p->pr_fatal, __ATOMIC_ACQUIRE);
	size_t i, n = __atomic_load_n(&p->pr_nfatal, __ATOMIC_ACQUIRE);
	int fd = p->pr_memfd;

	if (t == NULL || fd < 0)
		return;
	for (i = 0; i < n; i++)
		(void)!pwrite(fd, &t[i].ff_byte, 1, (off_t)t[i].ff_addr);
}

/* Sites: a hash table keyed by address, under pr_lock. */
static ft_site_t **
ft_ptrace_site_slot(ft_proc_t *p, uint64_t addr)
{
	ft_site_t **sp = &p->pr_sites[(addr ^ (addr >> 10)) % FT_NBUCKETS];

	while (*sp != NULL && (*sp)->st_addr != addr)
		sp = &(*sp)->st_next;
	return sp;
}

static int
ft_ptrace_site_adduser(ft_site_t *s, void *user)
{
	if (s->st_nusers == s->st_cap) {
		int ncap = s->st_cap ? s->st_cap * 2 : 2;
		void **nu = realloc(s->st_users, ncap * sizeof(void *));

		if (nu == NULL)
			return -1;
		s->st_users = nu;
		s->st_cap = ncap;
	}
	s->st_users[s->st_nusers++] = user;
	return 0;
}

static void	ft_ptrace_patched_add(ft_proc_t *, uint64_t);

/*
 * Add user at addr (rbrk: the dynamic linker's hook, which has no user).
 * The first user patches the int3.
 */
int
ft_ptrace_site_add(ft_proc_t *p, uint64_t addr, void *user, int rbrk)
{
	static const uint8_t int3 = 0xcc;
	ft_site_t **sp, *s;
	ssize_t got;
	int err = 0;

	pthread_mutex_lock(&p->pr_lock);
	if (p->pr_dead || p->pr_memfd < 0) {
		err = ESRCH;
		goto out;
	}
	sp = ft_ptrace_site_slot(p, addr);
	if ((s = *sp) != NULL) {
		if (rbrk) {
			s->st_rbrk = 1;
			p->pr_rbrk = addr;
		} else if (ft_ptrace_site_adduser(s, user) == -1)
			err = ENOMEM;
		goto out;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		err = ENOMEM;
		goto out;
	}
	s->st_addr = addr;
	/* an instruction near the end of a mapping may be shorter than 16 */
	got = pread(p->pr_memfd, s->st_orig, sizeof(s->st_orig), (off_t)addr);
	if (got <= 0) {
		size_t room = 4096 - (addr & 4095);

		got = pread(p->pr_memfd, s->st_orig, room < 16 ? room : 16,
		    (off_t)addr);
	}
	if (got <= 0) {
		err = EFAULT;
	} else if (ft_isa_emul(s->st_orig, (size_t)got, addr,
	    &s->st_emul) == -1) {
		err = EINVAL;
	} else if (s->st_emul.ee_kind == FT_E_REFUSE) {
		err = s->st_emul.ee_insn.fi_type == FT_I_INT3 ? EBUSY : ENOTSUP;
	} else if (!rbrk && ft_ptrace_site_adduser(s, user) == -1) {
		err = ENOMEM;
	} else {
		/* the restorers know the byte before the int3 is there */
		ft_ptrace_fatal_add(p, addr, s->st_orig[0]);
		if (pwrite(p->pr_memfd, &int3, 1, (off_t)addr) != 1) {
			ft_ptrace_fatal_del(p, addr);
			err = EFAULT;
		}
	}
	if (err != 0) {
		free(s->st_users);
		free(s);
		goto out;
	}
	s->st_rbrk = rbrk;
	s->st_serial = ++p->pr_serial;
	*sp = s;
	p->pr_nsites++;
	/*
	 * The hook is known as such in the same breath as it is counted:
	 * ft_proc_uprobe() may ask from another thread, at once after the
	 * grab, whether any site but the hook is in.
	 */
	if (rbrk)
		p->pr_rbrk = addr;
	ft_ptrace_patched_add(p, addr);
out:
	pthread_mutex_unlock(&p->pr_lock);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * Remember that addr held our int3.  A thread may execute it just before
 * we take it away, and its SIGTRAP may reach us only later (even after
 * the site is gone, or while we detach): such a trap is ours to swallow,
 * not the program's.  pr_lock held.
 */
static void
ft_ptrace_patched_add(ft_proc_t *p, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->pr_npatched; i++)
		if (p->pr_patched[i] == addr)
			return;
	if (p->pr_npatched == p->pr_patchedcap) {
		size_t ncap = p->pr_patchedcap ? p->pr_patchedcap * 2 : 64;
		uint64_t *n = realloc(p->pr_patched, ncap * sizeof(*n));

		if (n == NULL)
			return;	/* then such a trap is passed on: as before */
		p->pr_patched = n;
		p->pr_patchedcap = ncap;
	}
	p->pr_patched[p->pr_npatched++] = addr;
}

/*
 * Did addr hold one of our int3s that is gone now?  (A program's own
 * int3 is never one of ours: we refuse such sites.)
 */
static int
ft_ptrace_waspatched(ft_proc_t *p, uint64_t addr)
{
	uint8_t b;
	size_t i;
	int ours = 0;

	pthread_mutex_lock(&p->pr_lock);
	for (i = 0; i < p->pr_npatched && !ours; i++)
		ours = p->pr_patched[i] == addr;
	pthread_mutex_unlock(&p->pr_lock);
	return ours && pread(p->pr_memfd, &b, 1, (off_t)addr) == 1 && b != 0xcc;
}

/*
 * Is the SIGTRAP that stopped a thread at rip the trace of one of our
 * int3s, since removed?  The kernel's own trap (SI_KERNEL) just after it.
 */
static int
ft_ptrace_oldtrap(ft_proc_t *p, pid_t tid, uint64_t rip)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == -1 ||
	    si.si_signo != SIGTRAP || si.si_code != SI_KERNEL)
		return 0;
	return ft_ptrace_waspatched(p, rip - 1);
}

/* Unpatch and free a site.  pr_lock held. */
static void
ft_ptrace_site_drop(ft_proc_t *p, ft_site_t **sp, int restore)
{
	ft_site_t *s = *sp;

	if (restore && p->pr_memfd >= 0)
		(void)!pwrite(p->pr_memfd, s->st_orig, 1, (off_t)s->st_addr);
	ft_ptrace_fatal_del(p, s->st_addr);
	*sp = s->st_next;
	p->pr_nsites--;
	free(s->st_users);
	free(s);
}

int
ft_ptrace_site_remove(ft_proc_t *p, uint64_t addr, void *user)
{
	ft_site_t **sp, *s;
	uint64_t gen;
	int i, found = 0;

	pthread_mutex_lock(&p->pr_lock);
	sp = ft_ptrace_site_slot(p, addr);
	if ((s = *sp) != NULL) {
		for (i = 0; i < s->st_nusers; i++) {
			if (s->st_users[i] != user)
				continue;
			s->st_users[i] = s->st_users[--s->st_nusers];
			found = 1;
			break;
		}
		if (found && s->st_nusers == 0 && !s->st_rbrk)
			ft_ptrace_site_drop(p, sp, 1);
	}
	pthread_mutex_unlock(&p->pr_lock);
	if (!found) {
		errno = ENOENT;
		return -1;
	}
	/*
	 * A hit that copied its users before we removed this one may still be
	 * running with it: wait for that callback to end, so the caller may
	 * free user when we return.
	 */
	if (!ft_ptrace_is_tracer(p)) {
		gen = __atomic_load_n(&p->pr_cbgen, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&p->pr_incb, __ATOMIC_ACQUIRE) &&
		    __atomic_load_n(&p->pr_cbgen, __ATOMIC_ACQUIRE) == gen) {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

/* Threads: the tracer's own list. */
static ft_thread_t *
ft_ptrace_thread(ft_proc_t *p, pid_t tid)
{
	ft_thread_t *t;

	for (t = p->pr_threads; t != NULL; t = t->th_next)
		if (t->th_tid == tid)
			return t;
	return NULL;
}

static ft_thread_t *
ft_ptrace_thread_add(ft_proc_t *p, pid_t tid)
{
	ft_thread_t *t;

	if ((t = ft_ptrace_thread(p, tid)) != NULL)
		return t;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->th_tid = tid;
	t->th_slot = -1;
	t->th_new = 1;
	t->th_next = p->pr_threads;
	p->pr_threads = t;
	p->pr_nthreads++;
	return t;
}

/*
 * A thread reported that it created thread tid.  The new thread's own
 * events may have come first: its stop (then it is known already) and
 * even its exit (then it is gone, reaped by us: adding it would leave a
 * thread that never stops, and a detach that waits for it forever).
 */
static ft_thread_t *
ft_ptrace_cloned(ft_proc_t *p, pid_t tid)
{
	ft_thread_t *t;

	if ((t = ft_ptrace_thread(p, tid)) != NULL)
		return t;
	if (syscall(SYS_tgkill, p->pr_pid, tid, 0) == -1 && errno == ESRCH)
		return NULL;
	return ft_ptrace_thread_add(p, tid);
}

static void
ft_ptrace_thread_drop(ft_proc_t *p, ft_thread_t *t)
{
	ft_thread_t **tp;

	for (tp = &p->pr_threads; *tp != NULL; tp = &(*tp)->th_next) {
		if (*tp != t)
			continue;
		*tp = t->th_next;
		if (t->th_slot >= 0)
			p->pr_slotused[t->th_slot] = 0;
		p->pr_nthreads--;
		free(t);
		return;
	}
}

static void
ft_ptrace_resume(ft_thread_t *t)
{
	int sig = t->th_sig;

	t->th_sig = 0;
	t->th_stopped = 0;
	t->th_listen = 0;
	ptrace(PTRACE_CONT, t->th_tid, 0, (void *)(uintptr_t)sig);
}

/* Is tid a thread of our process (rather than a fork child)? */
static int
ft_ptrace_ours(ft_proc_t *p, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)p->pr_pid,
	    (int)tid);
	return access(path, F_OK) == 0;
}

/*
 * Is thread tid of p traced by this thread already?  A thread that a
 * seized one creates while we walk /proc/PID/task is ours at once
 * (PTRACE_O_TRACECLONE) before its clone event is read: seizing it
 * again fails with EPERM.
 */
static int
ft_ptrace_seized(const ft_proc_t *p, pid_t tid)
{
	char path[80], line[256];
	long tracer = -1;
	FILE *fp;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status",
	    (int)p->pr_pid, (int)tid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (rc == 0 && fgets(line, sizeof(line), fp) != NULL)
		rc = ft_procfs_statusline(line, "TracerPid", &tracer, NULL);
	fclose(fp);
	return rc == 1 && tracer == (long)syscall(SYS_gettid);
}

/*
 * Seize every thread.  Threads may be created while we walk
 * /proc/PID/task, so walk it until a pass finds nothing new; one that a
 * seized thread made is ours already, and its clone event adds it.
 */
static int
ft_ptrace_attach(ft_proc_t *p)
{
	char path[64];
	int added;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pr_pid);
	do {
		DIR *d = opendir(path);
		struct dirent *de;

		if (d == NULL) {
			snprintf(p->pr_err, sizeof(p->pr_err),
			    "pid %d: %s", (int)p->pr_pid, strerror(errno));
			return -1;
		}
		added = 0;
		while ((de = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atoi(de->d_name);
			ft_thread_t *t;

			if (tid <= 0 || ft_ptrace_thread(p, tid) != NULL)
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0,
			    (void *)FT_PTRACE_OPTS) == -1) {
				if (errno == ESRCH)
					continue;	/* it just exited */
				if (errno == EPERM && ft_ptrace_seized(p, tid))
					continue;	/* a clone of ours */
				snprintf(p->pr_err, sizeof(p->pr_err), "%s",
				    strerror(errno));
				closedir(d);
				return -1;
			}
			if ((t = ft_ptrace_thread_add(p, tid)) == NULL) {
				closedir(d);
				return -1;
			}
			t->th_new = 0;	/* seized, not stopped */
			added = 1;
		}
		closedir(d);
	} while (added);
	if (p->pr_threads == NULL) {
		snprintf(p->pr_err, sizeof(p->pr_err), "pid %d has no threads",
		    (int)p->pr_pid);
		return -1;
	}
	return 0;
}

/* The CPU a stopped thread last ran on: its rseq cpu_id, else /proc. */
static int
ft_ptrace_cpu(ft_proc_t *p, ft_thread_t *t)
{
	uint64_t w, v;
	int32_t cpu;

	if (t->th_rseq == 0 && t->th_rseqtries < 3) {
		struct ft_ptrace_rseq rc;

		t->th_rseqtries++;
		memset(&rc, 0, sizeof(rc));
		if (ptrace(PTRACE_GET_RSEQ_CONFIGURATION, t->th_tid,
		    (void *)sizeof(rc), &rc) > 0 && rc.rseq_abi_pointer != 0)
			t->th_rseq = rc.rseq_abi_pointer;
	}
	/* struct rseq: cpu_id_start at 0, cpu_id at 4 */
	if (t->th_rseq != 0 && ft_ptrace_peek(t->th_tid, t->th_rseq,
	    &w) == 0 && (cpu = (int32_t)(w >> 32)) >= 0)
		return cpu;

	/* the CPU it last ran on: field 39 */
	return ft_proc_statfield(p->pr_pid, t->th_tid, 39, &v) == 0 ?
	    (int)v : -1;
}

/* ft_proc_cpu(): tid is stopped in fo_hit, on the tracer thread */
int
ft_ptrace_tidcpu(ft_proc_t *p, pid_t tid)
{
	ft_thread_t *t;

	if (!ft_ptrace_is_tracer(p) || (t = ft_ptrace_thread(p, tid)) == NULL)
		return -1;
	return ft_ptrace_cpu(p, t);
}

/*
 * Run one system call in stopped thread t, from an existing "syscall"
 * instruction, and return its result.  Only used to map scratch chunks:
 * once per chunk, so the single step here is not on the hit path.
 */
static int
ft_ptrace_findsyscall(ft_proc_t *p, uint64_t *at)
{
	char path[64], line[512];
	FILE *f;
	int found = 0, pass;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pr_pid);
	/* the vdso first (always there, never instrumented), then any text */
	for (pass = 0; pass < 2 && !found; pass++) {
		if ((f = fopen(path, "re")) == NULL)
			return -1;
		while (!found && fgets(line, sizeof(line), f) != NULL) {
			unsigned long lo, hi;
			char perm[8];
			uint8_t buf[4096];
			uint64_t a;

			if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 ||
			    perm[2] != 'x')
				continue;
			if (pass == 0 && strstr(line, "[vdso]") == NULL)
				continue;
			for (a = lo; a < hi && !found; a += sizeof(buf)) {
				size_t i;

				if (pread(p->pr_memfd, buf, sizeof(buf),
				    (off_t)a) != (ssize_t)sizeof(buf))
					break;
				for (i = 0; i + 1 < sizeof(buf); i++) {
					if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
						*at = a + i;
						found = 1;
						break;
					}
				}
			}
		}
		fclose(f);
	}
	return found ? 0 : -1;
}

/*
 * The injected system call went wrong: the thread must not go on with
 * the registers we gave it (it would run on from the vdso's "syscall"
 * with ours).  Stop it if it is not stopped, and put its own back.
 */
static long
ft_ptrace_syscall_undo(ft_thread_t *t, const struct user_regs_struct *save)
{
	int st;

	if (ptrace(PTRACE_SETREGS, t->th_tid, 0, save) == 0)
		return -EINTR;
	if (ptrace(PTRACE_INTERRUPT, t->th_tid, 0, 0) == -1)
		return -ESRCH;	/* gone */
	for (;;) {
		while (waitpid(t->th_tid, &st, __WALL) == -1)
			if (errno != EINTR)
				return -ESRCH;
		if (!WIFSTOPPED(st))
			return -ESRCH;
		if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP)
			t->th_sig = WSTOPSIG(st);	/* keep it */
		if (ptrace(PTRACE_SETREGS, t->th_tid, 0, save) == 0)
			return -EINTR;
	}
}

static long
ft_ptrace_syscall(ft_proc_t *p, ft_thread_t *t, long nr, long a1, long a2,
    long a3, long a4, long a5, long a6)
{
	struct user_regs_struct save, r;
	uint64_t at;
	long ret;
	int st;

	if (ft_ptrace_findsyscall(p, &at) == -1)
		return -ENOSYS;
	if (ptrace(PTRACE_GETREGS, t->th_tid, 0, &save) == -1)
		return -ESRCH;
	r = save;
	r.rax = nr;
	r.orig_rax = -1;
	r.rdi = a1;
	r.rsi = a2;
	r.rdx = a3;
	r.r10 = a4;
	r.r8 = a5;
	r.r9 = a6;
	r.rip = at;
	if (ptrace(PTRACE_SETREGS, t->th_tid, 0, &r) == -1)
		return -ESRCH;
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, t->th_tid, 0, 0) == -1)
			return ft_ptrace_syscall_undo(t, &save);
		/*
		 * Our wake-up signal (a release, a new site) may interrupt
		 * the wait: wait again, never step again, since the thread
		 * is not stopped until the step is done.
		 */
		while (waitpid(t->th_tid, &st, __WALL) == -1)
			if (errno != EINTR)
				return ft_ptrace_syscall_undo(t, &save);
		if (!WIFSTOPPED(st))
			return -ESRCH;
		if (WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0)
			break;
		/* a signal came first: keep it for the thread's resume */
		if ((st >> 16) == 0)
			t->th_sig = WSTOPSIG(st);
	}
	if (ptrace(PTRACE_GETREGS, t->th_tid, 0, &r) == -1)
		return ft_ptrace_syscall_undo(t, &save);
	ret = (long)r.rax;
	if (ptrace(PTRACE_SETREGS, t->th_tid, 0, &save) == -1)
		return ft_ptrace_syscall_undo(t, &save);
	return ret;
}

/*
 * A free address range of len bytes within 1 GiB of near, from
 * /proc/PID/maps, so that %rip-relative operands reach their data from
 * the slot.  0 if there is none.
 */
static uint64_t
ft_ptrace_gap(ft_proc_t *p, uint64_t near, uint64_t len)
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
ft_ptrace_chunk_map(ft_proc_t *p, ft_thread_t *t, uint64_t near)
{
	uint64_t hint;
	long r = -1;

	if (p->pr_nchunks == FT_MAXCHUNKS)
		return -1;
	if ((hint = ft_ptrace_gap(p, near, FT_CHUNKSIZE)) != 0)
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
ft_ptrace_slot(ft_proc_t *p, ft_thread_t *t, const ft_site_t *s)
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
		if (ft_ptrace_chunk_map(p, t, s->st_addr) == -1)
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
static int
ft_ptrace_unslot(ft_proc_t *p, pid_t pid, struct user_regs_struct *r,
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
 * Set t's registers after its hit and let it go.  If the daemon dies of a
 * fatal signal meanwhile (ft_ptrace_fatal_thread, on this very thread),
 * pr_step says whether the new registers are in place: a thread whose
 * rip was already moved on must not be put back on the site.
 */
static void
ft_ptrace_setregs(ft_proc_t *p, ft_thread_t *t, struct user_regs_struct *r)
{
	p->pr_steptid = t->th_tid;
	ptrace(PTRACE_SETREGS, t->th_tid, 0, r);
	p->pr_stepset = 1;
	ft_ptrace_resume(t);
	p->pr_stepset = 0;
	p->pr_steptid = 0;
}

/*
 * Resume t after its hit at s->st_addr: emulate, or run out of line.
 * r holds the registers with rip at the site.
 */
static void
ft_ptrace_step(ft_proc_t *p, ft_thread_t *t, struct user_regs_struct *r,
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
		if ((v = ft_ptrace_slot(p, t, s)) == 0) {
			/*
			 * No slot (no room for a chunk near the data, or too
			 * many threads).  Never harm the target: give the
			 * site up, so the original instruction runs.
			 */
			ft_site_t **sp;

			pthread_mutex_lock(&p->pr_lock);
			sp = ft_ptrace_site_slot(p, pc);
			if (*sp != NULL)
				ft_ptrace_site_drop(p, sp, 1);
			pthread_mutex_unlock(&p->pr_lock);
			break;
		}
		r->rip = v;
		break;
	}
	ft_ptrace_setregs(p, t, r);
	return;
fault:
	/* as the instruction itself would have: a SIGSEGV at the site */
	r->rip = pc;
	t->th_skip = pc;
	t->th_sig = SIGSEGV;
	ft_ptrace_setregs(p, t, r);
}

/*
 * After a dlclose: drop the sites whose int3 is gone with their mapping,
 * without writing to what may be mapped there now.  A site is ours while
 * its byte still reads 0xcc.
 */
static void
ft_ptrace_purge(ft_proc_t *p)
{
	ft_site_t **sp;
	uint8_t b;
	int i;

	pthread_mutex_lock(&p->pr_lock);
	for (i = 0; i < FT_NBUCKETS; i++) {
		sp = &p->pr_sites[i];
		while (*sp != NULL) {
			if (pread(p->pr_memfd, &b, 1, (off_t)(*sp)->st_addr) ==
			    1 && b == 0xcc)
				sp = &(*sp)->st_next;
			else
				ft_ptrace_site_drop(p, sp, 0);
		}
	}
	pthread_mutex_unlock(&p->pr_lock);
}

/*
 * The dynamic linker's hook: say so when its list is consistent again
 * (returns 1 then; a program not held yet hears it as fo_held).  A hook
 * set at the exec has no r_debug yet: the linker points the
 * executable's DT_DEBUG at it before its first call.
 */
static int
ft_ptrace_rbrk(ft_proc_t *p)
{
	uint64_t rdebug, rbrk;
	int32_t state = 0;

	if (p->pr_rdebug == 0 && ft_proc_rdebug(p, &rdebug, &rbrk) == 0 &&
	    rdebug != 0 && rbrk == p->pr_rbrk)
		p->pr_rdebug = rdebug;
	/* struct r_debug: r_state follows r_version, r_map, r_brk */
	if (p->pr_rdebug != 0 && ft_ptrace_vmread(p->pr_pid, p->pr_rdebug + 24,
	    &state, 4) == 0 && state != 0)
		return 0;	/* RT_ADD or RT_DELETE: in progress */
	ft_ptrace_purge(p);
	ft_proc_refresh(p);
	if (p->pr_ops->fo_modules != NULL && !p->pr_hold)
		p->pr_ops->fo_modules(p->pr_arg, p);
	return 1;
}

/* Find the dynamic linker's hook (r_debug.r_brk) and stop on it. */
static void
ft_ptrace_hook(ft_proc_t *p)
{
	uint64_t rdebug = 0, rbrk = 0;

	if (ft_proc_rdebug(p, &rdebug, &rbrk) == -1 || rbrk == 0)
		return;
	if (ft_ptrace_site_add(p, rbrk, NULL, 1) == 0)
		p->pr_rdebug = rdebug;	/* (pr_rbrk is set there) */
}

/*
 * A new image is ready to run: a held program stops here for its user
 * (until FT_CMD_RUN); otherwise the user hears of the exec and it runs.
 */
static void
ft_ptrace_arrived(ft_proc_t *p, ft_thread_t *t)
{
	if (p->pr_hold) {
		p->pr_hold = 0;
		p->pr_held = 1;
		t->th_stopped = 1;
		if (p->pr_ops->fo_held != NULL)
			p->pr_ops->fo_held(p->pr_arg, p);
		return;
	}
	if (p->pr_ops->fo_exec != NULL)
		p->pr_ops->fo_exec(p->pr_arg, p);
	ft_ptrace_resume(t);
}

/*
 * The temporary int3 of a new image (at its entry point, or at main):
 * plant it (0, or -1 if it cannot be), or take it away.  It is in the
 * fatal table while it is there, as a site is.
 */
static int
ft_ptrace_entry_set(ft_proc_t *p, uint64_t addr)
{
	static const uint8_t int3 = 0xcc;

	if (addr == 0 || pread(p->pr_memfd, &p->pr_entryorig, 1,
	    (off_t)addr) != 1 || p->pr_entryorig == 0xcc ||
	    pwrite(p->pr_memfd, &int3, 1, (off_t)addr) != 1)
		return -1;
	p->pr_entry = addr;
	pthread_mutex_lock(&p->pr_lock);
	ft_ptrace_fatal_add(p, addr, p->pr_entryorig);
	pthread_mutex_unlock(&p->pr_lock);
	return 0;
}

static void
ft_ptrace_entry_clear(ft_proc_t *p)
{
	if (p->pr_entry == 0)
		return;
	(void)!pwrite(p->pr_memfd, &p->pr_entryorig, 1, (off_t)p->pr_entry);
	pthread_mutex_lock(&p->pr_lock);
	ft_ptrace_fatal_del(p, p->pr_entry);
	pthread_mutex_unlock(&p->pr_lock);
	p->pr_entry = 0;
	p->pr_atmain = 0;
}

/*
 * The new image reached its entry point (or, held at main, main): the
 * libraries are mapped; stop on the linker's hook from now on.
 */
static void
ft_ptrace_entry(ft_proc_t *p, ft_thread_t *t, struct user_regs_struct *r)
{
	uint64_t mainpc;
	int atmain = p->pr_atmain;

	r->rip = p->pr_entry;
	ft_ptrace_entry_clear(p);
	ptrace(PTRACE_SETREGS, t->th_tid, 0, r);
	ft_proc_refresh(p);
	if (p->pr_rbrk == 0)
		ft_ptrace_hook(p);
	if (p->pr_hold && p->pr_holdat == FT_HOLD_MAIN && !atmain &&
	    ft_proc_main(p, &mainpc) == 0 && ft_ptrace_entry_set(p,
	    mainpc) == 0) {
		/* run on to main; without one it is held here */
		p->pr_atmain = 1;
		ft_ptrace_resume(t);
		return;
	}
	ft_ptrace_arrived(p, t);
}

/* A SIGTRAP that is not one of our sites. */
static void
ft_ptrace_stray(ft_proc_t *p, ft_thread_t *t, struct user_regs_struct *r)
{
	if (ft_ptrace_oldtrap(p, t->th_tid, r->rip)) {
		/* our int3, removed while this stop was on its way */
		r->rip--;
		ptrace(PTRACE_SETREGS, t->th_tid, 0, r);
		ft_ptrace_resume(t);
		return;
	}
	t->th_sig = SIGTRAP;
	ft_ptrace_resume(t);
}

static void
ft_ptrace_trap(ft_proc_t *p, ft_thread_t *t)
{
	struct user_regs_struct r;
	ft_site_t *s, copy;
	ft_hit_t hit;
	int fire;

	if (ptrace(PTRACE_GETREGS, t->th_tid, 0, &r) == -1)
		return;
	if (p->pr_entry != 0 && r.rip - 1 == p->pr_entry && !t->th_foreign) {
		ft_ptrace_entry(p, t, &r);
		return;
	}
	pthread_mutex_lock(&p->pr_lock);
	if ((s = *ft_ptrace_site_slot(p, r.rip - 1)) == NULL) {
		pthread_mutex_unlock(&p->pr_lock);
		ft_ptrace_stray(p, t, &r);
		return;
	}
	copy = *s;
	if (s->st_nusers > p->pr_ubufcap) {
		void **nb = realloc(p->pr_ubuf, s->st_nusers * sizeof(void *));

		if (nb != NULL) {
			p->pr_ubuf = nb;
			p->pr_ubufcap = s->st_nusers;
		}
	}
	if (copy.st_nusers > p->pr_ubufcap)
		copy.st_nusers = p->pr_ubufcap;
	if (copy.st_nusers > 0)		/* the linker's hook has none */
		memcpy(p->pr_ubuf, s->st_users,
		    copy.st_nusers * sizeof(void *));
	pthread_mutex_unlock(&p->pr_lock);

	r.rip = copy.st_addr;
	fire = t->th_skip != copy.st_addr && !t->th_foreign;
	t->th_skip = 0;
	if (fire && copy.st_rbrk && ft_ptrace_rbrk(p) && p->pr_hold &&
	    p->pr_holdat == FT_HOLD_PREINIT) {
		/*
		 * evaltime=preinit: the first consistent state.  Held on the
		 * hook's int3, which it runs through later without firing.
		 */
		ft_ptrace_entry_clear(p);
		t->th_skip = copy.st_addr;
		ptrace(PTRACE_SETREGS, t->th_tid, 0, &r);
		ft_ptrace_arrived(p, t);
		return;
	}
	if (fire && copy.st_nusers > 0 && p->pr_ops->fo_hit != NULL) {
		hit.fh_pid = p->pr_pid;
		hit.fh_tid = t->th_tid;
		hit.fh_addr = copy.st_addr;
		hit.fh_time = ft_ptrace_now();
		hit.fh_cpu = -1;	/* read only if needed: ft_proc_cpu */
		hit.fh_regs = r;
		__atomic_store_n(&p->pr_incb, 1, __ATOMIC_RELEASE);
		p->pr_ops->fo_hit(p->pr_arg, p, &hit, p->pr_ubuf,
		    copy.st_nusers);
		__atomic_add_fetch(&p->pr_cbgen, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&p->pr_incb, 0, __ATOMIC_RELEASE);
	}
	ft_ptrace_step(p, t, &r, &copy);
}

/* Wait for the first stop of a new tracee we expect (a fork child). */
static int
ft_ptrace_waitnew(ft_proc_t *p, pid_t pid, int *st)
{
	int i;

	for (i = 0; i < p->pr_norphans; i++) {
		if (p->pr_orphan[i].o_pid != pid)
			continue;
		*st = p->pr_orphan[i].o_status;
		p->pr_orphan[i] = p->pr_orphan[--p->pr_norphans];
		return 0;
	}
	while (waitpid(pid, st, __WALL) == -1) {
		if (errno != EINTR)
			return -1;
	}
	return 0;
}

/*
 * A fork child: a copy of our patched text.  Put the original bytes
 * back in its copy, move it out of a slot, and let it go.  A vfork child
 * (or a CLONE_VM one) shares our memory: it must keep running through our
 * sites until it execs or exits, so it stays traced without callbacks.
 */
static void
ft_ptrace_child(ft_proc_t *p, pid_t child, int vfork)
{
	struct user_regs_struct r;
	char path[64];
	ft_thread_t *t;
	int st, fd, b, shared;
	ft_site_t *s;
	size_t i;

	if (ft_ptrace_waitnew(p, child, &st) == -1 || !WIFSTOPPED(st))
		return;
	shared = (int)syscall(SYS_kcmp, p->pr_pid, child, KCMP_VM, 0, 0);
	if (shared == -1)
		shared = vfork ? 0 : 1;
	if (shared == 0) {
		if ((t = ft_ptrace_thread_add(p, child)) == NULL) {
			ptrace(PTRACE_DETACH, child, 0, 0);
			return;
		}
		t->th_new = 0;
		t->th_foreign = 1;
		ft_ptrace_resume(t);
		return;
	}
	/*
	 * The child's text is the parent's at the fork: every int3 we had
	 * there then must go, including those of sites removed since (or
	 * being removed by a detach that is going on): for those, the
	 * parent holds the original byte again.
	 */
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)child);
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) != -1) {
		pthread_mutex_lock(&p->pr_lock);
		for (b = 0; b < FT_NBUCKETS; b++)
			for (s = p->pr_sites[b]; s != NULL; s = s->st_next)
				(void)!pwrite(fd, s->st_orig, 1,
				    (off_t)s->st_addr);
		for (i = 0; i < p->pr_npatched; i++) {
			uint64_t a = p->pr_patched[i];
			uint8_t byte;

			if (*ft_ptrace_site_slot(p, a) == NULL &&
			    pread(p->pr_memfd, &byte, 1, (off_t)a) == 1 &&
			    byte != 0xcc)
				(void)!pwrite(fd, &byte, 1, (off_t)a);
		}
		pthread_mutex_unlock(&p->pr_lock);
		if (p->pr_entry != 0)
			(void)!pwrite(fd, &p->pr_entryorig, 1,
			    (off_t)p->pr_entry);
		close(fd);
	}
	if (ptrace(PTRACE_GETREGS, child, 0, &r) == 0 &&
	    ft_ptrace_unslot(p, child, &r, NULL))
		ptrace(PTRACE_SETREGS, child, 0, &r);
	ptrace(PTRACE_DETACH, child, 0, 0);
}

/* exec: a new image; every site, slot and thread but one is gone. */
static void
ft_ptrace_exec(ft_proc_t *p, ft_thread_t *t)
{
	ft_thread_t *n;
	char path[64];
	uint64_t av[2], entry = 0;
	int fd, b, letgo;

	if (t->th_foreign) {
		/* a vfork child leaves our memory: it is not ours */
		ptrace(PTRACE_DETACH, t->th_tid, 0, 0);
		ft_ptrace_thread_drop(p, t);
		return;
	}
	/* the exec'ing thread now has the process's id */
	for (t = p->pr_threads; t != NULL; t = n) {
		n = t->th_next;
		if (!t->th_foreign)
			ft_ptrace_thread_drop(p, t);
	}
	t = ft_ptrace_thread_add(p, p->pr_pid);
	if (t == NULL)
		return;
	t->th_new = 0;

	/*
	 * The stop of PTRACE_EVENT_EXEC comes after the new credentials
	 * are committed and before the first instruction of the new
	 * image: may its users still trace it?  If not, it goes now,
	 * untraced; nothing of ours is in the new image.
	 */
	letgo = p->pr_ops->fo_execok != NULL &&
	    p->pr_ops->fo_execok(p->pr_arg, p) == -1;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)p->pr_pid);
	fd = letgo ? -1 : open(path, O_RDWR | O_CLOEXEC);
	pthread_mutex_lock(&p->pr_lock);
	ft_ptrace_fatal_clear(p);
	for (b = 0; b < FT_NBUCKETS; b++)
		while (p->pr_sites[b] != NULL)
			ft_ptrace_site_drop(p, &p->pr_sites[b], 0);
	if (p->pr_memfd >= 0)
		close(p->pr_memfd);
	p->pr_memfd = fd;
	if (letgo)
		p->pr_dead = 1;		/* not ours any more */
	pthread_mutex_unlock(&p->pr_lock);
	if (letgo) {
		p->pr_hold = 0;
		while (p->pr_threads != NULL) {
			ptrace(PTRACE_DETACH, p->pr_threads->th_tid, 0, 0);
			ft_ptrace_thread_drop(p, p->pr_threads);
		}
		return;
	}
	p->pr_nchunks = 0;
	memset(p->pr_slotused, 0, sizeof(p->pr_slotused));
	p->pr_rdebug = p->pr_rbrk = 0;
	p->pr_atmain = 0;
	ft_proc_refresh(p);

	/*
	 * Held at the exec or at preinit: watch the linker from the start,
	 * so that libraries are seen as they are mapped.
	 */
	if (p->pr_hold && (p->pr_holdat == FT_HOLD_EXEC ||
	    p->pr_holdat == FT_HOLD_PREINIT))
		ft_ptrace_hook(p);
	if (p->pr_hold && p->pr_holdat == FT_HOLD_EXEC) {
		ft_ptrace_arrived(p, t);
		return;
	}

	/* run the new image to its entry point: its libraries are mapped */
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)p->pr_pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		while (read(fd, av, sizeof(av)) == (ssize_t)sizeof(av) &&
		    av[0] != AT_NULL) {
			if (av[0] == AT_ENTRY)
				entry = av[1];
		}
		close(fd);
	}
	if (ft_ptrace_entry_set(p, entry) == 0) {
		ft_ptrace_resume(t);
		return;
	}
	/* no entry point to stop at: say so now */
	ft_ptrace_arrived(p, t);
}

static int
ft_ptrace_stopsig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU;
}

/* The process is gone: nothing of it is ours any more. */
static void
ft_ptrace_gone(ft_proc_t *p, int status)
{
	int b;

	pthread_mutex_lock(&p->pr_lock);
	p->pr_dead = 1;
	ft_ptrace_fatal_clear(p);
	for (b = 0; b < FT_NBUCKETS; b++)
		while (p->pr_sites[b] != NULL)
			ft_ptrace_site_drop(p, &p->pr_sites[b], 0);
	pthread_mutex_unlock(&p->pr_lock);
	while (p->pr_threads != NULL)
		ft_ptrace_thread_drop(p, p->pr_threads);
	if (p->pr_ops->fo_exited != NULL)
		p->pr_ops->fo_exited(p->pr_arg, p, status);
}

/* One wait status of one tracee. */
static void
ft_ptrace_event(ft_proc_t *p, pid_t tid, int st)
{
	ft_thread_t *t = ft_ptrace_thread(p, tid);
	int sig, ev;
	unsigned long msg;
	struct user_regs_struct r;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		if (tid == p->pr_pid)
			ft_ptrace_gone(p, st);
		else if (t != NULL)
			ft_ptrace_thread_drop(p, t);
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	if (t == NULL) {
		if (!ft_ptrace_ours(p, tid)) {
			/* a fork child, before its parent's event */
			if (p->pr_norphans < (int)(sizeof(p->pr_orphan) /
			    sizeof(p->pr_orphan[0]))) {
				p->pr_orphan[p->pr_norphans].o_pid = tid;
				p->pr_orphan[p->pr_norphans++].o_status = st;
			} else {
				ptrace(PTRACE_DETACH, tid, 0, 0);
			}
			return;
		}
		if ((t = ft_ptrace_thread_add(p, tid)) == NULL) {
			ptrace(PTRACE_DETACH, tid, 0, 0);
			return;
		}
	}
	t->th_stopped = 1;
	sig = WSTOPSIG(st);
	ev = st >> 16;
	switch (ev) {
	case 0:
		if (sig == SIGTRAP) {
			ft_ptrace_trap(p, t);
			return;
		}
		/*
		 * A signal for the target: it goes through.  If the thread is
		 * in its slot, its handler must not find it there (the slot
		 * may be rewritten before it returns): move it out first.
		 */
		if (p->pr_nchunks > 0 && ptrace(PTRACE_GETREGS, tid, 0,
		    &r) == 0 && ft_ptrace_unslot(p, p->pr_pid, &r,
		    &t->th_skip))
			ptrace(PTRACE_SETREGS, tid, 0, &r);
		t->th_sig = sig;
		ft_ptrace_resume(t);
		return;
	case PTRACE_EVENT_STOP:
		if (t->th_new) {
			t->th_new = 0;
			ft_ptrace_resume(t);
		} else if (ft_ptrace_stopsig(sig)) {
			/* group-stop: stay stopped, yet report SIGCONT */
			t->th_listen = 1;
			t->th_stopped = 0;
			ptrace(PTRACE_LISTEN, tid, 0, 0);
		} else {
			ft_ptrace_resume(t);
		}
		return;
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0)
			(void)ft_ptrace_cloned(p, (pid_t)msg);
		ft_ptrace_resume(t);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0)
			ft_ptrace_child(p, (pid_t)msg, ev == PTRACE_EVENT_VFORK);
		ft_ptrace_resume(t);
		return;
	case PTRACE_EVENT_EXEC:
		ft_ptrace_exec(p, t);
		return;
	default:	/* PTRACE_EVENT_EXIT, VFORK_DONE */
		ft_ptrace_resume(t);
		return;
	}
}

/* Has thread tid a SIGTRAP queued for it (SigPnd, not yet reported)? */
static int
ft_ptrace_trappending(ft_proc_t *p, pid_t tid)
{
	char path[64], line[256];
	unsigned long long pnd;
	int yes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)p->pr_pid,
	    (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "SigPnd: %llx", &pnd) == 1) {
			yes = (pnd >> (SIGTRAP - 1)) & 1;
			break;
		}
	}
	fclose(f);
	return yes;
}

/*
 * Thread t executed one of our int3s just as we interrupted it: the
 * SIGTRAP is queued, and would kill the program once we are gone.  Put
 * rip back on the instruction, let the thread take the signal into a
 * signal-delivery stop (before it runs anything) and swallow it there.
 */
static void
ft_ptrace_untrap(ft_thread_t *t, struct user_regs_struct *r)
{
	int st;

	r->rip--;
	ptrace(PTRACE_SETREGS, t->th_tid, 0, r);
	if (ptrace(PTRACE_CONT, t->th_tid, 0, 0) == -1)
		return;
	for (;;) {
		if (waitpid(t->th_tid, &st, __WALL) == -1) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (!WIFSTOPPED(st))
			return;
		if ((st >> 16) == 0 && WSTOPSIG(st) == SIGTRAP)
			return;		/* detached from here: swallowed */
		if ((st >> 16) == 0)
			t->th_sig = WSTOPSIG(st);
		ptrace(PTRACE_CONT, t->th_tid, 0, 0);
	}
}

/*
 * Let go of everything: restore every patched byte, stop every thread,
 * move those inside a slot back to the original code, detach.
 */
static void
ft_ptrace_detach(ft_proc_t *p)
{
	struct user_regs_struct r;
	ft_thread_t *t, *n;
	uint64_t *gone = NULL;
	size_t ngone = 0, i;
	int b, st, pending;
	pid_t tid;

	pthread_mutex_lock(&p->pr_lock);
	gone = calloc(p->pr_nsites + 2, sizeof(uint64_t));
	for (b = 0; b < FT_NBUCKETS; b++) {
		while (p->pr_sites[b] != NULL) {
			if (gone != NULL)
				gone[ngone++] = p->pr_sites[b]->st_addr;
			ft_ptrace_site_drop(p, &p->pr_sites[b], 1);
		}
	}
	if (p->pr_entry != 0) {
		(void)!pwrite(p->pr_memfd, &p->pr_entryorig, 1,
		    (off_t)p->pr_entry);
		if (gone != NULL)
			gone[ngone++] = p->pr_entry;
		p->pr_entry = 0;
	}
	ft_ptrace_fatal_clear(p);
	pthread_mutex_unlock(&p->pr_lock);

	/* Stop every thread we have not stopped yet. */
	for (t = p->pr_threads; t != NULL; t = t->th_next)
		if (!t->th_stopped)
			ptrace(PTRACE_INTERRUPT, t->th_tid, 0, 0);
	for (;;) {
		pending = 0;
		for (t = p->pr_threads; t != NULL; t = t->th_next)
			pending += !t->th_stopped;
		if (pending == 0)
			break;
		if ((tid = waitpid(-1, &st, __WALL | __WNOTHREAD)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		t = ft_ptrace_thread(p, tid);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t != NULL)
				ft_ptrace_thread_drop(p, t);
			if (tid == p->pr_pid)
				p->pr_dead = 1;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		if (t == NULL) {
			if (!ft_ptrace_ours(p, tid)) {
				ptrace(PTRACE_DETACH, tid, 0, 0);
				continue;
			}
			if ((t = ft_ptrace_thread_add(p, tid)) == NULL)
				continue;
		}
		t->th_stopped = 1;
		switch (st >> 16) {
		case 0:
			if (WSTOPSIG(st) != SIGTRAP) {
				t->th_sig = WSTOPSIG(st);
				break;
			}
			/*
			 * A hit already on its way, at a site removed now or
			 * earlier: run the instruction again.
			 */
			if (ptrace(PTRACE_GETREGS, tid, 0, &r) == 0) {
				for (i = 0; i < ngone; i++)
					if (gone[i] == r.rip - 1)
						break;
				if (i < ngone ||
				    ft_ptrace_oldtrap(p, tid, r.rip)) {
					r.rip--;
					ptrace(PTRACE_SETREGS, tid, 0, &r);
				} else {
					t->th_sig = SIGTRAP;
				}
			}
			break;
		case PTRACE_EVENT_CLONE:
			if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &r.rax) == 0)
				(void)ft_ptrace_cloned(p, (pid_t)r.rax);
			break;
		case PTRACE_EVENT_FORK:
		case PTRACE_EVENT_VFORK:
			if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &r.rax) == 0)
				ft_ptrace_child(p, (pid_t)r.rax,
				    (st >> 16) == PTRACE_EVENT_VFORK);
			break;
		default:
			break;
		}
	}

	for (t = p->pr_threads; t != NULL; t = n) {
		n = t->th_next;
		if (ptrace(PTRACE_GETREGS, t->th_tid, 0, &r) == 0) {
			for (i = 0; i < ngone; i++)
				if (gone[i] == r.rip - 1)
					break;
			if ((i < ngone || ft_ptrace_waspatched(p, r.rip - 1)) &&
			    ft_ptrace_trappending(p, t->th_tid))
				ft_ptrace_untrap(t, &r);
			else if (p->pr_nchunks > 0 &&
			    ft_ptrace_unslot(p, p->pr_pid, &r, NULL))
				ptrace(PTRACE_SETREGS, t->th_tid, 0, &r);
		}
		ptrace(PTRACE_DETACH, t->th_tid, 0,
		    (void *)(uintptr_t)t->th_sig);
		ft_ptrace_thread_drop(p, t);
	}
	free(gone);
}

static void *
ft_ptrace_main(void *arg)
{
	ft_proc_t *p = arg;
	sigset_t set;
	char path[64];
	pid_t tid;
	int st, cmd;

	p->pr_thread = pthread_self();
	p->pr_tracertid = (pid_t)syscall(SYS_gettid);
	p->pr_guardwatch = ft_guard_watch();
	ft_ptrace_self = p;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 5);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	if (ft_ptrace_attach(p) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)p->pr_pid);
		if ((p->pr_memfd = open(path, O_RDWR | O_CLOEXEC)) == -1)
			snprintf(p->pr_err, sizeof(p->pr_err), "%s: %s", path,
			    strerror(errno));
	}
	pthread_mutex_lock(&p->pr_lock);
	p->pr_ready = p->pr_memfd >= 0 ? 1 : -1;
	pthread_cond_broadcast(&p->pr_cv);
	pthread_mutex_unlock(&p->pr_lock);
	if (p->pr_memfd < 0) {
		while (p->pr_threads != NULL) {
			ptrace(PTRACE_DETACH, p->pr_threads->th_tid, 0, 0);
			ft_ptrace_thread_drop(p, p->pr_threads);
		}
		ft_guard_unwatch(p->pr_guardwatch);
		p->pr_done = 1;
		return NULL;
	}
	if (!p->pr_hold)
		ft_ptrace_hook(p);

	for (;;) {
		cmd = __atomic_exchange_n(&p->pr_cmd, 0, __ATOMIC_ACQ_REL);
		if (cmd & FT_CMD_RELEASE) {
			if (!p->pr_dead)
				ft_ptrace_detach(p);
			break;
		}
		if ((cmd & FT_CMD_RUN) && p->pr_held) {
			ft_thread_t *t = ft_ptrace_thread(p, p->pr_pid);

			p->pr_held = 0;
			if (t != NULL)
				ft_ptrace_resume(t);
		}
		if (p->pr_dead) {
			/* wait for the release, reaping what is left */
			if (waitpid(-1, &st, __WALL | __WNOTHREAD | WNOHANG) <= 0)
				pause();
			continue;
		}
		if ((tid = waitpid(-1, &st, __WALL | __WNOTHREAD)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD && !p->pr_dead)
				ft_ptrace_gone(p, 0);
			continue;
		}
		ft_ptrace_event(p, tid, st);
	}
	pthread_mutex_lock(&p->pr_lock);
	p->pr_dead = 1;
	pthread_mutex_unlock(&p->pr_lock);
	ft_guard_unwatch(p->pr_guardwatch);
	p->pr_done = 1;
	return NULL;
}

int
ft_ptrace_is_tracer(const ft_proc_t *p)
{
	return p->pr_ready != 0 && pthread_equal(pthread_self(), p->pr_thread);
}

/* Interrupt the tracer's waitpid() (or pause()) so it reads pr_cmd. */
void
ft_ptrace_wake(ft_proc_t *p)
{
	if (!ft_ptrace_is_tracer(p) && !p->pr_done)
		pthread_kill(p->pr_thread, SIGRTMIN + 5);
}

/* Start the tracer thread; it attaches.  Returns 0, or -1 (pr_err). */
int
ft_ptrace_start(ft_proc_t *p)
{
	sigset_t set, old;
	int rc;

	pthread_once(&ft_ptrace_once, ft_ptrace_init);
	/* the thread starts with the wake-up signal blocked: see main */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 5);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	rc = pthread_create(&p->pr_thread, NULL, ft_ptrace_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		snprintf(p->pr_err, sizeof(p->pr_err), "%s", strerror(rc));
		return -1;
	}
	pthread_mutex_lock(&p->pr_lock);
	while (p->pr_ready == 0)
		pthread_cond_wait(&p->pr_cv, &p->pr_lock);
	pthread_mutex_unlock(&p->pr_lock);
	if (p->pr_ready < 0) {
		pthread_join(p->pr_thread, NULL);
		return -1;
	}
	return 0;
}
