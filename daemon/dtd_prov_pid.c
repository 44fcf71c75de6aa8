/*
 * dtd_prov_pid.c: the pid provider, pid<PID>:<module>:<function>:<name>
 * with names entry, return and hex instruction offsets, over the
 * fasttrap library (fasttrap/ft.h).  The processes are dtd_target.c's
 * (grab, privilege, exits, module maps); this file makes, resolves and
 * enables the probes in them.
 *
 * Probes.  Each traced pid gets its own provider, named "pid1234",
 * made with its first probe and kept while a probe of it is (probes
 * point at their provider).  A consumer sees, creates and enables
 * probes only in its own targets.  A probe's argument holds the runtime
 * addresses of its sites and the generation of the image it was
 * resolved in (dtd_target_gen): a new process that reuses the pid, or
 * an exec, gets a new generation, and stale probes neither match nor
 * enable.  At an exec or a library change the target's tracer thread
 * waits while dpv_retarget resolves the probes again.
 *
 * Threads.  Probe creation, enabling, disabling and resolving happen on
 * the main thread; dpv_siteargs runs on the tracer thread of a hit.
 *
 * Backends (fasttrap/ft.h).  A target is grabbed under ptrace; the first
 * program a consumer loads picks its backend (dtd_prov_pid_load):
 * -x backend=ptrace, uprobe, or auto (the default): uprobes when the
 * daemon may use them and no clause that can fire in a pid provider
 * needs the thread stopped or its memory as at the hit (destructive
 * actions, copyout and copyoutstr; copyin, copyinstr, copyinto, ustack()
 * and ustackdepth), for a running process (-p) without -Z: the uprobe
 * backend follows exec and dlopen only after the fact, and -c commands
 * and -Z expect them followed without a miss.  One backend per process:
 * a later consumer that needs ptrace on a process traced with uprobes
 * is refused, and so are destructive actions under -x backend=uprobe.
 * Under uprobes the sites are put in place (ft_proc_sync, by
 * dtd_target.c) in a batch when a consumer's probes are enabled and
 * when a consumer goes.
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

/* -x backend= */
#define DTD_PID_BACKEND_AUTO	0
#define DTD_PID_BACKEND_PTRACE	1
#define DTD_PID_BACKEND_UPROBE	2
#define DTD_PID_BACKEND_INLINE	3

/* what the client is told a target is traced with: the same numbers */
_Static_assert(DT_BACKEND_PTRACE == FT_BACKEND_PTRACE &&
    DT_BACKEND_UPROBE == FT_BACKEND_UPROBE &&
    DT_BACKEND_INLINE == FT_BACKEND_INLINE, "backend numbers");

#define DTD_PID_RINGSIZE	(8UL << 20)	/* a uprobe ring, default */

/* A consumer's options: *dtd_provider_state(c, &dtd_prov_pid). */
typedef struct dtd_pidcons {
	int		pc_zdefs;	/* -Z: name libraries not loaded yet */
	int		pc_backend;	/* DTD_PID_BACKEND_* */
	uint64_t	pc_ringsize;	/* -x uprobebufsize, 0: default */
} dtd_pidcons_t;

/* A probe's argument: where its sites are. */
typedef struct dtd_pidprobe {
	pid_t		pb_pid;
	uint64_t	pb_gen;		/* the target's image (dtd_target.c) */
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

static dtd_pidprov_t	*dtd_pid_provs;

static int	dtd_prov_pid_provide(const dtp_probedesc_t *,
		    dtd_consumer_t *, char *, size_t);
static int	dtd_prov_pid_enable(dtd_probe_t *);
static void	dtd_prov_pid_disable(dtd_probe_t *);
static int	dtd_prov_pid_match(const dtp_probedesc_t *,
		    const dtd_probe_t *, const dtd_consumer_t *);
static int	dtd_prov_pid_option(dtd_consumer_t *, const char *, uint64_t,
		    char *, size_t);
static int	dtd_prov_pid_load(dtd_consumer_t *, const dtp_prog_t *,
		    char *, size_t);
static void	dtd_prov_pid_drop(dtd_consumer_t *);
static void	dtd_prov_pid_siteargs(dtd_hit_t *, const ft_hit_t *);
static void	dtd_prov_pid_retarget(dtd_target_t *, uint64_t, int);
static void	dtd_prov_pid_release(dtd_target_t *);
static ft_mod_t	*dtd_prov_pid_modlive(dtd_target_t *, const char *);
static int	dtd_prov_pid_pending(dtd_target_t *, dtd_provider_t *,
		    const dtp_probedesc_t *);

/* The provider that creates probes; the probes hang on per-pid ones. */
const dtd_provider_t dtd_prov_pid = {
	.dpv_name = "pid",
	.dpv_provide = dtd_prov_pid_provide,
	.dpv_enable = dtd_prov_pid_enable,
	.dpv_disable = dtd_prov_pid_disable,
	.dpv_match = dtd_prov_pid_match,
	.dpv_option = dtd_prov_pid_option,
	.dpv_load = dtd_prov_pid_load,
	.dpv_drop = dtd_prov_pid_drop,
	.dpv_siteargs = dtd_prov_pid_siteargs,
	.dpv_retarget = dtd_prov_pid_retarget,
	.dpv_release = dtd_prov_pid_release,
};

/* pid's provider; made if there is none and mk, else NULL. */
static dtd_provider_t *
dtd_prov_pid_prov(pid_t pid, int mk)
{
	dtd_pidprov_t *pv;

	for (pv = dtd_pid_provs; pv != NULL; pv = pv->pv_next) {
		if (pv->pv_pid == pid)
			return &pv->pv_prov;
	}
	if (!mk || (pv = calloc(1, sizeof(*pv))) == NULL)
		return NULL;
	pv->pv_pid = pid;
	snprintf(pv->pv_name, sizeof(pv->pv_name), "pid%d", (int)pid);
	/* only the probe hooks: the table's row is dtd_prov_pid alone */
	pv->pv_prov.dpv_name = pv->pv_name;
	pv->pv_prov.dpv_enable = dtd_prov_pid_enable;
	pv->pv_prov.dpv_disable = dtd_prov_pid_disable;
	pv->pv_prov.dpv_match = dtd_prov_pid_match;
	pv->pv_prov.dpv_siteargs = dtd_prov_pid_siteargs;
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

static dtd_pidcons_t *
dtd_prov_pid_cons(dtd_consumer_t *c)
{
	void **sp = dtd_provider_state(c, &dtd_prov_pid);

	if (*sp == NULL)
		*sp = calloc(1, sizeof(dtd_pidcons_t));
	return *sp;
}

/*
 * Tracer thread: the arguments of a hit of probe h->dh_probe, from the
 * registers the process's context holds.
 */
static void
dtd_prov_pid_siteargs(dtd_hit_t *h, const ft_hit_t *fh)
{
	const dtd_pidprobe_t *pb = h->dh_probe->dpr_arg;
	const struct user_regs_struct *r = &fh->fh_regs;

	if (pb->pb_kind == DTD_PID_RETURN) {
		memset(h->dh_args, 0, sizeof(h->dh_args));
		h->dh_argsp = 0;
		h->dh_args[0] = fh->fh_addr - pb->pb_func;
		h->dh_args[1] = r->rax;
	} else {
		/*
		 * SysV: six registers, then the stack above the return
		 * address, read only if D asks (dh_argsp)
		 */
		h->dh_args[0] = r->rdi;
		h->dh_args[1] = r->rsi;
		h->dh_args[2] = r->rdx;
		h->dh_args[3] = r->rcx;
		h->dh_args[4] = r->r8;
		h->dh_args[5] = r->r9;
		h->dh_argsp = r->rsp + 8;
	}
}

/*
 * -Z (zdefs: see dtd_prov_pid_pending), -x backend, -x uprobebufsize;
 * 1 for the options of others.
 */
static int
dtd_prov_pid_option(dtd_consumer_t *c, const char *name, uint64_t v,
    char *err, size_t errlen)
{
	dtd_pidcons_t *pc;

	if (strcmp(name, "zdefs") != 0 && strcmp(name, "backend") != 0 &&
	    strcmp(name, "uprobebufsize") != 0)
		return 1;
	if (strcmp(name, "backend") == 0 && v > DTD_PID_BACKEND_INLINE) {
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
	if (strcmp(name, "zdefs") == 0)
		pc->pc_zdefs = v != 0;
	else if (strcmp(name, "backend") == 0)
		pc->pc_backend = (int)v;
	else
		pc->pc_ringsize = v;
	return 0;
}

/* c goes: its options go too (its targets are dtd_target.c's). */
static void
dtd_prov_pid_drop(dtd_consumer_t *c)
{
	void **sp = dtd_provider_state(c, &dtd_prov_pid);

	free(*sp);
	*sp = NULL;
}

#define	DTD_PID_SYNC_MEM	1	/* reads memory that must be the hit's */
#define	DTD_PID_SYNC_STOP	2	/* needs the thread stopped: destructive */
#define	DTD_PID_SYNC		(DTD_PID_SYNC_MEM | DTD_PID_SYNC_STOP)
/* what a hit under uprobes needs of its stack copy (ft_proc_stack) */
#define	DTD_PID_STK_WALK	4	/* frames: unwinds (ucaller) */
#define	DTD_PID_STK_ARGS	8	/* arguments past the registers */
#define	DTD_PID_STK_ARG		16	/* any argument */

/*
 * The bound of the uprobe backend's stack copy (each record in its ring
 * is some 220 bytes and this copy): the whole of it (FT_BPF_STACK, 8
 * KiB) for clauses that walk the stack or read memory at the hit, and
 * for USDT clauses that read arguments (an operand such as -16(%rbp) may
 * be anywhere in the frame); at a function's entry, the return address
 * and arg6 to arg9 (the arguments that x86-64 passes on the stack) for
 * pid clauses that read those; else none.
 */
#define	DTD_PID_STK_ARGSLEN	64

/* What a DIFO needs of the hit: DTD_PID_SYNC_* and DTD_PID_STK_* bits. */
static int
dtd_prov_pid_difosync(const dif_difo_t *d)
{
	uint32_t i, v;
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
			/* a walk of the whole stack; of a frame; arguments */
			v = DIF_INSTR_VAR(d->dd_buf[i]);
			if (v == DIF_VAR_USTACKDEPTH)
				need |= DTD_PID_SYNC_MEM;
			else if (v == DIF_VAR_UCALLER)
				need |= DTD_PID_STK_WALK;
			else if (v >= DIF_VAR_ARG6 && v <= DIF_VAR_ARG9)
				need |= DTD_PID_STK_ARGS | DTD_PID_STK_ARG;
			else if (v >= DIF_VAR_ARG0 && v <= DIF_VAR_ARG5)
				need |= DTD_PID_STK_ARG;
			break;
		case DIF_OP_LDGA:
			/* args[i], i known only at the hit */
			if (DIF_INSTR_VAR(d->dd_buf[i]) == DIF_VAR_ARGS)
				need |= DTD_PID_STK_ARGS | DTD_PID_STK_ARG;
			break;
		}
	}
	return need;
}

/*
 * What the clauses of p that may fire in a pid or USDT provider need of
 * the hit (DTD_PID_SYNC_* bits): the thread stopped (destructive
 * actions), or process memory as it was at the hit (copyin and friends,
 * stacks); and of the stack copy under uprobes (DTD_PID_STK_* bits).
 */
static int
dtd_prov_pid_needsync(const dtp_prog_t *p)
{
	uint32_t i, j, k;
	int need = 0, sneed;

	for (i = 0; i < p->dp_nstmt; i++) {
		const dtp_stmt_t *st = &p->dp_stmt[i];
		const char *prov = st->ds_desc.dpd_provider;

		/* pid and USDT providers end in their process's pid */
		if (prov[0] != '\0' && strpbrk(prov, "*?[\\") == NULL &&
		    !isdigit((unsigned char)prov[strlen(prov) - 1]))
			continue;
		sneed = dtd_prov_pid_difosync(st->ds_pred);
		for (j = 0; j < st->ds_nact; j++) {
			const dtp_action_t *a = &st->ds_act[j];

			if ((a->da_kind & 0xff00) == DTRACEACT_PROC_DESTRUCTIVE)
				sneed |= DTD_PID_SYNC_STOP;
			if (a->da_kind == DTRACEACT_USTACK ||
			    a->da_kind == DTRACEACT_JSTACK)
				sneed |= DTD_PID_SYNC_MEM;
			for (k = 0; k < a->da_ndifo; k++)
				sneed |= dtd_prov_pid_difosync(a->da_difo[k]);
		}
		/* a USDT argument may be anywhere in the frame */
		if ((sneed & DTD_PID_STK_ARG) &&
		    (strncmp(prov, "pid", 3) != 0 || prov[3] == '\0' ||
		    strspn(prov + 3, "0123456789") != strlen(prov + 3)))
			sneed |= DTD_PID_STK_WALK;
		need |= sneed;
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
	return ft_proc_backend_name(b);
}

/*
 * A program of c is loaded: pick the backend of each of c's targets not
 * traced by another consumer's choice already, before its probes are
 * enabled.  -1 with err if a target cannot have what c asks for.
 */
static int
dtd_prov_pid_load(dtd_consumer_t *c, const dtp_prog_t *p, char *err,
    size_t errlen)
{
	static const dtd_pidcons_t none;
	const dtd_pidcons_t *pc = *dtd_provider_state(c, &dtd_prov_pid);
	dtd_target_t *tg;
	ft_proc_t *proc;
	char ferr[256];
	uint32_t i = 0;
	int sync, stk, want, cur, rc;
	size_t stklen;

	if (pc == NULL)
		pc = &none;
	sync = dtd_prov_pid_needsync(p);
	stk = sync & ~DTD_PID_SYNC;
	sync &= DTD_PID_SYNC;
	stklen = sync != 0 || (stk & DTD_PID_STK_WALK) ? FT_BPF_STACK :
	    (stk & DTD_PID_STK_ARGS) ? DTD_PID_STK_ARGSLEN : 0;
	while ((tg = dtd_target_iter(c, &i)) != NULL) {
		if (!dtd_target_live(tg))
			continue;
		proc = dtd_target_proc(tg);
		cur = ft_proc_backend(proc);
		/* chosen at an earlier program of c: kept, if it can be */
		if (dtd_target_backend(c, tg) != 0) {
			if (cur != FT_BACKEND_PTRACE && ((sync &
			    DTD_PID_SYNC_STOP) || (sync &&
			    pc->pc_backend != DTD_PID_BACKEND_UPROBE &&
			    pc->pc_backend != DTD_PID_BACKEND_INLINE)))
				goto needptrace;
			continue;
		}
		dtd_target_setbackend(c, tg, cur);
		switch (pc->pc_backend) {
		case DTD_PID_BACKEND_PTRACE:
			want = FT_BACKEND_PTRACE;
			break;
		case DTD_PID_BACKEND_UPROBE:
		case DTD_PID_BACKEND_INLINE:
			if (sync & DTD_PID_SYNC_STOP) {
				snprintf(err, errlen, "destructive actions need "
				    "the ptrace backend");
				return -1;
			}
			want = pc->pc_backend == DTD_PID_BACKEND_UPROBE ?
			    FT_BACKEND_UPROBE : FT_BACKEND_INLINE;
			break;
		default:
			/*
			 * Not for what needs the process stopped at exec or
			 * dlopen to stay exact: a command run from its start
			 * (-c), libraries not loaded yet (-Z).
			 */
			want = sync || dtd_target_created(tg) ||
			    pc->pc_zdefs || ft_proc_backend_ok(FT_BACKEND_UPROBE,
			    NULL, 0) == -1 ? FT_BACKEND_PTRACE : FT_BACKEND_UPROBE;
			break;
		}
		/* uprobes or inline, as another consumer chose: as good */
		if (cur == want || (cur != FT_BACKEND_PTRACE &&
		    want != FT_BACKEND_PTRACE))
			continue;
		if (cur != FT_BACKEND_PTRACE) {
needptrace:
			snprintf(err, errlen, "pid %d is traced with the %s "
			    "backend, and this program needs ptrace%s",
			    (int)dtd_target_pid(tg), dtd_prov_pid_bname(cur),
			    (sync & DTD_PID_SYNC_STOP) ?
			    " (destructive actions)" : sync ? " (copyin or "
			    "stacks at the hit)" : "");
			return -1;
		}
		ferr[0] = '\0';
		rc = dtd_target_attach(tg, want, pc->pc_ringsize != 0 ?
		    pc->pc_ringsize : DTD_PID_RINGSIZE, ferr, sizeof(ferr));
		if (rc == -1) {
			if (pc->pc_backend != DTD_PID_BACKEND_AUTO) {
				snprintf(err, errlen, "pid %d: cannot use the "
				    "%s backend: %s", (int)dtd_target_pid(tg),
				    dtd_prov_pid_bname(want), ferr);
				return -1;
			}
			log_info("%s: pid %d: uprobes refused (%s), ptrace "
			    "stays", __func__, (int)dtd_target_pid(tg), ferr);
			continue;
		}
		dtd_target_setbackend(c, tg, want);
		log_info("%s: pid %d: %s backend", __func__,
		    (int)dtd_target_pid(tg),
		    dtd_prov_pid_bname(ft_proc_backend(proc)));
	}
	/*
	 * The stack each uprobe record copies: what p's clauses use, or
	 * more if an earlier program (of any consumer) on that process asked
	 * for more; set before p's probes are in.
	 */
	i = 0;
	while ((tg = dtd_target_iter(c, &i)) != NULL) {
		proc = dtd_target_proc(tg);
		if (dtd_target_live(tg) &&
		    ft_proc_backend(proc) != FT_BACKEND_PTRACE &&
		    ft_proc_stack(proc, stklen) == -1)
			log_info("%s: pid %d: stack copy of %zu bytes: %s",
			    __func__, (int)dtd_target_pid(tg), stklen,
			    strerror(errno));
	}
	return 0;
}

/*
 * Target pp is let go by everyone: its probes go, and its provider with
 * them (a probe another consumer still enables keeps both), so that a
 * daemon that traced many processes carries nothing of them.
 */
/* Is p resolved in an image of the process *arg's generations began? */
static int
dtd_prov_pid_ofgen(const dtd_probe_t *p, void *arg)
{
	const dtd_pidprobe_t *pb = p->dpr_arg;
	const uint64_t *gen = arg;

	return pb->pb_gen >= gen[0] && pb->pb_gen <= gen[1];
}

static void
dtd_prov_pid_release(dtd_target_t *pp)
{
	uint64_t gen[2] = { dtd_target_born(pp), dtd_target_gen(pp) };
	dtd_pidprov_t **pvp, *pv;
	dtd_provider_t *prov;
	int left = 0;

	if ((prov = dtd_prov_pid_prov(dtd_target_pid(pp), 0)) == NULL)
		return;
	/* pp's, not those of a process that took its pid since */
	dtd_probe_destroy_prov(prov, dtd_prov_pid_ofgen, &gen);
	dtd_probe_walk_prov(prov, dtd_prov_pid_count, &left);
	if (left > 0)
		return;
	for (pvp = &dtd_pid_provs; (pv = *pvp) != NULL; pvp = &pv->pv_next) {
		if (&pv->pv_prov == prov) {
			*pvp = pv->pv_next;
			free(pv);
			break;
		}
	}
}

typedef struct dtd_pidmap {
	dt_msg_t	*pm_msg;
	uint32_t	pm_n;
} dtd_pidmap_t;

/* Is probe p one of consumer c's, resolved in the process it traces? */
static dtd_target_t *
dtd_prov_pid_live(const dtd_probe_t *p, const dtd_consumer_t *c)
{
	const dtd_pidprobe_t *pb = p->dpr_arg;
	dtd_target_t *pp = dtd_target_of(c, pb->pb_pid);

	if (pp == NULL || dtd_target_gen(pp) != pb->pb_gen)
		return NULL;
	return pp;
}

/*
 * The module field of a description names the probe's module as
 * ft_proc_mod_match says ("a.out" the executable, "libc" libc.so.6);
 * a probe made under -Z before its library came, or of a process let
 * go (its modules are freed with it), by its name alone.
 */
static int
dtd_prov_pid_modglob(const char *pat, const dtd_probe_t *p,
    const dtd_target_t *pp)
{
	const dtd_pidprobe_t *pb = p->dpr_arg;

	if (pb->pb_mod != NULL && dtd_target_proc(pp) != NULL)
		return ft_proc_mod_match(pb->pb_mod, pat);
	return ft_proc_modname_match(p->dpr_mod, pat);
}

static int
dtd_prov_pid_match(const dtp_probedesc_t *d, const dtd_probe_t *p,
    const dtd_consumer_t *c)
{
	const dtd_target_t *pp = dtd_prov_pid_live(p, c);

	return pp != NULL &&
	    dtd_probe_glob(d->dpd_provider, p->dpr_prov->dpv_name) &&
	    dtd_prov_pid_modglob(d->dpd_mod, p, pp) &&
	    dtd_probe_glob(d->dpd_func, p->dpr_func) &&
	    dtd_probe_glob(d->dpd_name, p->dpr_name);
}

typedef struct dtd_pidmk {
	dtd_target_t		*mk_pp;
	dtd_provider_t		*mk_prov;	/* mk_pp's */
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
	dtd_target_t *pp = mk->mk_pp;
	dtd_pidprobe_t *pb, *old;
	dtd_probe_t *p;

	p = dtd_probe_find(mk->mk_prov->dpv_name, m->fm_name, s->fs_name,
	    name);
	if (p != NULL) {
		old = p->dpr_arg;
		if (old->pb_gen == dtd_target_gen(pp))
			return 0;
		if (p->dpr_necb > 0) {
			/* of an earlier image of pp: resolved again there */
			if (old->pb_gen >= dtd_target_born(pp))
				return 0;
			/*
			 * of an earlier process with this pid, ended and
			 * still enabled by its consumers: it keeps its id,
			 * and this process's probe takes the names
			 */
			dtd_probe_retire(p);
			p = NULL;
		}
	}
	if ((pb = malloc(sizeof(*pb) + naddr * sizeof(uint64_t))) == NULL)
		goto nomem;
	pb->pb_pid = dtd_target_pid(pp);
	pb->pb_gen = dtd_target_gen(pp);
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
	if (dtd_probe_create(mk->mk_prov, m->fm_name, s->fs_name, name,
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
		if (ft_proc_func_sites(dtd_target_proc(mk->mk_pp), m, s, &ff) == -1) {
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
			dtd_probe_seterrcode(DT_ERR_PDESC_OFF);
			rc = -1;
		} else if (ff.ff_jumptable || !ft_isa_is_insn(&ff,
		    (uint32_t)off)) {
			snprintf(mk->mk_err, mk->mk_errlen, "offset 0x%" PRIx64
			    " is not aligned on an instruction", off);
			dtd_probe_seterrcode(DT_ERR_PDESC_ALIGN);
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
	const dtd_pidcons_t *pc;
	dtd_target_t *pp;
	dtd_pidmk_t mk;
	char name[24];
	uint32_t i = 0;

	if (c == NULL)
		return 0;
	if (d->dpd_name[0] != '\0' && strpbrk(d->dpd_name, "*?[\\") == NULL &&
	    strcmp(d->dpd_name, "entry") != 0 &&
	    strcmp(d->dpd_name, "return") != 0 &&
	    !dtd_prov_pid_ishex(d->dpd_name))
		return 0;	/* matches nothing: D_PDESC_ZERO says so */
	pc = *dtd_provider_state(c, &dtd_prov_pid);
	while ((pp = dtd_target_iter(c, &i)) != NULL) {
		snprintf(name, sizeof(name), "pid%d", (int)dtd_target_pid(pp));
		if (!dtd_probe_glob(d->dpd_provider, name) ||
		    !dtd_target_live(pp))
			continue;
		mk.mk_pp = pp;
		if ((mk.mk_prov = dtd_prov_pid_prov(dtd_target_pid(pp),
		    1)) == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		mk.mk_desc = d;
		mk.mk_err = err;
		mk.mk_errlen = errlen;
		err[0] = '\0';
		if (ft_proc_func_iter(dtd_target_proc(pp), d->dpd_mod,
		    d->dpd_func, dtd_prov_pid_perfunc, &mk) != 0) {
			if (err[0] == '\0')
				snprintf(err, errlen, "failed to read the "
				    "modules of pid %d",
				    (int)dtd_target_pid(pp));
			return -1;
		}
		if (pc != NULL && pc->pc_zdefs &&
		    dtd_prov_pid_pending(pp, mk.mk_prov, d) == -1) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/*
 * -Z: a description that names one function of a library not loaded
 * (yet) gets a probe without sites, so that it has an ECB; the probe
 * gets its sites when the library appears (dtd_prov_pid_retarget).
 * Globs cannot be resolved before the library is there: they are not.
 */
static int
dtd_prov_pid_pending(dtd_target_t *pp, dtd_provider_t *prov,
    const dtp_probedesc_t *d)
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
	    dtd_probe_find(prov->dpv_name, d->dpd_mod, d->dpd_func,
	    d->dpd_name) != NULL)
		return 0;	/* the module is there: the probes are, or not */
	if ((pb = calloc(1, sizeof(*pb))) == NULL)
		return -1;
	pb->pb_pid = dtd_target_pid(pp);
	pb->pb_gen = dtd_target_gen(pp);
	pb->pb_kind = kind;
	if (dtd_probe_create(prov, d->dpd_mod, d->dpd_func,
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
dtd_prov_pid_modlive(dtd_target_t *pp, const char *mod)
{
	ft_mod_t *m = NULL;

	if (ft_proc_mod_iter(dtd_target_proc(pp), mod, dtd_prov_pid_modfind, &m) < 0)
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
dtd_prov_pid_reresolve1(dtd_target_t *pp, dtd_probe_t *p, int exec)
{
	dtd_pidprobe_t *old = p->dpr_arg, *pb;
	dtd_pidres_t rs;
	size_t i, j;

	memset(&rs, 0, sizeof(rs));
	rs.rs_probe = p;
	rs.rs_kind = old->pb_kind;
	rs.rs_proc = dtd_target_proc(pp);
	if (dtd_prov_pid_modlive(pp, p->dpr_mod) != NULL)
		(void)ft_proc_func_iter(dtd_target_proc(pp), p->dpr_mod, p->dpr_func,
		    dtd_prov_pid_resfunc, &rs);
	if ((pb = rs.rs_pb) == NULL) {
		if (rs.rs_nomem || (pb = calloc(1, sizeof(*pb))) == NULL) {
			log_warnx("%s: %s:%s:%s:%s: out of memory", __func__,
			    p->dpr_prov->dpv_name, p->dpr_mod, p->dpr_func,
			    p->dpr_name);
			return;
		}
	}
	pb->pb_pid = dtd_target_pid(pp);
	pb->pb_gen = dtd_target_gen(pp);
	pb->pb_kind = old->pb_kind;
	if (p->dpr_necb > 0) {
		for (i = 0; !exec && i < old->pb_naddr; i++) {
			/* a site of an unmapped library may be gone already */
			if (!dtd_prov_pid_hasaddr(pb, old->pb_addr[i]))
				(void)ft_proc_site_remove(dtd_target_proc(pp),
				    old->pb_addr[i], p);
		}
		for (i = j = 0; i < pb->pb_naddr; i++) {
			uint64_t a = pb->pb_addr[i];

			if ((exec || !dtd_prov_pid_hasaddr(old, a)) &&
			    ft_proc_site_add(dtd_target_proc(pp), a, p) == -1) {
				log_warn("%s: %s:%s:%s:%s at 0x%" PRIx64,
				    __func__, p->dpr_prov->dpv_name,
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
	dtd_target_t	*rr_pp;
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
 * image (dtd_target.c gave it a new generation: the others are stale);
 * after dlopen and dlclose the probes whose module appeared, went or
 * moved are.  Then the functions of its new image or libraries are
 * probes the consumers tracing it may want (a glob that matched
 * nothing, or less, before): their statements are matched again.
 */
static void
dtd_prov_pid_retarget(dtd_target_t *pp, uint64_t oldgen, int exec)
{
	dtd_provider_t *prov;
	dtd_consumer_t *c;
	dtd_pidrr_t rr;

	if ((prov = dtd_prov_pid_prov(dtd_target_pid(pp), 0)) == NULL)
		return;		/* no probe made in it yet */
	rr.rr_pp = pp;
	rr.rr_oldgen = oldgen;
	rr.rr_exec = exec;
	dtd_probe_walk_prov(prov, dtd_prov_pid_reresolve2, &rr);
	log_info("%s: pid %d: probes resolved again after %s", __func__,
	    (int)dtd_target_pid(pp), exec ? "exec" : "a library change");
	for (c = dtd_consumer_next(NULL); c != NULL; c = dtd_consumer_next(c))
		if (dtd_target_of(c, dtd_target_pid(pp)) != NULL)
			dtd_consumer_rematch(c, prov->dpv_name);
}

/* Is the module a probe was resolved in no longer mapped? */
static int
dtd_prov_pid_unmapped(dtd_target_t *pp, const dtd_pidprobe_t *pb)
{
	ft_proc_refresh(dtd_target_proc(pp));
	return pb->pb_mod == NULL ||
	    dtd_prov_pid_modlive(pp, pb->pb_mod->fm_name) != pb->pb_mod;
}

static int
dtd_prov_pid_enable(dtd_probe_t *p)
{
	dtd_pidprobe_t *pb = p->dpr_arg;
	dtd_target_t *pp = dtd_prov_pid_live(p, NULL);
	uint64_t a;
	size_t i;
	int e;

	if (pp == NULL || dtd_target_proc(pp) == NULL) {
		/* gone since the probe was made: exited, or let go */
		pp = dtd_target_of(NULL, pb->pb_pid);
		if (pp != NULL && dtd_target_gen(pp) == pb->pb_gen &&
		    !dtd_target_live(pp))
			return 0;
		/* which of the two, for a refusal seen only under load */
		log_info("%s: %s:%s:%s:%s: pid %d %s", __func__,
		    p->dpr_prov->dpv_name, p->dpr_mod, p->dpr_func,
		    p->dpr_name, (int)pb->pb_pid, pp == NULL ? "not traced" :
		    "of another image now");
		errno = ESRCH;
		return -1;
	}
	for (i = 0; i < pb->pb_naddr; i++) {
		if (ft_proc_site_add(dtd_target_proc(pp), pb->pb_addr[i], p) == -1) {
			e = errno;
			/*
			 * Its library was unloaded since the probe was made
			 * (dlclose): nothing to patch now; the library event
			 * resolves the probe again, and a later dlopen
			 * brings its sites back.
			 */
			if (e == EFAULT && dtd_prov_pid_unmapped(pp, pb))
				continue;
			a = pb->pb_addr[i];
			while (i-- > 0)
				ft_proc_site_remove(dtd_target_proc(pp),
				    pb->pb_addr[i], p);
			/*
			 * The process died since it was grabbed: nothing to
			 * trace, and its exit is reported (dtd_target.c) as
			 * for one that exits later, as the USDT provider does
			 */
			if (!ft_proc_alive(dtd_target_proc(pp)))
				return 0;
			log_info("%s: %s:%s:%s:%s: site 0x%" PRIx64 ": %s",
			    __func__, p->dpr_prov->dpv_name, p->dpr_mod,
			    p->dpr_func, p->dpr_name, a, strerror(e));
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
	dtd_target_t *pp = dtd_prov_pid_live(p, NULL);
	size_t i;

	if (pp == NULL || dtd_target_proc(pp) == NULL)
		return;
	for (i = 0; i < pb->pb_naddr; i++)
		ft_proc_site_remove(dtd_target_proc(pp), pb->pb_addr[i], p);
}
