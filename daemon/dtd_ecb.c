/*
 * dtd_ecb.c: the firing path, the product's hot loop.
 *
 * For each ECB on the probe: run the predicate, then the actions,
 * building the record in a per-thread staging area; commit it to the
 * hit CPU's principal buffer in one copy.  Building the record outside
 * the buffer keeps the per-CPU lock held only for a memcpy, and a fault
 * discards the partial record by simply not committing it.  A fault
 * fires the consumer's dtrace:::ERROR ECBs instead (a fault inside
 * those is only counted).  ustack() records the pid and the program
 * counters the hit's dh_ustack gives (usym() and friends: the pid and
 * the address), stack() the kernel's the hit carries (dh_kpcs: a
 * profile sample's, taken in the kernel; none for the others, an empty
 * stack); stop() and raise() signal the thread that hit, for a
 * consumer allowed destructive actions, while it waits for us.
 *
 * What the firing path has to tell (exit(), a full fill buffer, a
 * target's exit or exec seen on a tracer thread) it leaves as state in
 * the consumer or the target and rings the wake-up hook
 * (dtd_ecb_wakeup): the main thread, woken, reads the state and tells
 * the clients.  Nothing here calls up into the consumer or the client.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/syscall.h>

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dtd.h"

/* Who wakes the main thread: set by the connection (dtd_client.c). */
static void	(*dtd_ecb_wakefn)(void);

/* Per-thread staging: scratch for DIF, the record, an aggregation key. */
static __thread char	*dtd_ecb_scratch;
static __thread size_t	dtd_ecb_scratchsize;
static __thread char	*dtd_ecb_rec;
static __thread size_t	dtd_ecb_recsize;
static __thread char	*dtd_ecb_key;
static __thread size_t	dtd_ecb_keysize;

/*
 * this-> variables live for one firing: all of one consumer's ECBs on
 * one probe hit.  A firing runs on one thread, so each thread keeps the
 * storage; the second one serves the ERROR firing nested in a faulting
 * one, which must not clear the outer firing's variables.
 */
static __thread dif_lstate_t	dtd_ecb_lstate[2];
static __thread int		dtd_ecb_depth;

static void	dtd_ecb_run(dtd_ecb_t *, const dtd_hit_t *, dif_lstate_t *);

/*
 * Firings run on tracer threads that come and go with their processes:
 * a thread's staging storage is freed when it exits.
 */
static pthread_key_t	dtd_ecb_tlskey;
static pthread_once_t	dtd_ecb_tlsonce = PTHREAD_ONCE_INIT;
static __thread int	dtd_ecb_tlsset;

static void
dtd_ecb_tls_free(void *arg)
{
	(void)arg;
	free(dtd_ecb_scratch);
	free(dtd_ecb_rec);
	free(dtd_ecb_key);
	dtd_ecb_scratch = dtd_ecb_rec = dtd_ecb_key = NULL;
	dtd_ecb_scratchsize = dtd_ecb_recsize = dtd_ecb_keysize = 0;
	dif_dvar_local_fini(&dtd_ecb_lstate[0]);
	dif_dvar_local_fini(&dtd_ecb_lstate[1]);
}

static void
dtd_ecb_tls_once(void)
{
	(void)pthread_key_create(&dtd_ecb_tlskey, dtd_ecb_tls_free);
}

/* Arrange for this thread's staging storage to be freed at its exit. */
static void
dtd_ecb_tls_register(void)
{
	if (dtd_ecb_tlsset)
		return;
	pthread_once(&dtd_ecb_tlsonce, dtd_ecb_tls_once);
	if (pthread_setspecific(dtd_ecb_tlskey, &dtd_ecb_tlsset) == 0)
		dtd_ecb_tlsset = 1;
}

/* Any thread: set the hook (once, at start) that wakes the main thread. */
void
dtd_ecb_onwake(void (*fn)(void))
{
	__atomic_store_n(&dtd_ecb_wakefn, fn, __ATOMIC_RELEASE);
}

/* Any thread: wake the main thread to look at what changed. */
void
dtd_ecb_wakeup(void)
{
	void (*fn)(void) = __atomic_load_n(&dtd_ecb_wakefn, __ATOMIC_ACQUIRE);

	if (fn != NULL)
		fn();
}

static int	dtd_ecb_claim(dtd_consumer_t *, int);
static void	dtd_ecb_stop(dtd_consumer_t *, int, int);

/*
 * Stop tracing from the firing path (any thread): exit() or a full fill
 * buffer (reason DT_REASON_*).  The first reason wins, and it is in
 * place before anyone can see the consumer draining; the main thread,
 * woken, sends the NOTIFY.
 */
void
dtd_ecb_drain(dtd_consumer_t *c, int reason, int status)
{
	if (dtd_ecb_claim(c, reason) == 1)
		dtd_ecb_stop(c, reason, status);
}

/*
 * Claim stopping c's tracing for reason: 1 if this caller is the first,
 * 0 if another reason or firing came first, -1 if c is not tracing
 * (exit() in END: nothing to stop).  exit() in BEGIN drains too.
 */
static int
dtd_ecb_claim(dtd_consumer_t *c, int reason)
{
	int none = DT_REASON_NONE, act;

	act = __atomic_load_n(&c->dc_activity, __ATOMIC_ACQUIRE);
	if (act != DT_ACT_ACTIVE && act != DTD_ACT_WARMUP)
		return -1;
	return __atomic_compare_exchange_n(&c->dc_reason, &none, reason, 0,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Stop c's tracing for reason, which this caller claimed. */
static void
dtd_ecb_stop(dtd_consumer_t *c, int reason, int status)
{
	int expect;

	if (reason == DT_REASON_EXIT)
		c->dc_exitstatus = status;
	expect = __atomic_load_n(&c->dc_activity, __ATOMIC_ACQUIRE);
	if (expect != DT_ACT_ACTIVE && expect != DTD_ACT_WARMUP)
		return;
	if (!__atomic_compare_exchange_n(&c->dc_activity, &expect,
	    DT_ACT_DRAINING, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&c->dc_notify, 1, __ATOMIC_RELEASE);
	dtd_ecb_wakeup();
}

uint64_t
dtd_ecb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int
dtd_ecb_cpu(void)
{
	int c = sched_getcpu();

	return c < 0 ? 0 : c;
}

/*
 * The CPU of hit h, asked of its backend on first need: the hit is the
 * backend's own object, writable, though the firing path passes it const.
 */
int
dtd_ecb_hitcpu(const dtd_hit_t *h)
{
	if (h->dh_cpu < 0 && h->dh_getcpu != NULL)
		((dtd_hit_t *)(uintptr_t)h)->dh_cpu = h->dh_getcpu(h);
	return h->dh_cpu < 0 ? 0 : h->dh_cpu;
}

/* A hit in the daemon's own context (tick). */
void
dtd_ecb_hit_self(dtd_hit_t *h, dtd_probe_t *p)
{
	memset(h, 0, sizeof(*h));
	h->dh_pid = getpid();
	h->dh_tid = (pid_t)syscall(SYS_gettid);
	h->dh_nothread = 1;
	h->dh_cpu = dtd_ecb_cpu();
	h->dh_timestamp = dtd_ecb_now();
	h->dh_probe = p;
	h->dh_ppid = getppid();
	h->dh_uid = getuid();
	h->dh_gid = getgid();
}

/*
 * A hit in a consumer's context (BEGIN, END): the dtrace(1) client's.
 * Under -x cpu=N they run as on CPU N, the one that has buffers: they
 * belong to no CPU, and an exit() in BEGIN must not be lost.
 */
void
dtd_ecb_hit_consumer(dtd_hit_t *h, dtd_probe_t *p, dtd_consumer_t *c)
{
	memset(h, 0, sizeof(*h));
	h->dh_pid = c->dc_pid;
	h->dh_tid = c->dc_pid;
	h->dh_cpu = c->dc_opts.do_cpu != -1 ? c->dc_opts.do_cpu : dtd_ecb_cpu();
	h->dh_timestamp = dtd_ecb_now();
	h->dh_probe = p;
	h->dh_consumer = c;
	h->dh_ppid = c->dc_ppid;
	h->dh_uid = c->dc_uid;
	h->dh_gid = c->dc_gid;
	h->dh_execname = c->dc_execname;
}

static char *
dtd_ecb_stage(char **bufp, size_t *sizep, size_t need)
{
	char *p;

	if (need <= *sizep)
		return *bufp;
	dtd_ecb_tls_register();
	if ((p = realloc(*bufp, need)) == NULL)
		return NULL;
	*bufp = p;
	*sizep = need;
	return p;
}

/*
 * Start a firing of consumer c: clear this-> and strtok()'s position (an
 * O(1) generation bump), first growing the storage to c's variables and
 * strsize.  NULL if it cannot grow: LDLS and STLS then fault, and the
 * firing reports it.
 */
static dif_lstate_t *
dtd_ecb_lstate_begin(dif_lstate_t *ls, const dtd_consumer_t *c)
{
	/*
	 * A slot holds a string (strsize characters and its NUL) or a
	 * struct; 8-aligned, so that the next slot's members are.
	 */
	uint32_t ssize = (c->dc_opts.do_strsize + 1 + 7) & ~7u;

	if (ls->dl_tok == NULL || ls->dl_nvars < c->dc_nlocals ||
	    ls->dl_ssize < ssize) {
		uint32_t n = ls->dl_nvars > c->dc_nlocals ? ls->dl_nvars :
		    c->dc_nlocals;

		if (ls->dl_ssize > ssize)
			ssize = ls->dl_ssize;
		dif_dvar_local_fini(ls);
		dtd_ecb_tls_register();
		if (dif_dvar_local_init(ls, n, ssize) == -1)
			return NULL;
	}
	dif_dvar_local_reset(ls);
	return ls;
}

void
dtd_ecb_fire(const dtd_hit_t *h)
{
	dtd_probe_t *p = h->dh_probe;
	dtd_consumer_t *c, *last = NULL;
	dif_lstate_t *ls0, *ls = NULL;
	dtd_ecb_t *e;
	int anystate, warmup, act;

	ls0 = &dtd_ecb_lstate[dtd_ecb_depth > 0];
	dtd_ecb_depth++;
	anystate = p->dpr_id == DTD_PROBE_END || p->dpr_id == DTD_PROBE_ERROR;
	warmup = p->dpr_id == DTD_PROBE_BEGIN || p->dpr_id == DTD_PROBE_ERROR;
	pthread_rwlock_rdlock(&p->dpr_lock);
	TAILQ_FOREACH(e, &p->dpr_ecbs, de_link) {
		c = e->de_consumer;
		if (h->dh_consumer != NULL && c != h->dh_consumer)
			continue;
		act = __atomic_load_n(&c->dc_activity, __ATOMIC_ACQUIRE);
		if (act != DT_ACT_ACTIVE &&
		    !(anystate && act == DT_ACT_DRAINING) &&
		    !(warmup && act == DTD_ACT_WARMUP))
			continue;
		if (c->dc_opts.do_cpu != -1 && c->dc_opts.do_cpu != dtd_ecb_hitcpu(h))
			continue;
		if (h->dh_private && c->dc_uid != 0 &&
		    (c->dc_uid != h->dh_uid || (h->dh_visible != NULL &&
		    !h->dh_visible(h, c->dc_uid, c->dc_gid))))
			continue;	/* not a process it may trace */
		/* a consumer's ECBs on a probe are adjacent: enabled at GO */
		if (c != last) {
			ls = dtd_ecb_lstate_begin(ls0, c);
			last = c;
		}
		dtd_ecb_run(e, h, ls);
	}
	pthread_rwlock_unlock(&p->dpr_lock);
	dtd_ecb_depth--;
}

static void
dtd_ecb_error(const dtd_ecb_t *e, const dtd_hit_t *h, uint32_t ndx,
    const dif_mstate_t *ms)
{
	dtd_consumer_t *c = e->de_consumer;
	dtd_hit_t eh;

	__atomic_add_fetch(&c->dc_errors, 1, __ATOMIC_RELAXED);
	log_debug("%s: epid %u: %s at action %u, DIF offset %zu, addr 0x%llx",
	    __func__, e->de_epid, dif_fault_name(ms->dm_fault), ndx,
	    ms->dm_faultpc * sizeof(dif_instr_t),
	    (unsigned long long)ms->dm_illval);
	if (h->dh_probe->dpr_id == DTD_PROBE_ERROR)
		return;
	eh = *h;
	eh.dh_probe = dtd_probe_lookup(DTD_PROBE_ERROR);
	eh.dh_consumer = c;
	memset(eh.dh_args, 0, sizeof(eh.dh_args));
	eh.dh_argsp = 0;
	eh.dh_args[1] = e->de_epid;
	eh.dh_args[2] = ndx;
	/* illumos reports the byte offset of the faulting instruction */
	eh.dh_args[3] = ms->dm_faultpc * sizeof(dif_instr_t);
	eh.dh_args[4] = (uint64_t)ms->dm_fault;
	eh.dh_args[5] = ms->dm_illval;
	dtd_ecb_fire(&eh);
}

static void
dtd_ecb_putint(char *dst, uint64_t v, uint32_t size)
{
	uint32_t i;

	for (i = 0; i < size; i++)
		dst[i] = (char)(v >> (8 * i));
}

/*
 * Copy a by-ref value of at most size bytes into zeroed dst; strings stop
 * at their NUL, and at size - 1 bytes so that one always follows (a
 * string's record is strsize + 1 bytes: strsize characters and the NUL).
 */
static int
dtd_ecb_putref(dif_mstate_t *ms, const dif_difo_t *d, uint64_t v,
    char *dst, uint32_t size)
{
	size_t n = size;

	/* a string has at least its NUL: an empty reach is a bad address */
	if (d->dd_rtype.dt_kind == DIF_TYPE_STRING) {
		if (dif_vm_canload(ms, d, v, 1))
			n = dif_vm_strlen(ms, d, v, size - 1);
		else
			n = 1;
	}
	if (!dif_vm_canload(ms, d, v, n)) {
		if (ms->dm_fault == 0) {
			ms->dm_fault = DIF_FLT_BADADDR;
			ms->dm_illval = v;
		}
		return -1;
	}
	memcpy(dst, (const void *)(uintptr_t)v, n);
	return 0;
}

/*
 * A user stack as ustack() records it: the pid, then nframes program
 * counters, 0 past the last (no user context: none at all).
 */
static void
dtd_ecb_ustack(const dtd_hit_t *h, char *dst, uint32_t nframes)
{
	uint64_t pcs[DTRACE_USTACK_MAXFRAMES];
	int n = 0, i;

	if (nframes > DTRACE_USTACK_MAXFRAMES)
		nframes = DTRACE_USTACK_MAXFRAMES;
	dtd_ecb_putint(dst, (uint64_t)h->dh_pid, 8);
	if (h->dh_ustack != NULL && !h->dh_nothread)
		n = h->dh_ustack(h, pcs, nframes);
	for (i = 0; i < n; i++)
		dtd_ecb_putint(dst + 8 + 8 * i, pcs[i], 8);
}

/*
 * A kernel stack as stack() records it: nframes program counters, the
 * hit's first, 0 past the last (no kernel context: none at all).
 */
static void
dtd_ecb_kstack(const dtd_hit_t *h, char *dst, uint32_t nframes)
{
	uint32_t n = h->dh_nkpcs < nframes ? h->dh_nkpcs : nframes;

	if (h->dh_kpcs != NULL && n > 0)
		memcpy(dst, h->dh_kpcs, (size_t)n * 8);
}

static int
dtd_ecb_isref(const dif_difo_t *d)
{
	return d->dd_rtype.dt_kind == DIF_TYPE_STRING ||
	    (d->dd_rtype.dt_flags & DIF_TF_BYREF);
}

static int
dtd_ecb_agg(dtd_consumer_t *c, const dtd_hit_t *h, dif_mstate_t *ms,
    const dtp_action_t *a, const dtp_agg_t *g)
{
	size_t keysize = dt_proto_agg_keysize(g), off = 0;
	uint64_t v, val = 0, incr = 1;
	char *key;
	uint32_t j;

	if ((key = dtd_ecb_stage(&dtd_ecb_key, &dtd_ecb_keysize,
	    keysize + 8)) == NULL) {
		ms->dm_fault = DIF_FLT_NOSCRATCH;
		return -1;
	}
	memset(key, 0, keysize);
	for (j = 0; j < g->dg_nkeys; j++) {
		const dif_difo_t *d = a->da_difo[j];
		uint32_t ksize = g->dg_keys[j].dk_size;

		v = dif_vm_exec(d, ms);
		if (ms->dm_fault)
			return -1;
		switch (g->dg_keys[j].dk_kind) {
		case DTP_KEY_STRING:
			if (dtd_ecb_putref(ms, d, v, key + off, ksize) == -1)
				return -1;
			break;
		case DTP_KEY_USTACK:
			dtd_ecb_ustack(h, key + off, ksize / 8 - 1);
			break;
		case DTP_KEY_STACK:
			dtd_ecb_kstack(h, key + off, ksize / 8);
			break;
		case DTP_KEY_USYM:
		case DTP_KEY_UMOD:
		case DTP_KEY_UADDR:
		case DTP_KEY_SYM:
		case DTP_KEY_MOD:
			/* a kernel address is no process's: keys merge */
			dtd_ecb_putint(key + off, g->dg_keys[j].dk_kind ==
			    DTP_KEY_SYM || g->dg_keys[j].dk_kind == DTP_KEY_MOD ?
			    0 : (uint64_t)h->dh_pid, 8);
			dtd_ecb_putint(key + off + 8, v, 8);
			break;
		default:
			dtd_ecb_putint(key + off, v, ksize);
			break;
		}
		off += (ksize + 7) & ~(size_t)7;
	}
	/* then the function's value and, for a histogram, its increment */
	if (a->da_ndifo > g->dg_nkeys) {
		val = dif_vm_exec(a->da_difo[g->dg_nkeys], ms);
		if (ms->dm_fault)
			return -1;
	}
	if (a->da_ndifo > g->dg_nkeys + 1) {
		incr = dif_vm_exec(a->da_difo[g->dg_nkeys + 1], ms);
		if (ms->dm_fault)
			return -1;
	}
	/* a full aggregation buffer is a drop, counted by dtd_agg_update */
	/* any CPU's share will do: do not ask the backend for the hit's */
	(void)dtd_agg_update(&c->dc_agg, (h->dh_cpu >= 0 ? h->dh_cpu :
	    dtd_ecb_cpu()) % c->dc_agg.da_ncpu, g,
	    key, (uint32_t)keysize, val, incr);
	return 0;
}

/*
 * speculate(id), commit(id), discard(id).  An id past nspec is an
 * illegal operation, as in illumos; id 0 is always accepted and does
 * nothing.  commit() first puts its own ECB's record in the principal
 * buffer (*recp: nothing may be recorded after a commit) so that it
 * comes before the committed records, as illumos orders them.
 */
static int
dtd_ecb_spec(const dtd_ecb_t *e, const dtd_hit_t *h, dif_mstate_t *ms,
    uint32_t kind, uint64_t id, char **recp)
{
	dtd_consumer_t *c = e->de_consumer;

	if (c->dc_spec == NULL || !dtd_spec_valid(c->dc_spec, id)) {
		ms->dm_fault = DIF_FLT_ILLOP;
		ms->dm_illval = id;
		return -1;
	}
	switch (kind) {
	case DTRACEACT_COMMIT:
		if (*recp != NULL && dtd_buf_write(&c->dc_buf, dtd_ecb_hitcpu(h),
		    h->dh_tid, *recp, e->de_recsize) == DTD_BUF_FILLED)
			dtd_ecb_drain(c, DT_REASON_FILL, 0);
		*recp = NULL;
		if (dtd_spec_commit(c->dc_spec, id, dtd_ecb_hitcpu(h), &c->dc_buf,
		    h->dh_tid, h->dh_timestamp) == DTD_BUF_FILLED)
			dtd_ecb_drain(c, DT_REASON_FILL, 0);
		break;
	case DTRACEACT_DISCARD:
		dtd_spec_discard(c->dc_spec, id, dtd_ecb_hitcpu(h), h->dh_timestamp);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * stop() and raise(sig), for a consumer allowed them, in a traced
 * thread that waits for us (dh_uwrite): the signal is pending when the
 * thread resumes.  stop() leaves the whole process stopped, as illumos
 * does; SIGCONT resumes it.  A bad signal number is an illegal operation.
 */
static int
dtd_ecb_signal(const dtd_ecb_t *e, const dtd_hit_t *h, dif_mstate_t *ms,
    uint32_t kind, uint64_t sig)
{
	if (!e->de_consumer->dc_allowdestr || h->dh_uwrite == NULL)
		return 0;
	if (kind == DTRACEACT_STOP) {
		/*
		 * To the thread that hit: it stops the whole process as it
		 * leaves the probe, before it runs on (a process-directed
		 * signal may wait for a later stop).
		 */
		(void)syscall(SYS_tgkill, h->dh_pid, h->dh_tid, SIGSTOP);
		return 0;
	}
	if (sig == 0 || sig >= (uint64_t)NSIG) {
		ms->dm_fault = DIF_FLT_ILLOP;
		ms->dm_illval = sig;
		return -1;
	}
	(void)syscall(SYS_tgkill, h->dh_pid, h->dh_tid, (int)sig);
	return 0;
}

/*
 * chill(ns): spin for ns nanoseconds while the thread that hit waits,
 * bounded as illumos bounds it: at most 500 ms of chill in any second
 * on one tracer thread (illumos: on one CPU); asking for more is an
 * illegal operation and chills nothing.  Only where the thread waits
 * for us (a synchronous backend), under -w.
 */
#define DTD_ECB_CHILL_MAX	500000000ULL
#define DTD_ECB_CHILL_INTERVAL	1000000000ULL

static __thread uint64_t dtd_ecb_chillmark, dtd_ecb_chilled;

static uint64_t
dtd_ecb_chill_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int
dtd_ecb_chill(const dtd_ecb_t *e, const dtd_hit_t *h, dif_mstate_t *ms,
    uint64_t ns)
{
	uint64_t now, end;

	if (!e->de_consumer->dc_allowdestr || h->dh_uwrite == NULL)
		return 0;
	now = dtd_ecb_chill_now();
	if (now - dtd_ecb_chillmark > DTD_ECB_CHILL_INTERVAL) {
		dtd_ecb_chillmark = now;
		dtd_ecb_chilled = 0;
	}
	if (ns > DTD_ECB_CHILL_MAX || dtd_ecb_chilled + ns >
	    DTD_ECB_CHILL_MAX) {
		ms->dm_fault = DIF_FLT_ILLOP;
		ms->dm_illval = ns;
		return -1;
	}
	dtd_ecb_chilled += ns;
	for (end = now + ns; dtd_ecb_chill_now() < end;)
		;
	return 0;
}

static void
dtd_ecb_run(dtd_ecb_t *e, const dtd_hit_t *h, dif_lstate_t *ls)
{
	dtd_consumer_t *c = e->de_consumer;
	const dtp_stmt_t *s = e->de_stmt;
	size_t scratch = 16384;
	dif_mstate_t ms;
	dtd_fire_t f;
	char *rec = NULL;
	uint64_t v, specid = 0;
	uint32_t i, ndx = 0;
	int exiting = 0, status = 0, speculating = 0;

	if (scratch < (size_t)c->dc_opts.do_strsize * 8)
		scratch = (size_t)c->dc_opts.do_strsize * 8;
	if (dtd_ecb_stage(&dtd_ecb_scratch, &dtd_ecb_scratchsize,
	    scratch) == NULL) {
		__atomic_add_fetch(&c->dc_errors, 1, __ATOMIC_RELAXED);
		return;
	}
	dif_mstate_init(&ms, &dtd_host, &f, &c->dc_vstate, dtd_ecb_scratch,
	    scratch, c->dc_opts.do_strsize);
	dtd_host_init(&f, h, e, &ms);
	/*
	 * self-> is keyed by the hitting thread: for tick, as illumos's
	 * tick has the thread it interrupts, the daemon's timer thread
	 * that fires it; an idle CPU's profile sample has none.
	 */
	ms.dm_tkey = (uint64_t)(uint32_t)h->dh_tid;
	ms.dm_lstate = ls;

	if (s->ds_pred != NULL) {
		v = dif_vm_exec(s->ds_pred, &ms);
		if (ms.dm_fault)
			goto fault;
		if (v == 0)
			goto done;
	}
	if (e->de_recsize > 0) {
		if ((rec = dtd_ecb_stage(&dtd_ecb_rec, &dtd_ecb_recsize,
		    e->de_recsize)) == NULL) {
			ms.dm_fault = DIF_FLT_NOSCRATCH;
			goto fault;
		}
		memset(rec, 0, e->de_recsize);
		dt_proto_rechdr_put(rec, e->de_epid, h->dh_timestamp);
	}
	for (i = 0; i < s->ds_nact; i++) {
		const dtp_action_t *a = &s->ds_act[i];

		ndx = i + 1;
		if (DTRACEACT_ISAGG(a->da_kind)) {
			if (dtd_ecb_agg(c, h, &ms, a, e->de_aggs[i]) == -1)
				goto fault;
			continue;
		}
		if (a->da_kind == DTRACEACT_STOP) {
			(void)dtd_ecb_signal(e, h, &ms, a->da_kind, 0);
			continue;
		}
		if (a->da_kind == DTRACEACT_USTACK) {
			if (rec != NULL)
				dtd_ecb_ustack(h, rec + DTRACE_RECHDR_SIZE +
				    a->da_offset,
				    DTRACE_USTACK_NFRAMES(a->da_arg));
			continue;
		}
		if (a->da_kind == DTRACEACT_STACK) {
			if (rec != NULL)
				dtd_ecb_kstack(h, rec + DTRACE_RECHDR_SIZE +
				    a->da_offset, (uint32_t)a->da_arg);
			continue;
		}
		if (a->da_ndifo == 0)
			continue;
		v = dif_vm_exec(a->da_difo[0], &ms);
		if (ms.dm_fault)
			goto fault;
		/*
		 * As illumos's: while tracing, one exit() is recorded, the
		 * first; a firing on another thread that comes to its exit()
		 * after it (two CPUs' samples at once) records nothing.  END's
		 * and ERROR's, once tracing has stopped, stop nothing.
		 */
		if (a->da_kind == DTRACEACT_EXIT) {
			status = (int)v;
			exiting = dtd_ecb_claim(c, DT_REASON_EXIT);
			if (exiting == 0 || (exiting == -1 &&
			    h->dh_probe->dpr_id != DTD_PROBE_END &&
			    h->dh_probe->dpr_id != DTD_PROBE_ERROR))
				goto done;
		}
		if (a->da_kind == DTRACEACT_RAISE) {
			if (dtd_ecb_signal(e, h, &ms, a->da_kind, v) == -1)
				goto fault;
			continue;
		}
		if (a->da_kind == DTRACEACT_CHILL) {
			if (dtd_ecb_chill(e, h, &ms, v) == -1)
				goto fault;
			continue;
		}
		if ((a->da_kind & 0xff00) == DTRACEACT_SPECULATIVE) {
			if (dtd_ecb_spec(e, h, &ms, a->da_kind, v, &rec) == -1)
				goto fault;
			if (a->da_kind == DTRACEACT_SPECULATE) {
				speculating = 1;
				specid = v;
			}
			continue;
		}
		if (a->da_size == 0 || rec == NULL)
			continue;
		if (a->da_kind == DTRACEACT_USYM ||
		    a->da_kind == DTRACEACT_UMOD ||
		    a->da_kind == DTRACEACT_UADDR ||
		    a->da_kind == DTRACEACT_SYM ||
		    a->da_kind == DTRACEACT_MOD) {
			/*
			 * the pid names the process the address is in (a
			 * kernel address, sym()'s, keeps the layout, pid 0)
			 */
			dtd_ecb_putint(rec + DTRACE_RECHDR_SIZE + a->da_offset,
			    a->da_kind == DTRACEACT_SYM ||
			    a->da_kind == DTRACEACT_MOD ? 0 :
			    (uint64_t)h->dh_pid, 8);
			dtd_ecb_putint(rec + DTRACE_RECHDR_SIZE + a->da_offset +
			    8, v, 8);
		} else if (dtd_ecb_isref(a->da_difo[0])) {
			if (dtd_ecb_putref(&ms, a->da_difo[0], v,
			    rec + DTRACE_RECHDR_SIZE + a->da_offset,
			    a->da_size) == -1)
				goto fault;
		} else
			dtd_ecb_putint(rec + DTRACE_RECHDR_SIZE + a->da_offset,
			    v, a->da_size);
	}
	/*
	 * A speculative record goes to its speculation (a drop there is
	 * counted by dtd_spec).  Else a full fill buffer stops tracing; a
	 * drop is counted by dtd_buf.
	 */
	if (rec != NULL && speculating)
		(void)dtd_spec_write(c->dc_spec, specid, dtd_ecb_hitcpu(h), rec,
		    e->de_recsize);
	else if (rec != NULL && dtd_buf_write(&c->dc_buf, dtd_ecb_hitcpu(h),
	    h->dh_tid, rec, e->de_recsize) == DTD_BUF_FILLED) {
		/* a record that did not fit: its exit() is never seen */
		if (exiting == 1) {
			__atomic_store_n(&c->dc_reason, DT_REASON_FILL,
			    __ATOMIC_RELEASE);
			exiting = 0;
			dtd_ecb_stop(c, DT_REASON_FILL, 0);
		} else
			dtd_ecb_drain(c, DT_REASON_FILL, 0);
	}
	if (exiting == 1)
		dtd_ecb_stop(c, DT_REASON_EXIT, status);
	goto done;
fault:
	dtd_ecb_error(e, h, ndx, &ms);
done:
	/* the dynamic variables lent to the clause, given back */
	dif_mstate_fini(&ms);
}
