/*
 * ft_uprobe.c: the uprobe backend.  Sites become kernel uprobes through
 * BPF uprobe_multi links (ft_bpf.c), one per file, filtered by the
 * process; each hit is a sample in the process's BPF ring, which a drain
 * thread turns into an ft_hit_t for fo_hit.  The traced process never
 * stops, and the kernel takes the uprobes away if the daemon dies.
 *
 * Why a BPF link and not perf uprobe events or tracefs (measured on
 * kernel 6.18): a link holds thousands of offsets, attaches
 * them in milliseconds and detaches them with one RCU grace period
 * (a perf uprobe event costs ~77 ms to close, serialised); its pid
 * filter covers threads created later (an inherited perf uprobe event
 * makes clone() fail); other processes that map the file are untouched.
 *
 * It is the uprobe row of the backend table (ft_backend_uprobe, at the
 * end): it cannot seize a process itself, so it attaches to one that
 * the grabbing backend holds (fb_attach), and its sites go in place in
 * batches (FT_CAP_BATCH).
 *
 * Sites.  ft_proc_site_add() records a user in our site table
 * (ft_site.c), once ft_uprobe_site_check() has checked the instruction;
 * ft_uprobe_sync() compares the wanted sites with the
 * links in place, per file, and replaces the links of files whose set
 * changed: the new link is made before the old one is closed (from a
 * thread of its own: a close waits for a grace period, 24-80 ms).  At
 * release every close, those still running from earlier syncs too, has
 * returned before ft_uprobe_close() does: the kernel has then taken out
 * every uprobe of ours, so that whoever traces the process next (this
 * backend or ptrace) finds its text as the file has it, and no late
 * removal of ours can take out an int3 of theirs.  Cookies
 * are the sites' runtime addresses.  An offset the kernel refuses makes
 * the whole link fail (errno 524): bisection finds it, and its site is
 * kept out of links (st_nolink).
 *
 * The drain thread waits (epoll) on the ring, an eventfd (release) and
 * the pidfd (exit), with a short timeout since the capture program wakes
 * it only when the ring is half full.  It dispatches each sample as a
 * hit of the site table (ft_site_enter, ft_site_leave), so that when a
 * removal returns no hit still runs with the removed user.  The hit
 * carries its accessor (ft_uprobe_hitread): the sample's stack copy when
 * the range lies in it, and errno as read at the hit, else the memory
 * now.
 *
 * Exec.  The exec program shuts the capture program's gate (ft_bpf.c)
 * in the kernel, before the new image runs; the drain thread meets its
 * record after every sample of the old image.  It asks the user
 * (fo_execok) whether the new image, credentials and all, may still be
 * traced (ft_proc_exec, shared with ptrace): if not, the process is let
 * go (no sample of the new image was ever taken; the links go at
 * release), else the memory descriptor is opened again for the new
 * image (reads of samples drained before used the old one, which reads
 * nothing of the new) and, once the
 * probes are resolved again (fo_exec), the gate opens.
 *
 * The inline backend (ft_backend_inline, at the end) is this one with
 * the function entries that can take a jmp patched by ft_inline.c:
 * each sync first has those patched (every thread stopped: by ptrace's
 * thread while it holds a command, by a stop of our own after), then
 * links the rest; each drain pass hands out the inline ring's records
 * and this ring's in time order (the records of either taken after the
 * pass began wait for the next one), so that a thread's entry through
 * one and return through the other arrive in order; now and then it
 * has the patches taken out of fork children (ft_inline_kids).
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ft.h"

#define	FT_UP_ENOTSUPP	524	/* the kernel's ENOTSUPP */
#define	FT_UP_POLLMS	10	/* drain at least this often */
#define	FT_UP_MAXCPU	1024

/* A link in place: every probed offset of one file. */
typedef struct ft_uplink {
	uint64_t	ul_dev;
	uint64_t	ul_ino;
	int		ul_fd;
	uint64_t	*ul_offs;	/* sorted */
	uint64_t	*ul_cookies;	/* FT_BPF_COOKIE: address, tag */
	uint32_t	ul_file;	/* the file's tag, 0: none */
	uint32_t	ul_gen;		/* the link's generation */
	uint32_t	ul_n;
	int		ul_fresh;	/* made by this sync */
	struct ft_uplink *ul_next;
} ft_uplink_t;

/* Our state, in the process's pr_bdata. */
typedef struct ft_up ft_up_t;
struct ft_up {
	ft_bpf_t	*up_bpf;
	int		up_epfd;
	int		up_evfd;	/* release */
	int		up_pidfd;
	pthread_t	up_thread;
	int		up_started;
	pthread_mutex_t	up_synclock;	/* ft_uprobe_sync() */
	ft_uplink_t	*up_links;
	uint64_t	up_lost[FT_UP_MAXCPU];	/* reported so far */
	int		up_exited;
	uint64_t	up_rdebug;	/* struct r_debug, or 0 */
	uint64_t	up_rbrk;	/* the dynamic linker's hook, or 0 */
	uint64_t	up_execs;	/* exec records drained */
	size_t		up_stack;	/* the stack copy's bound */
	int		up_stackset;	/* set by ft_proc_stack() once */
	int		up_letgo;	/* let go at an exec */
	int64_t		up_tlsoff;	/* errno - %fs base, as the capture
					   program has it; 0 unknown */
	pthread_t	*up_closers;	/* closing replaced links */
	int		up_nclosers;
	const ft_backend_t *up_be;	/* our row: uprobe or inline */
	/* the files linked so far, tags 1 .. FT_BPF_NFILES - 1 */
	struct ft_upfile {
		uint64_t	uf_dev, uf_ino;
		uint32_t	uf_gen;		/* the current generation */
	} up_files[FT_BPF_NFILES];
	int		up_nfiles;
	ft_inl_t	*up_inl;	/* inline: the patched entries */
	size_t		up_ringsize;
};

/* An executable mapping of a file, from /proc/PID/maps. */
typedef struct ft_upmap {
	uint64_t	um_lo, um_hi, um_off, um_dev, um_ino;
	char		um_path[PATH_MAX];
} ft_upmap_t;

/* A wanted site: where it is in its file. */
typedef struct ft_upwant {
	uint64_t	uw_dev, uw_ino, uw_off, uw_addr;
	int		uw_map;		/* index in the maps */
} ft_upwant_t;

static void	ft_uprobe_fire(ft_proc_t *, ft_hit_t *);

/* Our sites (ft_site.c) */
#define	FT_UPROBE_TAB(p)	\
	(&(p)->pr_tab[((ft_up_t *)(p)->pr_bdata)->up_be->fb_id])

/*
 * Would x86 uprobes take the instruction at addr?  They refuse the
 * lock prefix and the es, cs, ss and ds segment prefixes (ds is also
 * notrack), VEX-encoded instructions (c4, c5), as well as int3 and int
 * N; other refusals are found by ft_uprobe_sync's bisection.  EVEX
 * (62) they take, and run wrong (measured on 6.18: a uprobe on
 * `vpbroadcastb %esi, %ymm17', glibc's __strchr_evex's first
 * instruction, leaves %ymm17 wrong and fires twice a call: strchr
 * failed, and `ls -R' with libc's entries traced said "invalid option
 * -- 'R'"): refused here, never linked.  The bytes come from the file,
 * as the kernel's do: memory may still hold a uprobe's int3 (a link
 * closing).
 * fb_site_check: 0 (refused ones get st_nolink), or -1 with errno.
 */
static int
ft_uprobe_site_check(ft_proc_t *p, ft_site_t *s)
{
	uint64_t addr = s->st_addr;
	const ft_sym_t *sym;
	ft_mod_t *m;
	ft_elf_t *fe;
	uint8_t b[16];
	ft_insn_t in;
	size_t i, len = 0;

	if (ft_proc_lookup(p, addr, &m, &sym) == 0 &&
	    (fe = ft_proc_mod_elf(p, m, NULL, 0)) != NULL)
		for (len = sizeof(b); len > 0; len--)
			if (ft_elf_read(fe, addr - m->fm_bias, b, len) == 0)
				break;
	if (len == 0) {
		len = sizeof(b);
		if (ft_proc_memread(p, addr, b, len) == -1) {
			errno = EFAULT;
			return -1;
		}
	}
	if (ft_isa_decode(b, len, addr, &in) == -1) {
		errno = EINVAL;
		return -1;
	}
	if (in.fi_type == FT_I_INT3) {
		errno = EBUSY;
		return -1;
	}
	if (in.fi_type == FT_I_INT) {
		errno = ENOTSUP;
		return -1;
	}
	for (i = 0; i < in.fi_len; i++) {
		switch (b[i]) {
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0xf0:
		case 0x62: case 0xc4: case 0xc5:
			s->st_nolink = 1;	/* refused */
			return 0;
		case 0x64: case 0x65: case 0x66: case 0x67:
		case 0xf2: case 0xf3:
			continue;
		default:
			break;
		}
		break;
	}
	return 0;
}

/*
 * A hit's accessor: the sample's stack copy if it has the range (and
 * errno as the capture program read it at the hit), else the memory
 * now, later than the hit.
 */
static int
ft_uprobe_hitread(const ft_hit_t *h, uint64_t addr, void *buf, size_t len)
{
	const ft_bpfrec_t *r = h->fh_priv;
	ft_up_t *up = h->fh_proc->pr_bdata;

	if (r->br_errok && len == sizeof(r->br_errno) && up->up_tlsoff != 0 &&
	    addr == r->br_fsbase + (uint64_t)up->up_tlsoff) {
		memcpy(buf, &r->br_errno, len);
		return 0;
	}
	if (ft_hit_stackcopy(r->br_regs[FT_BPF_NREGS - 2], r->br_stack,
	    r->br_stklen, addr, buf, len) == 0)
		return 0;
	return ft_proc_memread(h->fh_proc, addr, buf, len);
}

/*
 * The stack at the hit, for the unwinder: the sample's copy and nothing
 * else.  Past its end the memory is a later moment's (the frames may
 * have returned, others taken their place): the walk stops there.
 */
static int
ft_uprobe_hitstack(const ft_hit_t *h, uint64_t addr, void *buf, size_t len)
{
	const ft_bpfrec_t *r = h->fh_priv;

	return ft_hit_stackcopy(r->br_regs[FT_BPF_NREGS - 2], r->br_stack,
	    r->br_stklen, addr, buf, len);
}

/* Executable file mappings of the process. */
static ft_upmap_t *
ft_uprobe_maps(ft_proc_t *p, int *np)
{
	char path[64], line[PATH_MAX + 128];
	ft_upmap_t *v = NULL, *nv;
	int n = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pr_pid);
	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	while (fgets(line, sizeof(line), f) != NULL) {
		ft_mapent_t me;

		if (ft_procfs_mapline(line, &me) == -1 ||
		    me.me_perm[2] != 'x' || me.me_ino == 0 ||
		    me.me_path[0] != '/')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL) {
				free(v);
				fclose(f);
				return NULL;
			}
			v = nv;
		}
		v[n].um_lo = me.me_lo;
		v[n].um_hi = me.me_hi;
		v[n].um_off = me.me_off;
		v[n].um_dev = me.me_dev;
		v[n].um_ino = me.me_ino;
		snprintf(v[n].um_path, sizeof(v[n].um_path), "%s", me.me_path);
		n++;
	}
	fclose(f);
	*np = n;
	if (v == NULL)
		v = calloc(1, sizeof(*v));
	return v;
}

static int
ft_uprobe_wantcmp(const void *a, const void *b)
{
	const ft_upwant_t *x = a, *y = b;

	if (x->uw_dev != y->uw_dev)
		return x->uw_dev < y->uw_dev ? -1 : 1;
	if (x->uw_ino != y->uw_ino)
		return x->uw_ino < y->uw_ino ? -1 : 1;
	if (x->uw_off != y->uw_off)
		return x->uw_off < y->uw_off ? -1 : 1;
	return 0;
}

/* Close links from a thread of their own: each close waits a grace period. */
static void *
ft_uprobe_closer(void *arg)
{
	int *fds = arg, i;

	for (i = 1; i <= fds[0]; i++)
		close(fds[i]);
	free(fds);
	return NULL;
}

/*
 * Close fds (a count, then descriptors) on a thread of their own, which
 * *tp (growing by *np) keeps to be joined; the ones that have finished
 * are joined on the way.  With no thread, they are closed here.
 */
static void
ft_uprobe_closelater(int *fds, pthread_t **tp, int *np)
{
	pthread_t t, *nt;
	int i, j;

	if (fds == NULL || fds[0] == 0) {
		free(fds);
		return;
	}
	for (i = j = 0; i < *np; i++) {
		if (pthread_tryjoin_np((*tp)[i], NULL) != 0)
			(*tp)[j++] = (*tp)[i];
	}
	*np = j;
	if ((nt = reallocarray(*tp, (size_t)*np + 1, sizeof(*nt))) == NULL ||
	    pthread_create(&t, NULL, ft_uprobe_closer, fds) != 0) {
		if (nt != NULL)
			*tp = nt;
		ft_uprobe_closer(fds);
		return;
	}
	*tp = nt;
	(*tp)[(*np)++] = t;
}

/* Join every closer of *tp: their closes have returned. */
static void
ft_uprobe_closejoin(pthread_t **tp, int *np)
{
	int i;

	for (i = 0; i < *np; i++)
		pthread_join((*tp)[i], NULL);
	free(*tp);
	*tp = NULL;
	*np = 0;
}

static int
ft_uprobe_pushfd(int **fdsp, int fd)
{
	int *fds = *fdsp, *n;

	if ((n = realloc(fds, (size_t)((fds ? fds[0] : 0) + 2) *
	    sizeof(int))) == NULL) {
		close(fd);
		return -1;
	}
	if (fds == NULL)
		n[0] = 0;
	n[++n[0]] = fd;
	*fdsp = n;
	return 0;
}

/*
 * Offsets [0, n) of one file that the kernel refuses: marked in bad[].
 * The links made on the way are queued in *fds for closing.
 */
static int
ft_uprobe_bisect(ft_up_t *up, const char *path, const uint64_t *offs,
    const uint64_t *cookies, uint32_t n, pid_t pid, uint8_t *bad, int **fds)
{
	uint32_t h;
	int fd;

	if ((fd = ft_bpf_link(up->up_bpf, path, offs, cookies, n, pid)) >= 0)
		return ft_uprobe_pushfd(fds, fd);
	if (errno != FT_UP_ENOTSUPP)
		return -1;
	if (n == 1) {
		bad[0] = 1;
		return 0;
	}
	h = n / 2;
	if (ft_uprobe_bisect(up, path, offs, cookies, h, pid, bad, fds) == -1)
		return -1;
	return ft_uprobe_bisect(up, path, offs + h, cookies + h, n - h, pid,
	    bad + h, fds);
}

#define	FT_UP_ADDR(c)	((c) & ((1ULL << FT_BPF_TAGSHIFT) - 1))

/* The tag of a file (made on first use), or 0 if there is no room. */
static uint32_t
ft_uprobe_filetag(ft_up_t *up, uint64_t dev, uint64_t ino)
{
	int i;

	for (i = 0; i < up->up_nfiles; i++)
		if (up->up_files[i].uf_dev == dev && up->up_files[i].uf_ino == ino)
			return (uint32_t)i + 1;
	if (up->up_nfiles == FT_BPF_NFILES - 1)
		return 0;
	up->up_files[up->up_nfiles].uf_dev = dev;
	up->up_files[up->up_nfiles].uf_ino = ino;
	up->up_files[up->up_nfiles].uf_gen = 0;
	return (uint32_t)++up->up_nfiles;
}

/* Is a link of that file in place (the one a new link replaces)? */
static int
ft_uprobe_haslink(const ft_up_t *up, uint64_t dev, uint64_t ino)
{
	const ft_uplink_t *l;

	for (l = up->up_links; l != NULL; l = l->ul_next)
		if (l->ul_dev == dev && l->ul_ino == ino && l->ul_fd >= 0)
			return 1;
	return 0;
}

/*
 * A link for the sites v[0, n) of one file; refused ones get st_nolink.
 * It is a new generation of its file's links: where an old link is in
 * place, the new one fires only once it is made (one store switches
 * the file's generation), so that no hit is recorded by both while the
 * old one is closing; the links of a bisection (which finds the refused
 * offsets) are of a generation that never fires.
 */
static ft_uplink_t *
ft_uprobe_link(ft_proc_t *p, const ft_upmap_t *map, ft_upwant_t *v,
    uint32_t n, int **fds, int *nrefused)
{
	ft_up_t *up = p->pr_bdata;
	char path[64];
	ft_mapent_t me;
	ft_uplink_t *l;
	uint8_t *bad = NULL;
	uint32_t i, j;
	int e, ffd = -1;

	if ((l = calloc(1, sizeof(*l))) == NULL ||
	    (l->ul_offs = calloc(n, sizeof(uint64_t))) == NULL ||
	    (l->ul_cookies = calloc(n, sizeof(uint64_t))) == NULL)
		goto fail;
	l->ul_dev = v[0].uw_dev;
	l->ul_ino = v[0].uw_ino;
	l->ul_fd = -1;
	if ((l->ul_file = ft_uprobe_filetag(up, l->ul_dev, l->ul_ino)) != 0) {
		l->ul_gen = (up->up_files[l->ul_file - 1].uf_gen + 1) %
		    FT_BPF_NGEN;
		/* no old link to replace: this one fires from the start */
		if (!ft_uprobe_haslink(up, l->ul_dev, l->ul_ino) &&
		    ft_bpf_current(up->up_bpf, l->ul_file, l->ul_gen) == 0)
			up->up_files[l->ul_file - 1].uf_gen = l->ul_gen;
	}
	for (i = 0; i < n; i++) {
		l->ul_offs[i] = v[i].uw_off;
		l->ul_cookies[i] = l->ul_file == 0 ? v[i].uw_addr :
		    FT_BPF_COOKIE(v[i].uw_addr, l->ul_file,
		    (l->ul_gen + FT_BPF_NGEN / 2) % FT_BPF_NGEN);
	}
	l->ul_n = n;
	/*
	 * The very file mapped (it may have been replaced on disk since),
	 * which the kernel finds again through our descriptor's name.
	 */
	memset(&me, 0, sizeof(me));
	me.me_lo = map->um_lo;
	me.me_hi = map->um_hi;
	me.me_off = map->um_off;
	me.me_dev = map->um_dev;
	me.me_ino = map->um_ino;
	me.me_path = map->um_path;
	if ((ffd = ft_procfs_mapopen(p->pr_pid, &me, NULL, 0)) == -1)
		goto fail;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", ffd);
	/* first as a bisection's link would be: it never fires */
	if (l->ul_file == 0) {
		l->ul_fd = ft_bpf_link(up->up_bpf, path, l->ul_offs,
		    l->ul_cookies, n, p->pr_pid);
		if (l->ul_fd >= 0 || errno != FT_UP_ENOTSUPP)
			goto done;
	} else {
		for (i = 0; i < n; i++)
			l->ul_cookies[i] = FT_BPF_COOKIE(FT_UP_ADDR(
			    l->ul_cookies[i]), l->ul_file, l->ul_gen);
		l->ul_fd = ft_bpf_link(up->up_bpf, path, l->ul_offs,
		    l->ul_cookies, n, p->pr_pid);
		if (l->ul_fd >= 0 || errno != FT_UP_ENOTSUPP)
			goto done;
		for (i = 0; i < n; i++)
			l->ul_cookies[i] = FT_BPF_COOKIE(FT_UP_ADDR(
			    l->ul_cookies[i]), l->ul_file,
			    (l->ul_gen + FT_BPF_NGEN / 2) % FT_BPF_NGEN);
	}
	/* some offset is refused: find which, and link the others */
	if ((bad = calloc(n, 1)) == NULL || ft_uprobe_bisect(up, path,
	    l->ul_offs, l->ul_cookies, n, p->pr_pid, bad, fds) == -1)
		goto fail;
	pthread_mutex_lock(&p->pr_lock);
	for (i = j = 0; i < n; i++) {
		if (bad[i]) {
			ft_site_t *s = *ft_site_slot(FT_UPROBE_TAB(p),
			    FT_UP_ADDR(l->ul_cookies[i]));

			if (s != NULL)
				s->st_nolink = 1;
			(*nrefused)++;
			continue;
		}
		l->ul_offs[j] = l->ul_offs[i];
		l->ul_cookies[j++] = l->ul_file == 0 ? l->ul_cookies[i] :
		    FT_BPF_COOKIE(FT_UP_ADDR(l->ul_cookies[i]), l->ul_file,
		    l->ul_gen);
	}
	pthread_mutex_unlock(&p->pr_lock);
	l->ul_n = j;
	free(bad);
	bad = NULL;
	if (j == 0) {
		close(ffd);
		return l;	/* nothing to link: an empty entry */
	}
	l->ul_fd = ft_bpf_link(up->up_bpf, path, l->ul_offs, l->ul_cookies, j,
	    p->pr_pid);
done:
	if (l->ul_fd >= 0) {
		close(ffd);
		/* made: it fires, the old one (closing) no more */
		if (l->ul_file != 0 && ft_bpf_current(up->up_bpf, l->ul_file,
		    l->ul_gen) == 0)
			up->up_files[l->ul_file - 1].uf_gen = l->ul_gen;
		return l;
	}
fail:
	e = errno;
	if (ffd != -1)
		close(ffd);
	free(bad);
	if (l != NULL) {
		free(l->ul_offs);
		free(l->ul_cookies);
		free(l);
	}
	errno = e;
	return NULL;
}

static void
ft_uprobe_linkfree(ft_uplink_t *l, int **fds)
{
	if (l->ul_fd >= 0)
		ft_uprobe_pushfd(fds, l->ul_fd);
	free(l->ul_offs);
	free(l->ul_cookies);
	free(l);
}

struct ft_upwantarg {
	ft_inl_t	*wa_inl;
	const ft_uplink_t *wa_links;	/* in place */
	const ft_upmap_t *wa_maps;
	int		wa_nmaps;
	ft_upwant_t	*wa_w;
	size_t		wa_nw, wa_cap;
	int		wa_refused;
};

static int
ft_uprobe_offcmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Is the wanted site in one of the links in place? */
static int
ft_uprobe_linked(const ft_uplink_t *l, const ft_upwant_t *w)
{
	for (; l != NULL; l = l->ul_next)
		if (l->ul_dev == w->uw_dev && l->ul_ino == w->uw_ino)
			return bsearch(&w->uw_off, l->ul_offs, l->ul_n,
			    sizeof(uint64_t), ft_uprobe_offcmp) != NULL;
	return 0;
}

/* A site to link, if it has users and a mapping.  pr_lock held. */
static void
ft_uprobe_want(void *arg, ft_site_t *s)
{
	struct ft_upwantarg *wa = arg;
	const ft_upmap_t *maps = wa->wa_maps;
	ft_upwant_t *w;
	int m;

	if (s->st_nolink && !(wa->wa_inl != NULL &&
	    ft_inline_patched(wa->wa_inl, s->st_addr))) {
		wa->wa_refused++;
		return;
	}
	if ((s->st_nusers == 0 && !s->st_rbrk) || wa->wa_nw == wa->wa_cap)
		return;
	for (m = 0; m < wa->wa_nmaps; m++)
		if (s->st_addr >= maps[m].um_lo && s->st_addr < maps[m].um_hi)
			break;
	if (m == wa->wa_nmaps)
		return;		/* not mapped (any more) */
	w = &wa->wa_w[wa->wa_nw];
	w->uw_dev = maps[m].um_dev;
	w->uw_ino = maps[m].um_ino;
	w->uw_off = s->st_addr - maps[m].um_lo + maps[m].um_off;
	w->uw_addr = s->st_addr;
	w->uw_map = m;
	/*
	 * A jmp of ours (inline) needs no uprobe; one it was written over
	 * (the site was linked first) is kept in its link, where it never
	 * fires: relinking the file would have both links probe its other
	 * sites until the old one is closed, each hit twice.
	 */
	if (wa->wa_inl != NULL && ft_inline_patched(wa->wa_inl, s->st_addr) &&
	    !ft_uprobe_linked(wa->wa_links, w))
		return;
	wa->wa_nw++;
}

/* A site's address, if it has users (inline: what to patch). */
struct ft_upaddrs {
	uint64_t	*ua_a;
	size_t		ua_n, ua_cap;
};

static void
ft_uprobe_addr(void *arg, ft_site_t *s)
{
	struct ft_upaddrs *ua = arg;

	if (s->st_nusers > 0 && ua->ua_n < ua->ua_cap)
		ua->ua_a[ua->ua_n++] = s->st_addr;
}

/*
 * Inline: the function entries among the wanted sites that fit are
 * patched (and the ones no longer wanted restored) before the links
 * are made; a process that cannot be stopped keeps uprobes.
 */
static void
ft_uprobe_inlsync(ft_proc_t *p, ft_up_t *up, const ft_upmap_t *maps,
    int nmaps)
{
	struct ft_upaddrs ua;
	ft_upwant_t w;
	uint8_t *linked = NULL;
	size_t i;
	int m;

	pthread_mutex_lock(&p->pr_lock);
	ua.ua_cap = FT_UPROBE_TAB(p)->sb_n;
	ua.ua_n = 0;
	ua.ua_a = ua.ua_cap > 0 ? calloc(ua.ua_cap, sizeof(uint64_t)) : NULL;
	if (ua.ua_a != NULL)
		ft_site_each(FT_UPROBE_TAB(p), ft_uprobe_addr, &ua);
	pthread_mutex_unlock(&p->pr_lock);
	/* which of them a link of ours probes (its int3 may be there) */
	if (ua.ua_n > 0 && (linked = calloc(ua.ua_n, 1)) != NULL) {
		for (i = 0; i < ua.ua_n; i++) {
			for (m = 0; m < nmaps; m++)
				if (ua.ua_a[i] >= maps[m].um_lo &&
				    ua.ua_a[i] < maps[m].um_hi)
					break;
			if (m == nmaps)
				continue;
			memset(&w, 0, sizeof(w));
			w.uw_dev = maps[m].um_dev;
			w.uw_ino = maps[m].um_ino;
			w.uw_off = ua.ua_a[i] - maps[m].um_lo + maps[m].um_off;
			linked[i] = (uint8_t)ft_uprobe_linked(up->up_links, &w);
		}
	}
	(void)ft_inline_sync(p, up->up_inl, ua.ua_a, linked, ua.ua_n,
	    up->up_ringsize, up->up_stackset ? up->up_stack : FT_BPF_STACK);
	free(linked);
	free(ua.ua_a);
}

/*
 * Put the sites that have users in place: a new link for each file whose
 * set changed, then the old links go.  Returns the number of sites the
 * kernel refuses, or -1 (errno) if a link could not be made (the links
 * in place stay).
 */
static int
ft_uprobe_sync(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;
	ft_upmap_t *maps;
	ft_upwant_t *w = NULL;
	ft_uplink_t *nl = NULL, **tail = &nl, *l, *o, **op;
	size_t nw = 0, cap, i, j;
	int nmaps = 0, refused = 0, e = 0, *fds = NULL;
	struct ft_upwantarg wa;

	/* perf takes a pid: once ours has ended, it would be another's */
	if (p->pr_dead || ft_proc_gone(p))
		return 0;
	pthread_mutex_lock(&up->up_synclock);
	if ((maps = ft_uprobe_maps(p, &nmaps)) == NULL) {
		e = errno ? errno : ESRCH;
		goto out;
	}
	/* the file mappings are the same after: the patches' are anonymous */
	if (up->up_inl != NULL)
		ft_uprobe_inlsync(p, up, maps, nmaps);
	pthread_mutex_lock(&p->pr_lock);
	cap = FT_UPROBE_TAB(p)->sb_n;
	if (cap > 0 && (w = calloc(cap, sizeof(*w))) == NULL) {
		pthread_mutex_unlock(&p->pr_lock);
		e = ENOMEM;
		goto out;
	}
	wa.wa_inl = up->up_inl;
	wa.wa_links = up->up_links;
	wa.wa_maps = maps;
	wa.wa_nmaps = nmaps;
	wa.wa_w = w;
	wa.wa_nw = 0;
	wa.wa_cap = cap;
	wa.wa_refused = 0;
	ft_site_each(FT_UPROBE_TAB(p), ft_uprobe_want, &wa);
	nw = wa.wa_nw;
	refused = wa.wa_refused;
	pthread_mutex_unlock(&p->pr_lock);
	if (nw > 1)	/* w is NULL when there are no sites */
		qsort(w, nw, sizeof(*w), ft_uprobe_wantcmp);
	/* one file at a time; the same offset twice (two mappings): once */
	for (i = 0; i < nw; i = j) {
		size_t k, n;

		for (j = i + 1, n = i + 1; j < nw && w[j].uw_dev == w[i].uw_dev &&
		    w[j].uw_ino == w[i].uw_ino; j++)
			if (w[j].uw_off != w[n - 1].uw_off)
				w[n++] = w[j];
		n -= i;
		/* unchanged: the link in place moves to the new list */
		for (op = &up->up_links; (o = *op) != NULL; op = &o->ul_next) {
			if (o->ul_dev != w[i].uw_dev ||
			    o->ul_ino != w[i].uw_ino || o->ul_n != n)
				continue;
			for (k = 0; k < n; k++)
				if (o->ul_offs[k] != w[i + k].uw_off ||
				    FT_UP_ADDR(o->ul_cookies[k]) !=
				    w[i + k].uw_addr)
					break;
			if (k == n)
				break;
		}
		if (o != NULL) {
			*op = o->ul_next;
			o->ul_fresh = 0;
			o->ul_next = NULL;
			*tail = o;
			tail = &o->ul_next;
			continue;
		}
		if ((l = ft_uprobe_link(p, &maps[w[i].uw_map], &w[i],
		    (uint32_t)n, &fds, &refused)) == NULL) {
			e = errno;
			goto undo;
		}
		l->ul_fresh = 1;
		*tail = l;
		tail = &l->ul_next;
	}
	/* in place: the old links go */
	while ((o = up->up_links) != NULL) {
		up->up_links = o->ul_next;
		ft_uprobe_linkfree(o, &fds);
	}
	up->up_links = nl;
	goto out;
undo:
	/* the new links go, the ones moved go back */
	while ((l = nl) != NULL) {
		nl = l->ul_next;
		if (l->ul_fresh) {
			ft_uprobe_linkfree(l, &fds);
		} else {
			l->ul_next = up->up_links;
			up->up_links = l;
		}
	}
	/* the links that stay fire again, where a new one had taken over */
	for (l = up->up_links; l != NULL; l = l->ul_next) {
		if (l->ul_file == 0 ||
		    up->up_files[l->ul_file - 1].uf_gen == l->ul_gen)
			continue;
		if (ft_bpf_current(up->up_bpf, l->ul_file, l->ul_gen) == 0)
			up->up_files[l->ul_file - 1].uf_gen = l->ul_gen;
	}
out:
	ft_uprobe_closelater(fds, &up->up_closers, &up->up_nclosers);
	free(w);
	free(maps);
	pthread_mutex_unlock(&up->up_synclock);
	if (e != 0) {
		errno = e;
		return -1;
	}
	return refused;
}

/* Drop every site: the process is let go.  Holding nothing. */
static void
ft_uprobe_purge(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;

	pthread_mutex_lock(&p->pr_lock);
	(void)ft_site_purge(p, FT_UPROBE_TAB(p), 0, NULL, 0);
	up->up_rdebug = up->up_rbrk = 0;
	pthread_mutex_unlock(&p->pr_lock);
}

/*
 * Watch the dynamic linker's hook (r_debug.r_brk, or _dl_debug_state):
 * a site with no user, linked like the others.
 */
static void
ft_uprobe_hook(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;
	uint64_t rdebug = 0, rbrk = 0;

	if (up->up_rbrk != 0 || ft_proc_rdebug(p, &rdebug, &rbrk) == -1 ||
	    rbrk == 0)
		return;
	if (ft_site_add(p, FT_UPROBE_TAB(p), rbrk, NULL, 1) == 0) {
		up->up_rdebug = rdebug;
		up->up_rbrk = rbrk;
	}
}

/*
 * Drain thread: the hook was hit; once the linker's list is consistent
 * again, say the modules changed.  After the fact: the thread ran on.
 */
static void
ft_uprobe_rbrk(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;
	int32_t state = 0;

	/* struct r_debug: r_state follows r_version, r_map, r_brk */
	if (up->up_rdebug != 0 && ft_proc_memread(p, up->up_rdebug + 24,
	    &state, 4) == 0 && state != 0)
		return;		/* RT_ADD or RT_DELETE: in progress */
	ft_proc_refresh(p);
	if (p->pr_ops->fo_modules != NULL)
		p->pr_ops->fo_modules(p->pr_arg, p);
}

/*
 * Tell the capture program where the image's errno is, so that samples
 * carry errno as it was at the hit (ft_uprobe_hitread serves it).
 */
static void
ft_uprobe_tls(ft_proc_t *p, ft_up_t *up)
{
	int64_t off;

	if (ft_proc_errno_off(p, &off) == -1)
		off = 0;
	if (ft_bpf_tlsoff(up->up_bpf, off) == 0)
		up->up_tlsoff = off;
}

/*
 * fb_stack: the capture program's bound on its stack copy.  The first
 * call sets it (down from the whole FT_BPF_STACK); later ones only raise
 * it, as the users of the earlier calls still need what they asked for.
 */
static int
ft_uprobe_stack(ft_proc_t *p, size_t len)
{
	ft_up_t *up = p->pr_bdata;

	if (up == NULL || up->up_bpf == NULL) {
		errno = ESRCH;
		return -1;
	}
	if (len > FT_BPF_STACK)
		len = FT_BPF_STACK;
	if (up->up_stackset && len <= up->up_stack)
		return 0;
	if (ft_bpf_stack(up->up_bpf, len) == -1)
		return -1;
	up->up_stack = len;
	up->up_stackset = 1;
	return 0;
}

/*
 * Drain thread: the process exec'd; its new image may be running, but
 * the gate is shut to it.
 */
static void
ft_uprobe_exec(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;

	up->up_execs++;
	up->up_rdebug = up->up_rbrk = 0;
	/* the old image's inline hits first; its patches went with it */
	if (up->up_inl != NULL) {
		ft_inline_drain(p, up->up_inl, UINT64_MAX, ft_uprobe_fire);
		ft_inline_exec(up->up_inl);
	}
	if (ft_proc_exec(p, up->up_be) == -1) {
		up->up_letgo = 1;
		return;
	}
	ft_proc_refresh(p);
	ft_uprobe_tls(p, up);
	ft_uprobe_hook(p);
	if (p->pr_ops->fo_exec != NULL)
		p->pr_ops->fo_exec(p->pr_arg, p);
	(void)ft_bpf_gate(up->up_bpf, up->up_execs);
}

/*
 * Drain thread: a hit of the site at h's address, to its users.  After
 * the hit the dynamic linker's hook is looked at (the main thread may
 * remove sites meanwhile).
 */
static void
ft_uprobe_fire(ft_proc_t *p, ft_hit_t *h)
{
	ft_up_t *up = p->pr_bdata;
	void *const *users;
	ft_site_t s;
	int n;

	if (up->up_letgo)
		return;
	if ((n = ft_site_enter(p, FT_UPROBE_TAB(p), h->fh_addr, &s,
	    &users)) == -1)
		return;
	if (n > 0 && p->pr_ops->fo_hit != NULL)
		p->pr_ops->fo_hit(p->pr_arg, p, h, users, n);
	ft_site_leave(p);
	if (s.st_rbrk)
		ft_uprobe_rbrk(p);
}

/* Drain thread: one sample. */
static void
ft_uprobe_hit(void *arg, const ft_bpfrec_t *r)
{
	ft_proc_t *p = arg;
	ft_up_t *up = p->pr_bdata;
	ft_hit_t h;

	if (up->up_letgo)
		return;
	if (r->br_cookie == FT_BPF_EXEC) {
		/*
		 * The exec program knows the process by its pid: once
		 * this thread has heard ours end (every record of it was
		 * drained first), an exec of that pid is another's, and
		 * its gate stays shut.  One drained before is ours, though
		 * the process may have ended since: exec is followed after
		 * the fact, and its users are asked all the same.
		 */
		if (!up->up_exited)
			ft_uprobe_exec(p);
		return;
	}
	memset(&h, 0, sizeof(h));
	h.fh_pid = (pid_t)(r->br_pidtgid >> 32);
	h.fh_tid = (pid_t)(uint32_t)r->br_pidtgid;
	h.fh_addr = r->br_cookie;
	h.fh_cpu = (int)r->br_cpu;
	h.fh_time = r->br_time;
	memcpy(&h.fh_regs, r->br_regs, sizeof(r->br_regs));
	h.fh_regs.rip = r->br_cookie;
	h.fh_regs.fs_base = r->br_fsbase;
	h.fh_proc = p;
	h.fh_read = ft_uprobe_hitread;
	h.fh_stkread = ft_uprobe_hitstack;
	h.fh_priv = r;
	/* the inline hits before it first */
	if (up->up_inl != NULL)
		ft_inline_drain(p, up->up_inl, r->br_time, ft_uprobe_fire);
	ft_uprobe_fire(p, &h);
}

/*
 * Drain thread: a pass over the ring, and the inline ring's records in
 * time order with it; records of either ring after the pass began wait
 * for the next pass (the other ring's records before them, of the same
 * thread, may not be gathered yet).
 */
static void
ft_uprobe_drain(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;

	if (up->up_inl == NULL) {
		ft_bpf_drain(up->up_bpf, ft_uprobe_hit, p, UINT64_MAX);
		return;
	}
	ft_inline_gather(up->up_inl);
	ft_bpf_drain(up->up_bpf, ft_uprobe_hit, p,
	    ft_inline_passtime(up->up_inl));
	/* inline records taken after the pass began wait too */
	ft_inline_drain(p, up->up_inl, ft_inline_passtime(up->up_inl),
	    ft_uprobe_fire);
}

/* Drain thread: report samples lost since the last time. */
static void
ft_uprobe_lost(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;
	uint64_t v[FT_UP_MAXCPU];
	int n, i;

	if (up->up_inl != NULL && (v[0] = ft_inline_lost(up->up_inl)) > 0 &&
	    p->pr_ops->fo_lost != NULL)
		p->pr_ops->fo_lost(p->pr_arg, p, 0, v[0]);
	if ((n = ft_bpf_lost(up->up_bpf, v, FT_UP_MAXCPU)) <= 0)
		return;
	for (i = 0; i < n; i++) {
		if (v[i] == up->up_lost[i])
			continue;
		if (p->pr_ops->fo_lost != NULL)
			p->pr_ops->fo_lost(p->pr_arg, p, i, v[i] -
			    up->up_lost[i]);
		up->up_lost[i] = v[i];
	}
}

/* The wait status of an exited process: from its zombie, if we can. */
static int
ft_uprobe_status(ft_proc_t *p)
{
	uint64_t v;

	/* exit_code, field 52 */
	return ft_proc_statfield(p->pr_pid, 0, 52, &v) == 0 ? (int)v : 0;
}

static void *
ft_uprobe_main(void *arg)
{
	ft_proc_t *p = arg;
	ft_up_t *up = p->pr_bdata;
	struct epoll_event ev[4];
	int n, i, stop = 0, gone, pass = 0;
	sigset_t set;

	/* the ptrace backend's wake-up signal is not for us */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 5);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (!stop) {
		gone = 0;
		n = epoll_wait(up->up_epfd, ev, 4, up->up_exited ? -1 :
		    FT_UP_POLLMS);
		for (i = 0; i < n; i++) {
			if (ev[i].data.fd == up->up_evfd)
				stop = 1;
			else if (ev[i].data.fd == up->up_pidfd)
				gone = 1;
		}
		if (stop)
			break;
		ft_uprobe_drain(p);
		ft_uprobe_lost(p);
		/* inline: fork children's copies of the patches, restored */
		if (up->up_inl != NULL && !up->up_exited && ++pass % 5 == 0)
			ft_inline_kids(p, up->up_inl);
		if (gone && !up->up_exited && !up->up_letgo) {
			/* every hit of the process is in the ring now */
			ft_uprobe_drain(p);
			ft_uprobe_lost(p);
			up->up_exited = 1;
			epoll_ctl(up->up_epfd, EPOLL_CTL_DEL, up->up_pidfd,
			    NULL);
			pthread_mutex_lock(&p->pr_lock);
			p->pr_dead = 1;
			pthread_mutex_unlock(&p->pr_lock);
			if (p->pr_ops->fo_exited != NULL)
				p->pr_ops->fo_exited(p->pr_arg, p,
				    ft_uprobe_status(p));
		}
	}
	return NULL;
}

/*
 * Move p to the uprobe backend: the capture program, its ring of
 * ringsize bytes, the exec watch, the descriptors to wait on.  The drain
 * thread starts in ft_uprobe_run().
 */
static int
ft_uprobe_attach(ft_proc_t *p, const ft_backend_t *be, size_t ringsize,
    char *err, size_t errlen)
{
	struct epoll_event ev;
	ft_up_t *up;

	/*
	 * The BPF programs number threads as the daemon's pid namespace
	 * does (ft_bpf_pidtgid): one in a namespace below it has no
	 * number there.  ptrace, which takes ours, stays for it.
	 */
	if (ft_bpf_pidns() && ft_procfs_nsdepth(p->pr_pid) != 1) {
		snprintf(err, errlen, "in a pid namespace below dtraced's");
		errno = ENOTSUP;
		return -1;
	}
	if ((up = calloc(1, sizeof(*up))) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	up->up_epfd = up->up_evfd = up->up_pidfd = -1;
	up->up_be = be;
	up->up_ringsize = ringsize;
	pthread_mutex_init(&up->up_synclock, NULL);
	if (be == &ft_backend_inline && (up->up_inl = ft_inline_new()) ==
	    NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		pthread_mutex_destroy(&up->up_synclock);
		free(up);
		return -1;
	}
	if ((up->up_bpf = ft_bpf_open(ringsize, err, errlen)) == NULL)
		goto fail;
	/*
	 * Hear of exec now, while ptrace still holds the process: once it
	 * lets go, the process may exec at once (a -c command that runs a
	 * few calls and execs) and that exec must not be missed.  Records
	 * wait in the ring until the drain thread starts.  Without it, no
	 * uprobes: a set-id exec would go on being traced.
	 */
	if (ft_bpf_exec(up->up_bpf, p->pr_pid) == -1) {
		snprintf(err, errlen, "cannot watch exec: %s",
		    strerror(errno));
		goto fail;
	}
	/* where errno is, for the first samples too */
	ft_uprobe_tls(p, up);
	up->up_pidfd = p->pr_pidfd >= 0 ? fcntl(p->pr_pidfd,
	    F_DUPFD_CLOEXEC, 0) : (int)syscall(SYS_pidfd_open, p->pr_pid, 0);
	if (up->up_pidfd == -1 ||
	    (up->up_epfd = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    (up->up_evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1) {
		snprintf(err, errlen, "%s", strerror(errno));
		goto fail;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = ft_bpf_fd(up->up_bpf);
	if (epoll_ctl(up->up_epfd, EPOLL_CTL_ADD, ev.data.fd, &ev) == -1)
		goto sysfail;
	ev.data.fd = up->up_evfd;
	if (epoll_ctl(up->up_epfd, EPOLL_CTL_ADD, ev.data.fd, &ev) == -1)
		goto sysfail;
	ev.data.fd = up->up_pidfd;
	if (epoll_ctl(up->up_epfd, EPOLL_CTL_ADD, ev.data.fd, &ev) == -1)
		goto sysfail;
	p->pr_bdata = up;
	return 0;
sysfail:
	snprintf(err, errlen, "%s", strerror(errno));
fail:
	ft_bpf_close(up->up_bpf);
	if (up->up_pidfd >= 0)
		close(up->up_pidfd);
	if (up->up_epfd >= 0)
		close(up->up_epfd);
	if (up->up_evfd >= 0)
		close(up->up_evfd);
	pthread_mutex_destroy(&up->up_synclock);
	ft_inline_free(up->up_inl);
	free(up);
	return -1;
}

static int
ft_uprobe_start(ft_proc_t *p, size_t ringsize, char *err, size_t errlen)
{
	return ft_uprobe_attach(p, &ft_backend_uprobe, ringsize, err, errlen);
}

static int
ft_uprobe_istart(ft_proc_t *p, size_t ringsize, char *err, size_t errlen)
{
	return ft_uprobe_attach(p, &ft_backend_inline, ringsize, err, errlen);
}

/*
 * Start the drain thread, and watch for library loads (the dynamic
 * linker's hook, linked at the next sync); exec is watched from
 * ft_uprobe_start().
 */
static int
ft_uprobe_run(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;
	int rc;

	if (up->up_started)
		return 0;
	/* library events, now that ptrace (and its hook) has let go */
	ft_uprobe_hook(p);
	if ((rc = pthread_create(&up->up_thread, NULL, ft_uprobe_main,
	    p)) != 0) {
		errno = rc;
		return -1;
	}
	up->up_started = 1;
	return 0;
}

/* What ft_uprobe_release() leaves for ft_uprobe_close(). */
typedef struct ft_upgone {
	pthread_t	*ug_closers;	/* closing our links */
	int		ug_nclosers;
} ft_upgone_t;

/*
 * Stop the drain thread (no hit runs after this) and free the backend.
 * Its links start closing, each on a thread of its own (a close waits a
 * grace period: side by side, the wait is one period, not one per
 * file); ft_uprobe_close(), which the caller calls last, waits for
 * them and for the closes of links replaced earlier.
 */
static void *
ft_uprobe_release(ft_proc_t *p)
{
	ft_up_t *up = p->pr_bdata;
	ft_upgone_t *g;
	ft_uplink_t *l;
	uint64_t one = 1;
	int *fds;

	if (up == NULL)
		return NULL;
	if (up->up_started) {
		(void)!write(up->up_evfd, &one, sizeof(one));
		pthread_join(up->up_thread, NULL);
		up->up_started = 0;
	}
	/* our jmps out before the links go: no site is left unprobed */
	if (up->up_inl != NULL && !up->up_letgo)
		ft_inline_release(p, up->up_inl);
	while ((l = up->up_links) != NULL) {
		up->up_links = l->ul_next;
		fds = NULL;
		ft_uprobe_linkfree(l, &fds);
		ft_uprobe_closelater(fds, &up->up_closers, &up->up_nclosers);
	}
	ft_uprobe_purge(p);
	ft_inline_free(up->up_inl);
	ft_bpf_close(up->up_bpf);
	close(up->up_pidfd);
	close(up->up_epfd);
	close(up->up_evfd);
	pthread_mutex_destroy(&up->up_synclock);
	if ((g = calloc(1, sizeof(*g))) != NULL) {
		g->ug_closers = up->up_closers;
		g->ug_nclosers = up->up_nclosers;
	} else {
		ft_uprobe_closejoin(&up->up_closers, &up->up_nclosers);
	}
	free(up);
	p->pr_bdata = NULL;
	return g;
}

/*
 * Wait until the links ft_uprobe_release() let go are closed.  A link's
 * close returns once the kernel has unregistered its uprobes (their
 * int3s out of the text) and a grace period has passed: after this, no
 * uprobe of ours is left in the process and none can be removed later.
 * (Polling the text until no site read as int3, with a bound, gave up
 * on a loaded machine while removals were still to come, and a process
 * traced again at once then lost a probe or found a stray int3.)
 */
static void
ft_uprobe_close(void *arg)
{
	ft_upgone_t *g = arg;

	if (g == NULL)
		return;
	ft_uprobe_closejoin(&g->ug_closers, &g->ug_nclosers);
	free(g);
}

/* A function to probe in ourselves, to learn whether uprobes work. */
int	ft_uprobe_selftest(int);

__attribute__((noinline)) int
ft_uprobe_selftest(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/*
 * May this daemon use the uprobe backend (privileges, kernel support for
 * uprobe_multi links)?  Found out once, by linking a probe on one of our
 * own functions.  0, or -1 with the reason in err.
 */
static int
ft_uprobe_ok(char *err, size_t errlen)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int state;	/* 0 unknown, 1 yes, -1 no */
	static char why[256];
	ft_proc_t self;
	ft_upmap_t *maps;
	ft_bpf_t *fb;
	uint64_t a = (uint64_t)(uintptr_t)ft_uprobe_selftest, off, ck;
	int n = 0, m, fd;

	pthread_mutex_lock(&lock);
	if (state != 0)
		goto out;
	state = -1;
	memset(&self, 0, sizeof(self));
	self.pr_pid = getpid();
	if ((fb = ft_bpf_open(4096, why, sizeof(why))) == NULL)
		goto out;
	if ((maps = ft_uprobe_maps(&self, &n)) == NULL) {
		snprintf(why, sizeof(why), "cannot read /proc/self/maps");
		ft_bpf_close(fb);
		goto out;
	}
	for (m = 0; m < n; m++)
		if (a >= maps[m].um_lo && a < maps[m].um_hi)
			break;
	if (m == n) {
		snprintf(why, sizeof(why), "cannot find our own text");
	} else {
		off = a - maps[m].um_lo + maps[m].um_off;
		ck = a;
		if ((fd = ft_bpf_link(fb, maps[m].um_path, &off, &ck, 1,
		    self.pr_pid)) == -1) {
			snprintf(why, sizeof(why), "BPF uprobe_multi links: %s",
			    strerror(errno));
		} else {
			close(fd);
			state = 1;
		}
	}
	free(maps);
	ft_bpf_close(fb);
out:
	if (state < 0 && err != NULL)
		snprintf(err, errlen, "%s", why);
	n = state > 0 ? 0 : -1;
	pthread_mutex_unlock(&lock);
	return n;
}

/* The functions of the uprobe and inline rows: the same but attach. */
#define	FT_UPROBE_ROW \
	.fb_run = ft_uprobe_run, \
	.fb_site_check = ft_uprobe_site_check, \
	.fb_sync = ft_uprobe_sync, \
	.fb_release = ft_uprobe_release, \
	.fb_close = ft_uprobe_close, \
	.fb_stack = ft_uprobe_stack, \
	.fb_read = ft_proc_memread, \
	.fb_write = ft_proc_memwrite

const ft_backend_t ft_backend_uprobe = {
	.fb_id = FT_BACKEND_UPROBE,
	.fb_name = "uprobe",
	.fb_caps = FT_CAP_BATCH,
	.fb_ok = ft_uprobe_ok,
	.fb_attach = ft_uprobe_start,
	FT_UPROBE_ROW
};

/* The inline backend: the uprobe one's checks, and the CPU's. */
static int
ft_uprobe_inlok(char *err, size_t errlen)
{
	if (ft_uprobe_ok(err, errlen) == -1)
		return -1;
	return ft_inline_ok(err, errlen);
}

const ft_backend_t ft_backend_inline = {
	.fb_id = FT_BACKEND_INLINE,
	.fb_name = "inline",
	.fb_caps = FT_CAP_BATCH | FT_CAP_PATCH,
	.fb_ok = ft_uprobe_inlok,
	.fb_attach = ft_uprobe_istart,
	FT_UPROBE_ROW
};
