/*
 * dtd_prov_proc.c: the proc provider, illumos's probes of processes and
 * threads starting, running new images, receiving signals and ending,
 * for every process on the machine.
 *
 * Its records come from the kernel capture it holds with the syscall
 * provider (dtd_kcap.c): the process events of fasttrap's ft_bpf_sys_*
 * (raw tracepoints sched_process_fork, _exec, _exit, signal_generate,
 * signal_deliver) and the execve and execveat calls.  Each fires after
 * the fact, on the capture's drain thread, in the context of the thread
 * the event is of: pid, tid, uid, gid, execname, CPU and time as the
 * record has them, and the thread's user registers (where it entered
 * the kernel) and stack, copied when a clause walks it, as uregs[] and
 * for ustack(); copyin() reads the process as it is when the probe
 * fires.  A new thread (lwp-start) and a kernel thread have none.
 *
 *   create		the parent, after a fork: args[0] the child
 *			(psinfo_t *)
 *   start		the child, first
 *   lwp-create		the creating thread: args[0] the new thread
 *			(lwpsinfo_t *), args[1] its process (psinfo_t *)
 *   lwp-start		the new thread, first
 *   exec		before an exec: args[0] the path (string)
 *   exec-failure	an exec that failed: args[0] the error (int)
 *   exec-success	the new image, before it runs
 *   exit		the last thread of a process: args[0] CLD_EXITED,
 *			CLD_KILLED or CLD_DUMPED (int)
 *   lwp-exit		a thread that is not the last
 *   signal-send	the sender: args[0] the thread it is for
 *			(lwpsinfo_t *), args[1] its process (psinfo_t *),
 *			args[2] the signal (int)
 *   signal-discard	as signal-send, for a signal the process ignores
 *   signal-handle	the thread that is to run its handler: args[0] the
 *			signal, args[2] the handler (args[1], illumos's
 *			siginfo_t, is 0)
 *   signal-clear	a pending signal taken by rt_sigtimedwait (sigwait,
 *			sigtimedwait, sigwaitinfo): args[0] the signal
 *			(args[1], illumos's siginfo_t, is 0)
 *   fault		a thread made a machine fault (the kernel sends it
 *			SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGTRAP): args[0]
 *			illumos's FLT* (FLTBOUNDS, FLTACCESS, FLTIZDIV...)
 *
 * A psinfo_t or lwpsinfo_t argument is procfs.d's translation of the
 * task the record names (dtd_hit_t's dh_subj): its ids and name from
 * the record, the rest from /proc when the probe fires.  The path of
 * exec is copied at the call, as the syscall provider copies it.
 *
 * Who sees what, and records lost: as the syscall provider's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/syscall.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"
#include "ft.h"

/* The probes, in listing order. */
#define DTD_PROC_CREATE		0
#define DTD_PROC_START		1
#define DTD_PROC_LWPCREATE	2
#define DTD_PROC_LWPSTART	3
#define DTD_PROC_EXEC		4
#define DTD_PROC_EXECFAIL	5
#define DTD_PROC_EXECOK		6
#define DTD_PROC_EXIT		7
#define DTD_PROC_LWPEXIT	8
#define DTD_PROC_SIGSEND	9
#define DTD_PROC_SIGDISCARD	10
#define DTD_PROC_SIGHANDLE	11
#define DTD_PROC_SIGCLEAR	12
#define DTD_PROC_FAULT		13
#define DTD_PROC_NPROBES	14

/*
 * Each probe's name, its argument count, and what it needs captured:
 * a process event (FT_BPF_EV_*), or -1 and system calls at entry or at
 * return (DTD_PROC_CALL_*: the exec calls, with their path at entry;
 * rt_sigtimedwait).
 */
#define DTD_PROC_CALL_EXEC	1
#define DTD_PROC_CALL_SIGWAIT	2
static const struct {
	const char	*pp_name;
	int		pp_nargs;
	int		pp_ev;
	int		pp_calls;	/* DTD_PROC_CALL_* */
	uint32_t	pp_when;	/* FT_BPF_SYS_ENTRY or _RETURN */
} dtd_prov_proc_tab[DTD_PROC_NPROBES] = {
	{ "create", 1, FT_BPF_EV_FORK, 0, 0 },
	{ "start", 0, FT_BPF_EV_FORK, 0, 0 },
	{ "lwp-create", 2, FT_BPF_EV_FORK, 0, 0 },
	{ "lwp-start", 0, FT_BPF_EV_FORK, 0, 0 },
	{ "exec", 1, -1, DTD_PROC_CALL_EXEC, FT_BPF_SYS_ENTRY },
	{ "exec-failure", 1, -1, DTD_PROC_CALL_EXEC, FT_BPF_SYS_RETURN },
	{ "exec-success", 0, FT_BPF_EV_EXEC, 0, 0 },
	{ "exit", 1, FT_BPF_EV_EXIT, 0, 0 },
	{ "lwp-exit", 0, FT_BPF_EV_EXIT, 0, 0 },
	{ "signal-send", 3, FT_BPF_EV_SIGGEN, 0, 0 },
	{ "signal-discard", 3, FT_BPF_EV_SIGGEN, 0, 0 },
	{ "signal-handle", 3, FT_BPF_EV_SIGDLV, 0, 0 },
	{ "signal-clear", 2, -1, DTD_PROC_CALL_SIGWAIT, FT_BPF_SYS_RETURN },
	{ "fault", 2, FT_BPF_EV_SIGGEN, 0, 0 },
};

/* illumos's exit reasons (<sys/wait.h>'s si_code values for SIGCHLD) */
#define DTD_PROC_CLD_EXITED	1
#define DTD_PROC_CLD_KILLED	2
#define DTD_PROC_CLD_DUMPED	3

/* signal_generate's results: ignored (the rest are sent) */
#define DTD_PROC_SIG_IGNORED	1

/* struct user_regs_struct indexes: the return value; the paths of exec */
#define DTD_PROC_AX		10
#define DTD_PROC_DI		14
#define DTD_PROC_SI		13
#define DTD_PROC_MAXERRNO	4095

static int	dtd_prov_proc_init(void);
static int	dtd_prov_proc_enable(dtd_probe_t *);
static void	dtd_prov_proc_disable(dtd_probe_t *);
static int	dtd_prov_proc_addecb(dtd_probe_t *, const dtd_ecb_t *);
static int	dtd_prov_proc_nargs(const dtd_probe_t *);
static void	dtd_prov_proc_shutdown(void);
static void	dtd_prov_proc_flush(dtd_consumer_t *);
static int	dtd_prov_proc_uses(const dtd_consumer_t *);
static void	dtd_prov_proc_rec(const ft_bpfsysrec_t *);
static void	dtd_prov_proc_drop(int, uint64_t);

const dtd_provider_t dtd_prov_proc = {
	.dpv_name = "proc",
	.dpv_init = dtd_prov_proc_init,
	.dpv_enable = dtd_prov_proc_enable,
	.dpv_disable = dtd_prov_proc_disable,
	.dpv_addecb = dtd_prov_proc_addecb,
	.dpv_nargs = dtd_prov_proc_nargs,
	.dpv_shutdown = dtd_prov_proc_shutdown,
	.dpv_flush = dtd_prov_proc_flush,
};

static const dtd_kcapuser_t dtd_prov_proc_kcap = {
	.ku_rec = dtd_prov_proc_rec,
	.ku_drop = dtd_prov_proc_drop,
};

/*
 * The probes (made at init), those enabled (written on the main thread
 * under elock, read by the drain thread: atomic loads, and under elock
 * to charge drops).
 */
static dtd_probe_t	*dtd_prov_proc_probes[DTD_PROC_NPROBES];
static dtd_probe_t	*dtd_prov_proc_on[DTD_PROC_NPROBES];
static pthread_mutex_t	dtd_prov_proc_elock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t		dtd_prov_proc_nenabled;

static int
dtd_prov_proc_init(void)
{
	int i;

	for (i = 0; i < DTD_PROC_NPROBES; i++)
		if ((dtd_prov_proc_probes[i] = dtd_probe_create(&dtd_prov_proc,
		    "", "", dtd_prov_proc_tab[i].pp_name, NULL)) == NULL)
			return -1;
	return 0;
}

/* p's DTD_PROC_*, or -1 */
static int
dtd_prov_proc_kind(const dtd_probe_t *p)
{
	int i;

	for (i = 0; i < DTD_PROC_NPROBES; i++)
		if (dtd_prov_proc_probes[i] == p)
			return i;
	return -1;
}

static int
dtd_prov_proc_nargs(const dtd_probe_t *p)
{
	int k = dtd_prov_proc_kind(p);

	return k < 0 ? 0 : dtd_prov_proc_tab[k].pp_nargs;
}

/* Has c an ECB on a proc probe? */
static int
dtd_prov_proc_uses(const dtd_consumer_t *c)
{
	return dtd_consumer_uses(c, &dtd_prov_proc);
}

/* Drain thread: enabled probe kind, or NULL. */
static dtd_probe_t *
dtd_prov_proc_probe(int kind)
{
	return __atomic_load_n(&dtd_prov_proc_on[kind], __ATOMIC_ACQUIRE);
}

/*
 * A hit of a proc probe: its record (for its visibility), the tasks its
 * arguments name, and the process's arguments as the record copied
 * them (pr_psargs: a process that has exited is gone from /proc when
 * its event fires).
 */
typedef struct dtd_prochit {
	dtd_hit_t	ph_hit;		/* first: the hooks' argument */
	const ft_bpfsysrec_t *ph_rec;
	dtd_hit_t	ph_subj[2];
	char		ph_psargs[80];	/* illumos's PRARGSZ, with the NUL */
	/* the firing thread's parent's ancestors (dh_anc) */
	const uint32_t	*ph_anc;
	uint32_t	ph_ancbuf[FT_BPF_NANC];
} dtd_prochit_t;

static int
dtd_prov_proc_visible(const dtd_hit_t *h, uid_t uid, gid_t gid)
{
	int v;

	if ((v = dtd_kcap_visible(((const dtd_prochit_t *)(const void *)h)->
	    ph_rec, uid, gid)) == -1)
		return dtd_target_visible(h, uid, gid);
	return v;
}

/* A subject: the task of tgid << 32 | tid id, as far as r knows it. */
static void
dtd_prov_proc_subj(dtd_hit_t *s, uint64_t id)
{
	memset(s, 0, sizeof(*s));
	s->dh_pid = (pid_t)(id >> 32);
	s->dh_tid = (pid_t)(uint32_t)id;
	s->dh_cpu = -1;
	s->dh_ppid = -1;
	s->dh_uid = (uid_t)-1;
	s->dh_gid = (gid_t)-1;
}

/*
 * Fire probe kind for r, in the context of the thread of id (tgid << 32
 * | tid) whose parent is ppid (-1: look it up): r's own, or another r
 * names (a new thread or process, whose credentials and name are its
 * creator's).
 */
static void
dtd_prov_proc_fire(int kind, const ft_bpfsysrec_t *r, uint64_t id,
    pid_t ppid, dtd_prochit_t *ph)
{
	dtd_probe_t *p = dtd_prov_proc_probe(kind);
	ft_perfhit_t sample;
	dtd_hit_t *h = &ph->ph_hit;

	if (p == NULL)
		return;
	memset(&sample, 0, sizeof(sample));
	sample.ph_pid = (pid_t)(id >> 32);
	sample.ph_tid = (pid_t)(uint32_t)id;
	sample.ph_cpu = (int)r->sr_cpu;
	sample.ph_time = r->sr_time;
	/*
	 * The user context, where the record has one (a user thread's
	 * registers where it entered the kernel, all 0 else) and it is the
	 * firing thread's: the record's own, or a new process's, whose
	 * stack is its parent's at the fork (not a new thread's).
	 */
	memcpy(&sample.ph_regs, r->sr_regs, sizeof(r->sr_regs));
	if (sample.ph_regs.cs != 0 && kind != DTD_PROC_LWPSTART) {
		sample.ph_user = 1;
		sample.ph_ip = sample.ph_regs.rip;
		sample.ph_sp = sample.ph_regs.rsp;
		sample.ph_stack = r->sr_stack;
		sample.ph_stklen = r->sr_stklen;
	}
	h->dh_probe = p;
	h->dh_pid = sample.ph_pid;
	h->dh_tid = sample.ph_tid;
	h->dh_cpu = sample.ph_cpu;
	h->dh_timestamp = r->sr_time;
	h->dh_ppid = ppid;
	h->dh_anc = ph->ph_anc != NULL ? ph->ph_anc : r->sr_anc;
	h->dh_nanc = FT_BPF_NANC;
	h->dh_uid = (uid_t)(uint32_t)r->sr_uidgid;
	h->dh_gid = (gid_t)(r->sr_uidgid >> 32);
	h->dh_execname = r->sr_comm;
	/* the record's process's arguments (a new one's, its creator's) */
	if (ph->ph_psargs[0] != '\0')
		h->dh_psargs = ph->ph_psargs;
	h->dh_visible = dtd_prov_proc_visible;
	ph->ph_rec = r;
	dtd_sample_fire_user(h, &sample);
}

/*
 * pr_psargs of r's process, from the arguments the record copied (as
 * dtd_host_psargs makes it of /proc/PID/cmdline); "" if none.
 */
static void
dtd_prov_proc_psargs(const ft_bpfsysrec_t *r, char *a, size_t size)
{
	size_t n = r->sr_caplen, i;

	if (n > size - 1)
		n = size - 1;
	memcpy(a, r->sr_cap, n);
	while (n > 0 && a[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (a[i] == '\0')
			a[i] = ' ';
	a[n] = '\0';
}

/*
 * illumos's fault (<sys/fault.h>'s FLT*) of a signal record: one the
 * kernel sent the thread that made the fault (SIGILL, SIGTRAP, SIGBUS,
 * SIGFPE, SIGSEGV, with a fault's si_code), by its si_code; else 0.
 */
#define DTD_PROC_FLTILL		1
#define DTD_PROC_FLTPRIV	2
#define DTD_PROC_FLTBPT		3
#define DTD_PROC_FLTTRACE	4
#define DTD_PROC_FLTACCESS	5
#define DTD_PROC_FLTBOUNDS	6
#define DTD_PROC_FLTIOVF	7
#define DTD_PROC_FLTIZDIV	8
#define DTD_PROC_FLTFPE		9
static int
dtd_prov_proc_fault(const ft_bpfsysrec_t *r)
{
	int sig = (int)(uint32_t)r->sr_ev[0];
	int code = (int)(r->sr_ev[0] >> 32);

	/* si_code > 0: the kernel's; SI_KERNEL (0x80) is no fault's */
	if (r->sr_ev[1] != r->sr_pidtgid || code <= 0 || code >= 0x80)
		return 0;
	switch (sig) {
	case SIGILL:		/* ILL_PRVOPC 5, ILL_PRVREG 6 */
		return code == 5 || code == 6 ? DTD_PROC_FLTPRIV :
		    DTD_PROC_FLTILL;
	case SIGTRAP:		/* TRAP_TRACE 2 */
		return code == 2 ? DTD_PROC_FLTTRACE : DTD_PROC_FLTBPT;
	case SIGBUS:
		return DTD_PROC_FLTACCESS;
	case SIGFPE:		/* FPE_INTDIV 1, FPE_INTOVF 2 */
		return code == 1 ? DTD_PROC_FLTIZDIV : code == 2 ?
		    DTD_PROC_FLTIOVF : DTD_PROC_FLTFPE;
	case SIGSEGV:		/* SEGV_ACCERR 2 */
		return code == 2 ? DTD_PROC_FLTACCESS : DTD_PROC_FLTBOUNDS;
	}
	return 0;
}

/* The reason of an exit whose wait status is code (illumos's CLD_*). */
static int
dtd_prov_proc_why(uint64_t code)
{
	if ((code & 0x7f) == 0)
		return DTD_PROC_CLD_EXITED;
	return (code & 0x80) ? DTD_PROC_CLD_DUMPED : DTD_PROC_CLD_KILLED;
}

/* Drain thread: a record of the capture. */
static void
dtd_prov_proc_rec(const ft_bpfsysrec_t *r)
{
	static const char none[1] = "";
	dtd_prochit_t ph;
	uint64_t self = r->sr_pidtgid, other, code;
	int flt;
	pid_t pp = r->sr_ppid != 0 ? (pid_t)r->sr_ppid : -1;
	int64_t rv;

	/* the syscall provider's records are none of ours */
	if (r->sr_nr < FT_BPF_SYSMAX && r->sr_nr != SYS_execve &&
	    r->sr_nr != SYS_execveat && r->sr_nr != SYS_rt_sigtimedwait)
		return;
	memset(&ph, 0, sizeof(ph));
	if (r->sr_nr >= FT_BPF_SYSMAX)
		dtd_prov_proc_psargs(r, ph.ph_psargs, sizeof(ph.ph_psargs));
	switch (r->sr_nr) {
	case FT_BPF_EVNR(FT_BPF_EV_FORK):
		other = r->sr_ev[0];
		dtd_prov_proc_subj(&ph.ph_subj[0], other);
		ph.ph_subj[0].dh_uid = (uid_t)(uint32_t)r->sr_uidgid;
		ph.ph_subj[0].dh_gid = (gid_t)(r->sr_uidgid >> 32);
		ph.ph_subj[0].dh_execname = r->sr_comm;
		if (ph.ph_psargs[0] != '\0')
			ph.ph_subj[0].dh_psargs = ph.ph_psargs;
		if ((other >> 32) != (self >> 32)) {
			/* a process: its parent is the caller's process */
			ph.ph_subj[0].dh_ppid = (pid_t)(self >> 32);
			ph.ph_hit.dh_subj[0] = &ph.ph_subj[0];
			ph.ph_hit.dh_args[0] = 1;
			dtd_prov_proc_fire(DTD_PROC_CREATE, r, self, pp, &ph);
			/* the child's parent is the caller, its ancestors hers */
			memset(&ph.ph_hit, 0, sizeof(ph.ph_hit));
			ph.ph_ancbuf[0] = r->sr_ppid;
			memcpy(&ph.ph_ancbuf[1], r->sr_anc,
			    sizeof(ph.ph_ancbuf) - sizeof(ph.ph_ancbuf[0]));
			ph.ph_anc = ph.ph_ancbuf;
			dtd_prov_proc_fire(DTD_PROC_START, r, other,
			    (pid_t)(self >> 32), &ph);
		} else {
			dtd_prov_proc_subj(&ph.ph_subj[1], self);
			ph.ph_subj[1].dh_execname = r->sr_comm;
			ph.ph_subj[1].dh_psargs = ph.ph_subj[0].dh_psargs;
			ph.ph_hit.dh_subj[0] = &ph.ph_subj[0];
			ph.ph_hit.dh_subj[1] = &ph.ph_subj[1];
			ph.ph_hit.dh_args[0] = 1;
			ph.ph_hit.dh_args[1] = 2;
			dtd_prov_proc_fire(DTD_PROC_LWPCREATE, r, self, pp,
			    &ph);
			memset(&ph.ph_hit, 0, sizeof(ph.ph_hit));
			dtd_prov_proc_fire(DTD_PROC_LWPSTART, r, other, pp,
			    &ph);
		}
		break;
	case FT_BPF_EVNR(FT_BPF_EV_EXEC):
		dtd_prov_proc_fire(DTD_PROC_EXECOK, r, self, pp, &ph);
		break;
	case FT_BPF_EVNR(FT_BPF_EV_EXIT):
		if (r->sr_ev[0] == 0) {
			dtd_prov_proc_fire(DTD_PROC_LWPEXIT, r, self, pp, &ph);
			break;
		}
		/* the group's code, else (no exit_group) the thread's */
		code = r->sr_ev[1] != 0 ? r->sr_ev[1] : r->sr_ev[2];
		ph.ph_hit.dh_args[0] = (uint64_t)dtd_prov_proc_why(code);
		dtd_prov_proc_fire(DTD_PROC_EXIT, r, self, pp, &ph);
		break;
	case FT_BPF_EVNR(FT_BPF_EV_SIGGEN):
		/* a fault: the kernel's signal to the thread that made it */
		if ((flt = dtd_prov_proc_fault(r)) != 0) {
			ph.ph_hit.dh_args[0] = (uint64_t)flt;
			dtd_prov_proc_fire(DTD_PROC_FAULT, r, self, pp, &ph);
			memset(&ph.ph_hit, 0, sizeof(ph.ph_hit));
		}
		other = r->sr_ev[1];
		dtd_prov_proc_subj(&ph.ph_subj[0], other);
		dtd_prov_proc_subj(&ph.ph_subj[1], other);
		if (r->sr_ev[2] != 0)
			ph.ph_subj[0].dh_ppid = ph.ph_subj[1].dh_ppid =
			    (pid_t)r->sr_ev[2];
		if (r->sr_tcomm[0] != '\0')
			ph.ph_subj[0].dh_execname = ph.ph_subj[1].dh_execname =
			    r->sr_tcomm;
		ph.ph_hit.dh_subj[0] = &ph.ph_subj[0];
		ph.ph_hit.dh_subj[1] = &ph.ph_subj[1];
		ph.ph_hit.dh_args[0] = 1;
		ph.ph_hit.dh_args[1] = 2;
		ph.ph_hit.dh_args[2] = (uint32_t)r->sr_ev[0];
		dtd_prov_proc_fire(r->sr_ev[3] == DTD_PROC_SIG_IGNORED ?
		    DTD_PROC_SIGDISCARD : DTD_PROC_SIGSEND, r, self, pp, &ph);
		break;
	case FT_BPF_EVNR(FT_BPF_EV_SIGDLV):
		/* a handler of the program's (SIG_DFL 0, SIG_IGN 1) */
		if (r->sr_ev[1] <= 1)
			break;
		ph.ph_hit.dh_args[0] = r->sr_ev[0];
		ph.ph_hit.dh_args[2] = r->sr_ev[1];
		dtd_prov_proc_fire(DTD_PROC_SIGHANDLE, r, self, pp, &ph);
		break;
	case SYS_rt_sigtimedwait:
		/* a pending signal taken by the wait: cleared */
		rv = (int64_t)r->sr_regs[DTD_PROC_AX];
		if (r->sr_return && rv > 0) {
			ph.ph_hit.dh_args[0] = (uint64_t)rv;
			dtd_prov_proc_fire(DTD_PROC_SIGCLEAR, r, self, pp, &ph);
		}
		break;
	case SYS_execve:
	case SYS_execveat:
		rv = (int64_t)r->sr_regs[DTD_PROC_AX];
		if (!r->sr_return) {
			/* the path, as copied at the call */
			if (r->sr_caplen > 0 && r->sr_capstr) {
				ph.ph_hit.dh_argmem = r->sr_cap;
				ph.ph_hit.dh_argmemlen = r->sr_caplen;
				ph.ph_hit.dh_args[0] = (uintptr_t)r->sr_cap;
			} else {
				ph.ph_hit.dh_argmem = none;
				ph.ph_hit.dh_argmemlen = sizeof(none);
				ph.ph_hit.dh_args[0] = (uintptr_t)none;
			}
			dtd_prov_proc_fire(DTD_PROC_EXEC, r, self, pp, &ph);
		} else if (rv < 0 && rv >= -DTD_PROC_MAXERRNO) {
			ph.ph_hit.dh_args[0] = (uint64_t)-rv;
			dtd_prov_proc_fire(DTD_PROC_EXECFAIL, r, self, pp, &ph);
		}
		break;
	}
}

/* Drain thread: n records lost on cpu, to the proc probes' consumers. */
static void
dtd_prov_proc_drop(int cpu, uint64_t n)
{
	pthread_mutex_lock(&dtd_prov_proc_elock);
	dtd_kcap_charge(dtd_prov_proc_on, DTD_PROC_NPROBES, cpu, n);
	pthread_mutex_unlock(&dtd_prov_proc_elock);
}

/*
 * Ask the capture for what the enabled probes need: each event one of
 * them is of, the exec calls (at entry with the path they name, at
 * return), rt_sigtimedwait's returns.  0, or -1.
 */
static int
dtd_prov_proc_want(void)
{
	uint32_t ev[FT_BPF_NEV], call = 0, wait = 0;
	int i, rv = 0;

	memset(ev, 0, sizeof(ev));
	for (i = 0; i < DTD_PROC_NPROBES; i++) {
		if (dtd_prov_proc_on[i] == NULL)
			continue;
		if (dtd_prov_proc_tab[i].pp_ev >= 0)
			ev[dtd_prov_proc_tab[i].pp_ev] = FT_BPF_SYS_ENTRY;
		else if (dtd_prov_proc_tab[i].pp_calls == DTD_PROC_CALL_EXEC)
			call |= dtd_prov_proc_tab[i].pp_when;
		else
			wait |= dtd_prov_proc_tab[i].pp_when;
	}
	if (dtd_kcap_want(&dtd_prov_proc_kcap, SYS_rt_sigtimedwait, wait) ==
	    -1)
		rv = -1;
	for (i = 0; i < FT_BPF_NEV; i++)
		if (dtd_kcap_want(&dtd_prov_proc_kcap, FT_BPF_EVNR(i),
		    ev[i]) == -1)
			rv = -1;
	if (dtd_kcap_want(&dtd_prov_proc_kcap, SYS_execve, call == 0 ? 0 :
	    call | ((call & FT_BPF_SYS_ENTRY) ? FT_BPF_SYS_CAPTURE |
	    FT_BPF_SYS_CAPSPEC(FT_BPF_SYS_STR, DTD_PROC_DI, 0) : 0)) == -1 ||
	    dtd_kcap_want(&dtd_prov_proc_kcap, SYS_execveat, call == 0 ? 0 :
	    call | ((call & FT_BPF_SYS_ENTRY) ? FT_BPF_SYS_CAPTURE |
	    FT_BPF_SYS_CAPSPEC(FT_BPF_SYS_STR, DTD_PROC_SI, 0) : 0)) == -1)
		rv = -1;
	return rv;
}

/* Let the capture go. */
static void
dtd_prov_proc_close(void)
{
	if (!dtd_kcap_holds(&dtd_prov_proc_kcap))
		return;
	dtd_kcap_rele(&dtd_prov_proc_kcap);
}

static void
dtd_prov_proc_set(int kind, dtd_probe_t *p)
{
	pthread_mutex_lock(&dtd_prov_proc_elock);
	__atomic_store_n(&dtd_prov_proc_on[kind], p, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&dtd_prov_proc_elock);
}

static int
dtd_prov_proc_enable(dtd_probe_t *p)
{
	char err[256];
	int kind = dtd_prov_proc_kind(p), e;

	if (kind < 0) {
		errno = EINVAL;
		return -1;
	}
	if (dtd_kcap_hold(&dtd_prov_proc_kcap) == -1)
		return -1;
	if (ft_bpf_sys_events(dtd_kcap_get(), err, sizeof(err)) == -1) {
		e = errno;
		log_info("%s: %s", __func__, err);
		if (dtd_prov_proc_nenabled == 0)
			dtd_prov_proc_close();
		errno = e;
		return -1;
	}
	dtd_kcap_setneeds(dtd_kcap_needs(p));
	dtd_prov_proc_set(kind, p);
	if (dtd_prov_proc_want() == -1) {
		e = errno;
		dtd_prov_proc_set(kind, NULL);
		(void)dtd_prov_proc_want();
		if (dtd_prov_proc_nenabled == 0)
			dtd_prov_proc_close();
		errno = e;
		return -1;
	}
	dtd_prov_proc_nenabled++;
	return 0;
}

/* Another ECB on enabled p: it may need what no other did. */
static int
dtd_prov_proc_addecb(dtd_probe_t *p, const dtd_ecb_t *e)
{
	(void)p;
	dtd_kcap_setneeds(dtd_kcap_ecbneeds(e));
	return 0;
}

static void
dtd_prov_proc_disable(dtd_probe_t *p)
{
	int kind = dtd_prov_proc_kind(p);

	if (!dtd_kcap_holds(&dtd_prov_proc_kcap) || kind < 0)
		return;
	dtd_prov_proc_set(kind, NULL);
	if (dtd_prov_proc_want() == -1)
		log_warn("%s: proc:::%s", __func__, p->dpr_name);
	if (--dtd_prov_proc_nenabled == 0)
		dtd_prov_proc_close();
}

/* Main thread: consumer c stops; the events before now fire first. */
static void
dtd_prov_proc_flush(dtd_consumer_t *c)
{
	if (dtd_kcap_holds(&dtd_prov_proc_kcap) && dtd_prov_proc_uses(c))
		dtd_kcap_flush();
}

static void
dtd_prov_proc_shutdown(void)
{
	dtd_prov_proc_close();
}
