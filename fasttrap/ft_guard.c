/*
 * ft_guard.c: the guardian, a small process that restores every patched
 * byte when the daemon dies of SIGKILL.
 *
 * No handler runs on SIGKILL, and when a tracer dies the kernel detaches
 * its tracees and lets them run on: the next thread to execute one of our
 * int3s takes a SIGTRAP with no tracer to catch it and dies.  The
 * guardian is forked before the daemon starts any thread; it shares one
 * table with the daemon (a MAP_SHARED anonymous mapping) that holds, for
 * every patched site of every process, the pid, the process's start time
 * (so that a recycled pid is never written to), the address and the
 * original byte.  It blocks reading a pipe whose write end only the
 * daemon holds: end-of-file means the daemon is gone, however it went.
 * It then writes the original bytes back through /proc/PID/mem and exits.
 * After a clean shutdown the table is empty and it just exits.
 *
 * The pipe is late, though: the kernel detaches a dead tracer's tracees
 * as each of its threads exits, but the pipe reports end-of-file only
 * once the last thread has torn down the daemon's memory (milliseconds)
 * and closed its files; a target thread that hits a probe in between
 * dies of the SIGTRAP.  So each tracer thread also holds a robust,
 * process-shared mutex of the table for its whole life (ft_guard_watch):
 * the kernel marks such a mutex owner-dead and wakes its waiter when the
 * thread starts to exit, before that thread lets its tracees go.  The
 * guardian waits on all of them at once (futex_waitv) besides the pipe.
 * The window that remains, measured and documented in dtraced.8, is the
 * guardian's wake-up and writes racing the other tracer threads' exits,
 * and the threads that were stopped at a probe when the daemon died
 * (their SIGTRAP is delivered when the kernel lets them go).
 *
 * The daemon's side (ft_guard_add, ft_guard_del) is thread-safe.  Slots
 * are recycled through a free list private to the daemon; the guardian
 * only reads slots below the shared high-water mark.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/futex.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ft.h"

#define	FT_GUARD_NSLOTS	(1u << 20)	/* sites, all processes together */
#define	FT_GUARD_NWATCH	127		/* watched threads (futex_waitv: 128) */

#ifndef SYS_futex_waitv
#define	SYS_futex_waitv	449
#endif

typedef struct ft_guard_slot {
	uint64_t	gs_addr;
	uint64_t	gs_start;	/* the process's start time, in ticks */
	int32_t		gs_pid;		/* 0: free */
	uint8_t		gs_byte;
	uint8_t		gs_pad[3];
} ft_guard_slot_t;

typedef struct ft_guard_table {
	volatile uint32_t gt_hwm;	/* slots ever used */
	volatile uint32_t gt_gen;	/* futex: the watch set changed */
	pthread_mutex_t	gt_watch[FT_GUARD_NWATCH];	/* robust, shared */
	uint8_t		gt_watchused[FT_GUARD_NWATCH];	/* daemon side */
	ft_guard_slot_t	gt_slot[];
} ft_guard_table_t;

static ft_guard_table_t	*ft_guard_tab;
static pthread_mutex_t	ft_guard_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t		*ft_guard_free;	/* recycled slot numbers */
static uint32_t		ft_guard_nfree;
static uint32_t		ft_guard_freecap;
static pid_t		ft_guard_pid = -1;
static volatile int	ft_guard_done;	/* in the guardian: restoring */

/*
 * The start time of a process (field 22 of /proc/PID/stat), which with
 * the pid names it for good; 0 if it cannot be read.
 */
uint64_t
ft_guard_starttime(pid_t pid)
{
	uint64_t v;

	return ft_proc_statfield(pid, 0, 22, &v) == 0 ? v : 0;
}

/* In the guardian, once: write back every byte still recorded, exit. */
static void __attribute__((noreturn))
ft_guard_restore(void)
{
	ft_guard_table_t *t = ft_guard_tab;
	uint32_t i, j, hwm;

	if (__atomic_exchange_n(&ft_guard_done, 1, __ATOMIC_ACQ_REL))
		for (;;)
			pause();	/* the other waiter is at it */
	hwm = __atomic_load_n(&t->gt_hwm, __ATOMIC_ACQUIRE);
	if (hwm > FT_GUARD_NSLOTS)
		hwm = FT_GUARD_NSLOTS;
	/* one /proc/PID/mem open per process: group the slots by pid */
	for (i = 0; i < hwm; i++) {
		ft_guard_slot_t *s = &t->gt_slot[i];
		char path[64];
		pid_t pid = s->gs_pid;
		uint64_t start = s->gs_start;
		int fd;

		if (pid <= 0)
			continue;
		if (ft_guard_starttime(pid) != start)
			fd = -1;	/* gone, or the pid is someone else's */
		else {
			snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
			fd = open(path, O_RDWR | O_CLOEXEC);
		}
		for (j = i; j < hwm; j++) {
			ft_guard_slot_t *o = &t->gt_slot[j];

			if (o->gs_pid != pid || o->gs_start != start)
				continue;
			if (fd != -1)
				(void)!pwrite(fd, &o->gs_byte, 1,
				    (off_t)o->gs_addr);
			o->gs_pid = 0;
		}
		if (fd != -1)
			close(fd);
	}
	_exit(0);
}

/*
 * In the guardian: wait until a watched thread of the daemon starts to
 * exit (its robust mutex turns owner-dead), then restore.  The gen word
 * is in the wait set too: the daemon bumps it when the watch set changes.
 */
static void *
ft_guard_watcher(void *arg)
{
	ft_guard_table_t *t = ft_guard_tab;
	struct futex_waitv wv[FT_GUARD_NWATCH + 1];
	struct timespec ts;
	uint32_t gen, w, *wp;
	int i, n;

	(void)arg;
	for (;;) {
		gen = __atomic_load_n(&t->gt_gen, __ATOMIC_ACQUIRE);
		memset(wv, 0, sizeof(wv));
		wv[0].uaddr = (uintptr_t)&t->gt_gen;
		wv[0].val = gen;
		wv[0].flags = FUTEX_32;
		n = 1;
		for (i = 0; i < FT_GUARD_NWATCH; i++) {
			/* the futex word is the mutex's first int (glibc) */
			wp = (uint32_t *)(void *)&t->gt_watch[i];
			w = __atomic_load_n(wp, __ATOMIC_ACQUIRE);
			if (w & FUTEX_OWNER_DIED)
				ft_guard_restore();
			if ((w & FUTEX_TID_MASK) == 0)
				continue;
			/* ask the kernel to wake us when the owner dies */
			if (!(w & FUTEX_WAITERS) &&
			    !__atomic_compare_exchange_n(wp, &w,
			    w | FUTEX_WAITERS, 0, __ATOMIC_ACQ_REL,
			    __ATOMIC_ACQUIRE))
				break;	/* changed under us: look again */
			wv[n].uaddr = (uintptr_t)wp;
			wv[n].val = w | FUTEX_WAITERS;
			wv[n].flags = FUTEX_32;
			n++;
		}
		if (i < FT_GUARD_NWATCH)
			continue;
		/* the timeout only guards against a wake-up we could miss */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		(void)syscall(SYS_futex_waitv, wv, n, 0, &ts,
		    CLOCK_MONOTONIC);
	}
	return NULL;
}

/* The guardian: wait for the daemon to go, then restore what is left. */
static void __attribute__((noreturn))
ft_guard_main(int rfd)
{
	pthread_t th;
	char c;
	ssize_t n;

	(void)prctl(PR_SET_NAME, "dtraced-guard", 0, 0, 0);
	(void)pthread_create(&th, NULL, ft_guard_watcher, NULL);
	/* nothing is ever written: only end-of-file ends the wait */
	while ((n = read(rfd, &c, 1)) != 0)
		if (n == -1 && errno != EINTR)
			(void)sleep(1);
	ft_guard_restore();
}

/* The watch mutexes: robust (owner death is seen), process-shared. */
static int
ft_guard_watchinit(void)
{
	pthread_mutexattr_t a;
	int i, rc = 0;

	if (pthread_mutexattr_init(&a) != 0)
		return -1;
	if (pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) != 0 ||
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) != 0)
		rc = -1;
	for (i = 0; i < FT_GUARD_NWATCH && rc == 0; i++)
		if (pthread_mutex_init(&ft_guard_tab->gt_watch[i], &a) != 0)
			rc = -1;
	pthread_mutexattr_destroy(&a);
	return rc;
}

/* Tell the guardian's watcher that the watch set changed. */
static void
ft_guard_kick(void)
{
	__atomic_add_fetch(&ft_guard_tab->gt_gen, 1, __ATOMIC_ACQ_REL);
	(void)syscall(SYS_futex, &ft_guard_tab->gt_gen, FUTEX_WAKE, 1,
	    NULL, NULL, 0);
}

/*
 * The calling thread lets tracees go when it exits (a ptrace tracer):
 * have the guardian restore as soon as it starts to exit, if it dies
 * with the daemon.  Returns a handle for ft_guard_unwatch(), or -1.  The
 * thread must call ft_guard_unwatch() before it returns.
 */
int
ft_guard_watch(void)
{
	int i;

	if (ft_guard_tab == NULL)
		return -1;
	pthread_mutex_lock(&ft_guard_lock);
	for (i = 0; i < FT_GUARD_NWATCH; i++)
		if (!ft_guard_tab->gt_watchused[i])
			break;
	if (i == FT_GUARD_NWATCH) {
		pthread_mutex_unlock(&ft_guard_lock);
		return -1;	/* then the pipe alone covers this thread */
	}
	ft_guard_tab->gt_watchused[i] = 1;
	pthread_mutex_unlock(&ft_guard_lock);
	if (pthread_mutex_lock(&ft_guard_tab->gt_watch[i]) == EOWNERDEAD)
		(void)pthread_mutex_consistent(&ft_guard_tab->gt_watch[i]);
	ft_guard_kick();
	return i;
}

void
ft_guard_unwatch(int i)
{
	if (ft_guard_tab == NULL || i < 0 || i >= FT_GUARD_NWATCH)
		return;
	pthread_mutex_unlock(&ft_guard_tab->gt_watch[i]);
	pthread_mutex_lock(&ft_guard_lock);
	ft_guard_tab->gt_watchused[i] = 0;
	pthread_mutex_unlock(&ft_guard_lock);
	ft_guard_kick();
}

/*
 * Start the guardian.  Call once, before the daemon starts any thread.
 * Returns 0, or -1 with a message in err.
 */
int
ft_guard_start(char *err, size_t errlen)
{
	size_t size = sizeof(ft_guard_table_t) +
	    (size_t)FT_GUARD_NSLOTS * sizeof(ft_guard_slot_t);
	int pfd[2], fd;
	pid_t pid;
	void *m;

	m = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "guardian table: %s", strerror(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "guardian pipe: %s", strerror(errno));
		munmap(m, size);
		return -1;
	}
	ft_guard_tab = m;
	if (ft_guard_watchinit() == -1) {
		snprintf(err, errlen, "guardian mutexes: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		munmap(m, size);
		ft_guard_tab = NULL;
		return -1;
	}
	switch (pid = fork()) {
	case -1:
		snprintf(err, errlen, "guardian: fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		munmap(m, size);
		ft_guard_tab = NULL;
		return -1;
	case 0:
		/* keep only the read end: no socket, no log, no terminal */
		for (fd = 0; fd < 1024; fd++)
			if (fd != pfd[0])
				(void)close(fd);
		if ((fd = open("/dev/null", O_RDWR)) != -1 && fd != 0)
			(void)close(fd);	/* fd 0: keep stdio harmless */
		(void)signal(SIGINT, SIG_IGN);
		(void)signal(SIGTERM, SIG_IGN);
		(void)signal(SIGHUP, SIG_IGN);
		(void)signal(SIGPIPE, SIG_IGN);
		(void)setpgid(0, 0);
		ft_guard_main(pfd[0]);
	}
	close(pfd[0]);
	/* the write end stays open, close-on-exec, for the daemon's life */
	ft_guard_pid = pid;
	return 0;
}

/* The guardian's pid, or -1 if there is none. */
pid_t
ft_guard_pid_get(void)
{
	return ft_guard_pid;
}

/*
 * Record a site the guardian must restore: call before writing the int3.
 * Returns the slot, or -1 (no guardian, or the table is full: only the
 * SIGKILL path loses this site).
 */
int
ft_guard_add(pid_t pid, uint64_t start, uint64_t addr, uint8_t byte)
{
	ft_guard_slot_t *s;
	uint32_t i;

	if (ft_guard_tab == NULL || pid <= 0)
		return -1;
	pthread_mutex_lock(&ft_guard_lock);
	if (ft_guard_nfree > 0)
		i = ft_guard_free[--ft_guard_nfree];
	else if ((i = ft_guard_tab->gt_hwm) < FT_GUARD_NSLOTS)
		__atomic_store_n(&ft_guard_tab->gt_hwm, i + 1,
		    __ATOMIC_RELEASE);
	else {
		pthread_mutex_unlock(&ft_guard_lock);
		return -1;
	}
	s = &ft_guard_tab->gt_slot[i];
	s->gs_addr = addr;
	s->gs_start = start;
	s->gs_byte = byte;
	__atomic_store_n(&s->gs_pid, pid, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ft_guard_lock);
	return (int)i;
}

/* The site of slot is restored (or its process is gone): forget it. */
void
ft_guard_del(int slot)
{
	if (ft_guard_tab == NULL || slot < 0 ||
	    (uint32_t)slot >= FT_GUARD_NSLOTS)
		return;
	pthread_mutex_lock(&ft_guard_lock);
	__atomic_store_n(&ft_guard_tab->gt_slot[slot].gs_pid, 0,
	    __ATOMIC_RELEASE);
	if (ft_guard_nfree == ft_guard_freecap) {
		uint32_t ncap = ft_guard_freecap ? ft_guard_freecap * 2 : 256;
		uint32_t *n = realloc(ft_guard_free, ncap * sizeof(*n));

		if (n == NULL) {
			/* the slot leaks; the table stays right */
			pthread_mutex_unlock(&ft_guard_lock);
			return;
		}
		ft_guard_free = n;
		ft_guard_freecap = ncap;
	}
	ft_guard_free[ft_guard_nfree++] = (uint32_t)slot;
	pthread_mutex_unlock(&ft_guard_lock);
}

/*
 * Crash-time restore inside the daemon.  The guardian covers SIGKILL; a
 * fatal signal the daemon can catch is handled in its own process, at
 * once, by ft_guard_fatal_restore() from the handler: it writes back,
 * through each process's /proc/PID/mem descriptor, the original byte of
 * every patched address in the process's fatal table.  That table (one
 * (address, byte) per patched site, kept by the backends as they patch
 * and restore, with the guardian's slot of each) is read from a signal
 * handler at any moment: entries below pr_nfatal are always valid; a
 * grown table is published before the count and the old one is kept
 * until the process is freed.  Its functions are called with pr_lock
 * held.  Every traced process is in a registry for the handler.
 */
#define	FT_GUARD_MAXREG	256
static ft_proc_t *volatile ft_guard_reg[FT_GUARD_MAXREG];

void
ft_guard_register(ft_proc_t *p)
{
	int i;

	p->pr_regslot = -1;
	for (i = 0; i < FT_GUARD_MAXREG; i++) {
		ft_proc_t *expect = NULL;

		if (__atomic_compare_exchange_n(&ft_guard_reg[i], &expect, p, 0,
		    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			p->pr_regslot = i;
			return;
		}
	}
}

void
ft_guard_unregister(ft_proc_t *p)
{
	if (p->pr_regslot >= 0)
		__atomic_store_n(&ft_guard_reg[p->pr_regslot], NULL,
		    __ATOMIC_RELEASE);
	p->pr_regslot = -1;
}

void
ft_guard_fatal_add(ft_proc_t *p, uint64_t addr, uint8_t byte)
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

void
ft_guard_fatal_del(ft_proc_t *p, uint64_t addr)
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
 * and the guardian's copy of it.
 */
void
ft_guard_fatal_clear(ft_proc_t *p)
{
	size_t i, n = p->pr_nfatal;

	__atomic_store_n(&p->pr_nfatal, 0, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++)
		ft_guard_del(p->pr_fatal[i].ff_guard);
}

/* The process is being freed: out of the registry, its tables freed. */
void
ft_guard_fatal_free(ft_proc_t *p)
{
	size_t i;

	ft_guard_unregister(p);
	for (i = 0; i < p->pr_nfatalold; i++)
		free(p->pr_fatalold[i]);
	free(p->pr_fatalold);
	free(p->pr_fatal);
	p->pr_fatalold = NULL;
	p->pr_fatal = NULL;
	p->pr_nfatalold = p->pr_fatalcap = 0;
}

/*
 * From a fatal-signal handler: restore the original bytes of every site
 * of every traced process.  Async-signal-safe: loads and pwrite(2).
 */
void
ft_guard_fatal_restore(void)
{
	int i;

	for (i = 0; i < FT_GUARD_MAXREG; i++) {
		ft_proc_t *p = __atomic_load_n(&ft_guard_reg[i],
		    __ATOMIC_ACQUIRE);
		ft_fatal_t *t;
		size_t j, n;

		if (p == NULL || p->pr_memfd < 0)
			continue;
		t = __atomic_load_n(&p->pr_fatal, __ATOMIC_ACQUIRE);
		n = __atomic_load_n(&p->pr_nfatal, __ATOMIC_ACQUIRE);
		if (t == NULL)
			continue;
		for (j = 0; j < n; j++)
			(void)!pwrite(p->pr_memfd, &t[j].ff_byte, 1,
			    (off_t)t[j].ff_addr);
	}
}

/*
 * From a fatal-signal handler, after ft_guard_fatal_restore(): let every
 * traced process go, each by the backend that seized it, so that no
 * thread that had just hit a probe is left behind a removed int3 with a
 * trap that would kill it.  A backend may have to ask another thread
 * (ptrace answers only a process's tracer thread): then the handler
 * waits a bounded time.  Async-signal-safe: system calls only.
 */
void
ft_guard_fatal_detach(void)
{
	struct timespec ts = { 0, 20000000 };
	int i, k, wait = 0;

	for (i = 0; i < FT_GUARD_MAXREG; i++) {
		ft_proc_t *p = __atomic_load_n(&ft_guard_reg[i],
		    __ATOMIC_ACQUIRE);

		if (p != NULL && p->pr_grab != NULL &&
		    p->pr_grab->fb_fatal_detach != NULL)
			wait |= p->pr_grab->fb_fatal_detach(p);
	}
	/* the other threads detach in their handlers: give them time */
	for (k = 0; wait && k < 25; k++)
		nanosleep(&ts, NULL);
}
