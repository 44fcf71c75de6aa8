/*
 * ft_proc.c: a traced process as the pid provider sees it, and the
 * public ft_proc_* API over its backend.  A backend is a row of the
 * table below (ft_backend_t: what it can do, and its functions), its
 * code in a file of its own: ptrace (ft_ptrace.c), which grabs and holds
 * every traced process, and uprobes (ft_uprobe.c), which may take one
 * over (ft_proc_setbackend).  This file calls backends only through
 * their row, and keeps what they share: the exec step (ft_proc_exec),
 * reads and writes through the image's descriptor, the hand-over from
 * the grabbing backend to another at run or release.  Sites are
 * ft_site.c's.
 *
 * The target model: the loaded objects of a process from /proc/PID/maps
 * (ft_proc_mod_match says which a module description names), each named
 * by its basename, the executable by the name it was run by,
 * each with its load bias (from the mapping and the ELF's PT_LOAD) and its
 * ft_elf_t, opened once when first needed.  The list is read again when
 * the tracer says the maps changed (exec, the dynamic linker's hook) or
 * the user asks.  Modules that go away are kept, marked not live, so a
 * pointer handed out never dangles.  ft_proc_errno_off() finds where
 * the threads' C errno lives (its offset from the thread pointer) by
 * decoding the image's __errno_location, again after the maps change.
 *
 * ft_proc_observe() gives the same model of a process that is not
 * traced (a profile sample's): modules, symbols and memory reads, no
 * backend, no sites.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include <linux/capability.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

/*
 * Field field of /proc/PID/stat (or, with tid > 0, of
 * /proc/PID/task/TID/stat), numbered as proc(5) numbers them (3 on),
 * into *vp.  System calls only: the guardian calls it after fork.
 * 0, or -1.
 */
int
ft_proc_statfield(pid_t pid, pid_t tid, int field, uint64_t *vp)
{
	char path[64], buf[1024];
	ssize_t n;
	int fd;

	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		    (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return ft_procfs_stat(buf, field, vp);
}

/*
 * The kernel's verdict: could a process with user uid and group gid, and
 * no capabilities, ptrace process pid now?  The calling thread takes
 * those file-system credentials and an empty effective capability set
 * (raw setfsuid, setfsgid and capset: each changes the calling thread
 * alone, where glibc's setresuid changes every thread) and opens
 * /proc/PID/mem, for which the kernel asks what ptrace asks
 * (PTRACE_MODE_ATTACH_FSCREDS: same uids and gids, dumpable, permitted
 * capabilities within the caller's effective set, and the LSMs), under
 * the lock an exec holds while it changes the image and the
 * credentials: the answer is about one image, consistent.  It then
 * takes its own credentials back (setfsuid(0) is allowed while the
 * effective uid is 0; capset from the permitted set).  Signals are
 * blocked meanwhile: no handler runs with borrowed credentials.
 *
 * Returns a read-only descriptor of the image the verdict is about
 * (bound to that image: after an exec it reads nothing), or -1 with
 * errno (EACCES, EPERM: refused; ESRCH: gone).  fatal is set if the
 * thread's own credentials could not be taken back (the caller must
 * not go on).
 */
int
ft_proc_mayptrace(pid_t pid, uid_t uid, gid_t gid, int *fatal)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct save[2], none[2];
	sigset_t all, old;
	char path[32];
	uid_t ouid;
	gid_t ogid;
	int fd = -1, e = EPERM;

	*fatal = 0;
	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, save) == -1)
		return -1;
	memcpy(none, save, sizeof(none));
	none[0].effective = none[1].effective = 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ogid = (gid_t)syscall(SYS_setfsgid, (gid_t)-1);
	ouid = (uid_t)syscall(SYS_setfsuid, (uid_t)-1);
	(void)syscall(SYS_setfsgid, gid);
	(void)syscall(SYS_setfsuid, uid);
	/* setfs*id say nothing of failure: ask what we have now */
	if ((uid_t)syscall(SYS_setfsuid, (uid_t)-1) == uid &&
	    (gid_t)syscall(SYS_setfsgid, (gid_t)-1) == gid &&
	    syscall(SYS_capset, &hdr, none) == 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		e = errno;
	}
	(void)syscall(SYS_setfsuid, ouid);
	(void)syscall(SYS_setfsgid, ogid);
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	hdr.pid = 0;
	if (syscall(SYS_capset, &hdr, save) == -1 ||
	    (uid_t)syscall(SYS_setfsuid, (uid_t)-1) != ouid ||
	    (gid_t)syscall(SYS_setfsgid, (gid_t)-1) != ogid)
		*fatal = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd == -1)
		errno = e;
	return fd;
}

/*
 * The backends, by FT_BACKEND_*: each a file of its own (ft.h says what
 * a row holds).  The first that can seize a process grabs and holds
 * every traced one.
 */
static const ft_backend_t *const ft_backends[FT_NBACKENDS] = {
	[FT_BACKEND_PTRACE] = &ft_backend_ptrace,
	[FT_BACKEND_UPROBE] = &ft_backend_uprobe,
	[FT_BACKEND_INLINE] = &ft_backend_inline,
};

static const ft_backend_t *
ft_proc_grabber(void)
{
	int i;

	for (i = 0; i < FT_NBACKENDS; i++)
		if (ft_backends[i]->fb_caps & FT_CAP_GRAB)
			return ft_backends[i];
	return NULL;
}

/* The site table of backend be in p. */
ft_sitetab_t *
ft_proc_sites(ft_proc_t *p, const ft_backend_t *be)
{
	return &p->pr_tab[be->fb_id];
}

/*
 * From a fatal-signal handler: restore the original bytes of every site
 * of every traced process (ft_guard.c).  Async-signal-safe.
 */
void
ft_proc_fatal_restore(void)
{
	ft_guard_fatal_restore();
}

/*
 * From a fatal-signal handler, after ft_proc_fatal_restore(): let every
 * traced process go (ft_guard.c, through each one's backend), so that
 * no thread that had just hit a probe is left behind a removed int3 with
 * a SIGTRAP that would kill it.  Waits a bounded time.
 * Async-signal-safe: system calls only.
 */
void
ft_proc_fatal_detach(void)
{
	ft_guard_fatal_detach();
}

static int	ft_proc_maps(ft_proc_t *);

static void
ft_proc_free(ft_proc_t *p)
{
	ft_mod_t *m, *n;
	int i;

	/* what a backend left in its table (not restored: it let go) */
	pthread_mutex_lock(&p->pr_lock);
	for (i = 0; i < FT_NBACKENDS; i++)
		if (p->pr_tab[i].sb_be != NULL)
			(void)ft_site_purge(p, &p->pr_tab[i], 0, NULL, 0);
	pthread_mutex_unlock(&p->pr_lock);
	ft_guard_fatal_free(p);
	for (i = 0; i < FT_NBACKENDS; i++)
		ft_site_free(&p->pr_tab[i]);
	for (m = p->pr_mods; m != NULL; m = n) {
		n = m->fm_next;
		ft_elf_close(m->fm_elf);
		ft_elf_close(m->fm_ifuncs);
		free(m->fm_path);
		free(m->fm_ownname);
		free(m);
	}
	if (p->pr_memfd >= 0)
		close(p->pr_memfd);
	if (p->pr_pidfd >= 0)
		close(p->pr_pidfd);
	free(p->pr_patched);
	pthread_mutex_destroy(&p->pr_lock);
	pthread_mutex_destroy(&p->pr_modlock);
	pthread_cond_destroy(&p->pr_cv);
	free(p);
}

static void
ft_proc_tabinit(ft_proc_t *p)
{
	int i;

	p->pr_regslot = -1;
	for (i = 0; i < FT_NBACKENDS; i++)
		p->pr_tab[i].sb_be = ft_backends[i];
}

/*
 * p's locks.  pr_modlock is recursive: the module walks call back into
 * what takes it again (ft_proc_errno_off's walk opens a module's ELF),
 * for traced and observed processes alike.
 */
static void
ft_proc_locksinit(ft_proc_t *p)
{
	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&p->pr_modlock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_init(&p->pr_lock, NULL);
	pthread_cond_init(&p->pr_cv, NULL);
}

static ft_proc_t *
ft_proc_new(pid_t pid, int pidfd, const ft_ops_t *ops, void *arg, int hold,
    int holdat, char *err, size_t errlen)
{
	ft_proc_t *p;

	if ((p = calloc(1, sizeof(*p))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	p->pr_pid = pid;
	p->pr_pidfd = pidfd >= 0 ? fcntl(pidfd, F_DUPFD_CLOEXEC, 0) : -1;
	p->pr_memfd = -1;
	p->pr_ops = ops;
	p->pr_arg = arg;
	p->pr_hold = hold;
	p->pr_holdreq = hold;
	p->pr_holdat = holdat;
	p->pr_modsdirty = 1;
	p->pr_regslot = -1;
	ft_proc_locksinit(p);
	ft_proc_tabinit(p);
	p->pr_be = p->pr_grab = ft_proc_grabber();
	/* the process named by the pidfd must be the one we attach to */
	if (pidfd >= 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL,
	    0) == -1) {
		snprintf(err, errlen, "%s", strerror(errno));
		ft_proc_free(p);
		return NULL;
	}
	if (p->pr_grab->fb_grab(p) == -1) {
		snprintf(err, errlen, "%s", p->pr_err);
		ft_proc_free(p);
		return NULL;
	}
	ft_guard_register(p);
	/*
	 * and still is, now that it is seized by number: if it ended in
	 * between, what we seized is whatever took its pid, let go as
	 * it was found
	 */
	if (p->pr_pidfd >= 0 && ft_proc_gone(p)) {
		ft_proc_release(p);
		snprintf(err, errlen, "%s", strerror(ESRCH));
		return NULL;
	}
	return p;
}

/*
 * Look at a process without tracing it: its modules (read now, so they
 * outlive it), symbols and memory (ft_proc_read), as its own user could.
 * No tracer thread, no sites: ft_proc_site_add() refuses (EPERM), and
 * ft_proc_release() only frees.
 */
ft_proc_t *
ft_proc_observe(pid_t pid, char *err, size_t errlen)
{
	ft_proc_t *p;

	if ((p = calloc(1, sizeof(*p))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	p->pr_pid = pid;
	p->pr_pidfd = -1;
	p->pr_regslot = -1;
	p->pr_observe = 1;
	p->pr_grabgone = 1;
	ft_proc_tabinit(p);
	p->pr_modsdirty = 1;
	ft_proc_locksinit(p);
	/* reads: process_vm_readv alone, no descriptor kept per process */
	p->pr_memfd = -1;
	pthread_mutex_lock(&p->pr_modlock);
	if (ft_proc_maps(p) == -1) {
		pthread_mutex_unlock(&p->pr_modlock);
		snprintf(err, errlen, "%s", strerror(errno));
		ft_proc_free(p);
		return NULL;
	}
	pthread_mutex_unlock(&p->pr_modlock);
	return p;
}

/* Trace a running process: seize all its threads. */
ft_proc_t *
ft_proc_grab(pid_t pid, int pidfd, const ft_ops_t *ops, void *arg,
    char *err, size_t errlen)
{
	return ft_proc_new(pid, pidfd, ops, arg, 0, 0, err, errlen);
}

/*
 * Trace a process that is about to execve(): it runs to the new image's
 * hold point (FT_HOLD_*), then fo_held is called and it stays stopped
 * until ft_proc_run().
 */
ft_proc_t *
ft_proc_hold(pid_t pid, int pidfd, const ft_ops_t *ops, void *arg,
    int holdat, char *err, size_t errlen)
{
	if (holdat < FT_HOLD_POSTINIT || holdat > FT_HOLD_MAIN) {
		snprintf(err, errlen, "%s", strerror(EINVAL));
		return NULL;
	}
	return ft_proc_new(pid, pidfd, ops, arg, 1, holdat, err, errlen);
}

/*
 * The backend that seized p lets it go: it restores what it patched and
 * lets the process run.  The process may live on, traced by another
 * backend.
 */
static void
ft_proc_letgo(ft_proc_t *p)
{
	void *gone;

	if (p->pr_grabgone)
		return;
	gone = p->pr_grab->fb_release(p);
	p->pr_grabgone = 1;
	if (p->pr_grab->fb_close != NULL)
		p->pr_grab->fb_close(gone);
}

/*
 * While p is held by its grabbing backend, run fn on the thread that
 * holds it (fb_held); -1 (EAGAIN) once it runs.
 */
int
ft_proc_heldcall(ft_proc_t *p, int (*fn)(void *, ft_proc_t *, pid_t),
    void *arg)
{
	if (p->pr_grabgone || p->pr_grab->fb_held == NULL) {
		errno = EAGAIN;
		return -1;
	}
	return p->pr_grab->fb_held(p, fn, arg);
}

/* The backend of p (FT_BACKEND_*), and what it can do (FT_CAP_*). */
int
ft_proc_backend(const ft_proc_t *p)
{
	return p->pr_be != NULL ? p->pr_be->fb_id : -1;
}

int
ft_proc_caps(const ft_proc_t *p)
{
	return p->pr_be != NULL ? p->pr_be->fb_caps : 0;
}

const char *
ft_proc_backend_name(int id)
{
	return id >= 0 && id < FT_NBACKENDS ? ft_backends[id]->fb_name : "?";
}

/* May this daemon use backend id?  -1 with the reason if not. */
int
ft_proc_backend_ok(int id, char *err, size_t errlen)
{
	const ft_backend_t *be;

	if (id < 0 || id >= FT_NBACKENDS) {
		if (err != NULL)
			snprintf(err, errlen, "no such backend");
		errno = EINVAL;
		return -1;
	}
	be = ft_backends[id];
	return be->fb_ok != NULL ? be->fb_ok(err, errlen) : 0;
}

/*
 * Trace p with backend id from now on (a ring of ringsize bytes, if it
 * has one).  Only before its first site (one backend per process; already
 * there: 0).  A grabbed process is let go by its grabbing backend now;
 * a held one at ft_proc_run().  -1 with err (errno EBUSY: it has sites
 * in use; ENOTSUP: the backend cannot take a process over).
 */
int
ft_proc_setbackend(ft_proc_t *p, int id, size_t ringsize, char *err,
    size_t errlen)
{
	const ft_backend_t *be;

	if (id < 0 || id >= FT_NBACKENDS) {
		snprintf(err, errlen, "%s", strerror(EINVAL));
		errno = EINVAL;
		return -1;
	}
	be = ft_backends[id];
	if (p->pr_be == be)
		return 0;
	if (p->pr_observe) {
		snprintf(err, errlen, "%s", strerror(EPERM));
		errno = EPERM;
		return -1;
	}
	if (p->pr_dead) {
		snprintf(err, errlen, "%s", strerror(ESRCH));
		errno = ESRCH;
		return -1;
	}
	/* the dynamic linker's hook is a site of its own, without users */
	if (p->pr_be != p->pr_grab ||
	    ft_site_count(p, ft_proc_sites(p, p->pr_be), 1) > 0) {
		snprintf(err, errlen, "it is traced with the %s backend",
		    p->pr_be->fb_name);
		errno = EBUSY;
		return -1;
	}
	if (be->fb_attach == NULL) {
		snprintf(err, errlen, "the %s backend cannot take over a "
		    "process", be->fb_name);
		errno = ENOTSUP;
		return -1;
	}
	if ((be->fb_ok != NULL && be->fb_ok(err, errlen) == -1) ||
	    be->fb_attach(p, ringsize, err, errlen) == -1) {
		errno = ENOTSUP;
		return -1;
	}
	p->pr_be = be;
	if (p->pr_holdreq && !p->pr_runreq)
		return 0;
	ft_proc_letgo(p);
	if (be->fb_run != NULL && be->fb_run(p) == -1) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Put the sites in place after a batch of changes (FT_CAP_BATCH; a
 * no-op elsewhere).  -1, or how many sites the backend refused.
 */
int
ft_proc_sync(ft_proc_t *p)
{
	if (p->pr_be == NULL || p->pr_be->fb_sync == NULL)
		return 0;
	return p->pr_be->fb_sync(p);
}

/*
 * Copy at most len bytes of stack at each hit from now on, for a backend
 * that captures hits to be handled later (the uprobe one; its default is
 * FT_BPF_STACK): what the users read of the stack at the hit (the frames
 * they unwind, the arguments they read there) and no more, so that its
 * ring holds more hits.  Beyond the copy a hit reads the memory as it is
 * when handled, and stacks end where the copy does.  The first call sets
 * the bound; later ones (more users) only raise it.  0 (a backend that
 * reads the stopped thread itself: no-op), or -1 with errno.
 */
int
ft_proc_stack(ft_proc_t *p, size_t len)
{
	if (p->pr_be == NULL || p->pr_be->fb_stack == NULL)
		return 0;
	return p->pr_be->fb_stack(p, len);
}

int
ft_proc_run(ft_proc_t *p)
{
	if (p->pr_observe)
		return 0;
	if (p->pr_be != p->pr_grab) {
		if (p->pr_runreq)
			return 0;
		p->pr_runreq = 1;
		/*
		 * The new backend's sites first; then the grabbing one lets
		 * it go (its hook on the dynamic linker restored), then the
		 * new one's hook goes in.
		 */
		(void)ft_proc_sync(p);
		ft_proc_letgo(p);
		if (p->pr_be->fb_run != NULL && p->pr_be->fb_run(p) == -1)
			return -1;
		(void)ft_proc_sync(p);
		return 0;
	}
	p->pr_runreq = 1;
	return p->pr_be->fb_run(p);
}

/* Kill the target (e.g. when enabling a held program failed). */
int
ft_proc_kill(ft_proc_t *p)
{
	if (p->pr_pidfd >= 0)
		return (int)syscall(SYS_pidfd_send_signal, p->pr_pidfd, SIGKILL,
		    NULL, 0);
	if (p->pr_dead)
		return 0;
	return kill(p->pr_pid, SIGKILL);
}

/*
 * Restore, detach and free.  From any thread but the backend's own (that
 * is, not from a callback).  An attached backend goes first (no hit
 * after that), then the grabbing one lets go; what the attached one
 * still waits for (its uprobes leaving the text) ends last.
 */
void
ft_proc_release(ft_proc_t *p)
{
	const ft_backend_t *be;
	void *gone = NULL;

	if (p == NULL)
		return;
	be = p->pr_be;
	if (be != NULL && be != p->pr_grab) {
		if (be->fb_release != NULL)
			gone = be->fb_release(p);
	} else {
		be = NULL;
	}
	ft_proc_letgo(p);
	ft_proc_free(p);
	if (be != NULL && be->fb_close != NULL)
		be->fb_close(gone);
}

pid_t
ft_proc_pid(const ft_proc_t *p)
{
	return p->pr_pid;
}

int
ft_proc_alive(const ft_proc_t *p)
{
	return !p->pr_dead;
}

/*
 * Has the process p was made for ended, whether or not its tracer has
 * seen it yet?  Its pid names another process once it is reaped (pids
 * wrap: at 32768 by default), and the kernel names processes by number
 * where we meet them again (the exec tracepoint, /proc/PID, perf's
 * pid): what comes by number is ours only while this says no.  The
 * pidfd names the process itself; without one (observed), the number
 * is all there is.
 */
int
ft_proc_gone(const ft_proc_t *p)
{
	struct pollfd pfd;

	if (p->pr_pidfd < 0)
		return kill(p->pr_pid, 0) == -1 && errno == ESRCH;
	pfd.fd = p->pr_pidfd;
	pfd.events = POLLIN;
	return poll(&pfd, 1, 0) > 0;
}

int
ft_proc_site_add(ft_proc_t *p, uint64_t addr, void *user)
{
	if (p->pr_observe) {
		errno = EPERM;
		return -1;
	}
	return ft_site_add(p, ft_proc_sites(p, p->pr_be), addr, user, 0);
}

int
ft_proc_site_remove(ft_proc_t *p, uint64_t addr, void *user)
{
	if (p->pr_observe) {
		errno = ENOENT;
		return -1;
	}
	return ft_site_remove(p, ft_proc_sites(p, p->pr_be), addr, user);
}

/* Sites of the backend, the dynamic linker's hook included. */
size_t
ft_proc_nsites(ft_proc_t *p)
{
	if (p->pr_observe)
		return 0;
	return ft_site_count(p, ft_proc_sites(p, p->pr_be), 0);
}

/*
 * The process exec'd, and backend be (the one that saw it, before
 * anything of the new image ran for us) tells us: every site of be is
 * gone with the old image (dropped, not restored).  May its users still
 * trace the new image, credentials and all (fo_execok)?  If so, the
 * memory descriptor is opened again, for the new image (reads of hits
 * of the old one, handled late, went through the old descriptor, which
 * reads nothing of the new); if not, p is let go: marked dead, as it is
 * not ours any more.  0: traced on; -1: let go, the backend detaches.
 */
int
ft_proc_exec(ft_proc_t *p, const ft_backend_t *be)
{
	char path[32];
	int fd = -1, letgo;

	letgo = p->pr_ops->fo_execok != NULL &&
	    p->pr_ops->fo_execok(p->pr_arg, p) == -1;
	if (!letgo) {
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)p->pr_pid);
		fd = open(path, ((be->fb_caps & FT_CAP_PATCH) ? O_RDWR :
		    O_RDONLY) | O_CLOEXEC);
	}
	/* opened by number: by ours only if it is still there after */
	if (fd >= 0 && ft_proc_gone(p)) {
		close(fd);
		fd = -1;
	}
	pthread_mutex_lock(&p->pr_lock);
	(void)ft_site_purge(p, ft_proc_sites(p, be), 0, NULL, 0);
	if (p->pr_memfd >= 0)
		close(p->pr_memfd);
	p->pr_memfd = fd;
	if (letgo)
		p->pr_dead = 1;		/* not ours any more */
	pthread_mutex_unlock(&p->pr_lock);
	return letgo ? -1 : 0;
}

/*
 * Read target memory, now.  Our int3s are not hidden: callers read
 * data, not text.  From fo_hit, ft_hit_read() reads it as the hit sees
 * it.
 *
 * A traced process is read only through pr_memfd, a /proc/PID/mem
 * descriptor opened for the image being traced (at the grab, at each
 * exec its users may still trace: ft_proc_exec, in the order the
 * backend sees events): it is bound to that image and reads nothing of
 * a later one, so a hit taken before an exec, run late or racing the
 * exec, never reads the new image, set-id or not.  Never by pid: a
 * process_vm_readv by pid reads whatever image the pid has now, with
 * the daemon's rights.  An observed process (not traced) is read by
 * pid, as its own user could.
 */
int
ft_proc_read(ft_proc_t *p, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	if (!p->pr_observe)
		return p->pr_be->fb_read(p, addr, buf, len);
	if (process_vm_readv(p->pr_pid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	errno = EFAULT;
	return -1;
}

/* A backend's fb_read: through the image's descriptor, under pr_lock. */
int
ft_proc_memread(ft_proc_t *p, uint64_t addr, void *buf, size_t len)
{
	int rc = -1;

	pthread_mutex_lock(&p->pr_lock);
	if (p->pr_memfd >= 0 && pread(p->pr_memfd, buf, len, (off_t)addr) ==
	    (ssize_t)len)
		rc = 0;
	pthread_mutex_unlock(&p->pr_lock);
	if (rc == -1)
		errno = EFAULT;
	return rc;
}

/* The memory as hit h sees it (its backend's accessor). */
int
ft_hit_read(const ft_hit_t *h, uint64_t addr, void *buf, size_t len)
{
	return h->fh_read(h, addr, buf, len);
}

/* The stack as hit h saw it, only that: for the unwinder. */
int
ft_hit_stackread(const ft_hit_t *h, uint64_t addr, void *buf, size_t len)
{
	if (h->fh_stkread != NULL)
		return h->fh_stkread(h, addr, buf, len);
	return h->fh_read(h, addr, buf, len);
}

/*
 * For a backend whose hits carry the stack copied from sp (stklen bytes
 * at stk): [addr, addr + len) from the copy, 0; -1 (EFAULT) if the copy
 * does not hold all of it.
 */
int
ft_hit_stackcopy(uint64_t sp, const uint8_t *stk, size_t stklen,
    uint64_t addr, void *buf, size_t len)
{
	if (addr < sp || len > stklen || addr - sp > stklen - len) {
		errno = EFAULT;
		return -1;
	}
	memcpy(buf, stk + (addr - sp), len);
	return 0;
}

/* A hit's accessor for a thread that waits in fo_hit: live is exact. */
int
ft_proc_hitlive(const ft_hit_t *h, uint64_t addr, void *buf, size_t len)
{
	return ft_proc_memread(h->fh_proc, addr, buf, len);
}

/*
 * The CPU that thread tid of p, stopped in fo_hit, last ran on; -1 if
 * unknown (a backend whose hits have it in fh_cpu).  From fo_hit only.
 */
int
ft_proc_cpu(ft_proc_t *p, pid_t tid)
{
	if (p->pr_be == NULL || p->pr_be->fb_cpu == NULL)
		return -1;
	return p->pr_be->fb_cpu(p, tid);
}

/*
 * Write the traced process's memory as the process itself could
 * (copyout): a read-only page (its text, where our int3s are) refuses.
 */
int
ft_proc_write(ft_proc_t *p, uint64_t addr, const void *buf, size_t len)
{
	if (p->pr_observe)
		return ft_proc_memwrite(p, addr, buf, len);
	return p->pr_be->fb_write(p, addr, buf, len);
}

/* A backend's fb_write: by pid, as the process could (copyout). */
int
ft_proc_memwrite(ft_proc_t *p, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)(uintptr_t)buf, len };
	struct iovec r = { (void *)(uintptr_t)addr, len };

	if (process_vm_writev(p->pr_pid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	errno = EFAULT;
	return -1;
}

/* The modules changed (or may have): read /proc/PID/maps next time. */
void
ft_proc_refresh(ft_proc_t *p)
{
	pthread_mutex_lock(&p->pr_modlock);
	p->pr_modsdirty = 1;
	pthread_mutex_unlock(&p->pr_modlock);
}

/*
 * The basename of the path the executable was run by (the auxiliary
 * vector's AT_EXECFN, as illumos names it by AT_SUN_EXECNAME: "awk"
 * for /usr/bin/awk, a link to mawk), if that path is the file mapped
 * (exe), not a script run by its interpreter; else NULL.  Malloc'd.
 */
static char *
ft_proc_execname(const ft_proc_t *p, const struct stat *exe)
{
	char path[PATH_MAX], full[PATH_MAX + 64];
	uint64_t av[2], fn = 0;
	struct iovec l, r;
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)p->pr_pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	while (read(fd, av, sizeof(av)) == (ssize_t)sizeof(av) &&
	    av[0] != AT_NULL) {
		if (av[0] == AT_EXECFN) {
			fn = av[1];
			break;
		}
	}
	close(fd);
	if (fn == 0)
		return NULL;
	l.iov_base = path;
	l.iov_len = sizeof(path) - 1;
	r.iov_base = (void *)(uintptr_t)fn;
	r.iov_len = sizeof(path) - 1;
	/* the string may end short of a page its last bytes cross */
	if ((n = process_vm_readv(p->pr_pid, &l, 1, &r, 1, 0)) <= 0) {
		r.iov_len = l.iov_len = 4096 - (fn & 4095);
		if ((n = process_vm_readv(p->pr_pid, &l, 1, &r, 1, 0)) <= 0)
			return NULL;
	}
	path[n] = '\0';
	if (strlen(path) == (size_t)n || path[0] == '\0')
		return NULL;
	/* a name only: the process's own view of the path, never opened */
	if (path[0] == '/')
		snprintf(full, sizeof(full), "/proc/%d/root%s",
		    (int)p->pr_pid, path);
	else
		snprintf(full, sizeof(full), "/proc/%d/cwd/%s",
		    (int)p->pr_pid, path);
	if (stat(full, &st) == -1 || st.st_ino != exe->st_ino ||
	    st.st_dev != exe->st_dev)
		return NULL;
	return strdup(strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 :
	    path);
}

/*
 * The name of a file the process maps but that was removed or renamed
 * over (maps says "/d/prog (deleted)"): its basename without the note,
 * malloc'd; NULL for any other path (its basename is the name).
 */
static char *
ft_proc_pathname(const char *path)
{
	static const char note[] = " (deleted)";
	const char *base = strrchr(path, '/') + 1;
	size_t n = strlen(base);

	if (n <= sizeof(note) - 1 ||
	    strcmp(base + n - (sizeof(note) - 1), note) != 0)
		return NULL;
	return strndup(base, n - (sizeof(note) - 1));
}

/* Read /proc/PID/maps into the module list.  pr_modlock held. */
static int
ft_proc_maps(ft_proc_t *p)
{
	char path[64], line[PATH_MAX + 128];
	struct stat exe;
	ft_mapent_t me;
	ft_mod_t *m;
	int haveexe;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pr_pid);
	haveexe = stat(path, &exe) == 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pr_pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	for (m = p->pr_mods; m != NULL; m = m->fm_next)
		m->fm_live = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		uint64_t lo, hi, ino, dev;
		const char *file;

		if (ft_procfs_mapline(line, &me) == -1 ||
		    me.me_path[0] != '/' || me.me_ino == 0)
			continue;
		lo = me.me_lo;
		hi = me.me_hi;
		ino = me.me_ino;
		dev = me.me_dev;
		file = me.me_path;
		/* a further mapping of an object seen in this pass */
		for (m = p->pr_mods; m != NULL; m = m->fm_next)
			if (m->fm_live && m->fm_ino == ino &&
			    m->fm_dev == dev && strcmp(m->fm_path, file) == 0)
				break;
		if (m == NULL) {
			uint64_t bias;
			int fd, rc;

			/* the file mapped, not what its path names now */
			if ((fd = ft_procfs_mapopen(p->pr_pid, &me, NULL,
			    0)) == -1)
				continue;
			rc = ft_elf_bias(fd, lo, me.me_off, &bias);
			close(fd);
			if (rc == -1)
				continue;	/* not an ELF object */
			/* known from before (same object, same place)? */
			for (m = p->pr_mods; m != NULL; m = m->fm_next)
				if (m->fm_ino == ino && m->fm_dev == dev &&
				    m->fm_bias == bias &&
				    strcmp(m->fm_path, file) == 0)
					break;
			if (m == NULL) {
				if ((m = calloc(1, sizeof(*m))) == NULL ||
				    (m->fm_path = strdup(file)) == NULL) {
					free(m);
					fclose(f);
					return -1;
				}
				m->fm_dev = dev;
				m->fm_ino = ino;
				m->fm_bias = bias;
				m->fm_exec = haveexe && exe.st_ino == ino &&
				    exe.st_dev == dev;
				if (m->fm_exec)
					m->fm_ownname = ft_proc_execname(p,
					    &exe);
				if (m->fm_ownname == NULL)
					m->fm_ownname = ft_proc_pathname(
					    m->fm_path);
				m->fm_name = m->fm_ownname != NULL ?
				    m->fm_ownname :
				    strrchr(m->fm_path, '/') + 1;
				m->fm_next = p->pr_mods;
				p->pr_mods = m;
			}
			m->fm_live = 1;
			m->fm_lo = lo;
			m->fm_hi = hi;
			m->fm_text = 0;
		}
		if (hi > m->fm_hi)
			m->fm_hi = hi;
		if (lo < m->fm_lo)
			m->fm_lo = lo;
		if (me.me_perm[2] == 'x')
			m->fm_text = 1;
	}
	fclose(f);
	p->pr_modsdirty = 0;
	p->pr_modgen++;
	return 0;
}

/*
 * Does a module named name match a module description, by illumos's
 * rule: a glob matches the whole name; a plain name matches it whole or
 * up to a '.' ("libc.so" and "libc" name libc.so.6).  NULL or "": all.
 */
int
ft_proc_modname_match(const char *name, const char *desc)
{
	size_t n;

	if (desc == NULL || *desc == '\0')
		return 1;
	if (strpbrk(desc, "*?[\\") != NULL)
		return fnmatch(desc, name, 0) == 0;
	n = strlen(desc);
	return strncmp(name, desc, n) == 0 &&
	    (name[n] == '\0' || name[n] == '.');
}

/*
 * Does module m match a module description?  "a.out" names the
 * executable; a module matches by its name (fm_name) and by the basename
 * of the file mapped (for the executable they may differ: awk, mawk).
 */
int
ft_proc_mod_match(const ft_mod_t *m, const char *desc)
{
	if (m->fm_exec && desc != NULL && strcmp(desc, "a.out") == 0)
		return 1;
	return ft_proc_modname_match(m->fm_name, desc) ||
	    ft_proc_modname_match(strrchr(m->fm_path, '/') + 1, desc);
}

/*
 * Call fn for every live module matching glob (NULL or "" for all), the
 * executable first, then by address.  fn returns non-zero to stop; that
 * value is returned.  -1 if the maps cannot be read.
 */
int
ft_proc_mod_iter(ft_proc_t *p, const char *glob,
    int (*fn)(void *, ft_proc_t *, ft_mod_t *), void *arg)
{
	ft_mod_t *m, *v[4096];
	size_t n = 0, i, j;
	int rc = 0;

	pthread_mutex_lock(&p->pr_modlock);
	if (p->pr_modsdirty && ft_proc_maps(p) == -1) {
		pthread_mutex_unlock(&p->pr_modlock);
		return -1;
	}
	for (m = p->pr_mods; m != NULL && n < 4096; m = m->fm_next)
		if (m->fm_live && ft_proc_mod_match(m, glob))
			v[n++] = m;
	/* insertion sort: a.out first, then by address */
	for (i = 1; i < n; i++) {
		m = v[i];
		for (j = i; j > 0 && (m->fm_exec > v[j - 1]->fm_exec ||
		    (m->fm_exec == v[j - 1]->fm_exec &&
		    m->fm_lo < v[j - 1]->fm_lo)); j--)
			v[j] = v[j - 1];
		v[j] = m;
	}
	for (i = 0; i < n && rc == 0; i++)
		rc = fn(arg, p, v[i]);
	pthread_mutex_unlock(&p->pr_modlock);
	return rc;
}

struct ft_proc_slot {
	ft_proc_t	*ps_proc;
	ft_mod_t	*ps_mod;
};

/* ft_elf_slotrd_t: a pointer in the module's live image. */
static int
ft_proc_slotrd(void *arg, uint64_t addr, uint64_t *vp)
{
	struct ft_proc_slot *ps = arg;
	uint64_t bias = ps->ps_mod->fm_bias;

	if (ft_proc_read(ps->ps_proc, addr + bias, vp, sizeof(*vp)) == -1)
		return -1;
	*vp -= bias;
	return 0;
}

/*
 * The file the process has mapped at the module's fm_lo (ft_procfs.c),
 * if it is still the module's, opened by openfn (ft_elf_fdopen or
 * ft_elf_ifuncs_open) with a reader of the module's live image.
 * pr_modlock held.
 */
static ft_elf_t *
ft_proc_mod_open(ft_proc_t *p, ft_mod_t *m, ft_elf_t *(*openfn)(int,
    const char *, ft_elf_slotrd_t *, void *, char *, size_t), char *err,
    size_t errlen)
{
	struct ft_proc_slot ps = { p, m };
	char path[PATH_MAX];
	ft_mapent_t me;
	int fd;

	if (ft_procfs_mapfind(p->pr_pid, m->fm_lo, &me, path,
	    sizeof(path)) == -1 || me.me_dev != m->fm_dev ||
	    me.me_ino != m->fm_ino) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: no longer mapped",
			    m->fm_path);
		return NULL;
	}
	if ((fd = ft_procfs_mapopen(p->pr_pid, &me, err, errlen)) == -1)
		return NULL;
	return openfn(fd, m->fm_path, ft_proc_slotrd, &ps, err, errlen);
}

/*
 * The module's symbols, read on first use and kept; its IFUNCs are named
 * by what its live image chose (ft_elf.c).
 */
ft_elf_t *
ft_proc_mod_elf(ft_proc_t *p, ft_mod_t *m, char *err, size_t errlen)
{
	ft_elf_t *fe;

	pthread_mutex_lock(&p->pr_modlock);
	if ((fe = m->fm_elf) == NULL)
		fe = m->fm_elf = ft_proc_mod_open(p, m, ft_elf_fdopen, err,
		    errlen);
	pthread_mutex_unlock(&p->pr_modlock);
	return fe;
}

/*
 * The functions the module's IFUNCs chose, and nothing else: what the
 * consumer needs besides the file's symbols to name addresses as the
 * probes are named.  Made once the linker has relocated the module, and
 * kept; NULL before, or if the file cannot be read.
 */
const ft_elf_t *
ft_proc_mod_ifuncs(ft_proc_t *p, ft_mod_t *m)
{
	ft_elf_t *fe;

	pthread_mutex_lock(&p->pr_modlock);
	if ((fe = m->fm_ifuncs) == NULL && m->fm_text)
		fe = m->fm_ifuncs = ft_proc_mod_open(p, m, ft_elf_ifuncs_open,
		    NULL, 0);
	pthread_mutex_unlock(&p->pr_modlock);
	return fe;
}

struct ft_proc_fiter {
	const char	*fi_glob;
	int		(*fi_fn)(void *, ft_mod_t *, const ft_sym_t *, uint64_t);
	void		*fi_arg;
};

static int
ft_proc_func_mod(void *arg, ft_proc_t *p, ft_mod_t *m)
{
	struct ft_proc_fiter *fi = arg;
	const ft_sym_t *s;
	ft_elf_t *fe;
	uint64_t taken = 0;
	size_t i, n;
	int rc;

	if (!m->fm_text || (fe = ft_proc_mod_elf(p, m, NULL, 0)) == NULL)
		return 0;
	/*
	 * A plain name finds any alias; a glob, as illumos's, gives each
	 * function once, named by its first name in preferred order that
	 * matches (__libc_* finds __libc_malloc, *alloc finds malloc).
	 */
	if (strpbrk(fi->fi_glob, "*?[\\") == NULL) {
		if ((s = ft_elf_lookup(fe, fi->fi_glob)) == NULL)
			return 0;
		return fi->fi_fn(fi->fi_arg, m, s, s->fs_addr + m->fm_bias);
	}
	n = ft_elf_naliases(fe);
	for (i = 0; i < n; i++) {
		s = ft_elf_alias(fe, i);
		if ((taken != 0 && s->fs_addr == taken) ||
		    fnmatch(fi->fi_glob, s->fs_name, 0) != 0)
			continue;
		taken = s->fs_addr;
		if ((rc = fi->fi_fn(fi->fi_arg, m, s, s->fs_addr +
		    m->fm_bias)) != 0)
			return rc;
	}
	return 0;
}

/*
 * Call fn for every function matching funcglob in every module matching
 * modglob, with its runtime address.
 */
int
ft_proc_func_iter(ft_proc_t *p, const char *modglob, const char *funcglob,
    int (*fn)(void *, ft_mod_t *, const ft_sym_t *, uint64_t), void *arg)
{
	struct ft_proc_fiter fi;

	fi.fi_glob = funcglob != NULL && *funcglob != '\0' ? funcglob : "*";
	fi.fi_fn = fn;
	fi.fi_arg = arg;
	return ft_proc_mod_iter(p, modglob, ft_proc_func_mod, &fi);
}

/*
 * The entry, return and offset sites of a function (offsets from its
 * start), decoded from the file's bytes: our own int3s in memory must
 * not be mistaken for the program's.
 */
int
ft_proc_func_sites(ft_proc_t *p, ft_mod_t *m, const ft_sym_t *s, ft_fn_t *ff)
{
	ft_elf_t *fe;
	uint8_t *buf;
	int rc;

	memset(ff, 0, sizeof(*ff));
	if ((fe = ft_proc_mod_elf(p, m, NULL, 0)) == NULL || s->fs_size == 0 ||
	    s->fs_size > (1U << 24)) {
		errno = EINVAL;
		return -1;
	}
	if ((buf = malloc(s->fs_size)) == NULL)
		return -1;
	rc = ft_elf_read(fe, s->fs_addr, buf, s->fs_size);
	if (rc == 0)
		rc = ft_isa_function(buf, s->fs_size, s->fs_addr + m->fm_bias,
		    ff);
	free(buf);
	return rc;
}

struct ft_proc_at {
	uint64_t	at_addr;
	ft_mod_t	*at_mod;
};

static int
ft_proc_lookup_mod(void *arg, ft_proc_t *p, ft_mod_t *m)
{
	struct ft_proc_at *at = arg;

	(void)p;
	if (at->at_addr < m->fm_lo || at->at_addr >= m->fm_hi)
		return 0;
	at->at_mod = m;
	return 1;
}

/* The module and function (NULL if none) holding a runtime address. */
int
ft_proc_lookup(ft_proc_t *p, uint64_t addr, ft_mod_t **mp,
    const ft_sym_t **sp)
{
	struct ft_proc_at at = { addr, NULL };
	ft_elf_t *fe;

	ft_proc_mod_iter(p, NULL, ft_proc_lookup_mod, &at);
	if (at.at_mod == NULL)
		return -1;
	*mp = at.at_mod;
	*sp = NULL;
	if ((fe = ft_proc_mod_elf(p, at.at_mod, NULL, 0)) != NULL)
		*sp = ft_elf_addr(fe, addr - at.at_mod->fm_bias);
	return 0;
}

/* The first module (the executable first) that has __errno_location. */
static int
ft_proc_errno_mod(void *arg, ft_proc_t *p, ft_mod_t *m)
{
	int64_t *offp = arg, off;
	const ft_sym_t *s;
	uint8_t code[32];
	uint64_t slot, v;
	ft_elf_t *fe;
	size_t n;
	int rc;

	if (!m->fm_text || (fe = ft_proc_mod_elf(p, m, NULL, 0)) == NULL ||
	    (s = ft_elf_lookup(fe, "__errno_location")) == NULL)
		return 0;
	n = s->fs_size != 0 && s->fs_size < sizeof(code) ? s->fs_size :
	    sizeof(code);
	if (ft_elf_read(fe, s->fs_addr, code, n) == -1)
		return -1;
	rc = ft_isa_tlsoff(code, n, s->fs_addr + m->fm_bias, &slot, &off);
	if (rc == 1) {
		/* the slot the dynamic linker filled in, read live */
		if (ft_proc_read(p, slot, &v, sizeof(v)) == -1)
			return -1;
		off = (int64_t)v;
	}
	if (rc == -1)
		return -1;
	*offp = off;
	return 1;
}

/*
 * errno's offset from the thread pointer (%fs base) in the process's
 * current image: found by decoding its C library's __errno_location
 * (glibc's initial-exec or local-exec TLS sequence) once per image and
 * set of modules.  0, or -1 (ENOENT) when the process has no such
 * accessor or it is of an unknown shape (another libc).
 */
int
ft_proc_errno_off(ft_proc_t *p, int64_t *offp)
{
	int64_t off = INT64_MIN;

	pthread_mutex_lock(&p->pr_modlock);
	if (p->pr_modsdirty || p->pr_tlsgen != p->pr_modgen + 1) {
		if (ft_proc_mod_iter(p, NULL, ft_proc_errno_mod, &off) != 1)
			off = INT64_MIN;
		/* maps unreadable (the process is gone): keep what we had */
		if (!p->pr_modsdirty) {
			p->pr_tlsoff = off;
			p->pr_tlsgen = p->pr_modgen + 1;
		}
	}
	off = p->pr_tlsgen != 0 ? p->pr_tlsoff : INT64_MIN;
	pthread_mutex_unlock(&p->pr_modlock);
	if (off == INT64_MIN) {
		errno = ENOENT;
		return -1;
	}
	*offp = off;
	return 0;
}

static int
ft_proc_exe(void *arg, ft_proc_t *p, ft_mod_t *m)
{
	(void)p;
	if (!m->fm_exec)
		return 0;
	*(ft_mod_t **)arg = m;
	return 1;
}

static int
ft_proc_ldso(void *arg, ft_proc_t *p, ft_mod_t *m)
{
	const char *base = strrchr(m->fm_path, '/') + 1;

	(void)p;
	if (strncmp(base, "ld-linux", 8) != 0 && strncmp(base, "ld.so", 5) != 0)
		return 0;
	*(ft_mod_t **)arg = m;
	return 1;
}

/*
 * Where the dynamic linker announces library loads: r_debug (through the
 * executable's DT_DEBUG) and its r_brk; failing that, ld.so's
 * _dl_debug_state, which is what r_brk points to (r_debug then 0).
 */
int
ft_proc_rdebug(ft_proc_t *p, uint64_t *rdebug, uint64_t *rbrk)
{
	ft_mod_t *m = NULL;
	ft_elf_t *fe;
	uint64_t dyn, size, i, v[2];
	const ft_sym_t *s;

	*rdebug = *rbrk = 0;
	ft_proc_mod_iter(p, NULL, ft_proc_exe, &m);
	if (m != NULL && (fe = ft_proc_mod_elf(p, m, NULL, 0)) != NULL &&
	    ft_elf_dynamic(fe, &dyn, &size) == 0) {
		for (i = 0; i + 16 <= size; i += 16) {
			if (ft_proc_read(p, dyn + m->fm_bias + i, v,
			    sizeof(v)) == -1 || v[0] == DT_NULL)
				break;
			if (v[0] != DT_DEBUG || v[1] == 0)
				continue;
			if (ft_proc_read(p, v[1] + 16, rbrk, 8) == 0 &&
			    *rbrk != 0) {
				*rdebug = v[1];
				return 0;
			}
		}
	}
	m = NULL;
	ft_proc_mod_iter(p, NULL, ft_proc_ldso, &m);
	if (m == NULL || (fe = ft_proc_mod_elf(p, m, NULL, 0)) == NULL ||
	    (s = ft_elf_lookup(fe, "_dl_debug_state")) == NULL)
		return -1;
	*rbrk = s->fs_addr + m->fm_bias;
	return 0;
}

/* The runtime address of the executable's main, for FT_HOLD_MAIN. */
int
ft_proc_main(ft_proc_t *p, uint64_t *addr)
{
	ft_mod_t *m = NULL;
	const ft_sym_t *s;
	ft_elf_t *fe;

	ft_proc_mod_iter(p, NULL, ft_proc_exe, &m);
	if (m == NULL || (fe = ft_proc_mod_elf(p, m, NULL, 0)) == NULL ||
	    (s = ft_elf_lookup(fe, "main")) == NULL || s->fs_addr == 0)
		return -1;
	*addr = s->fs_addr + m->fm_bias;
	return 0;
}
