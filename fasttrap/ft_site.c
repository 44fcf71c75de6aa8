/*
 * ft_site.c: the site table, one per backend of a process (ft_sitetab_t
 * in ft_proc_t's pr_tab), under the process's pr_lock.  A site is an
 * address with its users (the void * of ft_proc_site_add); several
 * users share one site, which goes when the last one is removed.  The
 * dynamic linker's hook is a site with no user (st_rbrk), which stays
 * until the table is purged.
 *
 * What a site means to the process is the backend's: fb_site_check
 * looks at a new one before it is in the table (without the lock: it
 * may read the process's modules, which take pr_modlock before
 * pr_lock), fb_site_arm puts it in place as it goes in (ptrace: the
 * int3), fb_site_disarm takes it out as it leaves.  A backend without
 * fb_site_arm puts the whole table in place at fb_sync.
 *
 * Hits.  A backend's hit copies the site and its users out under the
 * lock (ft_site_enter) and calls fo_hit with the copy, lock released;
 * ft_site_leave ends it.  ft_site_remove() returns only once no hit that
 * may have copied the removed user still runs, so that the caller may
 * free the user, unless it is called from inside that hit.  The count
 * of running hits (pr_incb) goes up before the copy is taken: a removal
 * that took the lock after the copy sees it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ft.h"

/* The process whose hit this thread is running, if any. */
static __thread ft_proc_t *ft_site_inhit;

/* Where the site at addr is, or would go.  pr_lock held. */
ft_site_t **
ft_site_slot(ft_sitetab_t *t, uint64_t addr)
{
	ft_site_t **sp = &t->sb_hash[(addr ^ (addr >> 10)) % FT_NBUCKETS];

	while (*sp != NULL && (*sp)->st_addr != addr)
		sp = &(*sp)->st_next;
	return sp;
}

static int
ft_site_adduser(ft_site_t *s, void *user)
{
	if (s->st_nusers == s->st_cap) {
		int ncap = s->st_cap ? s->st_cap * 2 : 2;
		void **nu = realloc(s->st_users, ncap * sizeof(void *));

		if (nu == NULL)
			return -1;
		s->st_users = nu;
		s->st_cap = ncap;
	}
	s->st_users[s->st_nusers++] = user;
	return 0;
}

static void
ft_site_freeone(ft_site_t *s)
{
	if (s == NULL)
		return;
	free(s->st_users);
	free(s);
}

/*
 * Add user at addr (rbrk: the dynamic linker's hook, which has no user).
 * The first user makes the site, checked and armed by the backend.
 * -1 with errno: ESRCH the process is gone (or let go), ENOMEM, or the
 * backend's refusal (EFAULT, EBUSY, ENOTSUP, EINVAL: see ft.h).
 */
int
ft_site_add(ft_proc_t *p, ft_sitetab_t *t, uint64_t addr, void *user,
    int rbrk)
{
	const ft_backend_t *be = t->sb_be;
	ft_site_t **sp, *s, *n = NULL;
	int err = 0;

	if (p->pr_dead) {
		errno = ESRCH;
		return -1;
	}
	pthread_mutex_lock(&p->pr_lock);
	if (be->fb_site_check != NULL && *ft_site_slot(t, addr) == NULL) {
		/* a new site: the backend looks at it first, unlocked */
		pthread_mutex_unlock(&p->pr_lock);
		if ((n = calloc(1, sizeof(*n))) == NULL)
			return -1;
		n->st_addr = addr;
		if (be->fb_site_check(p, n) == -1) {
			err = errno;
			ft_site_freeone(n);
			errno = err;
			return -1;
		}
		pthread_mutex_lock(&p->pr_lock);
	}
	if (p->pr_dead) {
		err = ESRCH;
		goto out;
	}
	sp = ft_site_slot(t, addr);
	if ((s = *sp) != NULL) {
		/* it came meanwhile, or was there: one more user */
		if (rbrk)
			s->st_rbrk = 1;
		else if (ft_site_adduser(s, user) == -1)
			err = ENOMEM;
		goto out;
	}
	if (n == NULL && (n = calloc(1, sizeof(*n))) == NULL) {
		err = ENOMEM;
		goto out;
	}
	n->st_addr = addr;
	n->st_rbrk = rbrk;
	if (!rbrk && ft_site_adduser(n, user) == -1) {
		err = ENOMEM;
		goto out;
	}
	if (be->fb_site_arm != NULL && be->fb_site_arm(p, n) == -1) {
		err = errno;
		goto out;
	}
	n->st_serial = ++t->sb_serial;
	*sp = n;
	n = NULL;
	t->sb_n++;
out:
	pthread_mutex_unlock(&p->pr_lock);
	ft_site_freeone(n);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

/* Take a site out (disarmed; restored if restore) and free it.  pr_lock. */
void
ft_site_drop(ft_proc_t *p, ft_sitetab_t *t, ft_site_t **sp, int restore)
{
	ft_site_t *s = *sp;

	if (t->sb_be->fb_site_disarm != NULL)
		t->sb_be->fb_site_disarm(p, s, restore);
	*sp = s->st_next;
	t->sb_n--;
	ft_site_freeone(s);
}

/*
 * Remove user from addr; the last user takes the site with it.  When it
 * returns, no hit still runs with user, unless called from that hit.
 */
int
ft_site_remove(ft_proc_t *p, ft_sitetab_t *t, uint64_t addr, void *user)
{
	ft_site_t **sp, *s;
	uint64_t gen;
	int i, found = 0;

	pthread_mutex_lock(&p->pr_lock);
	sp = ft_site_slot(t, addr);
	if ((s = *sp) != NULL) {
		for (i = 0; i < s->st_nusers; i++) {
			if (s->st_users[i] != user)
				continue;
			s->st_users[i] = s->st_users[--s->st_nusers];
			found = 1;
			break;
		}
		if (found && s->st_nusers == 0 && !s->st_rbrk)
			ft_site_drop(p, t, sp, 1);
	}
	pthread_mutex_unlock(&p->pr_lock);
	if (!found) {
		errno = ENOENT;
		return -1;
	}
	/*
	 * A hit that copied its users before we removed this one may still
	 * be running with it: wait for it to end (or for a later one to
	 * have started and ended: this one ended first).
	 */
	if (ft_site_inhit != p) {
		gen = __atomic_load_n(&p->pr_cbgen, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&p->pr_incb, __ATOMIC_ACQUIRE) > 0 &&
		    __atomic_load_n(&p->pr_cbgen, __ATOMIC_ACQUIRE) == gen) {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

/*
 * Every site goes (exec, exit, release); restore says whether their
 * bytes are still ours to put back.  The addresses of the first max go
 * to addrs (if not NULL); returns how many sites there were.  pr_lock.
 */
size_t
ft_site_purge(ft_proc_t *p, ft_sitetab_t *t, int restore, uint64_t *addrs,
    size_t max)
{
	size_t n = 0;
	int b;

	for (b = 0; b < FT_NBUCKETS; b++) {
		while (t->sb_hash[b] != NULL) {
			if (addrs != NULL && n < max)
				addrs[n] = t->sb_hash[b]->st_addr;
			n++;
			ft_site_drop(p, t, &t->sb_hash[b], restore);
		}
	}
	return n;
}

/*
 * Drop, without restoring, the sites that keep() says are gone (their
 * mapping went).  Takes pr_lock.
 */
void
ft_site_sweep(ft_proc_t *p, ft_sitetab_t *t,
    int (*keep)(ft_proc_t *, const ft_site_t *))
{
	ft_site_t **sp;
	int b;

	pthread_mutex_lock(&p->pr_lock);
	for (b = 0; b < FT_NBUCKETS; b++) {
		sp = &t->sb_hash[b];
		while (*sp != NULL) {
			if (keep(p, *sp))
				sp = &(*sp)->st_next;
			else
				ft_site_drop(p, t, sp, 0);
		}
	}
	pthread_mutex_unlock(&p->pr_lock);
}

/* Call fn for every site.  pr_lock held. */
void
ft_site_each(ft_sitetab_t *t, void (*fn)(void *, ft_site_t *), void *arg)
{
	ft_site_t *s;
	int b;

	for (b = 0; b < FT_NBUCKETS; b++)
		for (s = t->sb_hash[b]; s != NULL; s = s->st_next)
			fn(arg, s);
}

/* Sites (with users only: used, for a backend change).  Takes pr_lock. */
size_t
ft_site_count(ft_proc_t *p, ft_sitetab_t *t, int used)
{
	ft_site_t *s;
	size_t n = 0;
	int b;

	pthread_mutex_lock(&p->pr_lock);
	if (!used) {
		n = t->sb_n;
	} else {
		for (b = 0; b < FT_NBUCKETS; b++)
			for (s = t->sb_hash[b]; s != NULL; s = s->st_next)
				n += s->st_nusers > 0;
	}
	pthread_mutex_unlock(&p->pr_lock);
	return n;
}

/*
 * A hit at addr starts: copy the site into *copy and its users into
 * the table's buffer (*usersp), under the lock, and return how many
 * users (0: the hook's, or none left).  -1 if there is no site at addr
 * (the hit is over then; otherwise ft_site_leave() ends it).  One
 * thread at a time hits a table: the backend's own.
 */
int
ft_site_enter(ft_proc_t *p, ft_sitetab_t *t, uint64_t addr, ft_site_t *copy,
    void *const **usersp)
{
	ft_site_t *s;
	int n;

	__atomic_add_fetch(&p->pr_incb, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&p->pr_lock);
	if ((s = *ft_site_slot(t, addr)) == NULL) {
		pthread_mutex_unlock(&p->pr_lock);
		__atomic_sub_fetch(&p->pr_incb, 1, __ATOMIC_RELEASE);
		return -1;
	}
	*copy = *s;
	if (s->st_nusers > t->sb_ubufcap) {
		void **nb = realloc(t->sb_ubuf, s->st_nusers * sizeof(void *));

		if (nb != NULL) {
			t->sb_ubuf = nb;
			t->sb_ubufcap = s->st_nusers;
		}
	}
	n = s->st_nusers < t->sb_ubufcap ? s->st_nusers : t->sb_ubufcap;
	if (n > 0)	/* the linker's hook has none, and no buffer yet */
		memcpy(t->sb_ubuf, s->st_users, n * sizeof(void *));
	pthread_mutex_unlock(&p->pr_lock);
	copy->st_users = NULL;
	copy->st_nusers = n;
	copy->st_next = NULL;
	ft_site_inhit = p;
	*usersp = t->sb_ubuf;
	return n;
}

/* The hit is over: removals may return. */
void
ft_site_leave(ft_proc_t *p)
{
	ft_site_inhit = NULL;
	__atomic_add_fetch(&p->pr_cbgen, 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&p->pr_incb, 1, __ATOMIC_RELEASE);
}

/* Free a table's own memory; its sites are gone already. */
void
ft_site_free(ft_sitetab_t *t)
{
	free(t->sb_ubuf);
	t->sb_ubuf = NULL;
	t->sb_ubufcap = 0;
}
