/*
 * dtd_prov_usdt.c: statically defined user probes, as systemtap's
 * <sys/sdt.h> builds them into programs and libraries (Debian's python3,
 * PostgreSQL, libstdc++): PROVIDER<PID>:MODULE:FUNCTION:NAME, read from
 * the .note.stapsdt notes of a target's modules (fasttrap/ft_sdt.c).
 *
 * Probes.  They are made on demand, for the targets of the consumer that
 * names them, as the pid provider's are: each (provider, pid) is a
 * provider of its own ("python1234"), the module is the object's file
 * name (the executable's too, as illumos lists it), the function the
 * one that holds the probe's address, and the name the note's with
 * each double underscore shown as a dash (function__entry is
 * function-entry; a description may use either).  A probe's argument
 * holds its sites (a probe may be written several times in one
 * function, or inlined) and the generation of the image they were read
 * in (dtd_target_gen): stale ones neither match nor enable.
 *
 * Enabling puts a site at each probe's nop through the target's fasttrap
 * backend (ptrace or uprobes, chosen by the pid provider's load hook)
 * and adds one to its is-enabled semaphore, which the program tests
 * before computing costly arguments; disabling takes both back, and a
 * consumer's going disables first (dtd_consumer.c), so the counter is
 * back where it was whenever the process is let go.
 *
 * Arguments come from the note's operand string, read at the hit from
 * the registers and memory the hit carries (ft_hit_read: exact under
 * ptrace, the captured stack first under uprobes).
 *
 * Threads: everything runs on the main thread but dpv_siteargs, on the
 * tracer (or drain) thread of a hit, which reads only a probe's sites,
 * never changed while the probe is enabled.
 */
#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"
#include "ft.h"

/* One place a probe is written. */
typedef struct dtd_usdtsite {
	ft_mod_t	*us_mod;	/* its object (ft_proc keeps them) */
	uint64_t	us_addr;	/* runtime */
	uint64_t	us_sem;		/* runtime; 0: none */
	int		us_semheld;	/* we added one to it */
	int		us_armed;
	int		us_nargs;
	ft_sdtarg_t	us_args[FT_SDT_MAXARGS];
} dtd_usdtsite_t;

/* A probe's argument: one block (dtd_probe.c frees it). */
typedef struct dtd_usdtprobe {
	pid_t		ub_pid;
	uint64_t	ub_gen;
	char		ub_rawname[DTRACE_NAMELEN]; /* the note's: a__b */
	int		ub_refill;	/* enabled across an exec: arm anew */
	size_t		ub_nsite;
	dtd_usdtsite_t	ub_site[];
} dtd_usdtprobe_t;

/* The providers made: one per (note provider, pid). */
typedef struct dtd_usdtprov {
	dtd_provider_t		up_prov;
	pid_t			up_pid;
	struct dtd_usdtprov	*up_next;
	char			up_name[];
} dtd_usdtprov_t;

static dtd_usdtprov_t	*dtd_usdt_provs;

static int	dtd_prov_usdt_provide(const dtp_probedesc_t *,
		    dtd_consumer_t *, char *, size_t);
static int	dtd_prov_usdt_enable(dtd_probe_t *);
static void	dtd_prov_usdt_disable(dtd_probe_t *);
static int	dtd_prov_usdt_match(const dtp_probedesc_t *,
		    const dtd_probe_t *, const dtd_consumer_t *);
static void	dtd_prov_usdt_siteargs(dtd_hit_t *, const ft_hit_t *);
static void	dtd_prov_usdt_retarget(dtd_target_t *, uint64_t, int);
static void	dtd_prov_usdt_release(dtd_target_t *);
static int	dtd_prov_usdt_nargs(const dtd_probe_t *);

/* The row of the table: it makes the probes, which hang on others. */
const dtd_provider_t dtd_prov_usdt = {
	.dpv_name = "usdt",
	.dpv_provide = dtd_prov_usdt_provide,
	.dpv_retarget = dtd_prov_usdt_retarget,
	.dpv_release = dtd_prov_usdt_release,
};

/* The provider called name (of pid); made if there is none and mk. */
static dtd_provider_t *
dtd_prov_usdt_prov(const char *name, pid_t pid, int mk)
{
	dtd_usdtprov_t *up;
	size_t len = strlen(name);

	for (up = dtd_usdt_provs; up != NULL; up = up->up_next)
		if (strcmp(up->up_name, name) == 0)
			return &up->up_prov;
	if (!mk || (up = calloc(1, sizeof(*up) + len + 1)) == NULL)
		return NULL;
	memcpy(up->up_name, name, len + 1);
	up->up_pid = pid;
	up->up_prov.dpv_name = up->up_name;
	up->up_prov.dpv_enable = dtd_prov_usdt_enable;
	up->up_prov.dpv_disable = dtd_prov_usdt_disable;
	up->up_prov.dpv_match = dtd_prov_usdt_match;
	up->up_prov.dpv_siteargs = dtd_prov_usdt_siteargs;
	up->up_prov.dpv_nargs = dtd_prov_usdt_nargs;
	up->up_next = dtd_usdt_provs;
	dtd_usdt_provs = up;
	return &up->up_prov;
}

/*
 * The arguments of a probe: its notes' argument count (the most of its
 * sites', which one probe's share), as illumos's USDT probe has its
 * provider definition's.
 */
static int
dtd_prov_usdt_nargs(const dtd_probe_t *p)
{
	const dtd_usdtprobe_t *ub = p->dpr_arg;
	size_t i;
	int n = -1;

	for (i = 0; ub != NULL && i < ub->ub_nsite; i++) {
		if (ub->ub_site[i].us_nargs > n)
			n = ub->ub_site[i].us_nargs;
	}
	return n;
}

/* The note's name as probes show it: "__" becomes "-". */
static void
dtd_prov_usdt_dashes(const char *raw, char *buf, size_t len)
{
	size_t i = 0;

	while (*raw != '\0' && i + 1 < len) {
		if (raw[0] == '_' && raw[1] == '_') {
			buf[i++] = '-';
			raw += 2;
		} else
			buf[i++] = *raw++;
	}
	buf[i] = '\0';
}

/*
 * The module field of a description names the probe's object as the
 * pid provider's does ("a.out" the executable, "libc" libc.so.6); of a
 * process let go (its modules are freed with it), by its name alone.
 */
static int
dtd_prov_usdt_modglob(const char *pat, const dtd_probe_t *p,
    const dtd_target_t *tg)
{
	const dtd_usdtprobe_t *ub = p->dpr_arg;

	if (ub->ub_nsite > 0 && dtd_target_proc(tg) != NULL)
		return ft_proc_mod_match(ub->ub_site[0].us_mod, pat);
	return ft_proc_modname_match(p->dpr_mod, pat);
}

/* The probe's target, if it is c's (any consumer's: NULL) and current. */
static dtd_target_t *
dtd_prov_usdt_live(const dtd_probe_t *p, const dtd_consumer_t *c)
{
	const dtd_usdtprobe_t *ub = p->dpr_arg;
	dtd_target_t *tg = dtd_target_of(c, ub->ub_pid);

	if (tg == NULL || dtd_target_gen(tg) != ub->ub_gen)
		return NULL;
	return tg;
}

static int
dtd_prov_usdt_match(const dtp_probedesc_t *d, const dtd_probe_t *p,
    const dtd_consumer_t *c)
{
	const dtd_usdtprobe_t *ub = p->dpr_arg;
	const dtd_target_t *tg = dtd_prov_usdt_live(p, c);

	return tg != NULL &&
	    dtd_probe_glob(d->dpd_provider, p->dpr_prov->dpv_name) &&
	    dtd_prov_usdt_modglob(d->dpd_mod, p, tg) &&
	    dtd_probe_glob(d->dpd_func, p->dpr_func) &&
	    (dtd_probe_glob(d->dpd_name, p->dpr_name) ||
	    dtd_probe_glob(d->dpd_name, ub->ub_rawname));
}

/* What one module's walk needs. */
typedef struct dtd_usdtmk {
	dtd_target_t		*mk_tg;
	ft_mod_t		*mk_mod;
	ft_elf_t		*mk_elf;
	const char		*mk_modname;
	const dtp_probedesc_t	*mk_desc;	/* NULL: every probe */
	int			mk_nomem;
	/* retarget: the providers seen, for the rematch */
	char			**mk_provs;
	size_t			mk_nprovs;
} dtd_usdtmk_t;

/* Record the provider name seen (retarget's rematch); -1 no memory. */
static int
dtd_prov_usdt_seen(dtd_usdtmk_t *mk, const char *name)
{
	char **np;
	size_t i;

	for (i = 0; i < mk->mk_nprovs; i++)
		if (strcmp(mk->mk_provs[i], name) == 0)
			return 0;
	if ((np = reallocarray(mk->mk_provs, mk->mk_nprovs + 1,
	    sizeof(*np))) == NULL)
		return -1;
	mk->mk_provs = np;
	if ((np[mk->mk_nprovs] = strdup(name)) == NULL)
		return -1;
	mk->mk_nprovs++;
	return 0;
}

/* Add to a site's semaphore (below). */
static int	dtd_prov_usdt_sem(ft_proc_t *, uint64_t, int);

/* Put site st of enabled probe p in place: its trap, its semaphore. */
static void
dtd_prov_usdt_arm(ft_proc_t *proc, dtd_probe_t *p, dtd_usdtsite_t *st)
{
	if (ft_proc_site_add(proc, st->us_addr, p) == -1) {
		log_warn("%s: %s:%s:%s:%s at 0x%" PRIx64, __func__,
		    p->dpr_prov->dpv_name, p->dpr_mod, p->dpr_func,
		    p->dpr_name, st->us_addr);
		return;
	}
	st->us_armed = 1;
	if (st->us_sem != 0 && dtd_prov_usdt_sem(proc, st->us_sem, 1) == 0)
		st->us_semheld = 1;
}

/* ft_sdt_elf callback: make or extend the probe of one note. */
static int
dtd_prov_usdt_note(void *arg, const ft_sdtnote_t *n)
{
	dtd_usdtmk_t *mk = arg;
	const dtp_probedesc_t *d = mk->mk_desc;
	pid_t pid = dtd_target_pid(mk->mk_tg);
	uint64_t gen = dtd_target_gen(mk->mk_tg);
	char pname[DTRACE_PROVNAMELEN], name[DTRACE_NAMELEN];
	const ft_sym_t *s;
	const char *func;
	dtd_provider_t *prov;
	dtd_usdtprobe_t *ub, *nb;
	dtd_usdtsite_t *st;
	dtd_probe_t *p;
	uint64_t addr;
	size_t i, j;

	if ((size_t)snprintf(pname, sizeof(pname), "%s%d", n->sn_prov,
	    (int)pid) >= sizeof(pname))
		return 0;
	dtd_prov_usdt_dashes(n->sn_name, name, sizeof(name));
	s = ft_elf_addr(mk->mk_elf, n->sn_pc);
	func = s != NULL ? s->fs_name : "";
	if (d != NULL && (!dtd_probe_glob(d->dpd_provider, pname) ||
	    !dtd_probe_glob(d->dpd_func, func) ||
	    (!dtd_probe_glob(d->dpd_name, name) &&
	    !dtd_probe_glob(d->dpd_name, n->sn_name))))
		return 0;
	if (d == NULL && dtd_prov_usdt_seen(mk, pname) == -1)
		goto nomem;
	addr = n->sn_pc + mk->mk_mod->fm_bias;
	if ((prov = dtd_prov_usdt_prov(pname, pid, 1)) == NULL)
		goto nomem;
	p = dtd_probe_find(pname, mk->mk_modname, func, name);
	ub = p != NULL ? p->dpr_arg : NULL;
	if (ub != NULL && p->dpr_necb > 0 &&
	    ub->ub_gen < dtd_target_born(mk->mk_tg)) {
		/*
		 * in use in an earlier process with this pid, ended: it
		 * keeps its id for its consumers, this one takes the names
		 */
		dtd_probe_retire(p);
		p = NULL;
		ub = NULL;
	}
	if (ub != NULL && p->dpr_necb > 0 && !ub->ub_refill)
		return 0;	/* in use: its sites stay as they are */
	if (ub != NULL && ub->ub_gen == gen) {
		/*
		 * Another site of it, unless seen already; the sites of an
		 * object unmapped since (dlclose) go, so that one mapped
		 * again elsewhere does not leave its old addresses
		 */
		for (i = j = 0; i < ub->ub_nsite; i++)
			if (ub->ub_site[i].us_mod == mk->mk_mod ||
			    ub->ub_site[i].us_mod->fm_live)
				ub->ub_site[j++] = ub->ub_site[i];
		ub->ub_nsite = j;
		for (i = 0; i < ub->ub_nsite; i++)
			if (ub->ub_site[i].us_addr == addr)
				return 0;
		if ((nb = realloc(ub, sizeof(*ub) + (ub->ub_nsite + 1) *
		    sizeof(dtd_usdtsite_t))) == NULL)
			goto nomem;
		p->dpr_arg = ub = nb;	/* not enabled: no hit reads it */
	} else {
		if ((ub = calloc(1, sizeof(*ub) +
		    sizeof(dtd_usdtsite_t))) == NULL)
			goto nomem;
		ub->ub_pid = pid;
		ub->ub_gen = gen;
		snprintf(ub->ub_rawname, sizeof(ub->ub_rawname), "%s",
		    n->sn_name);
		if (p != NULL) {
			/* a probe of an earlier process with this pid */
			free(p->dpr_arg);
			p->dpr_arg = ub;
		} else if (dtd_probe_create(prov, mk->mk_modname, func, name,
		    ub) == NULL) {
			free(ub);
			goto nomem;
		}
	}
	st = &ub->ub_site[ub->ub_nsite++];
	memset(st, 0, sizeof(*st));
	st->us_mod = mk->mk_mod;
	st->us_addr = addr;
	st->us_sem = n->sn_sem != 0 ? n->sn_sem + mk->mk_mod->fm_bias : 0;
	st->us_nargs = ft_sdt_args(n->sn_args, st->us_args, FT_SDT_MAXARGS);
	if (ub->ub_refill)
		dtd_prov_usdt_arm(dtd_target_proc(mk->mk_tg), p, st);
	return 0;
nomem:
	mk->mk_nomem = 1;
	return 1;
}

/* ft_proc_mod_iter callback: the notes of one module. */
static int
dtd_prov_usdt_mod(void *arg, ft_proc_t *proc, ft_mod_t *m)
{
	dtd_usdtmk_t *mk = arg;
	char err[256];

	if (!m->fm_text)
		return 0;
	mk->mk_modname = m->fm_name;
	if (mk->mk_desc != NULL && !ft_proc_mod_match(m, mk->mk_desc->dpd_mod))
		return 0;
	if ((mk->mk_elf = ft_proc_mod_elf(proc, m, err, sizeof(err))) == NULL)
		return 0;
	mk->mk_mod = m;
	(void)ft_sdt_elf(mk->mk_elf, dtd_prov_usdt_note, mk);
	return mk->mk_nomem ? -1 : 0;
}

/* Walk the notes of every module of tg (d NULL: every probe). */
static int
dtd_prov_usdt_walk(dtd_target_t *tg, const dtp_probedesc_t *d,
    dtd_usdtmk_t *mk)
{
	memset(mk, 0, sizeof(*mk));
	mk->mk_tg = tg;
	mk->mk_desc = d;
	if (ft_proc_mod_iter(dtd_target_proc(tg), NULL, dtd_prov_usdt_mod,
	    mk) == -1 || mk->mk_nomem)
		return -1;
	return 0;
}

/* Is provider name prov a pid provider's ("pid123")? */
static int
dtd_prov_usdt_ispid(const char *prov)
{
	size_t plen = strlen(prov);

	return plen > 3 && strncmp(prov, "pid", 3) == 0 &&
	    strspn(prov + 3, "0123456789") == plen - 3;
}

/*
 * May a statement of c name USDT probes: a provider field that is empty,
 * a pattern, or a name ending in a pid that is not the pid provider's?
 * Saves reading every object's notes at each dlopen of programs traced
 * with the pid provider alone.
 */
static int
dtd_prov_usdt_wanted(const dtd_consumer_t *c)
{
	const char *prov;
	uint32_t i, j;
	size_t len;

	for (i = 0; i < c->dc_nprog; i++) {
		for (j = 0; j < c->dc_progs[i]->dp_nstmt; j++) {
			prov = c->dc_progs[i]->dp_stmt[j].ds_desc.dpd_provider;
			len = strlen(prov);
			if (len == 0 || strpbrk(prov, "*?[\\") != NULL ||
			    (isdigit((unsigned char)prov[len - 1]) &&
			    !dtd_prov_usdt_ispid(prov)))
				return 1;
		}
	}
	return 0;
}

/* Create the probes description d names in the targets of c. */
static int
dtd_prov_usdt_provide(const dtp_probedesc_t *d, dtd_consumer_t *c,
    char *err, size_t errlen)
{
	const char *prov = d->dpd_provider;
	size_t len = strlen(prov), plen;
	int glob = len == 0 || strpbrk(prov, "*?[\\") != NULL;
	dtd_target_t *tg;
	dtd_usdtmk_t mk;
	char pid[16];
	uint32_t i = 0;

	/*
	 * pid probes are the pid provider's, whatever the notes say; a
	 * name that does not end in a target's pid (dtrace, profile) names
	 * none of ours, and its objects are not read
	 */
	if (c == NULL || dtd_prov_usdt_ispid(prov) ||
	    (!glob && !isdigit((unsigned char)prov[len - 1])))
		return 0;
	while ((tg = dtd_target_iter(c, &i)) != NULL) {
		if (!dtd_target_live(tg))
			continue;
		plen = (size_t)snprintf(pid, sizeof(pid), "%d",
		    (int)dtd_target_pid(tg));
		if (!glob && (len <= plen ||
		    strcmp(prov + len - plen, pid) != 0))
			continue;
		if (dtd_prov_usdt_walk(tg, d, &mk) == -1) {
			snprintf(err, errlen, "failed to read the probes of "
			    "pid %d: %s", (int)dtd_target_pid(tg),
			    mk.mk_nomem ? "out of memory" :
			    "its modules are gone");
			return -1;
		}
	}
	return 0;
}

/* Add d (1 or -1) to a site's semaphore, a 16-bit counter. */
static int
dtd_prov_usdt_sem(ft_proc_t *proc, uint64_t sem, int d)
{
	uint16_t v;

	if (ft_proc_read(proc, sem, &v, sizeof(v)) == -1)
		return -1;
	if ((d < 0 && v == 0) || (d > 0 && v == UINT16_MAX))
		return 0;	/* not ours to wrap */
	v = (uint16_t)(v + d);
	return ft_proc_write(proc, sem, &v, sizeof(v));
}

/* Take site st of p out: its trap, then its semaphore. */
static void
dtd_prov_usdt_unarm(ft_proc_t *proc, dtd_probe_t *p, dtd_usdtsite_t *st)
{
	if (st->us_armed)
		(void)ft_proc_site_remove(proc, st->us_addr, p);
	st->us_armed = 0;
	if (st->us_semheld && dtd_prov_usdt_sem(proc, st->us_sem, -1) == -1)
		log_warn("%s: %s:%s:%s:%s: semaphore at 0x%" PRIx64,
		    __func__, p->dpr_prov->dpv_name, p->dpr_mod,
		    p->dpr_func, p->dpr_name, st->us_sem);
	st->us_semheld = 0;
}

static int
dtd_prov_usdt_enable(dtd_probe_t *p)
{
	dtd_usdtprobe_t *ub = p->dpr_arg;
	dtd_target_t *tg = dtd_prov_usdt_live(p, NULL);
	ft_proc_t *proc;
	size_t i;
	int e;

	if (tg == NULL || (proc = dtd_target_proc(tg)) == NULL) {
		/* it died (or was let go) since it was grabbed: as below */
		if (tg != NULL && !dtd_target_live(tg))
			return 0;
		errno = ESRCH;
		return -1;
	}
	for (i = 0; i < ub->ub_nsite; i++) {
		dtd_usdtsite_t *st = &ub->ub_site[i];

		if (ft_proc_site_add(proc, st->us_addr, p) == -1)
			goto fail;
		st->us_armed = 1;
		/* the trap first: a guarded probe is hit once it is on */
		if (st->us_sem != 0) {
			if (dtd_prov_usdt_sem(proc, st->us_sem, 1) == -1)
				goto fail;
			st->us_semheld = 1;
		}
	}
	return 0;
fail:
	e = errno;
	for (i = 0; i < ub->ub_nsite; i++)
		dtd_prov_usdt_unarm(proc, p, &ub->ub_site[i]);
	/*
	 * The process died since it was grabbed: nothing to trace, and
	 * its exit is reported (dtd_target.c) as for one that exits later
	 */
	if (e == ESRCH && !ft_proc_alive(proc))
		return 0;
	errno = e;
	return -1;
}

static void
dtd_prov_usdt_disable(dtd_probe_t *p)
{
	dtd_usdtprobe_t *ub = p->dpr_arg;
	dtd_target_t *tg = dtd_prov_usdt_live(p, NULL);
	size_t i;

	if (tg == NULL || dtd_target_proc(tg) == NULL) {
		/* the image is gone (exec): so are its sites */
		for (i = 0; i < ub->ub_nsite; i++)
			ub->ub_site[i].us_armed = ub->ub_site[i].us_semheld = 0;
		return;
	}
	for (i = 0; i < ub->ub_nsite; i++)
		dtd_prov_usdt_unarm(dtd_target_proc(tg), p, &ub->ub_site[i]);
}

static int
dtd_prov_usdt_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return ft_hit_read(arg, addr, buf, len) == 0 ? 0 : -1;
}

/* Tracer thread: the arguments of a hit, from its site's operands. */
static void
dtd_prov_usdt_siteargs(dtd_hit_t *h, const ft_hit_t *fh)
{
	const dtd_usdtprobe_t *ub = h->dh_probe->dpr_arg;
	const dtd_usdtsite_t *st = NULL;
	size_t i;
	int k;

	memset(h->dh_args, 0, sizeof(h->dh_args));
	h->dh_argsp = 0;
	for (i = 0; i < ub->ub_nsite; i++) {
		if (ub->ub_site[i].us_addr == fh->fh_addr) {
			st = &ub->ub_site[i];
			break;
		}
	}
	if (st == NULL)
		return;
	for (k = 0; k < st->us_nargs && k < 10; k++)
		(void)ft_sdt_argval(&st->us_args[k], &fh->fh_regs,
		    dtd_prov_usdt_read, (void *)(uintptr_t)fh, &h->dh_args[k]);
}

typedef struct dtd_usdtrf {
	uint64_t	rf_oldgen;
	uint64_t	rf_gen;
	int		rf_on;
} dtd_usdtrf_t;

/*
 * An enabled probe of the image an exec replaced: of the new image now,
 * without sites (gone with the old image) until the walk refills them;
 * rf_on 0: the refill is over.
 */
static void
dtd_prov_usdt_refill(dtd_probe_t *p, void *arg)
{
	const dtd_usdtrf_t *rf = arg;
	dtd_usdtprobe_t *ub = p->dpr_arg;

	if (!rf->rf_on) {
		ub->ub_refill = 0;
		return;
	}
	if (p->dpr_necb == 0 || ub->ub_gen != rf->rf_oldgen)
		return;
	ub->ub_gen = rf->rf_gen;
	ub->ub_nsite = 0;
	ub->ub_refill = 1;
}

/*
 * Main thread, tg's tracer waiting: it exec'd or its libraries changed.
 * The probes of the old image are stale (a new generation) and their
 * sites gone with it; the consumers tracing tg get the probes of what
 * is mapped now matched again.  A library that went takes its sites
 * with it: an enabled probe of it stays, and its disable writes to
 * nothing that is mapped (ft_proc refuses).
 */
static void
dtd_prov_usdt_retarget(dtd_target_t *tg, uint64_t oldgen, int exec)
{
	dtd_consumer_t *c;
	dtd_usdtmk_t mk;
	size_t i;

	dtd_usdtprov_t *up;
	dtd_usdtrf_t rf;

	for (c = dtd_consumer_next(NULL); c != NULL; c = dtd_consumer_next(c))
		if (dtd_target_of(c, dtd_target_pid(tg)) != NULL &&
		    dtd_prov_usdt_wanted(c))
			break;
	if (c == NULL)
		return;		/* no one traces it for USDT probes */
	/*
	 * exec: the probes enabled in the old image get the sites of the
	 * new one's notes of the same names (the walk arms them)
	 */
	rf.rf_oldgen = oldgen;
	rf.rf_gen = dtd_target_gen(tg);
	for (up = dtd_usdt_provs; exec && up != NULL; up = up->up_next)
		if (up->up_pid == dtd_target_pid(tg)) {
			rf.rf_on = 1;
			dtd_probe_walk_prov(&up->up_prov, dtd_prov_usdt_refill,
			    &rf);
		}
	if (dtd_prov_usdt_walk(tg, NULL, &mk) == 0) {
		for (c = dtd_consumer_next(NULL); c != NULL;
		    c = dtd_consumer_next(c)) {
			if (dtd_target_of(c, dtd_target_pid(tg)) == NULL)
				continue;
			for (i = 0; i < mk.mk_nprovs; i++)
				dtd_consumer_rematch(c, mk.mk_provs[i]);
		}
	}
	for (i = 0; i < mk.mk_nprovs; i++)
		free(mk.mk_provs[i]);
	free(mk.mk_provs);
	for (up = dtd_usdt_provs; exec && up != NULL; up = up->up_next)
		if (up->up_pid == dtd_target_pid(tg)) {
			rf.rf_on = 0;
			dtd_probe_walk_prov(&up->up_prov, dtd_prov_usdt_refill,
			    &rf);
		}
}

static void
dtd_prov_usdt_count(dtd_probe_t *p, void *arg)
{
	(void)p;
	(*(int *)arg)++;
}

/* Is p read in an image of the process *arg's generations began? */
static int
dtd_prov_usdt_ofgen(const dtd_probe_t *p, void *arg)
{
	const dtd_usdtprobe_t *ub = p->dpr_arg;
	const uint64_t *gen = arg;

	return ub->ub_gen >= gen[0] && ub->ub_gen <= gen[1];
}

/*
 * tg is let go by everyone: its probes and providers go (not those of
 * a process that took its pid since).
 */
static void
dtd_prov_usdt_release(dtd_target_t *tg)
{
	uint64_t gen[2] = { dtd_target_born(tg), dtd_target_gen(tg) };
	dtd_usdtprov_t **upp, *up;
	int left;

	for (upp = &dtd_usdt_provs; (up = *upp) != NULL; ) {
		if (up->up_pid != dtd_target_pid(tg)) {
			upp = &up->up_next;
			continue;
		}
		dtd_probe_destroy_prov(&up->up_prov, dtd_prov_usdt_ofgen, gen);
		left = 0;
		dtd_probe_walk_prov(&up->up_prov, dtd_prov_usdt_count, &left);
		if (left > 0) {
			upp = &up->up_next;
			continue;
		}
		*upp = up->up_next;
		free(up);
	}
}
