/*
 * dtd_prov_pid.c: the pid provider, pid<PID>:<module>:<function>:<name>
 * with names entry, return and hex instruction offsets, over the
 * fasttrap library (fasttrap/ft.h).
 *
 * Targets.  A consumer names the processes it traces with DT_MSG_GRAB
 * (-p: grab a running process; -c: hold a child of the client that is
 * about to exec).  One process is traced once (ptrace has one tracer):
 * a dtd_pidproc_t is shared by every consumer that grabbed it, and is
 * released when the last of them goes.  A consumer sees, creates and
 * enables probes only in its own targets.
 *
 * Probes.  Each traced pid gets its own provider, named "pid1234",
 * kept for the life of the daemon (probes are never freed before the
 * daemon exits, and they point at their provider).  A probe's argument
 * holds the runtime addresses of its sites and the generation of the
 * process it was resolved in: a new process that reuses the pid gets a
 * new generation, and stale probes neither match nor enable.
 *
 * Threads.  Probe creation, enabling, disabling and releases happen on
 * the main thread.  The ft_ops_t callbacks run on the process's tracer
 * thread: fo_hit fires ECBs (the firing path is thread-safe), fo_held
 * and fo_exited only record what happened and wake the main thread,
 * which tells the clients (DT_MSG_PROC) and releases dead processes.
 *
 * Backends (fasttrap/ft.h).  A target is grabbed under ptrace; the first
 * program a consumer loads picks its backend (dtd_prov_pid_backend):
 * -x backend=ptrace, uprobe, or auto (the default): uprobes when the
 * daemon may use them and no clause that can fire in a pid provider
 * needs the thread stopped or its memory as at the hit (destructive
 * actions, copyout and copyoutstr; copyin, copyinstr, copyinto, ustack()
 * and ustackdepth), for a running process (-p) without -Z: the uprobe
 * backend follows exec and dlopen only after the fact, and -c commands
 * and -Z expect them followed without a miss.  One backend per process:
 * a later consumer that needs ptrace on a process traced with uprobes is
 * refused, and so are destructive actions under -x backend=uprobe.  Under uprobes the sites are
 * put in place (ft_proc_sync) in a batch when a consumer's probes are
 * enabled (dtd_prov_pid_commit) and when a consumer goes; samples the
 * kernel ring had no room for are reported as drops to every consumer of
 * the process, on the CPU they were lost on.
 *
 * Stacks and symbols.  ustack() walks the stack at the hit with the
 * process's unwinder (fasttrap/ft_unwind.c) through the hit context's
 * dh_ustack.  The client symbolises the program counters itself, even
 * after the target is gone: each consumer is sent the target's module
 * map (DT_MSG_MODMAP) when it is grabbed and after every exec, dlopen
 * and dlclose (pp_modgen counts them), always before the records that
 * may need it.
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
 * (DT_PROC_LOST): its ECBs no longer fire there (pp_allow lists the
 * others, each hit fires for them alone), set in the exec event, before
 * any site of the new image is in place (the tracer thread waits for
 * it; the uprobe gate opens after it).  If none remains,
 * the process is let go (the backend detaches, or its links go at
 * release); it runs on with its privilege, untraced.  A consumer that
 * lost it is not sent the new image's module map either.  Memory is
 * read only through the hit's own accessor (ft_hit_read: exact for a
 * stopped thread, the sample first for a captured one) over a
 * descriptor bound to the image being traced, so a hit of the old
 * image, handled late, reads nothing of the new one.
 *
 * uregs[]: the registers are those of struct user_regs_struct seen as
 * an array of 64-bit words (r15 = 0 ... rip = 16 ... gs = 26), the
 * order the Linux kernel uses for ptrace; DTD_PID_NREGS of them.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/user.h>

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dtd.h"
#include "ft.h"

#define DTD_PID_ENTRY	0
#define DTD_PID_RETURN	1
#define DTD_PID_OFFSET	2

#define DTD_PID_NREGS	(sizeof(struct user_regs_struct) / sizeof(uint64_t))

/* -x backend= */
#define DTD_PID_BACKEND_AUTO	0
#define DTD_PID_BACKEND_PTRACE	1
#define DTD_PID_BACKEND_UPROBE	2

#define DTD_PID_MAXCPU		256	/* lost samples: per CPU, folded */
#define DTD_PID_RINGSIZE	(8UL << 20)	/* a uprobe ring, default */

/* A traced process, shared by the consumers that grabbed it. */
typedef struct dtd_pidproc {
	pid_t			pp_pid;
	uint64_t		pp_gen;
	ft_proc_t		*pp_proc;	/* NULL once released */
	int			pp_refs;	/* consumers holding it */
	int			pp_created;	/* -c: killed when left running */
	int			pp_held;	/* atomic: at its hold point */
	int			pp_exited;	/* atomic: gone */
	int			pp_status;	/* wait status, once exited */
	int			pp_running;	/* ft_proc_run() done */
	int			pp_letgo;	/* atomic: let go at exec */
	char			pp_comm[32];
	pid_t			pp_ppid;
	uid_t			pp_uid;
	gid_t			pp_gid;
	dtd_provider_t		*pp_prov;
	/*
	 * exec and library events: the tracer thread sets pp_evpend and
	 * waits, the target stopped, until the main thread has re-resolved
	 * the probes (pp_evpend 0) or lets the process go (pp_abandon).
	 */
	ft_unwind_t		*pp_unwind;	/* its stacks */
	uint64_t		pp_modgen;	/* atomic: module changes */
	pthread_mutex_t		pp_evlock;
	pthread_cond_t		pp_evcv;
	int			pp_evpend;	/* DTD_PIDEV_* */
	int			pp_abandon;
	/*
	 * pp_evlock: the non-root consumers' credentials, and whether the
	 * last exec denied them (fo_execok); root consumers are counted.
	 * Once a consumer lost the process (pp_excl), hits fire only for
	 * the consumers in pp_allow.
	 */
	struct dtd_pidcred {
		uid_t		pc_uid;
		gid_t		pc_gid;
		int		pc_denied;
	}			*pp_creds;
	int			pp_ncreds;
	int			pp_nroot;
	int			pp_excl;	/* atomic too */
	dtd_consumer_t		**pp_allow;
	int			pp_nallow;
	uint64_t		pp_nlost;	/* atomic: lost samples */
	uint64_t		pp_lost[DTD_PID_MAXCPU];	/* atomic */
	struct dtd_pidproc	*pp_next;
} dtd_pidproc_t;

#define DTD_PIDEV_EXEC	0x1
#define DTD_PIDEV_MODS	0x2

/* One consumer's view of one of its targets. */
typedef struct dtd_pidtgt {
	dtd_pidproc_t	*pt_proc;
	int		pt_created;	/* this consumer created it (-c) */
	int		pt_toldheld;	/* DT_MSG_PROC sent */
	int		pt_toldexit;
	int		pt_setid;	/* lost at an exec of set-id */
	int		pt_backend;	/* DT_BACKEND_* + 1 once chosen */
	int		pt_toldbackend;	/* DT_PROC_BACKEND sent */
	uint64_t	pt_nlost;	/* lost samples reported so far */
	uint64_t	pt_lost[DTD_PID_MAXCPU];
	uint64_t	pt_toldmods;	/* pp_modgen of the last MODMAP */
} dtd_pidtgt_t;

typedef struct dtd_pidcons {
	dtd_pidtgt_t	*pc_tgt;
	uint32_t	pc_ntgt;
	int		pc_zdefs;	/* -Z: name libraries not loaded yet */
	int		pc_backend;	/* DTD_PID_BACKEND_* */
	uint64_t	pc_ringsize;	/* -x uprobebufsize, 0: default */
} dtd_pidcons_t;

/* A probe's argument: where its sites are. */
typedef struct dtd_pidprobe {
	pid_t		pb_pid;
	uint64_t	pb_gen;
	int		pb_kind;	/* DTD_PID_* */
	ft_mod_t	*pb_mod;	/* resolved in; NULL: not (yet) there */
	uint64_t	pb_func;	/* runtime start of the function */
	size_t		pb_naddr;
	uint64_t	pb_addr[];
} dtd_pidprobe_t;

/* The providers of pids we trace: one per pid, freed with its probes. */
typedef struct dtd_pidprov {
	dtd_provider_t		pv_prov;
	pid_t			pv_pid;
	char			pv_name[24];
	struct dtd_pidprov	*pv_next;
} dtd_pidprov_t;

static dtd_pidproc_t	*dtd_pid_procs;
static dtd_pidprov_t	*dtd_pid_provs;
static uint64_t		dtd_pid_gen;

static int	dtd_prov_pid_provide(const dtp_probedesc_t *,
		    dtd_consumer_t *, char *, size_t);
static int	dtd_prov_pid_enable(dtd_probe_t *);
static void	dtd_prov_pid_disable(dtd_probe_t *);
static int	dtd_prov_pid_match(const dtp_probedesc_t *,
		    const dtd_probe_t *, const dtd_consumer_t *);
static void	dtd_prov_pid_free(dtd_pidproc_t *);
static void	dtd_prov_pid_unlink(dtd_pidproc_t *);
static void	dtd_prov_pid_events(void);
static ft_mod_t	*dtd_prov_pid_modlive(dtd_pidproc_t *, const char *);
static int	dtd_prov_pid_pending(dtd_pidproc_t *,
		    const dtp_probedesc_t *);

/* The provider that creates probes; the probes hang on per-pid ones. */
const dtd_provider_t dtd_prov_pid = {
	.dpv_name = "pid",
	.dpv_provide = dtd_prov_pid_provide,
	.dpv_enable = dtd_prov_pid_enable,
	.dpv_disable = dtd_prov_pid_disable,
	.dpv_match = dtd_prov_pid_match,
};

static dtd_provider_t *
dtd_prov_pid_prov(pid_t pid)
{
	dtd_pidprov_t *pv;

	for (pv = dtd_pid_provs; pv != NULL; pv = pv->pv_next) {
		if (pv->pv_pid == pid)
			return &pv->pv_prov;
	}
	if ((pv = calloc(1, sizeof(*pv))) == NULL)
		return NULL;
	pv->pv_pid = pid;
	snprintf(pv->pv_name, sizeof(pv->pv_name), "pid%d", (int)pid);
	pv->pv_prov = dtd_prov_pid;
	pv->pv_prov.dpv_name = pv->pv_name;
	pv->pv_prov.dpv_provide = NULL;
	pv->pv_next = dtd_pid_provs;
	dtd_pid_provs = pv;
	return &pv->pv_prov;
}

static void
dtd_prov_pid_count(dtd_probe_t *p, void *arg)
{
	(void)p;
	(*(int *)arg)++;
}

static dtd_pidproc_t *
dtd_prov_pid_find(pid_t pid)
{
	dtd_pidproc_t *pp;

	for (pp = dtd_pid_procs; pp != NULL; pp = pp->pp_next) {
		if (pp->pp_pid == pid)
			return pp;
	}
	return NULL;
}

static dtd_pidcons_t *
dtd_prov_pid_cons(dtd_consumer_t *c)
{
	if (c->dc_pidstate == NULL)
		c->dc_pidstate = calloc(1, sizeof(dtd_pidcons_t));
	return c->dc_pidstate;
}

static dtd_pidtgt_t *
dtd_prov_pid_tgt(const dtd_consumer_t *c, pid_t pid)
{
	const dtd_pidcons_t *pc = c->dc_pidstate;
	uint32_t i;

	if (pc == NULL)
		return NULL;
	for (i = 0; i < pc->pc_ntgt; i++) {
		if (pc->pc_tgt[i].pt_proc->pp_pid == pid)
			return &pc->pc_tgt[i];
	}
	return NULL;
}

static void
dtd_prov_pid_procinfo(dtd_pidproc_t *pp)
{
	char path[64];
	long v, v2;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pp->pp_pid);
	pp->pp_comm[0] = '\0';
	if ((fp = fopen(path, "re")) != NULL) {
		n = fread(pp->pp_comm, 1, sizeof(pp->pp_comm) - 1, fp);
		pp->pp_comm[n] = '\0';
		pp->pp_comm[strcspn(pp->pp_comm, "\n")] = '\0';
		fclose(fp);
	}
	pp->pp_ppid = dtd_host_status(pp->pp_pid, "PPid", &v, NULL) == 0 ?
	    (pid_t)v : -1;
	pp->pp_uid = dtd_host_status(pp->pp_pid, "Uid", &v, NULL) == 0 ?
	    (uid_t)v : (uid_t)-1;
	pp->pp_gid = dtd_host_status(pp->pp_pid, "Gid", &v, NULL) == 0 ?
	    (gid_t)v : (gid_t)-1;
	(void)v2;
}

/* The pid a pidfd refers to (/proc/self/fdinfo), or -1. */
static pid_t
dtd_prov_pid_fdpid(int fd)
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
dtd_prov_pid_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	/* the VM reports what we return: "invalid address (0x...)" */
	return ft_hit_read(arg, addr, buf, len) == 0 ? 0 : DIF_FLT_BADADDR;
}

static ft_proc_t *
dtd_prov_pid_hitproc(const dtd_hit_t *h)
{
	return ((const ft_hit_t *)h->dh_uarg)->fh_proc;
}

/* The stack of the thread that hit, for ustack(), ustackdepth, ucaller. */
static int
dtd_prov_pid_ustack(const dtd_hit_t *h, uint64_t *pcs, uint32_t max)
{
	dtd_pidproc_t *pp = h->dh_ustackarg;

	return ft_unwind_stack(pp->pp_unwind,
	    __atomic_load_n(&pp->pp_modgen, __ATOMIC_ACQUIRE), h->dh_tid,
	    (const struct user_regs_struct *)(const void *)h->dh_regs,
	    h->dh_uread, h->dh_uarg, pcs, max);
}

/*
 * errno: the thread's C errno, at %fs base plus the offset fasttrap
 * finds in the image's __errno_location (under uprobes, the sample
 * serves the value the capture program read there at the hit).  Without
 * the thread pointer (a kernel without BTF) or a known C library, an
 * illegal operation fault, never a made-up value.
 */
static int
dtd_prov_pid_errno(const dtd_hit_t *h, uint64_t *valp)
{
	const struct user_regs_struct *r =
	    (const struct user_regs_struct *)(const void *)h->dh_regs;
	int64_t off;
	int32_t e;
	int rc;

	if (r->fs_base == 0 ||
	    ft_proc_errno_off(dtd_prov_pid_hitproc(h), &off) == -1)
		return DIF_FLT_ILLOP;
	if ((rc = h->dh_uread(h->dh_uarg, r->fs_base + (uint64_t)off, &e,
	    sizeof(e))) != 0)
		return rc;
	*valp = (uint64_t)(int64_t)e;
	return 0;
}

/* copyout(): the thread is stopped; page protections are respected */
static int
dtd_prov_pid_uwrite(void *arg, uint64_t addr, const void *buf, size_t len)
{
	return ft_proc_write(((const ft_hit_t *)arg)->fh_proc, addr, buf,
	    len) == 0 ? 0 : DIF_FLT_BADADDR;
}

/* The CPU of a hit whose backend did not read it (ptrace) */
static int
dtd_prov_pid_cpu(const dtd_hit_t *h)
{
	return ft_proc_cpu(dtd_prov_pid_hitproc(h), h->dh_tid);
}

/*
 * Fire a hit of pp; once a consumer lost pp at an exec, for the others
 * alone.  dh_consumer is only compared, never followed: a consumer gone
 * since the copy is harmless.
 */
static void
dtd_prov_pid_fire(dtd_pidproc_t *pp, dtd_hit_t *h)
{
	dtd_consumer_t *allow[16];
	int i, n;

	if (!__atomic_load_n(&pp->pp_excl, __ATOMIC_ACQUIRE)) {
		dtd_ecb_fire(h);
		return;
	}
	pthread_mutex_lock(&pp->pp_evlock);
	if ((n = pp->pp_nallow) > 16) {
		/* many: fire under the lock (the main thread waits) */
		for (i = 0; i < n; i++) {
			h->dh_consumer = pp->pp_allow[i];
			dtd_ecb_fire(h);
		}
		n = 0;
	} else {
		memcpy(allow, pp->pp_allow, n * sizeof(allow[0]));
	}
	pthread_mutex_unlock(&pp->pp_evlock);
	for (i = 0; i < n; i++) {
		h->dh_consumer = allow[i];
		dtd_ecb_fire(h);
	}
	h->dh_consumer = NULL;
}

/* Tracer thread: a thread of pp stopped on a site with users. */
static void
dtd_prov_pid_hit(void *arg, ft_proc_t *proc, const ft_hit_t *fh,
    void *const *users, int nusers)
{
	dtd_pidproc_t *pp = arg;
	const struct user_regs_struct *r = &fh->fh_regs;
	int i;
	dtd_hit_t h;

	memset(&h, 0, sizeof(h));
	h.dh_pid = fh->fh_pid;
	h.dh_tid = fh->fh_tid;
	h.dh_cpu = fh->fh_cpu;
	if (h.dh_cpu < 0)
		h.dh_getcpu = dtd_prov_pid_cpu;
	h.dh_timestamp = fh->fh_time;
	h.dh_regs = (const uint64_t *)(const void *)r;
	h.dh_nregs = DTD_PID_NREGS;
	h.dh_uread = dtd_prov_pid_uread;
	h.dh_uwrite = dtd_prov_pid_uwrite;
	h.dh_uarg = (void *)(uintptr_t)fh;
	h.dh_errno = dtd_prov_pid_errno;
	if (pp->pp_unwind != NULL) {
		h.dh_ustack = dtd_prov_pid_ustack;
		h.dh_ustackarg = pp;
	}
	h.dh_ppid = pp->pp_ppid;
	h.dh_uid = pp->pp_uid;
	h.dh_gid = pp->pp_gid;
	h.dh_execname = pp->pp_comm[0] != '\0' ? pp->pp_comm : NULL;
	for (i = 0; i < nusers; i++) {
		dtd_probe_t *p = users[i];
		const dtd_pidprobe_t *pb = p->dpr_arg;

		h.dh_probe = p;
		if (pb->pb_kind == DTD_PID_RETURN) {
			memset(h.dh_args, 0, sizeof(h.dh_args));
			h.dh_argsp = 0;
			h.dh_args[0] = fh->fh_addr - pb->pb_func;
			h.dh_args[1] = r->rax;
		} else {
			/*
			 * SysV: six registers, then the stack above the
			 * return address, read only if D asks (dh_argsp)
			 */
			h.dh_args[0] = r->rdi;
			h.dh_args[1] = r->rsi;
			h.dh_args[2] = r->rdx;
			h.dh_args[3] = r->rcx;
			h.dh_args[4] = r->r8;
			h.dh_args[5] = r->r9;
			h.dh_argsp = r->rsp + 8;
		}
		dtd_prov_pid_fire(pp, &h);
	}
}

static void
dtd_prov_pid_exited(void *arg, ft_proc_t *proc, int status)
{
	dtd_pidproc_t *pp = arg;

	(void)proc;
	pp->pp_status = status;
	__atomic_store_n(&pp->pp_exited, 1, __ATOMIC_RELEASE);
	dtd_client_wakeup();
}

static void
dtd_prov_pid_held(void *arg, ft_proc_t *proc)
{
	dtd_pidproc_t *pp = arg;

	(void)proc;
	dtd_prov_pid_procinfo(pp);
	/* its modules are read again (at evaltime=exec: not all yet) */
	__atomic_add_fetch(&pp->pp_modgen, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&pp->pp_held, 1, __ATOMIC_RELEASE);
	dtd_client_wakeup();
}

/*
 * Tracer thread: an event that changes where probes are (exec, dlopen,
 * dlclose).  The thread that caused it stays stopped while the main
 * thread, which owns the probe table, re-resolves them: no call made
 * after a library appears or in a new image escapes its probes.
 */
static void
dtd_prov_pid_event(dtd_pidproc_t *pp, int ev)
{
	pthread_mutex_lock(&pp->pp_evlock);
	pp->pp_evpend |= ev;
	dtd_client_wakeup();
	while (pp->pp_evpend != 0 && !pp->pp_abandon)
		pthread_cond_wait(&pp->pp_evcv, &pp->pp_evlock);
	pthread_mutex_unlock(&pp->pp_evlock);
}

static void
dtd_prov_pid_exec(void *arg, ft_proc_t *proc)
{
	dtd_pidproc_t *pp = arg;

	/* every site went with the old image: the new one is at its entry */
	(void)proc;
	dtd_prov_pid_procinfo(pp);
	dtd_prov_pid_event(pp, DTD_PIDEV_EXEC);
}

/*
 * Tracer (or drain) thread: pp exec'd, its new credentials committed,
 * nothing of the new image run for us.  May every consumer still trace
 * it?  The kernel says, for each non-root one (see the top).  -1: let
 * it go; the main thread tells the consumers and releases it.
 */
static int
dtd_prov_pid_execok(void *arg, ft_proc_t *proc)
{
	dtd_pidproc_t *pp = arg;
	int i, fd, fatal, ok = 1, denied = 0;

	(void)proc;
	pthread_mutex_lock(&pp->pp_evlock);
	for (i = 0; i < pp->pp_ncreds; i++) {
		if (pp->pp_creds[i].pc_denied)
			continue;	/* lost at an earlier exec */
		fd = ft_proc_mayptrace(pp->pp_pid, pp->pp_creds[i].pc_uid,
		    pp->pp_creds[i].pc_gid, &fatal);
		if (fatal)
			fatalx("%s: cannot take back our credentials",
			    __func__);
		/* gone counts as no: a dead process runs nothing */
		if (fd >= 0) {
			close(fd);
			ok++;
		} else {
			pp->pp_creds[i].pc_denied = 1;
			denied++;
		}
	}
	/* nobody left who may trace it (now or since an earlier exec) */
	if (ok == 1 && pp->pp_nroot == 0) {
		ok = 0;
		__atomic_store_n(&pp->pp_letgo, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&pp->pp_evlock);
	if (denied == 0 && ok)
		return 0;
	log_info("%s: pid %d exec'd what %d of its consumers may not trace%s",
	    __func__, (int)pp->pp_pid, denied, ok ? "" : ": let go");
	dtd_client_wakeup();
	return ok ? 0 : -1;
}

/*
 * Main thread, pp waiting in its exec event: the consumers fo_execok
 * denied lose it (told by dtd_prov_pid_report); hits fire for the
 * others alone from now on.
 */
static void
dtd_prov_pid_exclude(dtd_pidproc_t *pp)
{
	dtd_consumer_t *c, **na;
	dtd_pidtgt_t *t;
	int i, lost, n = 0;

	for (c = dtd_consumer_next(NULL); c != NULL;
	    c = dtd_consumer_next(c)) {
		if ((t = dtd_prov_pid_tgt(c, pp->pp_pid)) == NULL ||
		    t->pt_proc != pp)
			continue;
		lost = t->pt_setid;
		pthread_mutex_lock(&pp->pp_evlock);
		for (i = 0; !lost && c->dc_uid != 0 && i < pp->pp_ncreds;
		    i++)
			if (pp->pp_creds[i].pc_uid == c->dc_uid &&
			    pp->pp_creds[i].pc_gid == c->dc_gid)
				lost = pp->pp_creds[i].pc_denied;
		if (lost) {
			t->pt_setid = 1;
		} else if ((na = reallocarray(pp->pp_allow, n + 1,
		    sizeof(*na))) != NULL) {
			pp->pp_allow = na;
			na[n++] = c;
		}
		pthread_mutex_unlock(&pp->pp_evlock);
	}
	pthread_mutex_lock(&pp->pp_evlock);
	pp->pp_nallow = n;
	__atomic_store_n(&pp->pp_excl, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pp->pp_evlock);
}

/* Main thread: consumer c holds pp, with its credentials. */
static int
dtd_prov_pid_credadd(dtd_pidproc_t *pp, dtd_consumer_t *c)
{
	struct dtd_pidcred *n = NULL;
	dtd_consumer_t **na = NULL;
	int rc = 0;

	pthread_mutex_lock(&pp->pp_evlock);
	if (pp->pp_excl && (na = reallocarray(pp->pp_allow,
	    pp->pp_nallow + 1, sizeof(*na))) == NULL)
		rc = -1;
	if (rc == 0 && c->dc_uid != 0 && (n = reallocarray(pp->pp_creds,
	    pp->pp_ncreds + 1, sizeof(*n))) == NULL)
		rc = -1;
	if (rc == 0) {
		if (na != NULL) {
			pp->pp_allow = na;
			na[pp->pp_nallow++] = c;
		}
		if (n != NULL) {
			pp->pp_creds = n;
			n[pp->pp_ncreds].pc_uid = c->dc_uid;
			n[pp->pp_ncreds].pc_gid = c->dc_gid;
			n[pp->pp_ncreds].pc_denied = 0;
			pp->pp_ncreds++;
		} else {
			pp->pp_nroot++;
		}
	} else if (na != NULL) {
		pp->pp_allow = na;
	}
	pthread_mutex_unlock(&pp->pp_evlock);
	return rc;
}

/* Main thread: consumer c (that lost pp at an exec: lost) lets go of pp. */
static void
dtd_prov_pid_creddel(dtd_pidproc_t *pp, const dtd_consumer_t *c, int lost)
{
	int i;

	pthread_mutex_lock(&pp->pp_evlock);
	for (i = 0; i < pp->pp_nallow; i++) {
		if (pp->pp_allow[i] == c) {
			pp->pp_allow[i] = pp->pp_allow[--pp->pp_nallow];
			break;
		}
	}
	for (i = 0; c->dc_uid != 0 && i < pp->pp_ncreds; i++) {
		if (pp->pp_creds[i].pc_uid == c->dc_uid &&
		    pp->pp_creds[i].pc_gid == c->dc_gid &&
		    pp->pp_creds[i].pc_denied == lost) {
			pp->pp_creds[i] = pp->pp_creds[--pp->pp_ncreds];
			break;
		}
	}
	if (c->dc_uid == 0)
		pp->pp_nroot--;
	pthread_mutex_unlock(&pp->pp_evlock);
}

static void
dtd_prov_pid_modules(void *arg, ft_proc_t *proc)
{
	(void)proc;
	dtd_prov_pid_event(arg, DTD_PIDEV_MODS);
}

/* Main thread: the tracer thread must not wait for us any more. */
static void
dtd_prov_pid_abandon(dtd_pidproc_t *pp)
{
	pthread_mutex_lock(&pp->pp_evlock);
	pp->pp_abandon = 1;
	pthread_cond_broadcast(&pp->pp_evcv);
	pthread_mutex_unlock(&pp->pp_evlock);
}

/* Drain thread (uprobe backend): n samples lost on cpu. */
static void
dtd_prov_pid_lost(void *arg, ft_proc_t *proc, int cpu, uint64_t n)
{
	dtd_pidproc_t *pp = arg;

	(void)proc;
	if (cpu < 0)
		cpu = 0;
	__atomic_add_fetch(&pp->pp_lost[cpu % DTD_PID_MAXCPU], n,
	    __ATOMIC_RELEASE);
	__atomic_add_fetch(&pp->pp_nlost, n, __ATOMIC_RELEASE);
	dtd_client_wakeup();
}

static const ft_ops_t dtd_prov_pid_ops = {
	.fo_hit = dtd_prov_pid_hit,
	.fo_exited = dtd_prov_pid_exited,
	.fo_exec = dtd_prov_pid_exec,
	.fo_execok = dtd_prov_pid_execok,
	.fo_modules = dtd_prov_pid_modules,
	.fo_held = dtd_prov_pid_held,
	.fo_lost = dtd_prov_pid_lost,
};

/*
 * May client c trace pid?  Root may trace anything; others what they
 * could ptrace themselves, as the kernel says (see the top).  The text
 * in err is the reason alone: dtrace(1) prints "failed to grab pid N: "
 * before it.
 */
static int
dtd_prov_pid_allowed(const dtd_consumer_t *c, pid_t pid, char *err,
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
dtd_prov_pid_grab(dtd_consumer_t *c, pid_t pid, int pidfd, int create,
    int evaltime, char *err, size_t errlen)
{
	static const int holdat[] = { FT_HOLD_POSTINIT, FT_HOLD_EXEC,
	    FT_HOLD_PREINIT, FT_HOLD_MAIN };
	char ferr[256];
	dtd_pidcons_t *pc;
	dtd_pidtgt_t *nt;
	dtd_pidproc_t *pp;

	if (pid <= 0 || pidfd < 0 || dtd_prov_pid_fdpid(pidfd) != pid) {
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
	if (dtd_prov_pid_tgt(c, pid) != NULL) {
		snprintf(err, errlen, "pid %d is already a target", (int)pid);
		return -1;
	}
	if (dtd_prov_pid_allowed(c, pid, err, errlen) == -1)
		return -1;
	if ((pc = dtd_prov_pid_cons(c)) == NULL ||
	    (nt = reallocarray(pc->pc_tgt, pc->pc_ntgt + 1,
	    sizeof(*nt))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pc->pc_tgt = nt;
	if ((pp = dtd_prov_pid_find(pid)) != NULL && (pp->pp_proc == NULL ||
	    __atomic_load_n(&pp->pp_exited, __ATOMIC_ACQUIRE) || create)) {
		snprintf(err, errlen, "%s", pp->pp_proc == NULL ||
		    pp->pp_exited ? strerror(ESRCH) : strerror(EBUSY));
		return -1;
	}
	if (pp == NULL) {
		if ((pp = calloc(1, sizeof(*pp))) == NULL ||
		    (pp->pp_prov = dtd_prov_pid_prov(pid)) == NULL) {
			free(pp);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		pp->pp_pid = pid;
		pp->pp_gen = ++dtd_pid_gen;
		pp->pp_modgen = 1;
		pp->pp_unwind = ft_unwind_create(pid);
		pthread_mutex_init(&pp->pp_evlock, NULL);
		pthread_cond_init(&pp->pp_evcv, NULL);
		pp->pp_created = create;
		if (!create)
			dtd_prov_pid_procinfo(pp);
		ferr[0] = '\0';
		pp->pp_proc = create ?
		    ft_proc_hold(pid, pidfd, &dtd_prov_pid_ops, pp,
		    holdat[evaltime], ferr, sizeof(ferr)) :
		    ft_proc_grab(pid, pidfd, &dtd_prov_pid_ops, pp, ferr,
		    sizeof(ferr));
		if (pp->pp_proc == NULL) {
			snprintf(err, errlen, "%s", ferr);
			dtd_prov_pid_free(pp);
			return -1;
		}
		if (!create)
			pp->pp_running = 1;
		pp->pp_next = dtd_pid_procs;
		dtd_pid_procs = pp;
	}
	/*
	 * Once more, now that it is seized: an exec from here on is seen
	 * (fo_execok), one since the first answer would not be.
	 */
	if (dtd_prov_pid_allowed(c, pid, err, errlen) == -1 ||
	    (dtd_prov_pid_credadd(pp, c) == -1 &&
	    snprintf(err, errlen, "out of memory") >= 0)) {
		if (pp->pp_refs == 0) {
			dtd_prov_pid_unlink(pp);
			dtd_prov_pid_abandon(pp);
			ft_proc_release(pp->pp_proc);
			dtd_prov_pid_free(pp);
		}
		return -1;
	}
	pp->pp_refs++;
	memset(&pc->pc_tgt[pc->pc_ntgt], 0, sizeof(pc->pc_tgt[0]));
	pc->pc_tgt[pc->pc_ntgt].pt_proc = pp;
	pc->pc_tgt[pc->pc_ntgt].pt_created = create;
	pc->pc_ntgt++;
	log_info("%s: pid %d: %s pid %d", __func__, (int)c->dc_pid,
	    create ? "holds" : "grabbed", (int)pid);
	return 0;
}

/* A program's zdefs option (-Z): see dtd_prov_pid_pending. */
int
dtd_prov_pid_zdefs(dtd_consumer_t *c, int on)
{
	dtd_pidcons_t *pc;

	if ((pc = dtd_prov_pid_cons(c)) == NULL)
		return -1;
	pc->pc_zdefs = on;
	return 0;
}

/* -x backend, -x uprobebufsize */
int
dtd_prov_pid_option(dtd_consumer_t *c, const char *name, uint64_t v,
    char *err, size_t errlen)
{
	dtd_pidcons_t *pc;

	if (strcmp(name, "backend") == 0 && v > DTD_PID_BACKEND_UPROBE) {
		snprintf(err, errlen, "invalid backend %" PRIu64, v);
		return -1;
	}
	if (strcmp(name, "uprobebufsize") == 0 && (v < 4096 ||
	    v > (1UL << 30))) {
		snprintf(err, errlen, "invalid uprobebufsize %" PRIu64
		    ": must be 4096 to %lu bytes", v, 1UL << 30);
		return -1;
	}
	if ((pc = dtd_prov_pid_cons(c)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (strcmp(name, "backend") == 0)
		pc->pc_backend = (int)v;
	else
		pc->pc_ringsize = v;
	return 0;
}

#define	DTD_PID_SYNC_MEM	1	/* reads memory that must be the hit's */
#define	DTD_PID_SYNC_STOP	2	/* needs the thread stopped: destructive */

/* What a DIFO needs of the hit: DTD_PID_SYNC_* bits. */
static int
dtd_prov_pid_difosync(const dif_difo_t *d)
{
	uint32_t i;
	int need = 0;

	for (i = 0; d != NULL && i < d->dd_len; i++) {
		switch (DIF_INSTR_OP(d->dd_buf[i])) {
		case DIF_OP_CALL:
			switch (DIF_INSTR_SUBR(d->dd_buf[i])) {
			case DIF_SUBR_COPYIN:
			case DIF_SUBR_COPYINSTR:
			case DIF_SUBR_COPYINTO:
				need |= DTD_PID_SYNC_MEM;
				break;
			case DIF_SUBR_COPYOUT:
			case DIF_SUBR_COPYOUTSTR:
				need |= DTD_PID_SYNC_STOP;
				break;
			}
			break;
		case DIF_OP_LDGS:
			/* a walk of the whole stack */
			if (DIF_INSTR_VAR(d->dd_buf[i]) == DIF_VAR_USTACKDEPTH)
				need |= DTD_PID_SYNC_MEM;
			break;
		}
	}
	return need;
}

/*
 * What the clauses of p that may fire in a pid provider need of the hit
 * (DTD_PID_SYNC_* bits): the thread stopped (destructive actions), or
 * process memory as it was at the hit (copyin and friends, stacks).
 */
static int
dtd_prov_pid_needsync(const dtp_prog_t *p)
{
	uint32_t i, j, k;
	int need = 0;

	for (i = 0; i < p->dp_nstmt; i++) {
		const dtp_stmt_t *st = &p->dp_stmt[i];
		const char *prov = st->ds_desc.dpd_provider;

		if (prov[0] != '\0' && strpbrk(prov, "*?[\\") == NULL &&
		    strncmp(prov, "pid", 3) != 0)
			continue;
		need |= dtd_prov_pid_difosync(st->ds_pred);
		for (j = 0; j < st->ds_nact; j++) {
			const dtp_action_t *a = &st->ds_act[j];

			if ((a->da_kind & 0xff00) == DTRACEACT_PROC_DESTRUCTIVE)
				need |= DTD_PID_SYNC_STOP;
			if (a->da_kind == DTRACEACT_USTACK ||
			    a->da_kind == DTRACEACT_JSTACK)
				need |= DTD_PID_SYNC_MEM;
			for (k = 0; k < a->da_ndifo; k++)
				need |= dtd_prov_pid_difosync(a->da_difo[k]);
		}
	}
	/* ustack() as an aggregation key (which clause's, not said here) */
	for (i = 0; i < p->dp_nagg; i++)
		for (j = 0; j < p->dp_agg[i].dg_nkeys; j++)
			if (p->dp_agg[i].dg_keys[j].dk_kind == DTP_KEY_USTACK)
				need |= DTD_PID_SYNC_MEM;
	return need;
}

static const char *
dtd_prov_pid_bname(int b)
{
	return b == FT_BACKEND_UPROBE ? "uprobe" : "ptrace";
}

/*
 * A program of c is loaded: pick the backend of each of c's targets not
 * traced by another consumer's choice already, before its probes are
 * enabled.  -1 with err if a target cannot have what c asks for.
 */
int
dtd_prov_pid_backend(dtd_consumer_t *c, const dtp_prog_t *p, char *err,
    size_t errlen)
{
	dtd_pidcons_t *pc = c->dc_pidstate;
	char ferr[256];
	uint32_t i;
	int sync, want, cur, rc;

	if (pc == NULL || pc->pc_ntgt == 0)
		return 0;
	sync = dtd_prov_pid_needsync(p);
	for (i = 0; i < pc->pc_ntgt; i++) {
		dtd_pidtgt_t *t = &pc->pc_tgt[i];
		dtd_pidproc_t *pp = t->pt_proc;

		if (pp->pp_proc == NULL ||
		    __atomic_load_n(&pp->pp_exited, __ATOMIC_ACQUIRE))
			continue;
		cur = ft_proc_backend(pp->pp_proc);
		/* chosen at an earlier program of c: kept, if it can be */
		if (t->pt_backend != 0) {
			if (cur == FT_BACKEND_UPROBE && ((sync &
			    DTD_PID_SYNC_STOP) || (sync &&
			    pc->pc_backend != DTD_PID_BACKEND_UPROBE)))
				goto needptrace;
			continue;
		}
		t->pt_backend = (cur == FT_BACKEND_UPROBE ?
		    DT_BACKEND_UPROBE : DT_BACKEND_PTRACE) + 1;
		switch (pc->pc_backend) {
		case DTD_PID_BACKEND_PTRACE:
			want = FT_BACKEND_PTRACE;
			break;
		case DTD_PID_BACKEND_UPROBE:
			if (sync & DTD_PID_SYNC_STOP) {
				snprintf(err, errlen, "destructive actions need "
				    "the ptrace backend");
				return -1;
			}
			want = FT_BACKEND_UPROBE;
			break;
		default:
			/*
			 * Not for what needs the process stopped at exec or
			 * dlopen to stay exact: a command run from its start
			 * (-c), libraries not loaded yet (-Z).
			 */
			want = sync || pp->pp_created || pc->pc_zdefs ||
			    ft_proc_backend_ok(FT_BACKEND_UPROBE, NULL,
			    0) == -1 ? FT_BACKEND_PTRACE : FT_BACKEND_UPROBE;
			break;
		}
		if (cur == want)
			continue;
		if (cur == FT_BACKEND_UPROBE) {
needptrace:
			snprintf(err, errlen, "pid %d is traced with the uprobe "
			    "backend, and this program needs ptrace%s",
			    (int)pp->pp_pid, (sync & DTD_PID_SYNC_STOP) ?
			    " (destructive actions)" : sync ? " (copyin or "
			    "stacks at the hit)" : "");
			return -1;
		}
		ferr[0] = '\0';
		/*
		 * The ptrace tracer thread ends in ft_proc_setbackend(), and we
		 * wait for it there: it must not wait for us meanwhile in an
		 * event (a library loaded, an exec).  The event stays
		 * pending, for dtd_prov_pid_events() to handle under the new
		 * backend.
		 */
		dtd_prov_pid_abandon(pp);
		rc = ft_proc_setbackend(pp->pp_proc, FT_BACKEND_UPROBE,
		    pc->pc_ringsize != 0 ? pc->pc_ringsize : DTD_PID_RINGSIZE,
		    ferr, sizeof(ferr));
		pthread_mutex_lock(&pp->pp_evlock);
		pp->pp_abandon = 0;
		pthread_mutex_unlock(&pp->pp_evlock);
		if (rc == -1) {
			if (pc->pc_backend == DTD_PID_BACKEND_UPROBE) {
				snprintf(err, errlen, "pid %d: cannot use the "
				    "uprobe backend: %s", (int)pp->pp_pid,
				    ferr);
				return -1;
			}
			log_info("%s: pid %d: uprobes refused (%s), ptrace "
			    "stays", __func__, (int)pp->pp_pid, ferr);
			continue;
		}
		t->pt_backend = DT_BACKEND_UPROBE + 1;
		log_info("%s: pid %d: %s backend", __func__, (int)pp->pp_pid,
		    dtd_prov_pid_bname(ft_proc_backend(pp->pp_proc)));
	}
	return 0;
}

/* Put pp's sites in place after a batch of changes (uprobe backend). */
static void
dtd_prov_pid_sync(dtd_pidproc_t *pp)
{
	struct timespec t0, t1;
	int rc;

	if (pp->pp_proc == NULL ||
	    ft_proc_backend(pp->pp_proc) != FT_BACKEND_UPROBE)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = ft_proc_sync(pp->pp_proc)) == -1)
		log_warn("%s: pid %d", __func__, (int)pp->pp_pid);
	else if (rc > 0)
		log_warnx("%s: pid %d: %d sites the kernel cannot probe "
		    "(skipped)", __func__, (int)pp->pp_pid, rc);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_info("%s: pid %d: %zu uprobe sites in place in %.1f ms", __func__,
	    (int)pp->pp_pid, ft_proc_nsites(pp->pp_proc),
	    (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
}

/* GO, c's probes enabled: their uprobe sites go live, before BEGIN. */
void
dtd_prov_pid_commit(dtd_consumer_t *c)
{
	dtd_pidcons_t *pc = c->dc_pidstate;
	uint32_t i;

	for (i = 0; pc != NULL && i < pc->pc_ntgt; i++) {
		dtd_pidproc_t *pp = pc->pc_tgt[i].pt_proc;

		if (pp->pp_proc != NULL && !__atomic_load_n(&pp->pp_exited,
		    __ATOMIC_ACQUIRE))
			dtd_prov_pid_sync(pp);
	}
}

/* GO: BEGIN has fired; held programs may run. */
void
dtd_prov_pid_go(dtd_consumer_t *c)
{
	dtd_pidcons_t *pc = c->dc_pidstate;
	uint32_t i;

	if (pc == NULL)
		return;
	for (i = 0; i < pc->pc_ntgt; i++) {
		dtd_pidproc_t *pp = pc->pc_tgt[i].pt_proc;

		if (pp->pp_proc != NULL && !pp->pp_running) {
			pp->pp_running = 1;
			ft_proc_run(pp->pp_proc);
		}
	}
}

/*
 * pp is let go by everyone: its probes go, and its provider with them
 * (a probe another consumer still enables keeps both), so that a daemon
 * that traced many processes carries nothing of them.
 */
static void
dtd_prov_pid_forget(dtd_pidproc_t *pp)
{
	dtd_pidprov_t **pvp, *pv;
	int left = 0;

	if (pp->pp_prov == NULL)
		return;
	dtd_probe_destroy_prov(pp->pp_prov);
	dtd_probe_walk_prov(pp->pp_prov, dtd_prov_pid_count, &left);
	if (left > 0)
		return;
	for (pvp = &dtd_pid_provs; (pv = *pvp) != NULL; pvp = &pv->pv_next) {
		if (&pv->pv_prov == pp->pp_prov) {
			*pvp = pv->pv_next;
			free(pv);
			break;
		}
	}
	pp->pp_prov = NULL;
}

static void
dtd_prov_pid_free(dtd_pidproc_t *pp)
{
	dtd_prov_pid_forget(pp);
	free(pp->pp_creds);
	free(pp->pp_allow);
	ft_unwind_destroy(pp->pp_unwind);
	pthread_cond_destroy(&pp->pp_evcv);
	pthread_mutex_destroy(&pp->pp_evlock);
	free(pp);
}

static void
dtd_prov_pid_unlink(dtd_pidproc_t *pp)
{
	dtd_pidproc_t **ppp;

	for (ppp = &dtd_pid_procs; *ppp != NULL; ppp = &(*ppp)->pp_next) {
		if (*ppp == pp) {
			*ppp = pp->pp_next;
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
dtd_prov_pid_drop(dtd_consumer_t *c)
{
	dtd_pidcons_t *pc = c->dc_pidstate;
	uint32_t i;

	if (pc == NULL)
		return;
	for (i = 0; i < pc->pc_ntgt; i++) {
		dtd_pidproc_t *pp = pc->pc_tgt[i].pt_proc;

		dtd_prov_pid_creddel(pp, c, pc->pc_tgt[i].pt_setid);
		if (--pp->pp_refs > 0 && pp->pp_proc != NULL &&
		    __atomic_load_n(&pp->pp_excl, __ATOMIC_ACQUIRE) &&
		    pp->pp_nallow == 0) {
			/* those left lost it at an exec: nobody traces it */
			__atomic_store_n(&pp->pp_letgo, 1, __ATOMIC_RELEASE);
			dtd_prov_pid_abandon(pp);
			ft_proc_release(pp->pp_proc);
			pp->pp_proc = NULL;
			continue;
		}
		if (pp->pp_refs > 0) {
			/* its sites are gone: so are their uprobes */
			dtd_prov_pid_sync(pp);
			continue;
		}
		dtd_prov_pid_unlink(pp);
		if (pp->pp_proc != NULL) {
			struct timespec t0, t1;

			dtd_prov_pid_abandon(pp);
			/* one let go at an exec runs on: not ours */
			if (pp->pp_created && !__atomic_load_n(&pp->pp_exited,
			    __ATOMIC_ACQUIRE) && !__atomic_load_n(&pp->pp_letgo,
			    __ATOMIC_ACQUIRE))
				ft_proc_kill(pp->pp_proc);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			ft_proc_release(pp->pp_proc);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			log_info("%s: pid %d released in %.1f ms", __func__,
			    (int)pp->pp_pid, (t1.tv_sec - t0.tv_sec) * 1e3 +
			    (t1.tv_nsec - t0.tv_nsec) / 1e6);
		}
		dtd_prov_pid_free(pp);
	}
	free(pc->pc_tgt);
	free(pc);
	c->dc_pidstate = NULL;
}

/* The daemon exits: let every process go (consumers are gone already). */
void
dtd_prov_pid_shutdown(void)
{
	dtd_pidproc_t *pp;

	while ((pp = dtd_pid_procs) != NULL) {
		dtd_pid_procs = pp->pp_next;
		if (pp->pp_proc != NULL) {
			dtd_prov_pid_abandon(pp);
			ft_proc_release(pp->pp_proc);
		}
		dtd_prov_pid_free(pp);
	}
}

typedef struct dtd_pidmap {
	dt_msg_t	*pm_msg;
	uint32_t	pm_n;
} dtd_pidmap_t;

static int
dtd_prov_pid_mapone(void *arg, ft_proc_t *proc, ft_mod_t *m)
{
	dtd_pidmap_t *pm = arg;

	(void)proc;
	dt_msg_put_u64(pm->pm_msg, m->fm_lo);
	dt_msg_put_u64(pm->pm_msg, m->fm_hi);
	dt_msg_put_u64(pm->pm_msg, m->fm_bias);
	dt_msg_put_u32(pm->pm_msg, m->fm_exec ? DT_MODMAP_EXEC : 0);
	dt_msg_put_str(pm->pm_msg, m->fm_path);
	pm->pm_n++;
	return 0;
}

/*
 * The module map of process p (pid) as a DT_MSG_MODMAP, in m, which the
 * caller sends and frees (dt_proto.h has the payload).  The sampler
 * sends its processes' maps with it too (dtd_sample.c).
 */
void
dtd_prov_pid_mapmsg(dt_msg_t *m, ft_proc_t *p, pid_t pid)
{
	dtd_pidmap_t pm;
	size_t off;
	int k;

	dt_msg_init(m, DT_MSG_MODMAP);
	dt_msg_put_u32(m, (uint32_t)pid);
	off = m->dm_len;
	dt_msg_put_u32(m, 0);		/* the count, once known */
	pm.pm_msg = m;
	pm.pm_n = 0;
	(void)ft_proc_mod_iter(p, "*", dtd_prov_pid_mapone, &pm);
	if (m->dm_err != 0)
		return;
	for (k = 0; k < 4; k++)		/* little-endian, as dt_msg puts */
		m->dm_data[off + k] = (uint8_t)(pm.pm_n >> (8 * k));
}

/*
 * Main thread: send the client of c the module maps of its targets that
 * changed since it last heard (DT_MSG_MODMAP), so that it can name the
 * addresses in ustack() and usym() records.  Called before every
 * snapshot, so a map always comes before records that use it.
 */
int
dtd_prov_pid_modmaps(dtd_consumer_t *c, int (*send)(void *, dt_msg_t *),
    void *arg)
{
	dtd_pidcons_t *pc = c->dc_pidstate;
	uint64_t gen;
	uint32_t i;
	dt_msg_t m;
	int rc;

	if (pc == NULL)
		return 0;
	for (i = 0; i < pc->pc_ntgt; i++) {
		dtd_pidtgt_t *t = &pc->pc_tgt[i];
		dtd_pidproc_t *pp = t->pt_proc;

		gen = __atomic_load_n(&pp->pp_modgen, __ATOMIC_ACQUIRE);
		/* not even the map of an image it may not trace */
		if (t->pt_toldmods == gen || pp->pp_proc == NULL ||
		    t->pt_setid ||
		    __atomic_load_n(&pp->pp_letgo, __ATOMIC_ACQUIRE) ||
		    (pp->pp_created &&
		    !__atomic_load_n(&pp->pp_held, __ATOMIC_ACQUIRE)))
			continue;
		t->pt_toldmods = gen;
		dtd_prov_pid_mapmsg(&m, pp->pp_proc, pp->pp_pid);
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
dtd_prov_pid_report(dtd_consumer_t *c, int (*send)(void *, dt_msg_t *),
    void *arg)
{
	dtd_pidcons_t *pc = c->dc_pidstate;
	uint32_t i;
	dt_msg_t m;
	int rc;

	dtd_prov_pid_events();
	if (pc == NULL)
		return 0;
	/* maps first: a target that exits may have left records */
	if (dtd_prov_pid_modmaps(c, send, arg) == -1)
		return -1;
	/* samples lost in a uprobe ring: drops, before any exit */
	for (i = 0; i < pc->pc_ntgt && c->dc_hasbuf &&
	    dtd_consumer_activity(c) != DT_ACT_INACTIVE; i++) {
		dtd_pidtgt_t *t = &pc->pc_tgt[i];
		dtd_pidproc_t *pp = t->pt_proc;
		uint64_t v;
		int cpu;

		if (__atomic_load_n(&pp->pp_nlost, __ATOMIC_ACQUIRE) ==
		    t->pt_nlost)
			continue;
		for (cpu = 0; cpu < DTD_PID_MAXCPU; cpu++) {
			v = __atomic_load_n(&pp->pp_lost[cpu],
			    __ATOMIC_ACQUIRE);
			if (v == t->pt_lost[cpu])
				continue;
			dtd_buf_drop(&c->dc_buf, cpu, v - t->pt_lost[cpu]);
			t->pt_nlost += v - t->pt_lost[cpu];
			t->pt_lost[cpu] = v;
		}
	}
	for (i = 0; i < pc->pc_ntgt; i++) {
		dtd_pidtgt_t *t = &pc->pc_tgt[i];
		dtd_pidproc_t *pp = t->pt_proc;
		int ev = 0;

		if (t->pt_backend != 0 && !t->pt_toldbackend) {
			ev = DT_PROC_BACKEND;
			t->pt_toldbackend = 1;
		} else if (!t->pt_toldexit && (t->pt_setid ||
		    __atomic_load_n(&pp->pp_letgo, __ATOMIC_ACQUIRE))) {
			ev = DT_PROC_LOST;
			t->pt_toldexit = t->pt_toldheld = 1;
		} else if (!t->pt_toldexit &&
		    __atomic_load_n(&pp->pp_exited, __ATOMIC_ACQUIRE)) {
			ev = DT_PROC_EXITED;
			t->pt_toldexit = t->pt_toldheld = 1;
		} else if (!t->pt_toldheld &&
		    __atomic_load_n(&pp->pp_held, __ATOMIC_ACQUIRE)) {
			ev = DT_PROC_HELD;
			t->pt_toldheld = 1;
		}
		if (ev == 0)
			continue;
		if ((ev == DT_PROC_EXITED || (ev == DT_PROC_LOST &&
		    __atomic_load_n(&pp->pp_letgo, __ATOMIC_ACQUIRE))) &&
		    pp->pp_proc != NULL) {
			/*
			 * Sites of a dead process, or of an image gone at
			 * an exec: nothing to restore; uprobe links go
			 */
			dtd_prov_pid_abandon(pp);
			ft_proc_release(pp->pp_proc);
			pp->pp_proc = NULL;
		}
		dt_msg_init(&m, DT_MSG_PROC);
		dt_msg_put_u32(&m, (uint32_t)pp->pp_pid);
		dt_msg_put_u32(&m, (uint32_t)ev);
		dt_msg_put_u32(&m, ev == DT_PROC_EXITED ?
		    (uint32_t)pp->pp_status : ev == DT_PROC_BACKEND ?
		    (uint32_t)(t->pt_backend - 1) : ev == DT_PROC_LOST ?
		    DT_LOST_SETID : 0);
		rc = send(arg, &m);
		dt_msg_free(&m);
		if (rc == -1)
			return -1;
		i--;	/* an exit may follow a hold or a backend */
	}
	return 0;
}

/* Is probe p one of consumer c's, resolved in the process it traces? */
static dtd_pidproc_t *
dtd_prov_pid_live(const dtd_probe_t *p, const dtd_consumer_t *c)
{
	const dtd_pidprobe_t *pb = p->dpr_arg;
	dtd_pidproc_t *pp;

	if (c != NULL) {
		const dtd_pidtgt_t *t = dtd_prov_pid_tgt(c, pb->pb_pid);

		pp = t != NULL ? t->pt_proc : NULL;
	} else {
		pp = dtd_prov_pid_find(pb->pb_pid);
	}
	if (pp == NULL || pp->pp_gen != pb->pb_gen)
		return NULL;
	return pp;
}

/* A module field matches "libc.so.6" as "libc" too. */
static int
dtd_prov_pid_modglob(const char *pat, const char *mod)
{
	char stem[DTRACE_MODNAMELEN];
	const char *dot;

	if (dtd_probe_glob(pat, mod))
		return 1;
	if (strcmp(mod, "a.out") == 0 || (dot = strchr(mod, '.')) == NULL ||
	    (size_t)(dot - mod) >= sizeof(stem))
		return 0;
	memcpy(stem, mod, dot - mod);
	stem[dot - mod] = '\0';
	return dtd_probe_glob(pat, stem);
}

static int
dtd_prov_pid_match(const dtp_probedesc_t *d, const dtd_probe_t *p,
    const dtd_consumer_t *c)
{
	return dtd_prov_pid_live(p, c) != NULL &&
	    dtd_probe_glob(d->dpd_provider, p->dpr_prov->dpv_name) &&
	    dtd_prov_pid_modglob(d->dpd_mod, p->dpr_mod) &&
	    dtd_probe_glob(d->dpd_func, p->dpr_func) &&
	    dtd_probe_glob(d->dpd_name, p->dpr_name);
}

typedef struct dtd_pidmk {
	dtd_pidproc_t		*mk_pp;
	const dtp_probedesc_t	*mk_desc;
	char			*mk_err;
	size_t			mk_errlen;
} dtd_pidmk_t;

/* Create (or refresh) one probe. */
static int
dtd_prov_pid_mkprobe(dtd_pidmk_t *mk, ft_mod_t *m, const ft_sym_t *s,
    const char *name, int kind, uint64_t func, const uint64_t *addr,
    size_t naddr)
{
	dtd_pidproc_t *pp = mk->mk_pp;
	dtd_pidprobe_t *pb, *old;
	dtd_probe_t *p;

	p = dtd_probe_find(pp->pp_prov->dpv_name, m->fm_name, s->fs_name,
	    name);
	if (p != NULL) {
		old = p->dpr_arg;
		if (old->pb_gen == pp->pp_gen || p->dpr_necb > 0)
			return 0;
	}
	if ((pb = malloc(sizeof(*pb) + naddr * sizeof(uint64_t))) == NULL)
		goto nomem;
	pb->pb_pid = pp->pp_pid;
	pb->pb_gen = pp->pp_gen;
	pb->pb_kind = kind;
	pb->pb_mod = m;
	pb->pb_func = func;
	pb->pb_naddr = naddr;
	memcpy(pb->pb_addr, addr, naddr * sizeof(uint64_t));
	if (p != NULL) {
		/* a probe of an earlier process with this pid: reuse its id */
		free(p->dpr_arg);
		p->dpr_arg = pb;
		return 0;
	}
	if (dtd_probe_create(pp->pp_prov, m->fm_name, s->fs_name, name,
	    pb) == NULL) {
		free(pb);
		goto nomem;
	}
	return 0;
nomem:
	snprintf(mk->mk_err, mk->mk_errlen, "out of memory");
	return -1;
}

static int
dtd_prov_pid_ishex(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (!isxdigit((unsigned char)*s))
			return 0;
	}
	return 1;
}

/* ft_proc_func_iter callback: the probes of one function. */
static int
dtd_prov_pid_perfunc(void *arg, ft_mod_t *m, const ft_sym_t *s,
    uint64_t addr)
{
	dtd_pidmk_t *mk = arg;
	const char *name = mk->mk_desc->dpd_name;
	int glob = name[0] == '\0' || strpbrk(name, "*?[\\") != NULL;
	char buf[32];
	ft_fn_t ff;
	uint64_t *ra;
	uint64_t off;
	size_t i;
	int rc = 0, haveff = 0;

	if (s->fs_size == 0)
		return 0;
	if (dtd_probe_glob(name, "entry") &&
	    dtd_prov_pid_mkprobe(mk, m, s, "entry", DTD_PID_ENTRY, addr,
	    &addr, 1) == -1)
		return -1;
	if (dtd_probe_glob(name, "return") || (glob || dtd_prov_pid_ishex(
	    name))) {
		if (ft_proc_func_sites(mk->mk_pp->pp_proc, m, s, &ff) == -1) {
			/* undecodable: no return or offset probes, as illumos */
			if (!glob && strcmp(name, "return") != 0) {
				snprintf(mk->mk_err, mk->mk_errlen, "failed to "
				    "decode function '%s'", s->fs_name);
				return -1;
			}
			return 0;
		}
		haveff = 1;
	}
	if (haveff && dtd_probe_glob(name, "return") && ff.ff_nret > 0) {
		if ((ra = calloc(ff.ff_nret, sizeof(*ra))) == NULL) {
			snprintf(mk->mk_err, mk->mk_errlen, "out of memory");
			rc = -1;
			goto out;
		}
		for (i = 0; i < ff.ff_nret; i++)
			ra[i] = addr + ff.ff_ret[i];
		rc = dtd_prov_pid_mkprobe(mk, m, s, "return", DTD_PID_RETURN,
		    addr, ra, ff.ff_nret);
		free(ra);
		if (rc == -1)
			goto out;
	}
	if (!haveff)
		return 0;
	if (!glob) {
		if (!dtd_prov_pid_ishex(name) || strcmp(name, "entry") == 0 ||
		    strcmp(name, "return") == 0)
			goto out;
		off = strtoull(name, NULL, 16);
		if (off >= s->fs_size) {
			snprintf(mk->mk_err, mk->mk_errlen, "offset 0x%" PRIx64
			    " outside of function '%s'", off, s->fs_name);
			rc = -1;
		} else if (ff.ff_jumptable || !ft_isa_is_insn(&ff,
		    (uint32_t)off)) {
			snprintf(mk->mk_err, mk->mk_errlen, "offset 0x%" PRIx64
			    " is not aligned on an instruction", off);
			rc = -1;
		} else {
			uint64_t a = addr + off;

			/* the name as written: "pid1:a.out:f:0a" is its own */
			rc = dtd_prov_pid_mkprobe(mk, m, s, name,
			    DTD_PID_OFFSET, addr, &a, 1);
		}
		goto out;
	}
	/* glob names match every instruction boundary's hex offset */
	if (ff.ff_jumptable)
		goto out;
	for (i = 0; i < ff.ff_ninsn && rc == 0; i++) {
		uint64_t a = addr + ff.ff_insn[i];

		snprintf(buf, sizeof(buf), "%x", ff.ff_insn[i]);
		if (!dtd_probe_glob(name, buf))
			continue;
		rc = dtd_prov_pid_mkprobe(mk, m, s, buf, DTD_PID_OFFSET, addr,
		    &a, 1);
	}
out:
	ft_isa_function_free(&ff);
	return rc;
}

/*
 * Create the probes description d names in the targets of consumer c.
 * Returns -1 with err when the description is wrong for a process (an
 * offset that does not start an instruction, ...).
 */
static int
dtd_prov_pid_provide(const dtp_probedesc_t *d, dtd_consumer_t *c,
    char *err, size_t errlen)
{
	dtd_pidcons_t *pc;
	dtd_pidmk_t mk;
	char name[24];
	uint32_t i;

	if (c == NULL || (pc = c->dc_pidstate) == NULL)
		return 0;
	if (d->dpd_name[0] != '\0' && strpbrk(d->dpd_name, "*?[\\") == NULL &&
	    strcmp(d->dpd_name, "entry") != 0 &&
	    strcmp(d->dpd_name, "return") != 0 &&
	    !dtd_prov_pid_ishex(d->dpd_name))
		return 0;	/* matches nothing: D_PDESC_ZERO says so */
	for (i = 0; i < pc->pc_ntgt; i++) {
		dtd_pidproc_t *pp = pc->pc_tgt[i].pt_proc;

		snprintf(name, sizeof(name), "pid%d", (int)pp->pp_pid);
		if (!dtd_probe_glob(d->dpd_provider, name) ||
		    pp->pp_proc == NULL ||
		    __atomic_load_n(&pp->pp_exited, __ATOMIC_ACQUIRE))
			continue;
		mk.mk_pp = pp;
		mk.mk_desc = d;
		mk.mk_err = err;
		mk.mk_errlen = errlen;
		err[0] = '\0';
		if (ft_proc_func_iter(pp->pp_proc, d->dpd_mod, d->dpd_func,
		    dtd_prov_pid_perfunc, &mk) != 0) {
			if (err[0] == '\0')
				snprintf(err, errlen, "failed to read the "
				    "modules of pid %d", (int)pp->pp_pid);
			return -1;
		}
		if (pc->pc_zdefs && dtd_prov_pid_pending(pp, d) == -1) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/*
 * -Z: a description that names one function of a library not loaded
 * (yet) gets a probe without sites, so that it has an ECB; the probe
 * gets its sites when the library appears (dtd_prov_pid_reresolve).
 * Globs cannot be resolved before the library is there: they are not.
 */
static int
dtd_prov_pid_pending(dtd_pidproc_t *pp, const dtp_probedesc_t *d)
{
	dtd_pidprobe_t *pb;
	int kind;

	if (d->dpd_mod[0] == '\0' || d->dpd_func[0] == '\0' ||
	    strpbrk(d->dpd_provider, "*?[\\") != NULL ||
	    strpbrk(d->dpd_mod, "*?[\\") != NULL ||
	    strpbrk(d->dpd_func, "*?[\\") != NULL)
		return 0;
	if (strcmp(d->dpd_name, "entry") == 0)
		kind = DTD_PID_ENTRY;
	else if (strcmp(d->dpd_name, "return") == 0)
		kind = DTD_PID_RETURN;
	else if (dtd_prov_pid_ishex(d->dpd_name))
		kind = DTD_PID_OFFSET;
	else
		return 0;
	if (dtd_prov_pid_modlive(pp, d->dpd_mod) != NULL ||
	    dtd_probe_find(pp->pp_prov->dpv_name, d->dpd_mod, d->dpd_func,
	    d->dpd_name) != NULL)
		return 0;	/* the module is there: the probes are, or not */
	if ((pb = calloc(1, sizeof(*pb))) == NULL)
		return -1;
	pb->pb_pid = pp->pp_pid;
	pb->pb_gen = pp->pp_gen;
	pb->pb_kind = kind;
	if (dtd_probe_create(pp->pp_prov, d->dpd_mod, d->dpd_func,
	    d->dpd_name, pb) == NULL) {
		free(pb);
		return -1;
	}
	return 0;
}

static int
dtd_prov_pid_modfind(void *arg, ft_proc_t *proc, ft_mod_t *m)
{
	ft_mod_t **mp = arg;

	(void)proc;
	if (!m->fm_text)
		return 0;
	*mp = m;
	return 1;
}

/* The loaded module a probe's module field names, or NULL. */
static ft_mod_t *
dtd_prov_pid_modlive(dtd_pidproc_t *pp, const char *mod)
{
	ft_mod_t *m = NULL;

	if (ft_proc_mod_iter(pp->pp_proc, mod, dtd_prov_pid_modfind, &m) < 0)
		return NULL;
	return m;
}

typedef struct dtd_pidres {
	const dtd_probe_t	*rs_probe;
	ft_proc_t		*rs_proc;
	int			rs_kind;
	dtd_pidprobe_t		*rs_pb;		/* the new sites, or NULL */
	int			rs_nomem;
} dtd_pidres_t;

/* ft_proc_func_iter callback: where a probe's sites are now. */
static int
dtd_prov_pid_resfunc(void *arg, ft_mod_t *m, const ft_sym_t *s,
    uint64_t addr)
{
	dtd_pidres_t *rs = arg;
	const char *name = rs->rs_probe->dpr_name;
	dtd_pidprobe_t *pb;
	ft_fn_t ff;
	uint64_t off;
	size_t i, n = 0;
	int haveff = 0;

	memset(&ff, 0, sizeof(ff));
	if (rs->rs_kind != DTD_PID_ENTRY && s->fs_size > 0 &&
	    ft_proc_func_sites(rs->rs_proc, m, s, &ff) == 0)
		haveff = 1;
	if ((pb = calloc(1, sizeof(*pb) + (haveff ? ff.ff_nret + 1 : 1) *
	    sizeof(uint64_t))) == NULL) {
		rs->rs_nomem = 1;
		goto out;
	}
	pb->pb_mod = m;
	pb->pb_func = addr;
	switch (rs->rs_kind) {
	case DTD_PID_ENTRY:
		if (s->fs_size > 0)
			pb->pb_addr[n++] = addr;
		break;
	case DTD_PID_RETURN:
		for (i = 0; haveff && i < ff.ff_nret; i++)
			pb->pb_addr[n++] = addr + ff.ff_ret[i];
		break;
	default:
		off = strtoull(name, NULL, 16);
		if (haveff && off < s->fs_size && !ff.ff_jumptable &&
		    ft_isa_is_insn(&ff, (uint32_t)off))
			pb->pb_addr[n++] = addr + off;
		break;
	}
	pb->pb_naddr = n;
	rs->rs_pb = pb;
out:
	if (haveff)
		ft_isa_function_free(&ff);
	return 1;	/* one function: the first module that has it */
}

static int
dtd_prov_pid_hasaddr(const dtd_pidprobe_t *pb, uint64_t a)
{
	size_t i;

	for (i = 0; i < pb->pb_naddr; i++)
		if (pb->pb_addr[i] == a)
			return 1;
	return 0;
}

/*
 * Main thread, the target stopped in an event: move probe p of pp to
 * where its function is now.  exec: every old site is gone already.
 */
static void
dtd_prov_pid_reresolve1(dtd_pidproc_t *pp, dtd_probe_t *p, int exec)
{
	dtd_pidprobe_t *old = p->dpr_arg, *pb;
	dtd_pidres_t rs;
	size_t i, j;

	memset(&rs, 0, sizeof(rs));
	rs.rs_probe = p;
	rs.rs_kind = old->pb_kind;
	rs.rs_proc = pp->pp_proc;
	if (dtd_prov_pid_modlive(pp, p->dpr_mod) != NULL)
		(void)ft_proc_func_iter(pp->pp_proc, p->dpr_mod, p->dpr_func,
		    dtd_prov_pid_resfunc, &rs);
	if ((pb = rs.rs_pb) == NULL) {
		if (rs.rs_nomem || (pb = calloc(1, sizeof(*pb))) == NULL) {
			log_warnx("%s: %s:%s:%s:%s: out of memory", __func__,
			    pp->pp_prov->dpv_name, p->dpr_mod, p->dpr_func,
			    p->dpr_name);
			return;
		}
	}
	pb->pb_pid = pp->pp_pid;
	pb->pb_gen = pp->pp_gen;
	pb->pb_kind = old->pb_kind;
	if (p->dpr_necb > 0) {
		for (i = 0; !exec && i < old->pb_naddr; i++) {
			/* a site of an unmapped library may be gone already */
			if (!dtd_prov_pid_hasaddr(pb, old->pb_addr[i]))
				(void)ft_proc_site_remove(pp->pp_proc,
				    old->pb_addr[i], p);
		}
		for (i = j = 0; i < pb->pb_naddr; i++) {
			uint64_t a = pb->pb_addr[i];

			if ((exec || !dtd_prov_pid_hasaddr(old, a)) &&
			    ft_proc_site_add(pp->pp_proc, a, p) == -1) {
				log_warn("%s: %s:%s:%s:%s at 0x%" PRIx64,
				    __func__, pp->pp_prov->dpv_name,
				    p->dpr_mod, p->dpr_func, p->dpr_name, a);
				continue;
			}
			pb->pb_addr[j++] = a;
		}
		pb->pb_naddr = j;
	}
	/* no hit runs now: the tracer thread waits for us */
	p->dpr_arg = pb;
	free(old);
}

typedef struct dtd_pidrr {
	dtd_pidproc_t	*rr_pp;
	uint64_t	rr_oldgen;
	int		rr_exec;
} dtd_pidrr_t;

/* Resolve probe p again if it is of the generation that changed. */
static void
dtd_prov_pid_reresolve2(dtd_probe_t *p, void *arg)
{
	const dtd_pidrr_t *rr = arg;
	const dtd_pidprobe_t *pb = p->dpr_arg;

	if (pb->pb_gen != rr->rr_oldgen || (rr->rr_exec && p->dpr_necb == 0))
		return;
	if (!rr->rr_exec && dtd_prov_pid_modlive(rr->rr_pp, p->dpr_mod) ==
	    pb->pb_mod)
		return;		/* its module did not change */
	dtd_prov_pid_reresolve1(rr->rr_pp, p, rr->rr_exec);
}

/*
 * Main thread: pp exec'd, or its libraries changed; its tracer thread
 * waits.  After exec the probes in use are resolved again in the new
 * image (a new generation: the others are stale); after dlopen and
 * dlclose the probes whose module appeared, went or moved are.
 */
static void
dtd_prov_pid_reresolve(dtd_pidproc_t *pp, int exec)
{
	dtd_pidrr_t rr;

	rr.rr_pp = pp;
	rr.rr_oldgen = pp->pp_gen;
	rr.rr_exec = exec;
	if (exec)
		pp->pp_gen = ++dtd_pid_gen;
	dtd_probe_walk_prov(pp->pp_prov, dtd_prov_pid_reresolve2, &rr);
	log_info("%s: pid %d: probes resolved again after %s", __func__,
	    (int)pp->pp_pid, exec ? "exec" : "a library change");
}

/*
 * Main thread, pp waiting in an exec or library event: the functions of
 * its new image or libraries are probes the consumers tracing it may
 * want (a glob that matched nothing, or less, before): match their
 * statements again.
 */
static void
dtd_prov_pid_rematch(dtd_pidproc_t *pp)
{
	dtd_consumer_t *c;

	for (c = dtd_consumer_next(NULL); c != NULL; c = dtd_consumer_next(c))
		if (dtd_prov_pid_tgt(c, pp->pp_pid) != NULL)
			dtd_consumer_rematch(c, pp->pp_prov->dpv_name);
}

/* Main thread: handle the events tracer threads wait on. */
static void
dtd_prov_pid_events(void)
{
	dtd_pidproc_t *pp;
	int ev, i, lost;

	for (pp = dtd_pid_procs; pp != NULL; pp = pp->pp_next) {
		if (pp->pp_proc == NULL)
			continue;
		pthread_mutex_lock(&pp->pp_evlock);
		ev = pp->pp_evpend;
		pthread_mutex_unlock(&pp->pp_evlock);
		if (ev == 0)
			continue;
		if (ev & DTD_PIDEV_EXEC) {
			pthread_mutex_lock(&pp->pp_evlock);
			for (i = 0; i < pp->pp_ncreds &&
			    !pp->pp_creds[i].pc_denied; i++)
				;
			lost = i < pp->pp_ncreds;
			pthread_mutex_unlock(&pp->pp_evlock);
			if (lost)
				dtd_prov_pid_exclude(pp);
		}
		dtd_prov_pid_reresolve(pp, (ev & DTD_PIDEV_EXEC) != 0);
		dtd_prov_pid_rematch(pp);
		__atomic_add_fetch(&pp->pp_modgen, 1, __ATOMIC_ACQ_REL);
		dtd_prov_pid_sync(pp);
		pthread_mutex_lock(&pp->pp_evlock);
		pp->pp_evpend = 0;
		pthread_cond_broadcast(&pp->pp_evcv);
		pthread_mutex_unlock(&pp->pp_evlock);
	}
}

/* Is the module a probe was resolved in no longer mapped? */
static int
dtd_prov_pid_unmapped(dtd_pidproc_t *pp, const dtd_pidprobe_t *pb)
{
	ft_proc_refresh(pp->pp_proc);
	return pb->pb_mod == NULL ||
	    dtd_prov_pid_modlive(pp, pb->pb_mod->fm_name) != pb->pb_mod;
}

static int
dtd_prov_pid_enable(dtd_probe_t *p)
{
	dtd_pidprobe_t *pb = p->dpr_arg;
	dtd_pidproc_t *pp = dtd_prov_pid_live(p, NULL);
	size_t i;
	int e;

	if (pp == NULL || pp->pp_proc == NULL) {
		errno = ESRCH;
		return -1;
	}
	for (i = 0; i < pb->pb_naddr; i++) {
		if (ft_proc_site_add(pp->pp_proc, pb->pb_addr[i], p) == -1) {
			e = errno;
			/*
			 * Its library was unloaded since the probe was made
			 * (dlclose): nothing to patch now; the library event
			 * resolves the probe again, and a later dlopen
			 * brings its sites back.
			 */
			if (e == EFAULT && dtd_prov_pid_unmapped(pp, pb))
				continue;
			while (i-- > 0)
				ft_proc_site_remove(pp->pp_proc,
				    pb->pb_addr[i], p);
			errno = e;
			return -1;
		}
	}
	return 0;
}

static void
dtd_prov_pid_disable(dtd_probe_t *p)
{
	dtd_pidprobe_t *pb = p->dpr_arg;
	dtd_pidproc_t *pp = dtd_prov_pid_live(p, NULL);
	size_t i;

	if (pp == NULL || pp->pp_proc == NULL)
		return;
	for (i = 0; i < pb->pb_naddr; i++)
		ft_proc_site_remove(pp->pp_proc, pb->pb_addr[i], p);
}

/*
 * Consumer c's targets (at most max): their pids, and whether each has
 * exited.  Returns how many were stored.
 */
uint32_t
dtd_prov_pid_targets(const dtd_consumer_t *c, pid_t *pids, int *exited,
    uint32_t max)
{
	const dtd_pidcons_t *pc = c->dc_pidstate;
	uint32_t i;

	if (pc == NULL)
		return 0;
	for (i = 0; i < pc->pc_ntgt && i < max; i++) {
		pids[i] = pc->pc_tgt[i].pt_proc->pp_pid;
		exited[i] = __atomic_load_n(&pc->pc_tgt[i].pt_proc->pp_exited,
		    __ATOMIC_ACQUIRE) != 0 || pc->pc_tgt[i].pt_setid ||
		    __atomic_load_n(&pc->pc_tgt[i].pt_proc->pp_letgo,
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
dtd_prov_pid_keep(dtd_consumer_t *c)
{
	dtd_pidcons_t *pc = c->dc_pidstate;
	uint32_t i;

	if (pc == NULL)
		return;
	for (i = 0; i < pc->pc_ntgt; i++) {
		pc->pc_tgt[i].pt_created = 0;
		pc->pc_tgt[i].pt_proc->pp_created = 0;
	}
}
