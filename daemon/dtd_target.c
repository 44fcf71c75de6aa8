/*
 * dtd_target.c: the processes the daemon traces and observes, for every
 * provider that works in user processes (pid, profile; later syscall,
 * proc, USDT).  Providers own probes; this file owns the processes.
 *
 * Targets.  A consumer names the processes it traces with DT_MSG_GRAB
 * (-p: grab a running process; -c: hold a child of the client that is
 * about to exec).  One process is traced once (ptrace has one tracer):
 * a dtd_target_t is shared by every consumer that grabbed it, and is
 * released when the last of them goes.  Each consumer has its view of
 * each of its targets (dtd_tref_t: what it was told), in c->dc_targets,
 * which only this file reads.
 *
 * Generations.  tg_gen names the image a target runs: a new process
 * that reuses a pid gets a new one, and so does every exec.  Providers
 * keep it with what they resolved in the image, and compare.
 *
 * Threads.  Grabs, releases and reports happen on the main thread.  The
 * ft_ops_t callbacks run on the process's tracer thread: fo_hit builds
 * the hit's context (the thread, its memory, its stack) and asks the
 * provider of each probe on the site for its arguments
 * (dpv_siteargs), then fires (the firing path is thread-safe); fo_held
 * and fo_exited only record what happened and wake the main thread
 * (dtd_ecb_wakeup), which tells the clients (DT_MSG_PROC, from the
 * connection's notices) and releases dead processes.  exec and library
 * events make the tracer thread wait while the main thread has the
 * providers resolve their probes again (dpv_retarget).
 *
 * Who may trace what.  A client may trace a process only while it could
 * ptrace it itself, and the kernel says so, not us: ft_proc_mayptrace()
 * opens /proc/PID/mem with the client's uid and gid as file-system
 * credentials and no capabilities (a non-root client is taken to have
 * none), which the kernel allows only if ptrace would be: same real,
 * effective and saved uids and gids, dumpable, no capability the client
 * lacks, the LSMs.  Root clients may trace anything.  It is asked at the
 * grab (again once the process is seized: an exec between the first
 * answer and the seizure would otherwise be missed) and at every exec
 * (fo_execok: at the ptrace exec stop, or with the uprobe capture
 * program's gate shut), with the new credentials committed and before
 * any instruction of the new image ran for us.  Between execs nothing
 * else can raise a qualifying process's privilege: all its uids are the
 * client's and it has no capabilities, so it cannot set-uid to anyone
 * else.  A consumer for whom a process no longer qualifies loses it
 * (DT_PROC_LOST): its ECBs no longer fire there (tg_allow lists the
 * others, each hit fires for them alone), set in the exec event, before
 * any site of the new image is in place (the tracer thread waits for
 * it; the uprobe gate opens after it).  If none remains, the process is
 * let go (the backend detaches, or its links go at release); it runs on
 * with its privilege, untraced.  A consumer that lost it is not sent
 * the new image's module map either.  Memory is read only through the
 * hit's own accessor (ft_hit_read: exact for a stopped thread, the
 * sample first for a captured one) over a descriptor bound to the image
 * being traced, so a hit of the old image, handled late, reads nothing
 * of the new one.  The
 * samples of processes nobody grabbed are shown by the same rule
 * (dtd_target_visible).
 *
 * Stacks and symbols.  ustack() walks the stack at the hit with the
 * process's unwinder (fasttrap/ft_unwind.c) through the hit context's
 * dh_ustack.  The client symbolises the program counters itself, even
 * after the process is gone: each consumer is sent a target's module
 * map (DT_MSG_MODMAP) when it is grabbed and after every exec, dlopen
 * and dlclose (tg_modgen counts them), always before the records that
 * may need it.
 *
 * Observed processes.  A provider that fires in processes nobody
 * grabbed (profile-N sampling whatever runs: dpv_observes) has them
 * observed here (dtd_target_observe, on the sampler's thread, under
 * dtd_target_olock): their modules are read at once (ft_proc_observe:
 * the process is not traced) so that they outlive it, and they get an
 * unwinder.  The sampler reports perf's side-band records
 * (dtd_target_sideband): an executable mmap or an exec bumps the
 * module generation, an exit marks the entry dead.  Every consumer that
 * observes is sent the module map of each observed process it may see,
 * before each snapshot and again when it changed.  A dead entry is
 * freed once every such consumer has had a snapshot since it died
 * (dtd_target_gc), or when the table is full; a live one not sampled
 * for DTD_TARGET_IDLE_NS likewise.
 *
 * uregs[]: the registers are those of struct user_regs_struct seen as
 * an array of 64-bit words (r15 = 0 ... rip = 16 ... gs = 26), the
 * order the Linux kernel uses for ptrace; DTD_TARGET_NREGS of them.
 */
#include <sys/types.h>
#include <sys/user.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dtd.h"
#include "ft.h"

#define DTD_TARGET_NREGS (sizeof(struct user_regs_struct) / sizeof(uint64_t))
#define DTD_TARGET_MAXCPU	256	/* lost samples: per CPU, folded */

/*
 * Observed processes the table keeps at most (each holds its modules'
 * files open), and how long one not sampled since stays, alive.
 */
#define DTD_TARGET_MAXOBSERVED	1024
#define DTD_TARGET_IDLE_NS	(10 * 1000000000ull)

/*
 * A process: traced (shared by the consumers that grabbed it, main
 * thread) or observed (dtd_target_olock).
 */
struct dtd_target {
	pid_t			tg_pid;
	uint64_t		tg_gen;		/* its image (see above) */
	uint64_t		tg_born;	/* its first image's */
	ft_proc_t		*tg_proc;	/* NULL once released */
	int			tg_pidfd;	/* names it (traced), or -1 */
	int			tg_stale;	/* gone, its pid another's */
	int			tg_refs;	/* consumers, or hits (observed) */
	int			tg_created;	/* -c: killed when left running */
	int			tg_held;	/* atomic: at its hold point */
	int			tg_exited;	/* atomic: gone */
	int			tg_status;	/* wait status, once exited */
	int			tg_running;	/* ft_proc_run() done */
	int			tg_letgo;	/* atomic: let go at exec */
	char			tg_comm[32];
	char			tg_psargs[80];	/* curpsinfo's, at exec */
	int			tg_dmodel;
	pid_t			tg_ppid;
	uid_t			tg_uid;
	gid_t			tg_gid;
	ft_unwind_t		*tg_unwind;	/* its stacks; observed: NULL
						   once dead (gc) */
	uint64_t		tg_modgen;	/* atomic: module changes */
	/*
	 * exec and library events: the tracer thread sets tg_evpend and
	 * waits, the target stopped, until the main thread has had the
	 * probes resolved again (tg_evpend 0) or lets the process go
	 * (tg_abandon).
	 */
	pthread_mutex_t		tg_evlock;
	pthread_cond_t		tg_evcv;
	int			tg_evpend;	/* DTD_TGTEV_* */
	int			tg_abandon;
	/*
	 * tg_evlock: the non-root consumers' credentials, and whether the
	 * last exec denied them (fo_execok); root consumers are counted.
	 * Once a consumer lost the process (tg_excl), hits fire only for
	 * the consumers in tg_allow.
	 */
	struct dtd_tcred {
		uid_t		cr_uid;
		gid_t		cr_gid;
		int		cr_denied;
	}			*tg_creds;
	int			tg_ncreds;
	int			tg_nroot;
	int			tg_excl;	/* atomic too */
	dtd_consumer_t		**tg_allow;
	int			tg_nallow;
	uint64_t		tg_nlost;	/* atomic: lost samples */
	uint64_t		tg_lost[DTD_TARGET_MAXCPU];	/* atomic */
	/* observed */
	uint64_t		tg_serial;	/* names it to consumers */
	uint64_t		tg_dead;	/* when it exited, 0: alive */
	uint64_t		tg_last;	/* its last sample */
	struct dtd_target	*tg_next;
};

#define DTD_TGTEV_EXEC	0x1
#define DTD_TGTEV_MODS	0x2

/* One consumer's view of one of its targets. */
typedef struct dtd_tref {
	dtd_target_t	*tr_tgt;
	int		tr_created;	/* this consumer created it (-c) */
	int		tr_toldheld;	/* DT_MSG_PROC sent */
	int		tr_toldexit;
	int		tr_setid;	/* lost at an exec of set-id */
	int		tr_backend;	/* DT_BACKEND_* + 1 once chosen */
	int		tr_toldbackend;	/* DT_PROC_BACKEND sent */
	uint64_t	tr_nlost;	/* lost samples reported so far */
	uint64_t	tr_lost[DTD_TARGET_MAXCPU];
	uint64_t	tr_toldmods;	/* tg_modgen of the last MODMAP */
} dtd_tref_t;

/* What a consumer was told of an observed process's module map. */
typedef struct dtd_ttold {
	uint64_t	to_serial;
	uint64_t	to_gen;
} dtd_ttold_t;

/* A consumer's processes: c->dc_targets. */
typedef struct dtd_tcons {
	dtd_tref_t	*tc_ref;
	uint32_t	tc_nref;
	uint64_t	tc_lastpass;	/* time of its last observed maps */
	dtd_ttold_t	*tc_told;
	size_t		tc_ntold;
	size_t		tc_toldcap;
} dtd_tcons_t;

/* dtd_target_mapmsg's walk of the modules */
typedef struct dtd_tmap {
	dt_msg_t	*tm_msg;
	uint32_t	tm_n;
} dtd_tmap_t;

static dtd_target_t	*dtd_target_procs;	/* traced */
static uint64_t		dtd_target_lastgen;
static pthread_mutex_t	dtd_target_olock = PTHREAD_MUTEX_INITIALIZER;
static dtd_target_t	*dtd_target_observed;	/* dtd_target_olock */
static uint32_t		dtd_target_nobserved;
static uint64_t		dtd_target_serial;

static void	dtd_target_free(dtd_target_t *);
static void	dtd_target_unlink(dtd_target_t *);
static void	dtd_target_events(void);
static void	dtd_target_mapmsg(dt_msg_t *, ft_proc_t *, pid_t);

static dtd_tcons_t *
dtd_target_cons(dtd_consumer_t *c)
{
	if (c->dc_targets == NULL)
		c->dc_targets = calloc(1, sizeof(dtd_tcons_t));
	return c->dc_targets;
}

static dtd_target_t *
dtd_target_find(pid_t pid)
{
	dtd_target_t *tg;

	for (tg = dtd_target_procs; tg != NULL; tg = tg->tg_next) {
		if (tg->tg_pid == pid && !tg->tg_stale)
			return tg;
	}
	return NULL;
}

/*
 * Has the process tg was made for ended, whatever the events say yet?
 * Then its pid may be another process's already (pids wrap): a grab of
 * that pid is of another process, for a record of its own.
 */
static int
dtd_target_ended(const dtd_target_t *tg)
{
	struct pollfd pfd;

	if (__atomic_load_n(&tg->tg_exited, __ATOMIC_ACQUIRE))
		return 1;
	if (tg->tg_pidfd < 0)
		return 0;
	pfd.fd = tg->tg_pidfd;
	pfd.events = POLLIN;
	return poll(&pfd, 1, 0) > 0;
}

static dtd_tref_t *
dtd_target_ref(const dtd_consumer_t *c, pid_t pid)
{
	const dtd_tcons_t *tc = c->dc_targets;
	uint32_t i;

	if (tc == NULL)
		return NULL;
	for (i = 0; i < tc->tc_nref; i++) {
		if (tc->tc_ref[i].tr_tgt->tg_pid == pid &&
		    !tc->tc_ref[i].tr_tgt->tg_stale)
			return &tc->tc_ref[i];
	}
	return NULL;
}

static void
dtd_target_procinfo(dtd_target_t *tg)
{
	char path[64];
	long v, v2;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tg->tg_pid);
	tg->tg_comm[0] = '\0';
	if ((fp = fopen(path, "re")) != NULL) {
		n = fread(tg->tg_comm, 1, sizeof(tg->tg_comm) - 1, fp);
		tg->tg_comm[n] = '\0';
		tg->tg_comm[strcspn(tg->tg_comm, "\n")] = '\0';
		fclose(fp);
	}
	/* as illumos, set by the exec: a program's own argv[] edits aside */
	dtd_host_psargs(tg->tg_pid, tg->tg_psargs, sizeof(tg->tg_psargs));
	tg->tg_dmodel = dtd_host_dmodel(tg->tg_pid);
	tg->tg_ppid = dtd_host_status(tg->tg_pid, "PPid", &v, NULL) == 0 ?
	    (pid_t)v : -1;
	tg->tg_uid = dtd_host_status(tg->tg_pid, "Uid", &v, NULL) == 0 ?
	    (uid_t)v : (uid_t)-1;
	tg->tg_gid = dtd_host_status(tg->tg_pid, "Gid", &v, NULL) == 0 ?
	    (gid_t)v : (gid_t)-1;
	(void)v2;
}

/* The pid a pidfd refers to (/proc/self/fdinfo), or -1. */
static pid_t
dtd_target_fdpid(int fd)
{
	char path[64], line[128];
	pid_t pid = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, "Pid:", 4) == 0) {
			pid = (pid_t)strtol(line + 4, NULL, 10);
			break;
		}
	}
	fclose(fp);
	return pid;
}

/* dh_uarg is the ft_hit_t: it carries its memory accessor and process */
static int
dtd_target_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	/* the VM reports what we return: "invalid address (0x...)" */
	return ft_hit_read(arg, addr, buf, len) == 0 ? 0 : DIF_FLT_BADADDR;
}

/* The stack as the hit saw it, only that: ustack()'s unwinder. */
static int
dtd_target_stkread(void *arg, uint64_t addr, void *buf, size_t len)
{
	return ft_hit_stackread(arg, addr, buf, len) == 0 ? 0 :
	    DIF_FLT_BADADDR;
}

static ft_proc_t *
dtd_target_hitproc(const dtd_hit_t *h)
{
	return ((const ft_hit_t *)h->dh_uarg)->fh_proc;
}

/* The stack of the thread that hit, for ustack(), ustackdepth, ucaller. */
static int
dtd_target_ustack(const dtd_hit_t *h, uint64_t *pcs, uint32_t max)
{
	dtd_target_t *tg = h->dh_ustackarg;

	return ft_unwind_stack(tg->tg_unwind,
	    __atomic_load_n(&tg->tg_modgen, __ATOMIC_ACQUIRE),
	    dtd_target_hitproc(h), h->dh_tid,
	    (const struct user_regs_struct *)(const void *)h->dh_regs,
	    dtd_target_stkread, h->dh_uarg, pcs, max);
}

/*
 * errno: the thread's C errno, at %fs base plus the offset fasttrap
 * finds in the image's __errno_location (under uprobes, the sample
 * serves the value the capture program read there at the hit).  Without
 * the thread pointer (a kernel without BTF) or a known C library, an
 * illegal operation fault, never a made-up value.
 */
static int
dtd_target_errno(const dtd_hit_t *h, uint64_t *valp)
{
	const struct user_regs_struct *r =
	    (const struct user_regs_struct *)(const void *)h->dh_regs;
	int64_t off;
	int32_t e;
	int rc;

	if (r->fs_base == 0 ||
	    ft_proc_errno_off(dtd_target_hitproc(h), &off) == -1)
		return DIF_FLT_ILLOP;
	if ((rc = h->dh_uread(h->dh_uarg, r->fs_base + (uint64_t)off, &e,
	    sizeof(e))) != 0)
		return rc;
	*valp = (uint64_t)(int64_t)e;
	return 0;
}

/* copyout(): the thread is stopped; page protections are respected */
static int
dtd_target_uwrite(void *arg, uint64_t addr, const void *buf, size_t len)
{
	return ft_proc_write(((const ft_hit_t *)arg)->fh_proc, addr, buf,
	    len) == 0 ? 0 : DIF_FLT_BADADDR;
}

/* The CPU of a hit whose backend did not read it (ptrace) */
static int
dtd_target_cpu(const dtd_hit_t *h)
{
	return ft_proc_cpu(dtd_target_hitproc(h), h->dh_tid);
}

/*
 * Fire a hit of tg; once a consumer lost tg at an exec, for the others
 * alone.  dh_consumer is only compared, never followed: a consumer gone
 * since the copy is harmless.
 */
static void
dtd_target_fire(dtd_target_t *tg, dtd_hit_t *h)
{
	dtd_consumer_t *allow[16];
	int i, n;

	if (!__atomic_load_n(&tg->tg_excl, __ATOMIC_ACQUIRE)) {
		dtd_ecb_fire(h);
		return;
	}
	pthread_mutex_lock(&tg->tg_evlock);
	if ((n = tg->tg_nallow) > 16) {
		/* many: fire under the lock (the main thread waits) */
		for (i = 0; i < n; i++) {
			h->dh_consumer = tg->tg_allow[i];
			dtd_ecb_fire(h);
		}
		n = 0;
	} else {
		memcpy(allow, tg->tg_allow, n * sizeof(allow[0]));
	}
	pthread_mutex_unlock(&tg->tg_evlock);
	for (i = 0; i < n; i++) {
		h->dh_consumer = allow[i];
		dtd_ecb_fire(h);
	}
	h->dh_consumer = NULL;
}

/* Tracer thread: a thread of tg stopped on a site with users. */
static void
dtd_target_hit(void *arg, ft_proc_t *proc, const ft_hit_t *fh,
    void *const *users, int nusers)
{
	dtd_target_t *tg = arg;
	const struct user_regs_struct *r = &fh->fh_regs;
	int i;
	dtd_hit_t h;

	memset(&h, 0, sizeof(h));
	h.dh_pid = fh->fh_pid;
	h.dh_tid = fh->fh_tid;
	h.dh_cpu = fh->fh_cpu;
	if (h.dh_cpu < 0)
		h.dh_getcpu = dtd_target_cpu;
	h.dh_timestamp = fh->fh_time;
	h.dh_regs = (const uint64_t *)(const void *)r;
	h.dh_nregs = DTD_TARGET_NREGS;
	h.dh_uread = dtd_target_uread;
	h.dh_uwrite = dtd_target_uwrite;
	h.dh_uarg = (void *)(uintptr_t)fh;
	h.dh_errno = dtd_target_errno;
	if (tg->tg_unwind != NULL) {
		h.dh_ustack = dtd_target_ustack;
		h.dh_ustackarg = tg;
	}
	h.dh_ppid = tg->tg_ppid;
	h.dh_uid = tg->tg_uid;
	h.dh_gid = tg->tg_gid;
	h.dh_execname = tg->tg_comm[0] != '\0' ? tg->tg_comm : NULL;
	h.dh_psargs = tg->tg_psargs;
	h.dh_dmodel = tg->tg_dmodel;
	/* the context is the process's; the arguments, each probe's */
	for (i = 0; i < nusers; i++) {
		h.dh_probe = users[i];
		if (h.dh_probe->dpr_prov->dpv_siteargs != NULL)
			h.dh_probe->dpr_prov->dpv_siteargs(&h, fh);
		dtd_target_fire(tg, &h);
	}
}

static void
dtd_target_exited(void *arg, ft_proc_t *proc, int status)
{
	dtd_target_t *tg = arg;

	(void)proc;
	tg->tg_status = status;
	__atomic_store_n(&tg->tg_exited, 1, __ATOMIC_RELEASE);
	dtd_ecb_wakeup();
}

static void
dtd_target_held(void *arg, ft_proc_t *proc)
{
	dtd_target_t *tg = arg;

	(void)proc;
	dtd_target_procinfo(tg);
	/* its modules are read again (at evaltime=exec: not all yet) */
	__atomic_add_fetch(&tg->tg_modgen, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&tg->tg_held, 1, __ATOMIC_RELEASE);
	dtd_ecb_wakeup();
}

/*
 * Tracer thread: an event that changes where probes are (exec, dlopen,
 * dlclose).  The thread that caused it stays stopped while the main
 * thread, which owns the probe table, re-resolves them: no call made
 * after a library appears or in a new image escapes its probes.
 */
static void
dtd_target_wait(dtd_target_t *tg, int ev)
{
	pthread_mutex_lock(&tg->tg_evlock);
	tg->tg_evpend |= ev;
	dtd_ecb_wakeup();
	while (tg->tg_evpend != 0 && !tg->tg_abandon)
		pthread_cond_wait(&tg->tg_evcv, &tg->tg_evlock);
	pthread_mutex_unlock(&tg->tg_evlock);
}

static void
dtd_target_exec(void *arg, ft_proc_t *proc)
{
	dtd_target_t *tg = arg;

	/* every site went with the old image: the new one is at its entry */
	(void)proc;
	dtd_target_procinfo(tg);
	dtd_target_wait(tg, DTD_TGTEV_EXEC);
}

/*
 * Tracer (or drain) thread: tg exec'd, its new credentials committed,
 * nothing of the new image run for us.  May every consumer still trace
 * it?  The kernel says, for each non-root one (see the top).  -1: let
 * it go; the main thread tells the consumers and releases it.
 */
static int
dtd_target_execok(void *arg, ft_proc_t *proc)
{
	dtd_target_t *tg = arg;
	int i, fd, fatal, ok = 1, denied = 0;

	(void)proc;
	pthread_mutex_lock(&tg->tg_evlock);
	for (i = 0; i < tg->tg_ncreds; i++) {
		if (tg->tg_creds[i].cr_denied)
			continue;	/* lost at an earlier exec */
		fd = ft_proc_mayptrace(tg->tg_pid, tg->tg_creds[i].cr_uid,
		    tg->tg_creds[i].cr_gid, &fatal);
		if (fatal)
			fatalx("%s: cannot take back our credentials",
			    __func__);
		/* gone counts as no: a dead process runs nothing */
		if (fd >= 0) {
			close(fd);
			ok++;
		} else {
			tg->tg_creds[i].cr_denied = 1;
			denied++;
		}
	}
	/* nobody left who may trace it (now or since an earlier exec) */
	if (ok == 1 && tg->tg_nroot == 0) {
		ok = 0;
		__atomic_store_n(&tg->tg_letgo, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&tg->tg_evlock);
	if (denied == 0 && ok)
		return 0;
	log_info("%s: pid %d exec'd what %d of its consumers may not trace%s",
	    __func__, (int)tg->tg_pid, denied, ok ? "" : ": let go");
	dtd_ecb_wakeup();
	return ok ? 0 : -1;
}

/*
 * Main thread, tg waiting in its exec event: the consumers fo_execok
 * denied lose it (told by dtd_target_report); hits fire for the
 * others alone from now on.
 */
static void
dtd_target_exclude(dtd_target_t *tg)
{
	dtd_consumer_t *c, **na;
	dtd_tref_t *t;
	int i, lost, n = 0;

	for (c = dtd_consumer_next(NULL); c != NULL;
	    c = dtd_consumer_next(c)) {
		if ((t = dtd_target_ref(c, tg->tg_pid)) == NULL ||
		    t->tr_tgt != tg)
			continue;
		lost = t->tr_setid;
		pthread_mutex_lock(&tg->tg_evlock);
		for (i = 0; !lost && c->dc_uid != 0 && i < tg->tg_ncreds;
		    i++)
			if (tg->tg_creds[i].cr_uid == c->dc_uid &&
			    tg->tg_creds[i].cr_gid == c->dc_gid)
				lost = tg->tg_creds[i].cr_denied;
		if (lost) {
			t->tr_setid = 1;
		} else if ((na = reallocarray(tg->tg_allow, n + 1,
		    sizeof(*na))) != NULL) {
			tg->tg_allow = na;
			na[n++] = c;
		}
		pthread_mutex_unlock(&tg->tg_evlock);
	}
	pthread_mutex_lock(&tg->tg_evlock);
	tg->tg_nallow = n;
	__atomic_store_n(&tg->tg_excl, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&tg->tg_evlock);
}

/* Main thread: consumer c holds tg, with its credentials. */
static int
dtd_target_credadd(dtd_target_t *tg, dtd_consumer_t *c)
{
	struct dtd_tcred *n = NULL;
	dtd_consumer_t **na = NULL;
	int rc = 0;

	pthread_mutex_lock(&tg->tg_evlock);
	if (tg->tg_excl && (na = reallocarray(tg->tg_allow,
	    tg->tg_nallow + 1, sizeof(*na))) == NULL)
		rc = -1;
	if (rc == 0 && c->dc_uid != 0 && (n = reallocarray(tg->tg_creds,
	    tg->tg_ncreds + 1, sizeof(*n))) == NULL)
		rc = -1;
	if (rc == 0) {
		if (na != NULL) {
			tg->tg_allow = na;
			na[tg->tg_nallow++] = c;
		}
		if (n != NULL) {
			tg->tg_creds = n;
			n[tg->tg_ncreds].cr_uid = c->dc_uid;
			n[tg->tg_ncreds].cr_gid = c->dc_gid;
			n[tg->tg_ncreds].cr_denied = 0;
			tg->tg_ncreds++;
		} else {
			tg->tg_nroot++;
		}
	} else if (na != NULL) {
		tg->tg_allow = na;
	}
	pthread_mutex_unlock(&tg->tg_evlock);
	return rc;
}

/*
 * Main thread: consumer c (that lost tg at an exec: lost) lets go of tg.
 * 0, or -1 if c had no such credentials there.
 */
static int
dtd_target_creddel(dtd_target_t *tg, const dtd_consumer_t *c, int lost)
{
	int i, rc = c->dc_uid != 0 ? -1 : 0;

	pthread_mutex_lock(&tg->tg_evlock);
	for (i = 0; i < tg->tg_nallow; i++) {
		if (tg->tg_allow[i] == c) {
			tg->tg_allow[i] = tg->tg_allow[--tg->tg_nallow];
			break;
		}
	}
	for (i = 0; c->dc_uid != 0 && i < tg->tg_ncreds; i++) {
		if (tg->tg_creds[i].cr_uid == c->dc_uid &&
		    tg->tg_creds[i].cr_gid == c->dc_gid &&
		    tg->tg_creds[i].cr_denied == lost) {
			tg->tg_creds[i] = tg->tg_creds[--tg->tg_ncreds];
			rc = 0;
			break;
		}
	}
	if (c->dc_uid == 0)
		tg->tg_nroot--;
	pthread_mutex_unlock(&tg->tg_evlock);
	return rc;
}

static void
dtd_target_modules(void *arg, ft_proc_t *proc)
{
	(void)proc;
	dtd_target_wait(arg, DTD_TGTEV_MODS);
}

/* Main thread: the tracer thread must not wait for us any more. */
static void
dtd_target_abandon(dtd_target_t *tg)
{
	pthread_mutex_lock(&tg->tg_evlock);
	tg->tg_abandon = 1;
	pthread_cond_broadcast(&tg->tg_evcv);
	pthread_mutex_unlock(&tg->tg_evlock);
}

/* Drain thread (uprobe backend): n samples lost on cpu. */
static void
dtd_target_lost(void *arg, ft_proc_t *proc, int cpu, uint64_t n)
{
	dtd_target_t *tg = arg;

	(void)proc;
	if (cpu < 0)
		cpu = 0;
	__atomic_add_fetch(&tg->tg_lost[cpu % DTD_TARGET_MAXCPU], n,
	    __ATOMIC_RELEASE);
	__atomic_add_fetch(&tg->tg_nlost, n, __ATOMIC_RELEASE);
	dtd_ecb_wakeup();
}

static const ft_ops_t dtd_target_ops = {
	.fo_hit = dtd_target_hit,
	.fo_exited = dtd_target_exited,
	.fo_exec = dtd_target_exec,
	.fo_execok = dtd_target_execok,
	.fo_modules = dtd_target_modules,
	.fo_held = dtd_target_held,
	.fo_lost = dtd_target_lost,
};

/*
 * May client c trace pid?  Root may trace anything; others what they
 * could ptrace themselves, as the kernel says (see the top).  The text
 * in err is the reason alone: dtrace(1) prints "failed to grab pid N: "
 * before it.
 */
static int
dtd_target_allowed(const dtd_consumer_t *c, pid_t pid, char *err,
    size_t errlen)
{
	int fd, fatal;

	if (c->dc_uid == 0)
		return 0;
	fd = ft_proc_mayptrace(pid, c->dc_uid, c->dc_gid, &fatal);
	if (fatal)
		fatalx("%s: cannot take back our credentials", __func__);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	snprintf(err, errlen, "%s", strerror(errno == ENOENT ||
	    errno == ESRCH ? ESRCH : EPERM));
	return -1;
}

/*
 * DT_MSG_GRAB: trace pid, named by the client's pidfd.  create: hold a
 * child of the client about to exec (-c), where evaltime says (0
 * postinit, 1 exec, 2 preinit, 3 main: DT_GRAB_EVALMASK's values).
 * Returns 0 or -1 with err.
 */
int
dtd_target_grab(dtd_consumer_t *c, pid_t pid, int pidfd, int create,
    int evaltime, char *err, size_t errlen)
{
	static const int holdat[] = { FT_HOLD_POSTINIT, FT_HOLD_EXEC,
	    FT_HOLD_PREINIT, FT_HOLD_MAIN };
	char ferr[256];
	dtd_tcons_t *tc;
	dtd_tref_t *nt;
	dtd_target_t *tg;

	if (pid <= 0 || pidfd < 0 || dtd_target_fdpid(pidfd) != pid) {
		snprintf(err, errlen, "the descriptor does not name it");
		return -1;
	}
	if (pid == getpid() || pid == c->dc_pid) {
		snprintf(err, errlen, "cannot trace dtrace or dtraced");
		return -1;
	}
	if (evaltime < 0 || evaltime > 3 || (evaltime != 0 && !create)) {
		snprintf(err, errlen, "invalid evaltime");
		return -1;
	}
	/* a process of that pid that has ended is another process */
	if ((tg = dtd_target_find(pid)) != NULL && dtd_target_ended(tg))
		tg->tg_stale = 1;
	if (dtd_target_ref(c, pid) != NULL) {
		snprintf(err, errlen, "pid %d is already a target", (int)pid);
		return -1;
	}
	if (dtd_target_allowed(c, pid, err, errlen) == -1)
		return -1;
	if ((tc = dtd_target_cons(c)) == NULL ||
	    (nt = reallocarray(tc->tc_ref, tc->tc_nref + 1,
	    sizeof(*nt))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	tc->tc_ref = nt;
	if ((tg = dtd_target_find(pid)) != NULL && (tg->tg_proc == NULL ||
	    __atomic_load_n(&tg->tg_exited, __ATOMIC_ACQUIRE) || create)) {
		snprintf(err, errlen, "%s", tg->tg_proc == NULL ||
		    tg->tg_exited ? strerror(ESRCH) : strerror(EBUSY));
		return -1;
	}
	if (tg == NULL) {
		if ((tg = calloc(1, sizeof(*tg))) == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		tg->tg_pid = pid;
		tg->tg_pidfd = fcntl(pidfd, F_DUPFD_CLOEXEC, 0);
		tg->tg_gen = tg->tg_born = ++dtd_target_lastgen;
		tg->tg_modgen = 1;
		tg->tg_unwind = ft_unwind_create(pid);
		pthread_mutex_init(&tg->tg_evlock, NULL);
		pthread_cond_init(&tg->tg_evcv, NULL);
		tg->tg_created = create;
		if (!create)
			dtd_target_procinfo(tg);
		/*
		 * c's credentials first: an exec from the moment it is
		 * seized is judged with them (fo_execok), and one with
		 * none would be let go as nobody's
		 */
		if (dtd_target_credadd(tg, c) == -1) {
			snprintf(err, errlen, "out of memory");
			dtd_target_free(tg);
			return -1;
		}
		ferr[0] = '\0';
		tg->tg_proc = create ?
		    ft_proc_hold(pid, pidfd, &dtd_target_ops, tg,
		    holdat[evaltime], ferr, sizeof(ferr)) :
		    ft_proc_grab(pid, pidfd, &dtd_target_ops, tg, ferr,
		    sizeof(ferr));
		if (tg->tg_proc == NULL) {
			snprintf(err, errlen, "%s", ferr);
			dtd_target_free(tg);
			return -1;
		}
		if (!create)
			tg->tg_running = 1;
		tg->tg_next = dtd_target_procs;
		dtd_target_procs = tg;
	} else if (dtd_target_credadd(tg, c) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/*
	 * Once more, now that it is seized and c's credentials are in: an
	 * exec from here on is judged with them (fo_execok), and one
	 * since the first answer is seen here.
	 */
	if (dtd_target_allowed(c, pid, err, errlen) == -1) {
		/* an exec may have denied them meanwhile */
		if (dtd_target_creddel(tg, c, 0) == -1)
			(void)dtd_target_creddel(tg, c, 1);
		if (tg->tg_refs == 0) {
			dtd_target_unlink(tg);
			dtd_target_abandon(tg);
			ft_proc_release(tg->tg_proc);
			dtd_target_free(tg);
		}
		return -1;
	}
	tg->tg_refs++;
	memset(&tc->tc_ref[tc->tc_nref], 0, sizeof(tc->tc_ref[0]));
	tc->tc_ref[tc->tc_nref].tr_tgt = tg;
	tc->tc_ref[tc->tc_nref].tr_created = create;
	tc->tc_nref++;
	log_info("%s: pid %d: %s pid %d", __func__, (int)c->dc_pid,
	    create ? "holds" : "grabbed", (int)pid);
	return 0;
}

/* Put tg's sites in place after a batch of changes (uprobe, inline). */
static void
dtd_target_sync(dtd_target_t *tg)
{
	struct timespec t0, t1;
	int rc;

	if (tg->tg_proc == NULL ||
	    !(ft_proc_caps(tg->tg_proc) & FT_CAP_BATCH))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = ft_proc_sync(tg->tg_proc)) == -1)
		log_warn("%s: pid %d", __func__, (int)tg->tg_pid);
	else if (rc > 0)
		log_warnx("%s: pid %d: %d sites the kernel cannot probe "
		    "(skipped)", __func__, (int)tg->tg_pid, rc);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_info("%s: pid %d: %zu %s sites in place in %.1f ms", __func__,
	    (int)tg->tg_pid, ft_proc_nsites(tg->tg_proc),
	    ft_proc_backend_name(ft_proc_backend(tg->tg_proc)),
	    (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
}

/* GO, c's probes enabled: their uprobe sites go live, before BEGIN. */
void
dtd_target_commit(dtd_consumer_t *c)
{
	dtd_tcons_t *tc = c->dc_targets;
	uint32_t i;

	for (i = 0; tc != NULL && i < tc->tc_nref; i++) {
		dtd_target_t *tg = tc->tc_ref[i].tr_tgt;

		if (tg->tg_proc != NULL && !__atomic_load_n(&tg->tg_exited,
		    __ATOMIC_ACQUIRE))
			dtd_target_sync(tg);
	}
}

/* GO: BEGIN has fired; held programs may run. */
void
dtd_target_run(dtd_consumer_t *c)
{
	dtd_tcons_t *tc = c->dc_targets;
	uint32_t i;

	if (tc == NULL)
		return;
	for (i = 0; i < tc->tc_nref; i++) {
		dtd_target_t *tg = tc->tc_ref[i].tr_tgt;

		if (tg->tg_proc != NULL && !tg->tg_running) {
			tg->tg_running = 1;
			ft_proc_run(tg->tg_proc);
		}
	}
}

static void
dtd_target_free(dtd_target_t *tg)
{
	/* what providers made of it goes first: it may name the process */
	dtd_provider_release(tg);
	free(tg->tg_creds);
	free(tg->tg_allow);
	ft_unwind_destroy(tg->tg_unwind);
	if (tg->tg_pidfd >= 0)
		close(tg->tg_pidfd);
	pthread_cond_destroy(&tg->tg_evcv);
	pthread_mutex_destroy(&tg->tg_evlock);
	free(tg);
}

static void
dtd_target_unlink(dtd_target_t *tg)
{
	dtd_target_t **ppp;

	for (ppp = &dtd_target_procs; *ppp != NULL; ppp = &(*ppp)->tg_next) {
		if (*ppp == tg) {
			*ppp = tg->tg_next;
			return;
		}
	}
}

/*
 * The consumer goes (its ECBs are already off their probes): let go of
 * its targets.  A process nobody holds any more is released: killed
 * first if it was created for -c and still runs, as illumos does.
 */
void
dtd_target_drop(dtd_consumer_t *c)
{
	dtd_tcons_t *tc = c->dc_targets;
	uint32_t i;

	if (tc == NULL)
		return;
	for (i = 0; i < tc->tc_nref; i++) {
		dtd_target_t *tg = tc->tc_ref[i].tr_tgt;

		dtd_target_creddel(tg, c, tc->tc_ref[i].tr_setid);
		if (--tg->tg_refs > 0 && tg->tg_proc != NULL &&
		    __atomic_load_n(&tg->tg_excl, __ATOMIC_ACQUIRE) &&
		    tg->tg_nallow == 0) {
			/* those left lost it at an exec: nobody traces it */
			__atomic_store_n(&tg->tg_letgo, 1, __ATOMIC_RELEASE);
			dtd_target_abandon(tg);
			ft_proc_release(tg->tg_proc);
			tg->tg_proc = NULL;
			continue;
		}
		if (tg->tg_refs > 0) {
			/* its sites are gone: so are their uprobes */
			dtd_target_sync(tg);
			continue;
		}
		dtd_target_unlink(tg);
		if (tg->tg_proc != NULL) {
			struct timespec t0, t1;

			dtd_target_abandon(tg);
			/* one let go at an exec runs on: not ours */
			if (tg->tg_created && !__atomic_load_n(&tg->tg_exited,
			    __ATOMIC_ACQUIRE) && !__atomic_load_n(&tg->tg_letgo,
			    __ATOMIC_ACQUIRE))
				ft_proc_kill(tg->tg_proc);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			ft_proc_release(tg->tg_proc);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			log_info("%s: pid %d released in %.1f ms", __func__,
			    (int)tg->tg_pid, (t1.tv_sec - t0.tv_sec) * 1e3 +
			    (t1.tv_nsec - t0.tv_nsec) / 1e6);
		}
		dtd_target_free(tg);
	}
	free(tc->tc_ref);
	free(tc->tc_told);
	free(tc);
	c->dc_targets = NULL;
}

/* The daemon exits: let every process go (consumers are gone already). */
void
dtd_target_shutdown(void)
{
	dtd_target_t *tg;

	while ((tg = dtd_target_procs) != NULL) {
		dtd_target_procs = tg->tg_next;
		if (tg->tg_proc != NULL) {
			dtd_target_abandon(tg);
			ft_proc_release(tg->tg_proc);
		}
		dtd_target_free(tg);
	}
}

static int
dtd_target_mapone(void *arg, ft_proc_t *proc, ft_mod_t *m)
{
	dtd_tmap_t *tm = arg;
	const ft_elf_t *fi;
	const ft_sym_t *s;
	size_t i, n;

	dt_msg_put_u64(tm->tm_msg, m->fm_lo);
	dt_msg_put_u64(tm->tm_msg, m->fm_hi);
	dt_msg_put_u64(tm->tm_msg, m->fm_bias);
	dt_msg_put_u32(tm->tm_msg, m->fm_exec ? DT_MODMAP_EXEC : 0);
	dt_msg_put_str(tm->tm_msg, m->fm_path);
	dt_msg_put_str(tm->tm_msg, m->fm_name);
	/* what its IFUNCs chose: strlen is no symbol of a stripped libc's */
	fi = ft_proc_mod_ifuncs(proc, m);
	n = fi != NULL ? ft_elf_nsyms(fi) : 0;
	dt_msg_put_u32(tm->tm_msg, (uint32_t)n);
	for (i = 0; i < n; i++) {
		s = ft_elf_sym(fi, i);
		dt_msg_put_u64(tm->tm_msg, s->fs_addr + m->fm_bias);
		dt_msg_put_u64(tm->tm_msg, s->fs_size);
		dt_msg_put_str(tm->tm_msg, s->fs_name);
	}
	tm->tm_n++;
	return 0;
}

/*
 * The module map of process p (pid) as a DT_MSG_MODMAP, in m, which the
 * caller sends and frees (dt_proto.h has the payload).  The sampler
 * observed processes' maps are the same message.
 */
static void
dtd_target_mapmsg(dt_msg_t *m, ft_proc_t *p, pid_t pid)
{
	dtd_tmap_t tm;
	size_t off;
	int k;

	dt_msg_init(m, DT_MSG_MODMAP);
	dt_msg_put_u32(m, (uint32_t)pid);
	off = m->dm_len;
	dt_msg_put_u32(m, 0);		/* the count, once known */
	tm.tm_msg = m;
	tm.tm_n = 0;
	(void)ft_proc_mod_iter(p, "*", dtd_target_mapone, &tm);
	if (m->dm_err != 0)
		return;
	for (k = 0; k < 4; k++)		/* little-endian, as dt_msg puts */
		m->dm_data[off + k] = (uint8_t)(tm.tm_n >> (8 * k));
}

/*
 * Main thread: send the client of c the module maps of its targets that
 * changed since it last heard (DT_MSG_MODMAP), so that it can name the
 * addresses in ustack() and usym() records.  Called before every
 * snapshot, so a map always comes before records that use it.
 */
int
dtd_target_modmaps(dtd_consumer_t *c, int (*send)(void *, dt_msg_t *),
    void *arg)
{
	dtd_tcons_t *tc = c->dc_targets;
	uint64_t gen;
	uint32_t i;
	dt_msg_t m;
	int rc;

	if (tc == NULL)
		return 0;
	for (i = 0; i < tc->tc_nref; i++) {
		dtd_tref_t *t = &tc->tc_ref[i];
		dtd_target_t *tg = t->tr_tgt;

		gen = __atomic_load_n(&tg->tg_modgen, __ATOMIC_ACQUIRE);
		/* not even the map of an image it may not trace */
		if (t->tr_toldmods == gen || tg->tg_proc == NULL ||
		    t->tr_setid ||
		    __atomic_load_n(&tg->tg_letgo, __ATOMIC_ACQUIRE) ||
		    (tg->tg_created &&
		    !__atomic_load_n(&tg->tg_held, __ATOMIC_ACQUIRE)))
			continue;
		t->tr_toldmods = gen;
		dtd_target_mapmsg(&m, tg->tg_proc, tg->tg_pid);
		rc = send(arg, &m);
		dt_msg_free(&m);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/*
 * Main thread: tell the client of c what happened to its targets (held
 * at their hold point, exited), one DT_MSG_PROC each, and release
 * processes that are gone.  Returns -1 if send failed.
 */
int
dtd_target_report(dtd_consumer_t *c, int (*send)(void *, dt_msg_t *),
    void *arg)
{
	dtd_tcons_t *tc = c->dc_targets;
	uint32_t i;
	dt_msg_t m;
	int rc;

	dtd_target_events();
	if (tc == NULL)
		return 0;
	/* maps first: a target that exits may have left records */
	if (dtd_target_modmaps(c, send, arg) == -1)
		return -1;
	/* samples lost in a uprobe ring: drops, before any exit */
	for (i = 0; i < tc->tc_nref && c->dc_hasbuf &&
	    dtd_consumer_activity(c) != DT_ACT_INACTIVE; i++) {
		dtd_tref_t *t = &tc->tc_ref[i];
		dtd_target_t *tg = t->tr_tgt;
		uint64_t v;
		int cpu;

		if (__atomic_load_n(&tg->tg_nlost, __ATOMIC_ACQUIRE) ==
		    t->tr_nlost)
			continue;
		for (cpu = 0; cpu < DTD_TARGET_MAXCPU; cpu++) {
			v = __atomic_load_n(&tg->tg_lost[cpu],
			    __ATOMIC_ACQUIRE);
			if (v == t->tr_lost[cpu])
				continue;
			dtd_buf_drop(&c->dc_buf, cpu, v - t->tr_lost[cpu]);
			t->tr_nlost += v - t->tr_lost[cpu];
			t->tr_lost[cpu] = v;
		}
	}
	for (i = 0; i < tc->tc_nref; i++) {
		dtd_tref_t *t = &tc->tc_ref[i];
		dtd_target_t *tg = t->tr_tgt;
		int ev = 0;

		if (t->tr_backend != 0 && !t->tr_toldbackend) {
			ev = DT_PROC_BACKEND;
			t->tr_toldbackend = 1;
		} else if (!t->tr_toldexit && (t->tr_setid ||
		    __atomic_load_n(&tg->tg_letgo, __ATOMIC_ACQUIRE))) {
			ev = DT_PROC_LOST;
			t->tr_toldexit = t->tr_toldheld = 1;
		} else if (!t->tr_toldexit &&
		    __atomic_load_n(&tg->tg_exited, __ATOMIC_ACQUIRE)) {
			ev = DT_PROC_EXITED;
			t->tr_toldexit = t->tr_toldheld = 1;
		} else if (!t->tr_toldheld &&
		    __atomic_load_n(&tg->tg_held, __ATOMIC_ACQUIRE)) {
			ev = DT_PROC_HELD;
			t->tr_toldheld = 1;
		}
		if (ev == 0)
			continue;
		if ((ev == DT_PROC_EXITED || (ev == DT_PROC_LOST &&
		    __atomic_load_n(&tg->tg_letgo, __ATOMIC_ACQUIRE))) &&
		    tg->tg_proc != NULL) {
			/*
			 * Sites of a dead process, or of an image gone at
			 * an exec: nothing to restore; uprobe links go
			 */
			dtd_target_abandon(tg);
			ft_proc_release(tg->tg_proc);
			tg->tg_proc = NULL;
		}
		dt_msg_init(&m, DT_MSG_PROC);
		dt_msg_put_u32(&m, (uint32_t)tg->tg_pid);
		dt_msg_put_u32(&m, (uint32_t)ev);
		dt_msg_put_u32(&m, ev == DT_PROC_EXITED ?
		    (uint32_t)tg->tg_status : ev == DT_PROC_BACKEND ?
		    (uint32_t)(t->tr_backend - 1) : ev == DT_PROC_LOST ?
		    DT_LOST_SETID : 0);
		rc = send(arg, &m);
		dt_msg_free(&m);
		if (rc == -1)
			return -1;
		i--;	/* an exit may follow a hold or a backend */
	}
	return 0;
}

/* Main thread: handle the events tracer threads wait on. */
static void
dtd_target_events(void)
{
	dtd_target_t *tg;
	uint64_t oldgen;
	int ev, i, lost;

	for (tg = dtd_target_procs; tg != NULL; tg = tg->tg_next) {
		if (tg->tg_proc == NULL)
			continue;
		pthread_mutex_lock(&tg->tg_evlock);
		ev = tg->tg_evpend;
		pthread_mutex_unlock(&tg->tg_evlock);
		if (ev == 0)
			continue;
		if (ev & DTD_TGTEV_EXEC) {
			pthread_mutex_lock(&tg->tg_evlock);
			for (i = 0; i < tg->tg_ncreds &&
			    !tg->tg_creds[i].cr_denied; i++)
				;
			lost = i < tg->tg_ncreds;
			pthread_mutex_unlock(&tg->tg_evlock);
			if (lost)
				dtd_target_exclude(tg);
		}
		oldgen = tg->tg_gen;
		if (ev & DTD_TGTEV_EXEC)
			tg->tg_gen = ++dtd_target_lastgen;
		dtd_provider_retarget(tg, oldgen, (ev & DTD_TGTEV_EXEC) != 0);
		__atomic_add_fetch(&tg->tg_modgen, 1, __ATOMIC_ACQ_REL);
		dtd_target_sync(tg);
		pthread_mutex_lock(&tg->tg_evlock);
		tg->tg_evpend = 0;
		pthread_cond_broadcast(&tg->tg_evcv);
		pthread_mutex_unlock(&tg->tg_evlock);
	}
}

/*
 * Consumer c's targets (at most max): their pids, and whether each has
 * exited.  Returns how many were stored.
 */
uint32_t
dtd_target_list(const dtd_consumer_t *c, pid_t *pids, int *exited,
    uint32_t max)
{
	const dtd_tcons_t *tc = c->dc_targets;
	uint32_t i;

	if (tc == NULL)
		return 0;
	for (i = 0; i < tc->tc_nref && i < max; i++) {
		pids[i] = tc->tc_ref[i].tr_tgt->tg_pid;
		exited[i] = __atomic_load_n(&tc->tc_ref[i].tr_tgt->tg_exited,
		    __ATOMIC_ACQUIRE) != 0 || tc->tc_ref[i].tr_setid ||
		    __atomic_load_n(&tc->tc_ref[i].tr_tgt->tg_letgo,
		    __ATOMIC_ACQUIRE) != 0;
	}
	return i;
}

/*
 * Consumer c is retained (dtd_retain.c): the -c targets it created
 * outlive the dtrace that started them, and are let go, not killed,
 * when the program ends.
 */
void
dtd_target_keep(dtd_consumer_t *c)
{
	dtd_tcons_t *tc = c->dc_targets;
	uint32_t i;

	if (tc == NULL)
		return;
	for (i = 0; i < tc->tc_nref; i++) {
		tc->tc_ref[i].tr_created = 0;
		tc->tc_ref[i].tr_tgt->tg_created = 0;
	}
}


/*
 * c's targets one at a time, from *ip = 0; NULL after the last.  What a
 * provider walks to make and resolve its probes.
 */
dtd_target_t *
dtd_target_iter(const dtd_consumer_t *c, uint32_t *ip)
{
	const dtd_tcons_t *tc = c->dc_targets;

	if (tc == NULL || *ip >= tc->tc_nref)
		return NULL;
	return tc->tc_ref[(*ip)++].tr_tgt;
}

/* c's target pid (c NULL: anyone's), in the image it runs; or NULL. */
dtd_target_t *
dtd_target_of(const dtd_consumer_t *c, pid_t pid)
{
	const dtd_tref_t *t;

	if (c == NULL)
		return dtd_target_find(pid);
	t = dtd_target_ref(c, pid);
	return t != NULL ? t->tr_tgt : NULL;
}

pid_t
dtd_target_pid(const dtd_target_t *tg)
{
	return tg->tg_pid;
}

uint64_t
dtd_target_gen(const dtd_target_t *tg)
{
	return tg->tg_gen;
}

/* The generation of tg's first image: one before is another process's. */
uint64_t
dtd_target_born(const dtd_target_t *tg)
{
	return tg->tg_born;
}

/* fasttrap's process: NULL once released */
struct ft_proc *
dtd_target_proc(const dtd_target_t *tg)
{
	return tg->tg_proc;
}

/* Traced still: not released, not exited. */
int
dtd_target_live(const dtd_target_t *tg)
{
	return tg->tg_proc != NULL &&
	    !__atomic_load_n(&tg->tg_exited, __ATOMIC_ACQUIRE);
}

/* Started for -c: it must not miss an exec or a library. */
int
dtd_target_created(const dtd_target_t *tg)
{
	return tg->tg_created;
}

/* The backend c was told tg uses (DT_BACKEND_* + 1), 0: none yet. */
int
dtd_target_backend(const dtd_consumer_t *c, const dtd_target_t *tg)
{
	const dtd_tref_t *t = dtd_target_ref(c, tg->tg_pid);

	return t != NULL ? t->tr_backend : 0;
}

/* c is to be told that tg uses backend b (DT_BACKEND_*). */
void
dtd_target_setbackend(dtd_consumer_t *c, dtd_target_t *tg, int b)
{
	dtd_tref_t *t = dtd_target_ref(c, tg->tg_pid);

	if (t != NULL)
		t->tr_backend = b + 1;
}

/*
 * Move tg to backend (FT_BACKEND_*: uprobe, inline), its ring ringsize
 * bytes.  The ptrace tracer thread ends in ft_proc_setbackend(), and we
 * wait for it there: it must not wait for us meanwhile in an event (a
 * library loaded, an exec).  The event stays pending, for
 * dtd_target_events() to handle under the new backend.
 */
int
dtd_target_attach(dtd_target_t *tg, int backend, size_t ringsize,
    char *err, size_t errlen)
{
	int rc;

	dtd_target_abandon(tg);
	rc = ft_proc_setbackend(tg->tg_proc, backend, ringsize, err, errlen);
	pthread_mutex_lock(&tg->tg_evlock);
	tg->tg_abandon = 0;
	pthread_mutex_unlock(&tg->tg_evlock);
	return rc;
}

/* An observed process's modules, unwinder, module generation, uid. */
struct ft_unwind *
dtd_target_unwind(const dtd_target_t *tg)
{
	return tg->tg_unwind;
}

uint64_t
dtd_target_modgen(const dtd_target_t *tg)
{
	return __atomic_load_n(&tg->tg_modgen, __ATOMIC_ACQUIRE);
}

uid_t
dtd_target_uid(const dtd_target_t *tg)
{
	return tg->tg_uid;
}

/*
 * Observed processes (see the top): made by a sampler's thread on a
 * process's first sample, dtd_target_olock.
 */

/* The uid of process pid (0 for the idle task), or -1. */
uid_t
dtd_target_uidof(pid_t pid)
{
	long v;

	if (pid == 0)
		return 0;
	return dtd_host_status(pid, "Uid", &v, NULL) == 0 ? (uid_t)v :
	    (uid_t)-1;
}

/*
 * The live entry of sampled process pid, held (dtd_target_rele),
 * made on its first sample; NULL if it is gone or the table is full.
 */
dtd_target_t *
dtd_target_observe(pid_t pid)
{
	dtd_target_t *tg, *nt, **ppp;
	char err[128];

	pthread_mutex_lock(&dtd_target_olock);
	for (ppp = &dtd_target_observed; (tg = *ppp) != NULL;
	    ppp = &tg->tg_next)
		if (tg->tg_pid == pid && tg->tg_dead == 0)
			break;
	/* the busy ones first: a sampled process is found in a few steps */
	if (tg != NULL && ppp != &dtd_target_observed) {
		*ppp = tg->tg_next;
		tg->tg_next = dtd_target_observed;
		dtd_target_observed = tg;
	}
	if (tg != NULL) {
		tg->tg_refs++;
		tg->tg_last = dtd_ecb_now();
		pthread_mutex_unlock(&dtd_target_olock);
		return tg;
	}
	/*
	 * Full (consumers that do not snapshot, a retained program no
	 * client reads, keep the dead): the dead entry sampled longest ago
	 * goes, told or not, for this live process.
	 */
	nt = NULL;
	if (dtd_target_nobserved >= DTD_TARGET_MAXOBSERVED) {
		dtd_target_t **victim = NULL;

		for (ppp = &dtd_target_observed; (tg = *ppp) != NULL;
		    ppp = &tg->tg_next)
			if (tg->tg_dead != 0 && tg->tg_refs == 0)
				victim = ppp;
		if (victim == NULL) {
			pthread_mutex_unlock(&dtd_target_olock);
			return NULL;
		}
		nt = *victim;
		*victim = nt->tg_next;
		dtd_target_nobserved--;
	}
	pthread_mutex_unlock(&dtd_target_olock);
	if (nt != NULL) {
		ft_unwind_destroy(nt->tg_unwind);
		ft_proc_release(nt->tg_proc);
		free(nt);
	}

	/* read its modules now, without the lock: they must outlive it */
	if ((nt = calloc(1, sizeof(*nt))) == NULL)
		return NULL;
	nt->tg_pid = pid;
	nt->tg_pidfd = -1;
	nt->tg_uid = dtd_target_uidof(pid);
	if ((nt->tg_proc = ft_proc_observe(pid, err, sizeof(err))) == NULL ||
	    (nt->tg_unwind = ft_unwind_create(pid)) == NULL) {
		ft_proc_release(nt->tg_proc);
		free(nt);
		return NULL;
	}
	pthread_mutex_lock(&dtd_target_olock);
	for (tg = dtd_target_observed; tg != NULL; tg = tg->tg_next)
		if (tg->tg_pid == pid && tg->tg_dead == 0)
			break;
	if (tg == NULL) {	/* no other CPU's thread made it meanwhile */
		tg = nt;
		nt = NULL;
		tg->tg_serial = ++dtd_target_serial;
		tg->tg_next = dtd_target_observed;
		dtd_target_observed = tg;
		dtd_target_nobserved++;
	}
	tg->tg_refs++;
	tg->tg_last = dtd_ecb_now();
	pthread_mutex_unlock(&dtd_target_olock);
	if (nt != NULL) {
		ft_unwind_destroy(nt->tg_unwind);
		ft_proc_release(nt->tg_proc);
		free(nt);
	}
	return tg;
}

/* A hit is done with observed process tg (NULL: none). */
void
dtd_target_rele(dtd_target_t *tg)
{
	if (tg == NULL)
		return;
	pthread_mutex_lock(&dtd_target_olock);
	tg->tg_refs--;
	pthread_mutex_unlock(&dtd_target_olock);
}

/*
 * A side-band record of the sampling events about pid (what,
 * DTD_TARGET_SB_*): its modules changed, it exec'd, or it exited.  Only
 * processes already observed are known.
 */
void
dtd_target_sideband(pid_t pid, int what)
{
	dtd_target_t *tg;

	pthread_mutex_lock(&dtd_target_olock);
	for (tg = dtd_target_observed; tg != NULL; tg = tg->tg_next) {
		if (tg->tg_pid != pid || tg->tg_dead != 0)
			continue;
		if (what == DTD_TARGET_SB_EXIT) {
			tg->tg_dead = dtd_ecb_now();
			/* no hit holds it: its unwinder's files go now */
			if (tg->tg_refs == 0) {
				ft_unwind_destroy(tg->tg_unwind);
				tg->tg_unwind = NULL;
			}
			break;
		}
		if (what == DTD_TARGET_SB_EXEC)
			tg->tg_uid = dtd_target_uidof(pid);
		ft_proc_refresh(tg->tg_proc);
		__atomic_add_fetch(&tg->tg_modgen, 1, __ATOMIC_ACQ_REL);
		break;
	}
	pthread_mutex_unlock(&dtd_target_olock);
}

/*
 * May a consumer of uid and gid (not root; dh_uid, the real uid, is
 * its already) see a sample of h's process?  Only while it could
 * ptrace the process itself, as the kernel says (ft_proc_mayptrace, the
 * pid provider's check): a set-id program a user started, one that
 * gained capabilities or is not dumpable, is root's alone.  Asked at
 * each sample, not cached: the exec that made it so may be heard of on
 * another CPU's ring after this sample.  A process that drops its
 * privilege after the sample and is dumpable again is shown, as the
 * kernel's ptrace would show it then.
 */
int
dtd_target_visible(const dtd_hit_t *h, uid_t uid, gid_t gid)
{
	int fd, fatal;

	fd = ft_proc_mayptrace(h->dh_pid, uid, gid, &fatal);
	if (fatal)
		fatalx("%s: cannot take back our credentials", __func__);
	if (fd == -1)
		return 0;
	close(fd);
	return 1;
}

/*
 * Free the entries of dead processes, and of live ones not sampled for
 * DTD_TARGET_IDLE_NS, that every consumer with profile ECBs has had a
 * snapshot since (all: every entry, nobody samples).  Main thread.
 */
void
dtd_target_gc(int all)
{
	dtd_target_t *tg, **ppp, *dead = NULL;
	dtd_consumer_t *c;
	uint64_t oldest = UINT64_MAX, now;
	dtd_tcons_t *tc;

	for (c = dtd_consumer_next(NULL); c != NULL && !all;
	    c = dtd_consumer_next(c)) {
		if (!dtd_provider_observes(c))
			continue;
		tc = c->dc_targets;
		if (tc == NULL || tc->tc_lastpass < oldest)
			oldest = tc == NULL ? 0 : tc->tc_lastpass;
	}
	now = dtd_ecb_now();
	pthread_mutex_lock(&dtd_target_olock);
	for (ppp = &dtd_target_observed; (tg = *ppp) != NULL; ) {
		if (tg->tg_refs == 0 && (all || (tg->tg_dead != 0 &&
		    tg->tg_dead < oldest) || (tg->tg_last < oldest &&
		    tg->tg_last + DTD_TARGET_IDLE_NS < now))) {
			*ppp = tg->tg_next;
			tg->tg_next = dead;
			dead = tg;
			dtd_target_nobserved--;
		} else
			ppp = &tg->tg_next;
	}
	/* the dead that stay (to be told) need no unwinder: its files go */
	for (tg = dtd_target_observed; tg != NULL; tg = tg->tg_next) {
		if (tg->tg_dead != 0 && tg->tg_refs == 0 &&
		    tg->tg_unwind != NULL) {
			ft_unwind_destroy(tg->tg_unwind);
			tg->tg_unwind = NULL;
		}
	}
	pthread_mutex_unlock(&dtd_target_olock);
	while ((tg = dead) != NULL) {
		dead = tg->tg_next;
		ft_unwind_destroy(tg->tg_unwind);
		ft_proc_release(tg->tg_proc);
		free(tg);
	}
}

/*
 * Main thread: send the client of c the module maps (DT_MSG_MODMAP) of
 * the sampled processes it may see that it has not heard of, or that
 * changed since, so that it can name their addresses.  Called before
 * every snapshot, so a map comes before the records that use it.
 */
int
dtd_target_obsmaps(dtd_consumer_t *c, int (*send)(void *, dt_msg_t *),
    void *arg)
{
	dtd_tcons_t *tc = c->dc_targets;
	dtd_target_t *tg;
	dtd_ttold_t *told;
	uint64_t gen, now;
	size_t i;
	dt_msg_t m;
	int rc = 0;

	if (!dtd_provider_observes(c))
		return 0;
	if ((tc = dtd_target_cons(c)) == NULL)
		return 0;
	now = dtd_ecb_now();
	pthread_mutex_lock(&dtd_target_olock);
	for (tg = dtd_target_observed; tg != NULL && rc == 0; tg = tg->tg_next) {
		if (c->dc_uid != 0 && c->dc_uid != tg->tg_uid)
			continue;
		gen = __atomic_load_n(&tg->tg_modgen, __ATOMIC_ACQUIRE);
		for (i = 0; i < tc->tc_ntold; i++)
			if (tc->tc_told[i].to_serial == tg->tg_serial)
				break;
		if (i < tc->tc_ntold && tc->tc_told[i].to_gen == gen)
			continue;
		if (i == tc->tc_ntold) {
			if (tc->tc_ntold == tc->tc_toldcap) {
				size_t ncap = tc->tc_toldcap ?
				    2 * tc->tc_toldcap : 16;

				if ((told = reallocarray(tc->tc_told, ncap,
				    sizeof(*told))) == NULL)
					break;
				tc->tc_told = told;
				tc->tc_toldcap = ncap;
			}
			tc->tc_told[tc->tc_ntold++].to_serial = tg->tg_serial;
		}
		tc->tc_told[i].to_gen = gen;
		dtd_target_mapmsg(&m, tg->tg_proc, tg->tg_pid);
		rc = send(arg, &m);
		dt_msg_free(&m);
	}
	/* forget what the table no longer has */
	for (i = 0; i < tc->tc_ntold; ) {
		for (tg = dtd_target_observed; tg != NULL; tg = tg->tg_next)
			if (tg->tg_serial == tc->tc_told[i].to_serial)
				break;
		if (tg == NULL)
			tc->tc_told[i] = tc->tc_told[--tc->tc_ntold];
		else
			i++;
	}
	pthread_mutex_unlock(&dtd_target_olock);
	tc->tc_lastpass = now;
	dtd_target_gc(0);
	return rc;
}
