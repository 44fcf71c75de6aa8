/*
 * ft_ptrace.c: the ptrace backend.  One tracer thread per traced process
 * (ptrace answers only the thread that attached) seizes every thread,
 * follows clone, fork, vfork, exec and exit, and serves the probe hits:
 * an int3 patched through /proc/PID/mem stops a thread, the tracer
 * reads its registers, calls the user, and resumes it with one stop per
 * hit: the displaced instruction is emulated when that is simple, else it
 * runs out of line from the thread's slot in a scratch chunk mapped into
 * the target (ft_ool.c).
 *
 * It is the ptrace row of the backend table (ft_backend_ptrace, at the
 * end), the one that can seize a process (FT_CAP_GRAB): every traced
 * process is grabbed or held here first, and another backend may take
 * it over before its first site (ft_proc_setbackend).  Its sites are
 * ft_site.c's table, whose entries it arms with an int3 (recorded first
 * in the fatal table and the guardian's, ft_guard.c) and disarms.  Its
 * hits carry the live accessor: the thread waits while fo_hit runs.
 */
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ft.h"

#ifndef KCMP_VM
#define	KCMP_VM		1
#endif

#define	FT_PTRACE_OPTS	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)

static pthread_once_t ft_ptrace_once = PTHREAD_ONCE_INIT;

/*
 * The daemon is dying of a fatal signal (ft_proc_fatal_detach): each
 * tracer thread, woken by FT_WAKESIG, lets its process go properly from
 * inside the handler and then waits there for the end.
 */
static volatile int	ft_ptrace_dying;
static __thread ft_proc_t *ft_ptrace_self;

static int	ft_ptrace_fatal_detach(ft_proc_t *);
static int	ft_ptrace_is_tracer(const ft_proc_t *);

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
static int
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

int
ft_ptrace_vmread(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

/*
 * One word of a stopped tracee's memory.  On the hit path these beat
 * process_vm_readv/writev, which pin pages for a bigger copy.
 */
int
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

int
ft_ptrace_poke(pid_t tid, uint64_t addr, uint64_t v)
{
	return (int)ptrace(PTRACE_POKEDATA, tid, (void *)(uintptr_t)addr,
	    (void *)(uintptr_t)v);
}

/* The ptrace backend's sites (ft_site.c) */
#define	FT_PTRACE_TAB(p)	(&(p)->pr_tab[FT_BACKEND_PTRACE])

static void	ft_ptrace_patched_add(ft_proc_t *, uint64_t);

/*
 * fb_site_arm: a new site's int3, patched through /proc/PID/mem once its
 * original bytes are known and the instruction can be resumed from.
 * pr_lock held.
 */
static int
ft_ptrace_site_arm(ft_proc_t *p, ft_site_t *s)
{
	static const uint8_t int3 = 0xcc;
	uint64_t addr = s->st_addr;
	ssize_t got;

	if (p->pr_memfd < 0) {
		errno = ESRCH;
		return -1;
	}
	/* an instruction near the end of a mapping may be shorter than 16 */
	got = pread(p->pr_memfd, s->st_orig, sizeof(s->st_orig), (off_t)addr);
	if (got <= 0) {
		size_t room = 4096 - (addr & 4095);

		got = pread(p->pr_memfd, s->st_orig, room < 16 ? room : 16,
		    (off_t)addr);
	}
	if (got <= 0) {
		errno = EFAULT;
		return -1;
	}
	if (ft_isa_emul(s->st_orig, (size_t)got, addr, &s->st_emul) == -1) {
		errno = EINVAL;
		return -1;
	}
	if (s->st_emul.ee_kind == FT_E_REFUSE) {
		errno = s->st_emul.ee_insn.fi_type == FT_I_INT3 ? EBUSY :
		    ENOTSUP;
		return -1;
	}
	/* the restorers know the byte before the int3 is there */
	ft_guard_fatal_add(p, addr, s->st_orig[0]);
	if (pwrite(p->pr_memfd, &int3, 1, (off_t)addr) != 1) {
		ft_guard_fatal_del(p, addr);
		errno = EFAULT;
		return -1;
	}
	ft_ptrace_patched_add(p, addr);
	return 0;
}

/* fb_site_disarm: the original byte back (if restore).  pr_lock held. */
static void
ft_ptrace_site_disarm(ft_proc_t *p, ft_site_t *s, int restore)
{
	if (restore && p->pr_memfd >= 0)
		(void)!pwrite(p->pr_memfd, s->st_orig, 1, (off_t)s->st_addr);
	ft_guard_fatal_del(p, s->st_addr);
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
 * again fails with EPERM.  -1 if it is gone (an exiting thread fails
 * the seize with EPERM too).
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
		return -1;	/* gone meanwhile: it was exiting */
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
				int e = errno;

				if (e == ESRCH)
					continue;	/* it just exited */
				/* a clone of ours, or one exiting (-1) */
				if (e == EPERM && ft_ptrace_seized(p, tid) != 0)
					continue;
				snprintf(p->pr_err, sizeof(p->pr_err), "%s",
				    strerror(e));
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
		ft_rseqconf_t rc;

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

/* fb_cpu: tid is stopped in fo_hit, on the tracer thread */
static int
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

long
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

/* A site is ours while its byte still reads 0xcc. */
static int
ft_ptrace_mapped(ft_proc_t *p, const ft_site_t *s)
{
	uint8_t b;

	return pread(p->pr_memfd, &b, 1, (off_t)s->st_addr) == 1 && b == 0xcc;
}

/*
 * After a dlclose: drop the sites whose int3 is gone with their mapping,
 * without writing to what may be mapped there now.
 */
static void
ft_ptrace_purge(ft_proc_t *p)
{
	ft_site_sweep(p, FT_PTRACE_TAB(p), ft_ptrace_mapped);
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
	if (ft_site_add(p, FT_PTRACE_TAB(p), rbrk, NULL, 1) == 0) {
		p->pr_rdebug = rdebug;
		p->pr_rbrk = rbrk;
	}
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
	ft_guard_fatal_add(p, addr, p->pr_entryorig);
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
	ft_guard_fatal_del(p, p->pr_entry);
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

/*
 * A thread stopped on an int3: the entry point's, a site's (fire its
 * users, then resume it past the displaced instruction: ft_ool.c), or
 * someone else's.
 */
static void
ft_ptrace_trap(ft_proc_t *p, ft_thread_t *t)
{
	ft_sitetab_t *tab = FT_PTRACE_TAB(p);
	struct user_regs_struct r;
	void *const *users;
	ft_site_t copy;
	ft_hit_t hit;
	int fire, n;

	if (ptrace(PTRACE_GETREGS, t->th_tid, 0, &r) == -1)
		return;
	if (p->pr_entry != 0 && r.rip - 1 == p->pr_entry && !t->th_foreign) {
		ft_ptrace_entry(p, t, &r);
		return;
	}
	if ((n = ft_site_enter(p, tab, r.rip - 1, &copy, &users)) == -1) {
		ft_ptrace_stray(p, t, &r);
		return;
	}
	r.rip = copy.st_addr;
	fire = t->th_skip != copy.st_addr && !t->th_foreign;
	t->th_skip = 0;
	if (fire && copy.st_rbrk) {
		/*
		 * The linker's hook: what it calls (fo_modules, fo_held) may
		 * wait for a thread that removes sites, so it runs outside
		 * the hit; a user of the same address fires after it.
		 */
		ft_site_leave(p);
		if (ft_ptrace_rbrk(p) && p->pr_hold &&
		    p->pr_holdat == FT_HOLD_PREINIT) {
			/*
			 * evaltime=preinit: the first consistent state.
			 * Held on the hook's int3, which it runs through
			 * later without firing.
			 */
			ft_ptrace_entry_clear(p);
			t->th_skip = copy.st_addr;
			ptrace(PTRACE_SETREGS, t->th_tid, 0, &r);
			ft_ptrace_arrived(p, t);
			return;
		}
		if ((n = ft_site_enter(p, tab, copy.st_addr, &copy,
		    &users)) == -1) {
			/* gone meanwhile, its byte restored: run it */
			ft_ptrace_setregs(p, t, &r);
			return;
		}
	}
	if (fire && n > 0 && p->pr_ops->fo_hit != NULL) {
		hit.fh_pid = p->pr_pid;
		hit.fh_tid = t->th_tid;
		hit.fh_addr = copy.st_addr;
		hit.fh_time = ft_ptrace_now();
		hit.fh_cpu = -1;	/* read only if needed: ft_proc_cpu */
		hit.fh_regs = r;
		hit.fh_proc = p;
		hit.fh_read = ft_proc_hitlive;	/* the thread waits */
		hit.fh_stkread = NULL;		/* fh_read: exact */
		hit.fh_priv = NULL;
		p->pr_ops->fo_hit(p->pr_arg, p, &hit, users, n);
	}
	ft_site_leave(p);
	if (ft_ool_step(p, t, &r, &copy) == -1) {
		ft_site_t **sp;

		/* no slot: the site goes, the original instruction runs */
		pthread_mutex_lock(&p->pr_lock);
		sp = ft_site_slot(tab, copy.st_addr);
		if (*sp != NULL)
			ft_site_drop(p, tab, sp, 1);
		pthread_mutex_unlock(&p->pr_lock);
	}
	ft_ptrace_setregs(p, t, &r);
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

/* A site's original byte into a fork child's copy of the text. */
static void
ft_ptrace_childsite(void *arg, ft_site_t *s)
{
	(void)!pwrite(*(int *)arg, s->st_orig, 1, (off_t)s->st_addr);
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
	int st, fd, shared;
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
		ft_site_each(FT_PTRACE_TAB(p), ft_ptrace_childsite, &fd);
		for (i = 0; i < p->pr_npatched; i++) {
			uint64_t a = p->pr_patched[i];
			uint8_t byte;

			if (*ft_site_slot(FT_PTRACE_TAB(p), a) == NULL &&
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
	    ft_ool_unslot(p, child, &r, NULL))
		ptrace(PTRACE_SETREGS, child, 0, &r);
	ptrace(PTRACE_DETACH, child, 0, 0);
}

/* exec: a new image; every site, slot and thread but one is gone. */
static void
ft_ptrace_exec(ft_proc_t *p, ft_thread_t *t)
{
	struct user_regs_struct r;
	ft_thread_t *n;
	char path[64];
	uint64_t av[2], entry = 0;
	uint8_t b;
	int fd;

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
	 * What we wrote since the seize went through the memory descriptor
	 * opened then.  Opened after an exec whose event is only handled
	 * now (the process exec'd between the seize and the open), it is
	 * the new image's, and so are the sites written through it (the
	 * linker's hook, at the grab): their bytes go back before the table
	 * forgets them, or the new image would trap on them untraced.  A
	 * descriptor of the image the exec replaced reads nothing: its
	 * sites went with it.
	 */
	if (ptrace(PTRACE_GETREGS, t->th_tid, 0, &r) == 0 &&
	    pread(p->pr_memfd, &b, 1, (off_t)r.rip) == 1) {
		pthread_mutex_lock(&p->pr_lock);
		(void)ft_site_purge(p, FT_PTRACE_TAB(p), 1, NULL, 0);
		pthread_mutex_unlock(&p->pr_lock);
	}

	/*
	 * The stop of PTRACE_EVENT_EXEC comes after the new credentials
	 * are committed and before the first instruction of the new
	 * image: may its users still trace it?  If not, it goes now,
	 * untraced; nothing of ours is in the new image.
	 */
	pthread_mutex_lock(&p->pr_lock);
	ft_guard_fatal_clear(p);	/* the entry point's int3 too */
	pthread_mutex_unlock(&p->pr_lock);
	if (ft_proc_exec(p, &ft_backend_ptrace) == -1) {
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
	pthread_mutex_lock(&p->pr_lock);
	p->pr_dead = 1;
	ft_guard_fatal_clear(p);
	(void)ft_site_purge(p, FT_PTRACE_TAB(p), 0, NULL, 0);
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
		    &r) == 0 && ft_ool_unslot(p, p->pr_pid, &r,
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
 * Will thread tid of p report no stop: has it ended, or is it a zombie
 * (a leader that exited while other threads live, a thread of a process
 * being killed)?  Its /proc entry says.
 */
static int
ft_ptrace_ended(const ft_proc_t *p, pid_t tid)
{
	char path[64], buf[512], *s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)p->pr_pid,
	    (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	if ((s = strrchr(buf, ')')) == NULL || s[1] != ' ')
		return 0;
	return s[2] == 'Z' || s[2] == 'X';
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
	int st, pending;
	pid_t tid;

	pthread_mutex_lock(&p->pr_lock);
	gone = calloc(FT_PTRACE_TAB(p)->sb_n + 2, sizeof(uint64_t));
	ngone = ft_site_purge(p, FT_PTRACE_TAB(p), 1, gone,
	    FT_PTRACE_TAB(p)->sb_n);
	if (gone == NULL)
		ngone = 0;
	if (p->pr_entry != 0) {
		(void)!pwrite(p->pr_memfd, &p->pr_entryorig, 1,
		    (off_t)p->pr_entry);
		if (gone != NULL)
			gone[ngone++] = p->pr_entry;
		p->pr_entry = 0;
	}
	ft_guard_fatal_clear(p);
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
		tid = waitpid(-1, &st, __WALL | __WNOTHREAD | WNOHANG);
		if (tid == 0 || (tid == -1 && errno == EINTR)) {
			/*
			 * Nothing to report yet.  A thread that has ended or
			 * is a zombie never stops: waiting for it would keep
			 * the others in their stops (a process being killed:
			 * its threads stopped by us wait to be let go to die,
			 * its zombie leader is reported once they are gone).
			 */
			for (t = p->pr_threads; t != NULL; t = n) {
				n = t->th_next;
				if (!t->th_stopped && ft_ptrace_ended(p, t->th_tid))
					ft_ptrace_thread_drop(p, t);
			}
			if (tid == 0)
				(void)poll(NULL, 0, 1);
			continue;
		}
		if (tid == -1)
			break;
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
			    ft_ool_unslot(p, p->pr_pid, &r, NULL))
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
		if (cmd & FT_CMD_CALL) {
			int rc = -1;

			if (p->pr_held && !p->pr_dead)
				rc = p->pr_callfn(p->pr_callarg, p, p->pr_pid);
			else
				errno = EAGAIN;
			pthread_mutex_lock(&p->pr_lock);
			p->pr_callerr = rc == -1 ? errno : 0;
			p->pr_callrc = rc;
			p->pr_calldone = 1;
			pthread_cond_broadcast(&p->pr_cv);
			pthread_mutex_unlock(&p->pr_lock);
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

static int
ft_ptrace_is_tracer(const ft_proc_t *p)
{
	return p->pr_ready != 0 && pthread_equal(pthread_self(), p->pr_thread);
}

/* Interrupt the tracer's waitpid() (or pause()) so it reads pr_cmd. */
static void
ft_ptrace_wake(ft_proc_t *p)
{
	if (!ft_ptrace_is_tracer(p) && !p->pr_done)
		pthread_kill(p->pr_thread, SIGRTMIN + 5);
}

/* fb_grab: start the tracer thread; it attaches.  0, or -1 (pr_err). */
static int
ft_ptrace_grab(ft_proc_t *p)
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

/* fb_run: a held process runs on. */
static int
ft_ptrace_run(ft_proc_t *p)
{
	__atomic_or_fetch(&p->pr_cmd, FT_CMD_RUN, __ATOMIC_ACQ_REL);
	ft_ptrace_wake(p);
	return 0;
}

/*
 * fb_held: fn on the tracer thread while p is held.  The caller waits;
 * one call at a time (the callers hold their sync lock).
 */
static int
ft_ptrace_held(ft_proc_t *p, int (*fn)(void *, ft_proc_t *, pid_t),
    void *arg)
{
	int rc, e;

	if (!p->pr_held || p->pr_dead || p->pr_done) {
		errno = EAGAIN;
		return -1;
	}
	if (ft_ptrace_is_tracer(p))
		return fn(arg, p, p->pr_pid);
	pthread_mutex_lock(&p->pr_lock);
	p->pr_callfn = fn;
	p->pr_callarg = arg;
	p->pr_calldone = 0;
	pthread_mutex_unlock(&p->pr_lock);
	__atomic_or_fetch(&p->pr_cmd, FT_CMD_CALL, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&p->pr_lock);
	while (!p->pr_calldone && !p->pr_done) {
		struct timespec ts;

		pthread_mutex_unlock(&p->pr_lock);
		ft_ptrace_wake(p);
		pthread_mutex_lock(&p->pr_lock);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 2000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		(void)pthread_cond_timedwait(&p->pr_cv, &p->pr_lock, &ts);
	}
	rc = p->pr_calldone ? p->pr_callrc : -1;
	e = p->pr_calldone ? p->pr_callerr : ESRCH;
	p->pr_callfn = NULL;
	pthread_mutex_unlock(&p->pr_lock);
	if (rc == -1)
		errno = e;
	return rc;
}

/*
 * fb_release: stop the tracer thread; it restores what it patched and
 * detaches (a held process runs).  The process may live on, traced by
 * another backend.
 */
static void *
ft_ptrace_release(ft_proc_t *p)
{
	struct pollfd pfd;
	struct timespec ts;

	__atomic_or_fetch(&p->pr_cmd, FT_CMD_RELEASE, __ATOMIC_ACQ_REL);
	for (;;) {
		ft_ptrace_wake(p);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 2000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (pthread_timedjoin_np(p->pr_thread, NULL, &ts) == 0)
			break;
	}
	p->pr_tracertid = 0;
	/* the thread says dead when it ends: is it? */
	pfd.fd = p->pr_pidfd;
	pfd.events = POLLIN;
	pthread_mutex_lock(&p->pr_lock);
	p->pr_dead = p->pr_pidfd < 0 ? kill(p->pr_pid, 0) == -1 :
	    poll(&pfd, 1, 0) != 0;
	pthread_mutex_unlock(&p->pr_lock);
	return NULL;
}

/*
 * fb_fatal_detach: from a fatal-signal handler, let p go.  ptrace
 * answers only the tracer thread: it is woken with FT_WAKESIG and does
 * it in its handler (or the calling thread does, if it is that one).
 */
static int
ft_ptrace_fatal(ft_proc_t *p)
{
	pid_t self = (pid_t)syscall(SYS_gettid);

	ft_ptrace_dying = 1;
	if (p->pr_tracertid <= 0)
		return 0;
	if (p->pr_tracertid == self) {
		(void)ft_ptrace_fatal_detach(p);
		return 0;
	}
	(void)syscall(SYS_tgkill, getpid(), p->pr_tracertid, SIGRTMIN + 5);
	return 1;
}

const ft_backend_t ft_backend_ptrace = {
	.fb_id = FT_BACKEND_PTRACE,
	.fb_name = "ptrace",
	.fb_caps = FT_CAP_GRAB | FT_CAP_SYNC | FT_CAP_STOP | FT_CAP_PATCH,
	.fb_grab = ft_ptrace_grab,
	.fb_run = ft_ptrace_run,
	.fb_site_arm = ft_ptrace_site_arm,
	.fb_site_disarm = ft_ptrace_site_disarm,
	.fb_release = ft_ptrace_release,
	.fb_read = ft_proc_memread,
	.fb_write = ft_proc_memwrite,
	.fb_cpu = ft_ptrace_tidcpu,
	.fb_fatal_detach = ft_ptrace_fatal,
	.fb_held = ft_ptrace_held,
};
