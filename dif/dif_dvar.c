/*
 * dif_dvar.c: dynamic variables.
 *
 * One space per consumer holds its thread-local variables (self->x: key
 * (id, thread key)) and associative arrays (a[k...]: key (id, tuple);
 * self->a[k...]: key (id, tuple, thread key)), bounded by dynvarsize.
 * A variable is one malloc'd entry (header, encoded key, by-ref value)
 * whose rounded size is charged against dynvarsize when it is created and
 * given back when it is deleted; a store that would go over is dropped
 * and counted, as illumos counts dynamic variable drops.  The bucket
 * array is not charged: it is sized from dynvarsize once.
 *
 * Locking: a spin lock per bucket.  Several tracer threads fire at once,
 * and a per-bucket lock keeps them apart unless they hash to the same
 * bucket; the critical sections are a chain walk and a copy of one value
 * (strsize bytes for a string, 64k at most for a struct, union or
 * array), and malloc/free happen outside them.  Loads of an integer or a
 * string copy the value out under the lock (a string into the firing's
 * scratch).  A struct, union or array is lent in place instead, as
 * illumos lends its dynamic variables' storage, so that a[k].m = v
 * writes the element itself: dif_dvar_ref() holds the entry (de_refs,
 * taken under the bucket lock while the entry is linked) for the
 * firing, and an entry deleted while held is unlinked at once but freed
 * by the last dif_dvar_unref(), which the VM calls when the firing ends
 * (dif_mstate_fini).  So no firing can reach freed memory, and
 * illumos's dirty/rinsing lists are not needed: a hold lasts one firing.
 *
 * Clause-local variables (this->x) are not dynamic: they live in a
 * dif_lstate_t the host keeps per tracer thread and resets per firing.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "dif.h"

/* The key is encoded as, per element, a 4-byte word then its bytes. */
#define DIF_DVAR_BYREF	0x80000000u	/* in the word: bytes by reference */

typedef struct dif_dvar_ent {
	struct dif_dvar_ent *de_next;
	uint64_t	de_hash;
	uint64_t	de_value;	/* an integer value */
	uint64_t	de_tkey;	/* thread key of a thread-scope variable */
	uint32_t	de_id;
	uint8_t		de_scope;
	uint8_t		de_nkeys;
	uint16_t	de_pad;
	uint32_t	de_klen;	/* bytes of encoded key in de_data */
	uint32_t	de_vsize;	/* by-ref value bytes, after the key */
	uint32_t	de_charge;	/* bytes charged against dynvarsize */
	/*
	 * Firings holding the entry, and DIF_DVAR_DEAD once it is
	 * unlinked: whoever takes the count to DEAD alone frees it.
	 */
	uint32_t	de_refs;
	/* the key, then the value 8-aligned (DIF loads must be aligned) */
	unsigned char	de_data[] __attribute__((aligned(8)));
} dif_dvar_ent_t;

#define DIF_DVAR_DEAD	0x80000000u

/* The value's offset in de_data: after the key, 8-aligned. */
#define DIF_DVAR_VOFF(klen)	(((size_t)(klen) + 7) & ~(size_t)7)

static inline unsigned char *
dif_dvar_val(dif_dvar_ent_t *e)
{
	return e->de_data + DIF_DVAR_VOFF(e->de_klen);
}

typedef struct dif_dvar_bucket {
	dif_dvar_ent_t	*db_head;
	int		db_lock;
} dif_dvar_bucket_t;

struct dif_dvar_space {
	dif_dvar_bucket_t *ds_buckets;
	uint64_t	ds_mask;	/* number of buckets - 1 */
	size_t		ds_size;	/* dynvarsize */
	size_t		ds_used;	/* charged bytes (atomic) */
	uint64_t	ds_drops;	/* (atomic) */
	uint64_t	ds_count;	/* live variables (atomic) */
};

#define DIF_DVAR_MINBUCKETS	16
#define DIF_DVAR_MAXBUCKETS	(1u << 22)
#define DIF_DVAR_BYTESPERBUCKET	128

static inline void
dif_dvar_lock(dif_dvar_bucket_t *b)
{
	unsigned spins = 0;

	while (__atomic_exchange_n(&b->db_lock, 1, __ATOMIC_ACQUIRE) != 0) {
		while (__atomic_load_n(&b->db_lock, __ATOMIC_RELAXED) != 0) {
			/*
			 * The holder may have been preempted (there can be
			 * more tracer threads than CPUs): stop burning the
			 * CPU it needs after a while.
			 */
			if (++spins > 256) {
				sched_yield();
				spins = 0;
			}
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
	}
}

static inline void
dif_dvar_unlock(dif_dvar_bucket_t *b)
{
	__atomic_store_n(&b->db_lock, 0, __ATOMIC_RELEASE);
}

int
dif_dvar_init(dif_vstate_t *vs, size_t size)
{
	dif_dvar_space_t *ds;
	size_t n = DIF_DVAR_MINBUCKETS;

	if ((ds = calloc(1, sizeof(*ds))) == NULL)
		return -1;
	while (n < DIF_DVAR_MAXBUCKETS && n * 2 * DIF_DVAR_BYTESPERBUCKET <=
	    size)
		n *= 2;
	if ((ds->ds_buckets = calloc(n, sizeof(*ds->ds_buckets))) == NULL) {
		free(ds);
		return -1;
	}
	ds->ds_mask = n - 1;
	ds->ds_size = size;
	dif_dvar_fini(vs);
	vs->dv_dynvars = ds;
	return 0;
}

void
dif_dvar_fini(dif_vstate_t *vs)
{
	dif_dvar_space_t *ds = vs->dv_dynvars;
	dif_dvar_ent_t *e, *next;
	uint64_t i;

	if (ds == NULL)
		return;
	for (i = 0; i <= ds->ds_mask; i++) {
		for (e = ds->ds_buckets[i].db_head; e != NULL; e = next) {
			next = e->de_next;
			free(e);
		}
	}
	free(ds->ds_buckets);
	free(ds);
	vs->dv_dynvars = NULL;
}

uint64_t
dif_dvar_drops(dif_vstate_t *vs, int reset)
{
	dif_dvar_space_t *ds = vs->dv_dynvars;

	if (ds == NULL)
		return 0;
	if (reset)
		return __atomic_exchange_n(&ds->ds_drops, 0, __ATOMIC_RELAXED);
	return __atomic_load_n(&ds->ds_drops, __ATOMIC_RELAXED);
}

size_t
dif_dvar_used(const dif_vstate_t *vs)
{
	if (vs->dv_dynvars == NULL)
		return 0;
	return __atomic_load_n(&vs->dv_dynvars->ds_used, __ATOMIC_RELAXED);
}

uint64_t
dif_dvar_count(const dif_vstate_t *vs)
{
	if (vs->dv_dynvars == NULL)
		return 0;
	return __atomic_load_n(&vs->dv_dynvars->ds_count, __ATOMIC_RELAXED);
}

static inline uint64_t
dif_dvar_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

static uint64_t
dif_dvar_hash(uint32_t id, uint8_t scope, const dif_dkey_t *k, int nkeys)
{
	uint64_t h = dif_dvar_mix(0x243f6a8885a308d3ULL,
	    (uint64_t)id << 8 | scope);
	const unsigned char *p;
	uint64_t w;
	size_t n;
	int i;

	for (i = 0; i < nkeys; i++) {
		if (!k[i].dk_byref) {
			h = dif_dvar_mix(h, k[i].dk_value);
			continue;
		}
		h = dif_dvar_mix(h, k[i].dk_size | (uint64_t)1 << 40);
		p = (const unsigned char *)(uintptr_t)k[i].dk_value;
		for (n = k[i].dk_size; n >= 8; n -= 8, p += 8) {
			memcpy(&w, p, 8);
			h = dif_dvar_mix(h, w);
		}
		if (n != 0) {
			w = 0;
			memcpy(&w, p, n);
			h = dif_dvar_mix(h, w);
		}
	}
	/* fold the high bits in: the bucket index takes the low ones */
	return h ^ (h >> 29);
}

static size_t
dif_dvar_klen(const dif_dkey_t *k, int nkeys)
{
	size_t len = 0;
	int i;

	for (i = 0; i < nkeys; i++)
		len += 4 + (k[i].dk_byref ? k[i].dk_size : 8);
	return len;
}

static void
dif_dvar_kencode(unsigned char *p, const dif_dkey_t *k, int nkeys)
{
	uint32_t w;
	int i;

	for (i = 0; i < nkeys; i++) {
		if (k[i].dk_byref) {
			w = k[i].dk_size | DIF_DVAR_BYREF;
			memcpy(p, &w, 4);
			/* an empty by-ref key may have a NULL address */
			if (k[i].dk_size > 0)
				memcpy(p + 4,
				    (const void *)(uintptr_t)k[i].dk_value,
				    k[i].dk_size);
			p += 4 + k[i].dk_size;
		} else {
			w = 8;
			memcpy(p, &w, 4);
			memcpy(p + 4, &k[i].dk_value, 8);
			p += 12;
		}
	}
}

static int
dif_dvar_kmatch(const dif_dvar_ent_t *e, uint64_t hash, uint32_t id,
    uint8_t scope, const dif_dkey_t *k, int nkeys, size_t klen)
{
	const unsigned char *p = e->de_data;
	uint32_t w;
	int i;

	if (e->de_hash != hash || e->de_id != id || e->de_scope != scope ||
	    e->de_nkeys != nkeys || e->de_klen != klen)
		return 0;
	for (i = 0; i < nkeys; i++) {
		memcpy(&w, p, 4);
		if (k[i].dk_byref) {
			if (w != (k[i].dk_size | DIF_DVAR_BYREF) ||
			    (k[i].dk_size > 0 && memcmp(p + 4,
			    (const void *)(uintptr_t)
			    k[i].dk_value, k[i].dk_size) != 0))
				return 0;
			p += 4 + k[i].dk_size;
		} else {
			if (w != 8 || memcmp(p + 4, &k[i].dk_value, 8) != 0)
				return 0;
			p += 12;
		}
	}
	return 1;
}

/* The entry for the key in bucket b (locked), and the link to it. */
static dif_dvar_ent_t **
dif_dvar_find(dif_dvar_bucket_t *b, uint64_t hash, uint32_t id,
    uint8_t scope, const dif_dkey_t *k, int nkeys, size_t klen)
{
	dif_dvar_ent_t **ep;

	for (ep = &b->db_head; *ep != NULL; ep = &(*ep)->de_next) {
		if (dif_dvar_kmatch(*ep, hash, id, scope, k, nkeys, klen))
			return ep;
	}
	return NULL;
}

int
dif_dvar_load(dif_vstate_t *vs, uint32_t id, uint8_t scope,
    const dif_dkey_t *k, int nkeys, uint64_t *valp, void *buf, size_t vsize)
{
	dif_dvar_space_t *ds = vs->dv_dynvars;
	dif_dvar_bucket_t *b;
	dif_dvar_ent_t **ep, *e;
	uint64_t hash;
	size_t klen;

	if (valp != NULL)
		*valp = 0;
	if (ds == NULL)
		return 0;
	hash = dif_dvar_hash(id, scope, k, nkeys);
	klen = dif_dvar_klen(k, nkeys);
	b = &ds->ds_buckets[hash & ds->ds_mask];
	dif_dvar_lock(b);
	if ((ep = dif_dvar_find(b, hash, id, scope, k, nkeys, klen)) == NULL) {
		dif_dvar_unlock(b);
		return 0;
	}
	e = *ep;
	if (vsize == 0) {
		if (valp != NULL)
			*valp = e->de_value;
	} else {
		memcpy(buf, dif_dvar_val(e),
		    vsize < e->de_vsize ? vsize : e->de_vsize);
	}
	dif_dvar_unlock(b);
	return 1;
}

/*
 * Charge size bytes against dynvarsize; 0 if they are not there.  An
 * empty space takes one variable however small dynvarsize is, as illumos
 * rounds dynvarsize up to one chunk.
 */
static int
dif_dvar_charge(dif_dvar_space_t *ds, size_t size)
{
	size_t used = __atomic_load_n(&ds->ds_used, __ATOMIC_RELAXED);

	do {
		if (used != 0 && (used > ds->ds_size ||
		    size > ds->ds_size - used))
			return 0;
	} while (!__atomic_compare_exchange_n(&ds->ds_used, &used,
	    used + size, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 1;
}

/*
 * An entry just unlinked (under its bucket's lock, so that no new hold
 * can be taken): freed now, or by the last firing that holds it.  Its
 * room is given back at once, as a delete's always was: a held entry
 * outlives it by one clause at most, and a clause holds DIF_MAXDREFS.
 */
static void
dif_dvar_release(dif_dvar_space_t *ds, dif_dvar_ent_t *e)
{
	__atomic_sub_fetch(&ds->ds_used, e->de_charge, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&ds->ds_count, 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_or(&e->de_refs, DIF_DVAR_DEAD,
	    __ATOMIC_ACQ_REL) == 0)
		free(e);
}

void *
dif_dvar_ref(dif_vstate_t *vs, uint32_t id, uint8_t scope,
    const dif_dkey_t *k, int nkeys, size_t vsize, void **datap,
    size_t *sizep)
{
	dif_dvar_space_t *ds = vs->dv_dynvars;
	dif_dvar_bucket_t *b;
	dif_dvar_ent_t **ep, *e = NULL;
	uint64_t hash;
	size_t klen;

	if (ds == NULL || vsize == 0 || nkeys < 1 ||
	    nkeys > DIF_DVAR_MAXKEYS)
		return NULL;
	hash = dif_dvar_hash(id, scope, k, nkeys);
	klen = dif_dvar_klen(k, nkeys);
	b = &ds->ds_buckets[hash & ds->ds_mask];
	dif_dvar_lock(b);
	ep = dif_dvar_find(b, hash, id, scope, k, nkeys, klen);
	/* a value of another size is another program's: none here */
	if (ep != NULL && (*ep)->de_vsize == vsize) {
		e = *ep;
		__atomic_add_fetch(&e->de_refs, 1, __ATOMIC_RELAXED);
		*datap = dif_dvar_val(e);
		*sizep = e->de_vsize;
	}
	dif_dvar_unlock(b);
	return e;
}

void
dif_dvar_unref(dif_vstate_t *vs, void *ent)
{
	dif_dvar_ent_t *e = ent;

	(void)vs;
	if (__atomic_sub_fetch(&e->de_refs, 1, __ATOMIC_ACQ_REL) ==
	    DIF_DVAR_DEAD)
		free(e);
}

static void
dif_dvar_setval(dif_dvar_ent_t *e, uint64_t val, const void *buf, size_t len)
{
	unsigned char *v = dif_dvar_val(e);

	if (e->de_vsize == 0) {
		e->de_value = val;
		return;
	}
	if (len > e->de_vsize)
		len = e->de_vsize;
	/* a[k] = a[k]: the source may be the entry's own (lent) value */
	memmove(v, buf, len);
	memset(v + len, 0, e->de_vsize - len);
}

int
dif_dvar_store(dif_vstate_t *vs, uint32_t id, uint8_t scope,
    const dif_dkey_t *k, int nkeys, uint64_t val, const void *buf, size_t len,
    size_t vsize)
{
	dif_dvar_space_t *ds = vs->dv_dynvars;
	dif_dvar_bucket_t *b;
	dif_dvar_ent_t **ep, *e, *ne;
	uint64_t hash;
	size_t klen, charge;
	int del;

	del = vsize == 0 ? val == 0 : (buf == NULL || len == 0);
	if (nkeys < 1 || nkeys > DIF_DVAR_MAXKEYS)
		return -1;
	if (ds == NULL) {
		if (del)
			return 0;
		goto drop;
	}
	hash = dif_dvar_hash(id, scope, k, nkeys);
	klen = dif_dvar_klen(k, nkeys);
	b = &ds->ds_buckets[hash & ds->ds_mask];

	dif_dvar_lock(b);
	ep = dif_dvar_find(b, hash, id, scope, k, nkeys, klen);
	if (ep != NULL && (del || (*ep)->de_vsize == vsize)) {
		e = *ep;
		if (del)
			*ep = e->de_next;
		else
			dif_dvar_setval(e, val, buf, len);
		dif_dvar_unlock(b);
		if (del)
			dif_dvar_release(ds, e);
		return 0;
	}
	dif_dvar_unlock(b);
	if (del)
		return 0;

	/*
	 * A new variable (or one whose value size changed, which only a
	 * host that reuses the space for another program can cause): build
	 * the entry outside the lock, then insert it unless another thread
	 * did so meanwhile.
	 */
	charge = (sizeof(*ne) + DIF_DVAR_VOFF(klen) + vsize + 15) &
	    ~(size_t)15;
	if (!dif_dvar_charge(ds, charge))
		goto drop;
	if ((ne = malloc(sizeof(*ne) + DIF_DVAR_VOFF(klen) + vsize)) ==
	    NULL) {
		__atomic_sub_fetch(&ds->ds_used, charge, __ATOMIC_RELAXED);
		goto drop;
	}
	ne->de_hash = hash;
	ne->de_value = 0;
	ne->de_tkey = scope == DIFV_SCOPE_THREAD ? k[nkeys - 1].dk_value : 0;
	ne->de_id = id;
	ne->de_scope = scope;
	ne->de_nkeys = (uint8_t)nkeys;
	ne->de_pad = 0;
	ne->de_klen = (uint32_t)klen;
	ne->de_vsize = (uint32_t)vsize;
	ne->de_charge = (uint32_t)charge;
	ne->de_refs = 0;
	dif_dvar_kencode(ne->de_data, k, nkeys);
	/* the bytes between the key and the value are charged: zeroed */
	memset(ne->de_data + klen, 0, DIF_DVAR_VOFF(klen) - klen);
	dif_dvar_setval(ne, val, buf, len);
	__atomic_add_fetch(&ds->ds_count, 1, __ATOMIC_RELAXED);

	dif_dvar_lock(b);
	e = NULL;
	if ((ep = dif_dvar_find(b, hash, id, scope, k, nkeys, klen)) != NULL) {
		/* replace: ours carries the newest value */
		e = *ep;
		*ep = e->de_next;
	}
	ne->de_next = b->db_head;
	b->db_head = ne;
	dif_dvar_unlock(b);
	if (e != NULL)
		dif_dvar_release(ds, e);
	return 0;
drop:
	if (ds != NULL)
		__atomic_add_fetch(&ds->ds_drops, 1, __ATOMIC_RELAXED);
	return -1;
}

void
dif_dvar_thread_exit(dif_vstate_t *vs, uint64_t tkey)
{
	dif_dvar_space_t *ds = vs->dv_dynvars;
	dif_dvar_ent_t **ep, *e, *dead;
	uint64_t i;

	if (ds == NULL)
		return;
	for (i = 0; i <= ds->ds_mask; i++) {
		dead = NULL;
		dif_dvar_lock(&ds->ds_buckets[i]);
		for (ep = &ds->ds_buckets[i].db_head; (e = *ep) != NULL;) {
			if (e->de_scope == DIFV_SCOPE_THREAD &&
			    e->de_tkey == tkey) {
				*ep = e->de_next;
				e->de_next = dead;
				dead = e;
			} else
				ep = &e->de_next;
		}
		dif_dvar_unlock(&ds->ds_buckets[i]);
		while ((e = dead) != NULL) {
			dead = e->de_next;
			dif_dvar_release(ds, e);
		}
	}
}

int
dif_dvar_local_init(dif_lstate_t *ls, uint32_t nvars, uint32_t ssize)
{
	memset(ls, 0, sizeof(*ls));
	ls->dl_gen = 1;
	if (ssize == 0)
		ssize = 8;
	/* strtok()'s string, whether or not there are variables */
	if ((ls->dl_tok = calloc(1, ssize)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	ls->dl_ssize = ssize;
	if (nvars == 0)
		return 0;
	ls->dl_value = calloc(nvars, sizeof(*ls->dl_value));
	ls->dl_setgen = calloc(nvars, sizeof(*ls->dl_setgen));
	ls->dl_data = calloc(nvars, ssize);
	if (ls->dl_value == NULL || ls->dl_setgen == NULL ||
	    ls->dl_data == NULL) {
		dif_dvar_local_fini(ls);
		errno = ENOMEM;
		return -1;
	}
	ls->dl_nvars = nvars;
	return 0;
}

void
dif_dvar_local_reset(dif_lstate_t *ls)
{
	/*
	 * A slot is set only if its generation is the current one; on wrap
	 * forget every old generation explicitly.
	 */
	if (++ls->dl_gen == 0) {
		if (ls->dl_setgen != NULL)
			memset(ls->dl_setgen, 0,
			    ls->dl_nvars * sizeof(*ls->dl_setgen));
		ls->dl_tokgen = 0;
		ls->dl_gen = 1;
	}
}

void
dif_dvar_local_fini(dif_lstate_t *ls)
{
	free(ls->dl_value);
	free(ls->dl_setgen);
	free(ls->dl_data);
	free(ls->dl_tok);
	memset(ls, 0, sizeof(*ls));
}

uint32_t
dif_dvar_maxid(const dif_difo_t *dp, uint8_t scope)
{
	uint32_t i, n = 0;

	for (i = 0; i < dp->dd_varlen; i++) {
		const dif_var_t *v = &dp->dd_vartab[i];

		if (v->dv_scope == scope && v->dv_id >= DIF_VAR_OTHER_UBASE &&
		    v->dv_id - DIF_VAR_OTHER_UBASE + 1 > n)
			n = v->dv_id - DIF_VAR_OTHER_UBASE + 1;
	}
	return n;
}
