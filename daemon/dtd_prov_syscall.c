/*
 * dtd_prov_syscall.c: syscall::NAME:entry and syscall::NAME:return, for
 * every system call of x86-64 Linux (the names and numbers of the
 * kernel's <asm/unistd_64.h>, dtd_sysnames.h, made at build time), in
 * every process, as illumos's syscall provider has them.
 *
 * The capture is fasttrap's (ft_bpf_sys_*: BPF programs on the raw
 * tracepoints sys_enter and sys_exit, which need no tracefs), held
 * (dtd_kcap.c, shared with the proc provider) while a probe is enabled;
 * it captures only the calls whose probes are enabled, never the
 * daemon's own.  Its drain thread fires each call's probe after the
 * fact, in the context of the thread that made it: pid, tid, uid, execname
 * (the process's name), CPU and time of the call, the user registers at
 * entry as uregs[], the user stack as it was for ustack() (copied only
 * when a clause on a syscall probe walks it), the memory the call names
 * as it was (dtd_prov_syscall_caps: copied only when a clause reads
 * traced memory), and the rest of the process's memory as it is when
 * DIF runs, later than the call.  The traced program is not stopped and
 * none of its calls is changed.  A path not in memory at entry (a page
 * the program had not touched) is copied again at the return, and the
 * entry waits for it (dtd_prov_syscall_park).
 *
 * Arguments.  At entry, arg0 to arg5 are the call's arguments.  At
 * return, arg0 and arg1 are its value as the C library returns it: -1
 * when the kernel returned an error, and errno is that error (0 for a
 * call that succeeded), as illumos's syscall provider gives them.
 *
 * Who sees what.  A hit is of whatever process made the call: it fires
 * for root's consumers and for those that could ptrace that process
 * (dtd_sample_fire_user, as profile-N's samples), judged by what the
 * record says of its credentials at the call (the kernel's BTF gives
 * where they are; the process may be gone when its call fires).
 * Capturing needs the rights to load BPF programs (root, or CAP_BPF and
 * CAP_PERFMON): a private daemon without them refuses to enable a
 * syscall probe.
 *
 * Records the ring had no room for are counted on their CPU and
 * reported as drops to every consumer with a syscall clause.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtd.h"
#include "ft.h"

/* The largest error a system call returns (the kernel's MAX_ERRNO). */
#define DTD_SYSCALL_MAXERRNO	4095

/* struct user_regs_struct indexes of the arguments, the return value */
static const int dtd_prov_syscall_argreg[6] = { 14, 13, 12, 7, 9, 8 };
#define DTD_SYSCALL_AX		10

static const struct {
	const char	*sn_name;
	uint32_t	sn_nr;
} dtd_prov_syscall_names[] = {
#include "dtd_sysnames.h"
};
#define DTD_SYSCALL_NNAMES	(sizeof(dtd_prov_syscall_names) / \
				    sizeof(dtd_prov_syscall_names[0]))

static int	dtd_prov_syscall_init(void);
static int	dtd_prov_syscall_enable(dtd_probe_t *);
static void	dtd_prov_syscall_disable(dtd_probe_t *);
static int	dtd_prov_syscall_addecb(dtd_probe_t *, const dtd_ecb_t *);
static int	dtd_prov_syscall_uses(const dtd_consumer_t *);
static int	dtd_prov_syscall_nargs(const dtd_probe_t *);
static void	dtd_prov_syscall_shutdown(void);
static void	dtd_prov_syscall_flush(dtd_consumer_t *);

const dtd_provider_t dtd_prov_syscall = {
	.dpv_name = "syscall",
	.dpv_init = dtd_prov_syscall_init,
	.dpv_enable = dtd_prov_syscall_enable,
	.dpv_disable = dtd_prov_syscall_disable,
	.dpv_addecb = dtd_prov_syscall_addecb,
	/* a call is of whatever process made it: its maps are sent */
	.dpv_observes = dtd_prov_syscall_uses,
	.dpv_nargs = dtd_prov_syscall_nargs,
	.dpv_shutdown = dtd_prov_syscall_shutdown,
	.dpv_flush = dtd_prov_syscall_flush,
};

/* A probe's dpr_arg (malloc'd: dtd_probe.c frees it). */
typedef struct dtd_sysprobe {
	uint32_t	sp_nr;
	int		sp_ret;		/* 0: entry, 1: return */
} dtd_sysprobe_t;
#define DTD_SYSCALL_NR(p) (((const dtd_sysprobe_t *)(p)->dpr_arg)->sp_nr)
#define DTD_SYSCALL_RET(p) (((const dtd_sysprobe_t *)(p)->dpr_arg)->sp_ret)

/*
 * The probes by number and kind (made at init, read by the drain
 * thread), what is enabled (FT_BPF_SYS_* by number, atomic: written on
 * the main thread, read by the drain thread).
 */
static dtd_probe_t	*dtd_prov_syscall_probes[FT_BPF_SYSMAX][2];
static uint32_t		dtd_prov_syscall_want[FT_BPF_SYSMAX];
static uint32_t		dtd_prov_syscall_nenabled; /* main thread */

/*
 * Enabled probes, for the drain thread to find the consumers a lost
 * record is reported to: under dtd_prov_syscall_elock.
 */
static pthread_mutex_t	dtd_prov_syscall_elock =
    PTHREAD_MUTEX_INITIALIZER;
static dtd_probe_t	*dtd_prov_syscall_enabled[FT_BPF_SYSMAX * 2];

/*
 * The memory a call names, copied at the hit when a clause on a syscall
 * probe reads traced memory (copyin, copyinstr, copyinto): DIF runs
 * after the call, when a short-lived process may be gone and a buffer
 * reused.  At entry, the paths a call takes and the bytes it writes; at
 * return, the bytes it read.  ca_ptr, ca_len: argument numbers (len -1:
 * a string; -2: the call's value).
 */
typedef struct dtd_syscap {
	const char	*ca_name;
	int		ca_ret;
	int		ca_ptr;
	int		ca_len;
} dtd_syscap_t;

static const dtd_syscap_t dtd_prov_syscall_caps[] = {
	{ "open", 0, 0, -1 }, { "openat", 0, 1, -1 }, { "openat2", 0, 1, -1 },
	{ "creat", 0, 0, -1 }, { "execve", 0, 0, -1 },
	{ "execveat", 0, 1, -1 }, { "stat", 0, 0, -1 }, { "lstat", 0, 0, -1 },
	{ "newfstatat", 0, 1, -1 }, { "statx", 0, 1, -1 },
	{ "access", 0, 0, -1 }, { "faccessat", 0, 1, -1 },
	{ "faccessat2", 0, 1, -1 }, { "unlink", 0, 0, -1 },
	{ "unlinkat", 0, 1, -1 }, { "mkdir", 0, 0, -1 },
	{ "mkdirat", 0, 1, -1 }, { "rmdir", 0, 0, -1 },
	{ "rename", 0, 0, -1 }, { "renameat", 0, 1, -1 },
	{ "renameat2", 0, 1, -1 }, { "chdir", 0, 0, -1 },
	{ "chroot", 0, 0, -1 }, { "chmod", 0, 0, -1 },
	{ "fchmodat", 0, 1, -1 }, { "chown", 0, 0, -1 },
	{ "lchown", 0, 0, -1 }, { "fchownat", 0, 1, -1 },
	{ "readlink", 0, 0, -1 }, { "readlinkat", 0, 1, -1 },
	{ "truncate", 0, 0, -1 }, { "symlink", 0, 0, -1 },
	{ "symlinkat", 0, 0, -1 }, { "link", 0, 0, -1 },
	{ "linkat", 0, 1, -1 }, { "mknod", 0, 0, -1 },
	{ "mknodat", 0, 1, -1 }, { "utimes", 0, 0, -1 },
	{ "utimensat", 0, 1, -1 }, { "statfs", 0, 0, -1 },
	{ "setxattr", 0, 0, -1 }, { "getxattr", 0, 0, -1 },
	{ "listxattr", 0, 0, -1 }, { "removexattr", 0, 0, -1 },
	{ "inotify_add_watch", 0, 1, -1 }, { "mount", 0, 0, -1 },
	{ "umount2", 0, 0, -1 }, { "swapon", 0, 0, -1 },
	{ "swapoff", 0, 0, -1 }, { "acct", 0, 0, -1 },
	{ "sethostname", 0, 0, -1 }, { "memfd_create", 0, 0, -1 },
	{ "write", 0, 1, 2 }, { "pwrite64", 0, 1, 2 }, { "sendto", 0, 1, 2 },
	{ "read", 1, 1, -2 }, { "pread64", 1, 1, -2 },
	{ "recvfrom", 1, 1, -2 }, { "getcwd", 1, 0, -2 },
	{ "getrandom", 1, 0, -2 },
};

/* What each call's records copy (FT_BPF_SYS_CAPTURE ...), by number. */
static uint32_t		dtd_prov_syscall_capspec[FT_BPF_SYSMAX];
static int		dtd_prov_syscall_capon;	/* clauses read memory */

static void	dtd_prov_syscall_rec(const ft_bpfsysrec_t *);
static void	dtd_prov_syscall_drop(int, uint64_t);
static void	dtd_prov_syscall_idle(uint64_t);

static const dtd_kcapuser_t dtd_prov_syscall_kcap = {
	.ku_rec = dtd_prov_syscall_rec,
	.ku_drop = dtd_prov_syscall_drop,
	.ku_idle = dtd_prov_syscall_idle,
};

static int
dtd_prov_syscall_init(void)
{
	size_t i, k;
	const dtd_syscap_t *c;
	dtd_sysprobe_t *sp;
	uint32_t nr;
	int ret;

	for (i = 0; i < DTD_SYSCALL_NNAMES; i++) {
		nr = dtd_prov_syscall_names[i].sn_nr;
		if (nr >= FT_BPF_SYSMAX)
			continue;
		for (k = 0; k < sizeof(dtd_prov_syscall_caps) /
		    sizeof(dtd_prov_syscall_caps[0]); k++) {
			if (strcmp(dtd_prov_syscall_caps[k].ca_name,
			    dtd_prov_syscall_names[i].sn_name) != 0)
				continue;
			c = &dtd_prov_syscall_caps[k];
			dtd_prov_syscall_capspec[nr] = FT_BPF_SYS_CAPTURE |
			    (c->ca_ret ? FT_BPF_SYS_CAPRET :
			    c->ca_len == -1 ? FT_BPF_SYS_CAPEXIT : 0) |
			    FT_BPF_SYS_CAPSPEC(c->ca_len == -1 ?
			    FT_BPF_SYS_STR : FT_BPF_SYS_BUF,
			    dtd_prov_syscall_argreg[c->ca_ptr],
			    c->ca_len == -2 ? DTD_SYSCALL_AX : c->ca_len >= 0 ?
			    dtd_prov_syscall_argreg[c->ca_len] : 0);
		}
		for (ret = 0; ret < 2; ret++) {
			if ((sp = malloc(sizeof(*sp))) == NULL)
				return -1;
			sp->sp_nr = nr;
			sp->sp_ret = ret;
			if ((dtd_prov_syscall_probes[nr][ret] =
			    dtd_probe_create(&dtd_prov_syscall, "",
			    dtd_prov_syscall_names[i].sn_name,
			    ret ? "return" : "entry", sp)) == NULL) {
				free(sp);
				return -1;
			}
		}
	}
	return 0;
}

/* Entry: the six arguments of x86-64's calling convention; return: 2. */
static int
dtd_prov_syscall_nargs(const dtd_probe_t *p)
{
	return DTD_SYSCALL_RET(p) ? 2 : 6;
}

/* Has c an ECB on a syscall probe? */
static int
dtd_prov_syscall_uses(const dtd_consumer_t *c)
{
	return dtd_consumer_uses(c, &dtd_prov_syscall);
}

/* A hit of a system call, its errno and its record. */
typedef struct dtd_syshit {
	dtd_hit_t	sh_hit;		/* first: the hooks' argument */
	uint64_t	sh_errno;
	const ft_bpfsysrec_t *sh_rec;
} dtd_syshit_t;

/*
 * May a consumer of uid and gid (not root) see h's call?  By the
 * process's credentials at the call where the record has them
 * (dtd_kcap_visible), else by the process as it is now.
 */
static int
dtd_prov_syscall_visible(const dtd_hit_t *h, uid_t uid, gid_t gid)
{
	const ft_bpfsysrec_t *r = ((const dtd_syshit_t *)(const void *)h)->
	    sh_rec;
	int v;

	if ((v = dtd_kcap_visible(r, uid, gid)) == -1)
		return dtd_target_visible(h, uid, gid);
	return v;
}

static int
dtd_prov_syscall_errno(const dtd_hit_t *h, uint64_t *v)
{
	*v = ((const dtd_syshit_t *)(const void *)h)->sh_errno;
	return 0;
}

/* Drain thread: fire the probe of record r, if it is enabled. */
static void
dtd_prov_syscall_fire(const ft_bpfsysrec_t *r)
{
	uint32_t nr = r->sr_nr, want;
	int ret = r->sr_return != 0, i;
	pid_t pid = (pid_t)(r->sr_pidtgid >> 32);
	int64_t rv = (int64_t)r->sr_regs[DTD_SYSCALL_AX];
	int failed = rv < 0 && rv >= -DTD_SYSCALL_MAXERRNO;
	dtd_probe_t *p;
	ft_perfhit_t ph;
	dtd_syshit_t sh;

	p = dtd_prov_syscall_probes[nr][ret];
	want = __atomic_load_n(&dtd_prov_syscall_want[nr], __ATOMIC_ACQUIRE);
	if (p != NULL && (want & (ret ? FT_BPF_SYS_RETURN :
	    FT_BPF_SYS_ENTRY))) {
		memset(&ph, 0, sizeof(ph));
		ph.ph_pid = pid;
		ph.ph_tid = (pid_t)(uint32_t)r->sr_pidtgid;
		ph.ph_cpu = (int)r->sr_cpu;
		ph.ph_time = r->sr_time;
		ph.ph_user = 1;
		memcpy(&ph.ph_regs, r->sr_regs, sizeof(r->sr_regs));
		ph.ph_ip = ph.ph_regs.rip;
		ph.ph_sp = ph.ph_regs.rsp;
		ph.ph_stack = r->sr_stack;
		ph.ph_stklen = r->sr_stklen;
		ph.ph_capaddr = r->sr_capaddr;
		ph.ph_cap = r->sr_cap;
		ph.ph_caplen = r->sr_caplen;
		ph.ph_capstr = r->sr_capstr != 0;
		memset(&sh, 0, sizeof(sh));
		sh.sh_hit.dh_probe = p;
		sh.sh_hit.dh_pid = ph.ph_pid;
		sh.sh_hit.dh_tid = ph.ph_tid;
		sh.sh_hit.dh_cpu = ph.ph_cpu;
		sh.sh_hit.dh_timestamp = ph.ph_time;
		sh.sh_hit.dh_ppid = r->sr_ppid != 0 ? (pid_t)r->sr_ppid : -1;
		sh.sh_hit.dh_anc = r->sr_anc;
		sh.sh_hit.dh_nanc = FT_BPF_NANC;
		sh.sh_hit.dh_uid = (uid_t)(uint32_t)r->sr_uidgid;
		sh.sh_hit.dh_gid = (gid_t)(r->sr_uidgid >> 32);
		/* the process's name (its main thread's) */
		sh.sh_hit.dh_execname = r->sr_comm;
		sh.sh_hit.dh_errno = dtd_prov_syscall_errno;
		sh.sh_hit.dh_visible = dtd_prov_syscall_visible;
		sh.sh_rec = r;
		if (!ret) {
			for (i = 0; i < 6; i++)
				sh.sh_hit.dh_args[i] = r->sr_regs[
				    dtd_prov_syscall_argreg[i]];
		} else if (failed) {
			sh.sh_hit.dh_args[0] = sh.sh_hit.dh_args[1] =
			    (uint64_t)-1;
			sh.sh_errno = (uint64_t)-rv;
		} else
			sh.sh_hit.dh_args[0] = sh.sh_hit.dh_args[1] =
			    (uint64_t)rv;
		dtd_sample_fire_user(&sh.sh_hit, &ph);
	}
}

/*
 * Entry records held back (drain thread, or a flush under the
 * capture's lock): the call names a path that was not in memory at
 * entry (a page the program had not touched yet), so the record has
 * no copy of it; the call's return record has (FT_BPF_SYS_CAPEXIT), and
 * the entry fires with that copy just before the return.  One whose
 * return has not come DTD_SYSCALL_PARKNS later (a call that blocks, an
 * exec that worked, a thread killed in the call) fires as it is.
 */
#define DTD_SYSCALL_NPARK	64
#define DTD_SYSCALL_PARKNS	(100 * 1000000ull)
static ft_bpfsysrec_t	*dtd_prov_syscall_parked[DTD_SYSCALL_NPARK];
static int		dtd_prov_syscall_nparked;

/* Fire parked entry k as it is, or with return record ret's copy. */
static void
dtd_prov_syscall_unpark(int k, const ft_bpfsysrec_t *ret)
{
	ft_bpfsysrec_t *r = dtd_prov_syscall_parked[k];

	dtd_prov_syscall_parked[k] = NULL;
	dtd_prov_syscall_nparked--;
	if (ret != NULL) {
		r->sr_capaddr = ret->sr_capaddr;
		r->sr_caplen = ret->sr_caplen;
		r->sr_capstr = ret->sr_capstr;
		memcpy(r->sr_cap, ret->sr_cap, ret->sr_caplen);
	}
	dtd_prov_syscall_fire(r);
	free(r);
}

/* Hold entry record r back: 1, or 0 (no room: fire it as it is). */
static int
dtd_prov_syscall_park(const ft_bpfsysrec_t *r)
{
	size_t len = offsetof(ft_bpfsysrec_t, sr_stack) + r->sr_stklen;
	int k;

	for (k = 0; k < DTD_SYSCALL_NPARK; k++)
		if (dtd_prov_syscall_parked[k] == NULL)
			break;
	if (k == DTD_SYSCALL_NPARK ||
	    (dtd_prov_syscall_parked[k] = malloc(sizeof(*r))) == NULL)
		return 0;
	memcpy(dtd_prov_syscall_parked[k], r, len);
	dtd_prov_syscall_nparked++;
	return 1;
}

/* Drain thread: a pass is over at now; fire the entries held too long. */
static void
dtd_prov_syscall_idle(uint64_t now)
{
	int k;

	for (k = 0; dtd_prov_syscall_nparked > 0 && k < DTD_SYSCALL_NPARK;
	    k++)
		if (dtd_prov_syscall_parked[k] != NULL && (now == UINT64_MAX ||
		    now - dtd_prov_syscall_parked[k]->sr_time >
		    DTD_SYSCALL_PARKNS))
			dtd_prov_syscall_unpark(k, NULL);
}

/* Drain thread: a record of the capture. */
static void
dtd_prov_syscall_rec(const ft_bpfsysrec_t *r)
{
	uint32_t nr = r->sr_nr;
	int k;

	if (nr >= FT_BPF_SYSMAX)	/* a process event */
		return;
	if (!r->sr_return && r->sr_caplen == 0 && dtd_prov_syscall_capon &&
	    (dtd_prov_syscall_capspec[nr] & FT_BPF_SYS_CAPEXIT) &&
	    (__atomic_load_n(&dtd_prov_syscall_want[nr], __ATOMIC_ACQUIRE) &
	    FT_BPF_SYS_ENTRY) && dtd_prov_syscall_park(r))
		return;
	if (r->sr_return && dtd_prov_syscall_nparked > 0) {
		for (k = 0; k < DTD_SYSCALL_NPARK; k++)
			if (dtd_prov_syscall_parked[k] != NULL &&
			    dtd_prov_syscall_parked[k]->sr_pidtgid ==
			    r->sr_pidtgid &&
			    dtd_prov_syscall_parked[k]->sr_nr == nr)
				dtd_prov_syscall_unpark(k, r);
	}
	dtd_prov_syscall_fire(r);
}

/*
 * Drain thread: report n records lost on cpu to every consumer with an
 * enabled syscall ECB, once each.
 */
static void
dtd_prov_syscall_drop(int cpu, uint64_t n)
{
	pthread_mutex_lock(&dtd_prov_syscall_elock);
	dtd_kcap_charge(dtd_prov_syscall_enabled, FT_BPF_SYSMAX * 2, cpu, n);
	pthread_mutex_unlock(&dtd_prov_syscall_elock);
}

/* Main thread: consumer c stops; its calls made before now fire first. */
static void
dtd_prov_syscall_flush(dtd_consumer_t *c)
{
	if (dtd_kcap_holds(&dtd_prov_syscall_kcap) &&
	    dtd_prov_syscall_uses(c))
		dtd_kcap_flush();
}

/* Let the capture go, and what it was asked for with it. */
static void
dtd_prov_syscall_close(void)
{
	int k;

	if (!dtd_kcap_holds(&dtd_prov_syscall_kcap))
		return;
	dtd_kcap_rele(&dtd_prov_syscall_kcap);
	/* the drain thread is done with them; their probes are off */
	for (k = 0; k < DTD_SYSCALL_NPARK; k++) {
		free(dtd_prov_syscall_parked[k]);
		dtd_prov_syscall_parked[k] = NULL;
	}
	dtd_prov_syscall_nparked = 0;
	dtd_prov_syscall_capon = 0;
}

/* What this provider wants of number nr, for the capture. */
static uint32_t
dtd_prov_syscall_word(uint32_t nr)
{
	uint32_t v = dtd_prov_syscall_want[nr];

	if (dtd_prov_syscall_capon &&
	    (v & (FT_BPF_SYS_ENTRY | FT_BPF_SYS_RETURN)))
		v |= dtd_prov_syscall_capspec[nr];
	/* an entry whose path was not there waits for its return's copy */
	if ((v & FT_BPF_SYS_ENTRY) && (v & FT_BPF_SYS_CAPEXIT))
		v |= FT_BPF_SYS_RETURN;
	return v;
}

/*
 * Copy the stack, and the memory calls name, into records if need
 * (DTD_KCAP_NEED_*) asks for them (never less while the capture is
 * open).
 */
static void
dtd_prov_syscall_setneeds(int need)
{
	uint32_t nr;

	dtd_kcap_setneeds(need);
	if ((need & DTD_KCAP_NEED_MEM) && !dtd_prov_syscall_capon) {
		dtd_prov_syscall_capon = 1;
		for (nr = 0; nr < FT_BPF_SYSMAX; nr++)
			if (dtd_prov_syscall_want[nr] != 0 &&
			    dtd_kcap_want(&dtd_prov_syscall_kcap, nr,
			    dtd_prov_syscall_word(nr)) == -1)
				log_warn("%s: %u", __func__, nr);
	}
}

/* Capture p's calls as its kind says (on: 1) or no longer (on: 0). */
static int
dtd_prov_syscall_set(dtd_probe_t *p, int on)
{
	uint32_t nr = DTD_SYSCALL_NR(p), bit, v, old;

	bit = DTD_SYSCALL_RET(p) ? FT_BPF_SYS_RETURN : FT_BPF_SYS_ENTRY;
	old = dtd_prov_syscall_want[nr];
	v = on ? old | bit : old & ~bit;
	/* the drain thread sees the probe wanted before its records */
	__atomic_store_n(&dtd_prov_syscall_want[nr], v, __ATOMIC_RELEASE);
	if (dtd_kcap_want(&dtd_prov_syscall_kcap, nr,
	    dtd_prov_syscall_word(nr)) == -1) {
		__atomic_store_n(&dtd_prov_syscall_want[nr], old,
		    __ATOMIC_RELEASE);
		return -1;
	}
	return 0;
}

static int
dtd_prov_syscall_enable(dtd_probe_t *p)
{
	uint32_t slot = DTD_SYSCALL_NR(p) * 2 + (uint32_t)DTD_SYSCALL_RET(p);
	int e;

	if (dtd_kcap_hold(&dtd_prov_syscall_kcap) == -1)
		return -1;
	dtd_prov_syscall_setneeds(dtd_kcap_needs(p));
	pthread_mutex_lock(&dtd_prov_syscall_elock);
	dtd_prov_syscall_enabled[slot] = p;
	pthread_mutex_unlock(&dtd_prov_syscall_elock);
	if (dtd_prov_syscall_set(p, 1) == -1) {
		e = errno;
		pthread_mutex_lock(&dtd_prov_syscall_elock);
		dtd_prov_syscall_enabled[slot] = NULL;
		pthread_mutex_unlock(&dtd_prov_syscall_elock);
		if (dtd_prov_syscall_nenabled == 0)
			dtd_prov_syscall_close();
		errno = e;
		return -1;
	}
	dtd_prov_syscall_nenabled++;
	return 0;
}

/* Another ECB on enabled p: it may need what no other did. */
static int
dtd_prov_syscall_addecb(dtd_probe_t *p, const dtd_ecb_t *e)
{
	(void)p;
	dtd_prov_syscall_setneeds(dtd_kcap_ecbneeds(e));
	return 0;
}

static void
dtd_prov_syscall_disable(dtd_probe_t *p)
{
	uint32_t slot = DTD_SYSCALL_NR(p) * 2 + (uint32_t)DTD_SYSCALL_RET(p);

	if (!dtd_kcap_holds(&dtd_prov_syscall_kcap))
		return;
	if (dtd_prov_syscall_set(p, 0) == -1)
		log_warn("%s: syscall::%s:%s", __func__, p->dpr_func,
		    p->dpr_name);
	pthread_mutex_lock(&dtd_prov_syscall_elock);
	dtd_prov_syscall_enabled[slot] = NULL;
	pthread_mutex_unlock(&dtd_prov_syscall_elock);
	if (--dtd_prov_syscall_nenabled == 0) {
		dtd_prov_syscall_close();
		memset(dtd_prov_syscall_want, 0,
		    sizeof(dtd_prov_syscall_want));
	}
}

static void
dtd_prov_syscall_shutdown(void)
{
	dtd_prov_syscall_close();
}
