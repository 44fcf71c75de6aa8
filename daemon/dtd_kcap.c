/*
 * dtd_kcap.c: the kernel capture of system calls and process events
 * (fasttrap's ft_bpf_sys_*), shared by the providers that fire from it
 * (syscall, proc): one ring, one drain thread, one count of records lost.
 *
 * A provider holds the capture while it has a probe enabled
 * (dtd_kcap_hold: the first hold opens it and starts its thread, the
 * last release closes it) and says what it wants of each system call
 * number or process event (dtd_kcap_want: FT_BPF_SYS_* bits, its own;
 * the capture is asked for the union of every holder's).  The drain
 * thread reads the ring (woken when it is half full, else every
 * DTD_KCAP_POLLMS) and hands every record to every holder, which
 * fires what it wants of it; records lost are reported to every holder
 * as drops.  Before that, what a record says of its process goes to the
 * processes the daemon observes (an exec, an executable mapping, an
 * exit: the side-band calls, captured while the capture is open).
 *
 * All but the drain thread's work runs on the main thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dtd.h"
#include "ft.h"

/* The ring, and how often the drain thread reads it at least. */
#define DTD_KCAP_RING		(32u << 20)
#define DTD_KCAP_POLLMS		10
#define DTD_KCAP_MAXCPU		256
#define DTD_KCAP_MAXUSERS	4
#define DTD_KCAP_NWORDS		FT_BPF_EVNR(FT_BPF_NEV)

/* The largest error a system call returns (the kernel's MAX_ERRNO). */
#define DTD_KCAP_MAXERRNO	4095
/* struct user_regs_struct indexes: the return value, the third argument */
#define DTD_KCAP_AX		10
#define DTD_KCAP_DX		12

/*
 * The calls whose records say something of their process: a new image
 * (at return), a module (an executable mapping, at return), its end (at
 * entry).  Captured while the capture is open (FT_BPF_SYS_SIDE).
 */
static const uint32_t dtd_kcap_side[] = {
	SYS_execve, SYS_execveat, SYS_mmap, SYS_exit_group
};

static ft_bpfsys_t	*dtd_kcap_cap;
static pthread_t	dtd_kcap_thr;
static int		dtd_kcap_stopfd[2] = { -1, -1 };
static uint64_t		dtd_kcap_lost[DTD_KCAP_MAXCPU];
static size_t		dtd_kcap_stklen;	/* the records' stack copy */
static int		dtd_kcap_anc;		/* ... and ancestry */
static int		dtd_kcap_creds;		/* ... and credentials */

/*
 * The holders and their wants: written on the main thread, the holders
 * read by the drain thread under dtd_kcap_dlock (which also makes one
 * reader of the ring: the drain thread, or a stopping consumer's flush).
 */
static pthread_mutex_t	dtd_kcap_dlock = PTHREAD_MUTEX_INITIALIZER;
static const dtd_kcapuser_t *dtd_kcap_users[DTD_KCAP_MAXUSERS];
static uint32_t		dtd_kcap_words[DTD_KCAP_MAXUSERS][DTD_KCAP_NWORDS];

/* Drain thread: what record r says of its process. */
static void
dtd_kcap_sideband(const ft_bpfsysrec_t *r)
{
	pid_t pid = (pid_t)(r->sr_pidtgid >> 32);
	int64_t rv = (int64_t)r->sr_regs[DTD_KCAP_AX];
	int failed = rv < 0 && rv >= -DTD_KCAP_MAXERRNO;

	if (r->sr_nr >= FT_BPF_SYSMAX)
		return;
	if (r->sr_return && !failed && (r->sr_nr == SYS_execve ||
	    r->sr_nr == SYS_execveat))
		dtd_target_sideband(pid, DTD_TARGET_SB_EXEC);
	else if (r->sr_return && !failed && r->sr_nr == SYS_mmap &&
	    (r->sr_regs[DTD_KCAP_DX] & PROT_EXEC))
		dtd_target_sideband(pid, DTD_TARGET_SB_MODS);
}

/* Drain thread: a record, to every holder. */
static void
dtd_kcap_rec(void *arg, const ft_bpfsysrec_t *r)
{
	int i;

	(void)arg;
	dtd_kcap_sideband(r);
	for (i = 0; i < DTD_KCAP_MAXUSERS; i++)
		if (dtd_kcap_users[i] != NULL)
			dtd_kcap_users[i]->ku_rec(r);
	/* the process ends after its holders have seen its last call */
	if (r->sr_nr == SYS_exit_group && !r->sr_return)
		dtd_target_sideband((pid_t)(r->sr_pidtgid >> 32),
		    DTD_TARGET_SB_EXIT);
}

/* Drain thread: the records lost since the last time, as drops. */
static void
dtd_kcap_lostcheck(void)
{
	uint64_t v[DTD_KCAP_MAXCPU];
	int n, i, k, told = 0;

	if ((n = ft_bpf_sys_lost(dtd_kcap_cap, v, DTD_KCAP_MAXCPU)) <= 0)
		return;
	for (i = 0; i < n; i++) {
		if (v[i] == dtd_kcap_lost[i])
			continue;
		for (k = 0; k < DTD_KCAP_MAXUSERS; k++)
			if (dtd_kcap_users[k] != NULL)
				dtd_kcap_users[k]->ku_drop(i,
				    v[i] - dtd_kcap_lost[i]);
		dtd_kcap_lost[i] = v[i];
		told = 1;
	}
	if (told)
		dtd_ecb_wakeup();
}

/*
 * Fire for every record in the ring, report the lost ones, tell the
 * holders the pass is over.  On the main thread, for a stopping consumer
 * (its provider's dpv_flush, through dtd_kcap_flush): the calls
 * and events before now are in the ring (each program ran in its call,
 * before the call went on), and are fired before END rather than when
 * the thread wakes (a -c target's last calls, made just before it
 * exited, would be lost).
 */
static void
dtd_kcap_pass(int flush)
{
	struct timespec ts;
	uint64_t now = UINT64_MAX;
	int i;

	pthread_mutex_lock(&dtd_kcap_dlock);
	if (dtd_kcap_cap != NULL) {
		ft_bpf_sys_drain(dtd_kcap_cap, dtd_kcap_rec, NULL);
		dtd_kcap_lostcheck();
		if (!flush && clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
			now = (uint64_t)ts.tv_sec * 1000000000ull +
			    (uint64_t)ts.tv_nsec;
		for (i = 0; i < DTD_KCAP_MAXUSERS; i++)
			if (dtd_kcap_users[i] != NULL &&
			    dtd_kcap_users[i]->ku_idle != NULL &&
			    (flush || now != UINT64_MAX))
				dtd_kcap_users[i]->ku_idle(now);
	}
	pthread_mutex_unlock(&dtd_kcap_dlock);
}

void
dtd_kcap_drain(void)
{
	dtd_kcap_pass(0);
}

/* A drain whose holders fire all they held back (a consumer stops). */
void
dtd_kcap_flush(void)
{
	dtd_kcap_pass(1);
}

static void *
dtd_kcap_thread(void *arg)
{
	struct pollfd pfd[2];

	(void)arg;
	pfd[0].fd = dtd_kcap_stopfd[0];
	pfd[0].events = POLLIN;
	pfd[1].fd = ft_bpf_sys_fd(dtd_kcap_cap);
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, DTD_KCAP_POLLMS) == -1 && errno != EINTR) {
			log_warn("%s: poll", __func__);
			break;
		}
		dtd_kcap_drain();
		if (pfd[0].revents != 0)
			break;
	}
	return NULL;
}

/* Close the capture: its thread joined, every record drained. */
static void
dtd_kcap_close(void)
{
	char one = 1;

	if (dtd_kcap_cap == NULL)
		return;
	if (write(dtd_kcap_stopfd[1], &one, 1) != 1)
		log_warn("%s: write", __func__);
	pthread_join(dtd_kcap_thr, NULL);
	close(dtd_kcap_stopfd[0]);
	close(dtd_kcap_stopfd[1]);
	dtd_kcap_stopfd[0] = dtd_kcap_stopfd[1] = -1;
	pthread_mutex_lock(&dtd_kcap_dlock);
	ft_bpf_sys_close(dtd_kcap_cap);
	dtd_kcap_cap = NULL;
	pthread_mutex_unlock(&dtd_kcap_dlock);
	memset(dtd_kcap_lost, 0, sizeof(dtd_kcap_lost));
	dtd_kcap_stklen = 0;
	dtd_kcap_anc = 0;
	dtd_kcap_creds = 0;
	dtd_sample_stop(DTD_SAMPLE_CPU);
	log_debug("%s: kernel capture closed", __func__);
}

/* Open the capture and start its thread: 0, or -1 with errno. */
static int
dtd_kcap_open(void)
{
	char err[256];
	sigset_t all, old;
	size_t i;
	int rv, e;

	if ((dtd_kcap_cap = ft_bpf_sys_open(DTD_KCAP_RING, err,
	    sizeof(err))) == NULL) {
		e = errno;
		log_info("%s: %s", __func__, err);
		errno = e;
		return -1;
	}
	for (i = 0; i < sizeof(dtd_kcap_side) / sizeof(dtd_kcap_side[0]);
	    i++)
		(void)ft_bpf_sys_want(dtd_kcap_cap, dtd_kcap_side[i],
		    FT_BPF_SYS_SIDE);
	if (pipe2(dtd_kcap_stopfd, O_CLOEXEC) == -1) {
		e = errno;
		goto fail;
	}
	/* the thread takes no signal: the main thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rv = pthread_create(&dtd_kcap_thr, NULL, dtd_kcap_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rv != 0) {
		close(dtd_kcap_stopfd[0]);
		close(dtd_kcap_stopfd[1]);
		dtd_kcap_stopfd[0] = dtd_kcap_stopfd[1] = -1;
		e = rv;
		goto fail;
	}
	/* the processes it shows are observed as profile-N's samples' */
	dtd_sample_start(DTD_SAMPLE_CPU);
	log_debug("%s: kernel capture open", __func__);
	return 0;
fail:
	ft_bpf_sys_close(dtd_kcap_cap);
	dtd_kcap_cap = NULL;
	errno = e;
	return -1;
}

static int
dtd_kcap_slot(const dtd_kcapuser_t *u)
{
	int i;

	for (i = 0; i < DTD_KCAP_MAXUSERS; i++)
		if (dtd_kcap_users[i] == u)
			return i;
	return -1;
}

/* Does u hold the capture? */
int
dtd_kcap_holds(const dtd_kcapuser_t *u)
{
	return dtd_kcap_slot(u) != -1;
}

/*
 * u holds the capture from now on (again: a no-op), opened if it was
 * not.  0, or -1 with errno (EPERM: no right to load BPF programs).
 */
int
dtd_kcap_hold(const dtd_kcapuser_t *u)
{
	int i;

	if (dtd_kcap_slot(u) != -1)
		return 0;
	if ((i = dtd_kcap_slot(NULL)) == -1) {
		errno = ENOSPC;
		return -1;
	}
	if (dtd_kcap_cap == NULL && dtd_kcap_open() == -1)
		return -1;
	memset(dtd_kcap_words[i], 0, sizeof(dtd_kcap_words[i]));
	pthread_mutex_lock(&dtd_kcap_dlock);
	dtd_kcap_users[i] = u;
	pthread_mutex_unlock(&dtd_kcap_dlock);
	return 0;
}

/* The word the capture is asked for nr: every holder's bits, side-band. */
static uint32_t
dtd_kcap_word(uint32_t nr)
{
	uint32_t v = 0;
	size_t i;

	for (i = 0; i < DTD_KCAP_MAXUSERS; i++)
		if (dtd_kcap_users[i] != NULL)
			v |= dtd_kcap_words[i][nr];
	for (i = 0; i < sizeof(dtd_kcap_side) / sizeof(dtd_kcap_side[0]);
	    i++)
		if (dtd_kcap_side[i] == nr)
			v |= FT_BPF_SYS_SIDE;
	return v;
}

/*
 * u, a holder, wants bits (FT_BPF_SYS_*) of system call or event nr
 * (FT_BPF_EVNR) from now on, instead of what it wanted.  0, or -1.
 */
int
dtd_kcap_want(const dtd_kcapuser_t *u, uint32_t nr, uint32_t bits)
{
	uint32_t old;
	int i;

	if ((i = dtd_kcap_slot(u)) == -1 || nr >= DTD_KCAP_NWORDS ||
	    dtd_kcap_cap == NULL) {
		errno = EINVAL;
		return -1;
	}
	old = dtd_kcap_words[i][nr];
	dtd_kcap_words[i][nr] = bits;
	if (ft_bpf_sys_want(dtd_kcap_cap, nr, dtd_kcap_word(nr)) == -1) {
		dtd_kcap_words[i][nr] = old;
		return -1;
	}
	return 0;
}

/*
 * u lets the capture go: what it wanted is no longer captured, it sees
 * no more records (its last ones drained first), and the last holder's
 * release closes the capture.
 */
void
dtd_kcap_rele(const dtd_kcapuser_t *u)
{
	uint32_t nr;
	int i, last = 1;

	if ((i = dtd_kcap_slot(u)) == -1)
		return;
	for (nr = 0; nr < DTD_KCAP_NWORDS; nr++)
		if (dtd_kcap_words[i][nr] != 0)
			(void)dtd_kcap_want(u, nr, 0);
	dtd_kcap_drain();
	pthread_mutex_lock(&dtd_kcap_dlock);
	dtd_kcap_users[i] = NULL;
	pthread_mutex_unlock(&dtd_kcap_dlock);
	for (i = 0; i < DTD_KCAP_MAXUSERS; i++)
		if (dtd_kcap_users[i] != NULL)
			last = 0;
	if (last)
		dtd_kcap_close();
}

/* The capture, while some provider holds it (else NULL). */
ft_bpfsys_t *
dtd_kcap_get(void)
{
	return dtd_kcap_cap;
}

/*
 * Drain thread: n records lost on cpu, charged to every consumer with
 * an ECB on one of the np probes (NULL: none) once each (at most
 * DTD_KCAP_MAXSEEN consumers are told apart; past them one may be
 * charged again).  The caller keeps probes from changing meanwhile.
 */
#define DTD_KCAP_MAXSEEN	64
void
dtd_kcap_charge(dtd_probe_t *const *probes, size_t np, int cpu, uint64_t n)
{
	dtd_consumer_t *seen[DTD_KCAP_MAXSEEN];
	uint32_t k, nseen = 0;
	dtd_ecb_t *e;
	size_t i;

	for (i = 0; i < np; i++) {
		dtd_probe_t *p = probes[i];

		if (p == NULL)
			continue;
		pthread_rwlock_rdlock(&p->dpr_lock);
		TAILQ_FOREACH(e, &p->dpr_ecbs, de_link) {
			for (k = 0; k < nseen; k++)
				if (seen[k] == e->de_consumer)
					break;
			if (k < nseen)
				continue;
			dtd_buf_drop(&e->de_consumer->dc_buf, cpu, n);
			if (nseen < DTD_KCAP_MAXSEEN)
				seen[nseen++] = e->de_consumer;
		}
		pthread_rwlock_unlock(&p->dpr_lock);
	}
}

/* The dumpable bits of mm_struct's flags, and "dumpable by its user". */
#define DTD_KCAP_DUMPMASK	3
#define DTD_KCAP_DUMPUSER	1

/*
 * May a consumer of uid and gid (not root) see what record r's thread
 * did?  By what the kernel's ptrace check reads, as it was then (the
 * process may be gone, or its pid another's, when r fires): all its
 * uids uid, all its gids gid, no permitted capability, dumpable by its
 * user.  1 yes, 0 no, -1 the record does not say (judge by the process
 * as it is now).  A record whose credentials were not asked for (taken
 * before any consumer but root's had a clause) is root's alone: its pid
 * may be another process's by now.
 */
int
dtd_kcap_visible(const ft_bpfsysrec_t *r, uid_t uid, gid_t gid)
{
	int i;

	if (r->sr_credok == FT_BPF_CRED_UNASKED)
		return 0;
	if (r->sr_credok != FT_BPF_CRED_OK)
		return -1;
	for (i = 0; i < 8; i++)
		if (r->sr_cred[i] != (uint32_t)(i % 2 == 0 ? uid : gid))
			return 0;
	return r->sr_capprm == 0 &&
	    (r->sr_mmflags & DTD_KCAP_DUMPMASK) == DTD_KCAP_DUMPUSER;
}

/*
 * What a clause on a probe of a holder needs of the records: the user
 * stack, the memory a call names (DTD_KCAP_NEED_*).
 */

/* What DIFO d (or NULL) needs: DTD_KCAP_NEED_* bits. */
static int
dtd_kcap_difoneeds(const dif_difo_t *d)
{
	uint32_t k, v;
	int need = 0;

	for (k = 0; d != NULL && k < d->dd_len; k++) {
		switch (DIF_INSTR_OP(d->dd_buf[k])) {
		case DIF_OP_LDGS:
			v = DIF_INSTR_VAR(d->dd_buf[k]);
			if (v == DIF_VAR_UCALLER || v == DIF_VAR_USTACKDEPTH)
				need |= DTD_KCAP_NEED_STACK;
			break;
		case DIF_OP_CALL:
			v = DIF_INSTR_SUBR(d->dd_buf[k]);
			if (v == DIF_SUBR_COPYIN || v == DIF_SUBR_COPYINSTR ||
			    v == DIF_SUBR_COPYINTO)
				need |= DTD_KCAP_NEED_MEM;
			else if (v == DIF_SUBR_PROGENYOF)
				need |= DTD_KCAP_NEED_ANC;
			break;
		}
	}
	return need;
}

/* What ECB e needs of the records: DTD_KCAP_NEED_* bits. */
int
dtd_kcap_ecbneeds(const dtd_ecb_t *e)
{
	const dtp_stmt_t *st = e->de_stmt;
	uint32_t i, k;
	int need;

	need = dtd_kcap_difoneeds(st->ds_pred);
	/* its hits are judged by the process's credentials at the call */
	if (e->de_consumer->dc_uid != 0)
		need |= DTD_KCAP_NEED_CREDS;
	for (i = 0; i < st->ds_nact; i++) {
		const dtp_action_t *a = &st->ds_act[i];
		const dtp_agg_t *g;

		if (a->da_kind == DTRACEACT_USTACK ||
		    a->da_kind == DTRACEACT_JSTACK)
			need |= DTD_KCAP_NEED_STACK;
		if (e->de_aggs != NULL && (g = e->de_aggs[i]) != NULL) {
			for (k = 0; k < g->dg_nkeys; k++)
				if (g->dg_keys[k].dk_kind == DTP_KEY_USTACK)
					need |= DTD_KCAP_NEED_STACK;
		}
		for (k = 0; k < a->da_ndifo; k++)
			need |= dtd_kcap_difoneeds(a->da_difo[k]);
	}
	return need;
}

/*
 * What the clauses a consumer is enabling on p need of the records (its
 * ECBs are all made before the first is enabled).
 */
int
dtd_kcap_needs(const dtd_probe_t *p)
{
	dtd_consumer_t *c;
	uint32_t i;
	int need = 0;

	for (c = dtd_consumer_next(NULL); c != NULL;
	    c = dtd_consumer_next(c)) {
		for (i = 0; i < c->dc_necb; i++) {
			const dtd_ecb_t *e = c->dc_ecbs[i];

			if (e != NULL && e->de_probe == p)
				need |= dtd_kcap_ecbneeds(e);
		}
	}
	return need;
}

/* The user stack into the records from now on, until the capture closes. */
static void
dtd_kcap_stack(void)
{
	if (dtd_kcap_cap == NULL || dtd_kcap_stklen != 0)
		return;
	if (ft_bpf_sys_stack(dtd_kcap_cap, FT_BPF_STACK) == -1)
		log_warn("%s: stack copy", __func__);
	else
		dtd_kcap_stklen = FT_BPF_STACK;
}

/*
 * What need (DTD_KCAP_NEED_STACK, _ANC, _CREDS) asks of the records,
 * they have from now on until the capture closes: the user stack (a
 * clause walks it), the caller's ancestry (a clause calls progenyof()),
 * its credentials (a consumer that is not root has a clause).
 */
void
dtd_kcap_setneeds(int need)
{
	if (need & DTD_KCAP_NEED_STACK)
		dtd_kcap_stack();
	if ((need & DTD_KCAP_NEED_ANC) && dtd_kcap_cap != NULL &&
	    !dtd_kcap_anc) {
		if (ft_bpf_sys_ancestry(dtd_kcap_cap, 1) == -1)
			log_warn("%s: ancestry", __func__);
		else
			dtd_kcap_anc = 1;
	}
	if ((need & DTD_KCAP_NEED_CREDS) && dtd_kcap_cap != NULL &&
	    !dtd_kcap_creds) {
		if (ft_bpf_sys_creds(dtd_kcap_cap, 1) == -1)
			log_warn("%s: credentials", __func__);
		else
			dtd_kcap_creds = 1;
	}
}

