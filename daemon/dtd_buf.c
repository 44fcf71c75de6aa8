/*
 * dtd_buf.c: per-CPU principal buffers.
 *
 * Only the switch policy exists so far: each CPU has two halves of
 * bufsize bytes; writers append whole records to the active half, and a
 * snapshot swaps the halves under that CPU's lock and hands out the one
 * that was active.  Because a writer holds the lock from reservation to
 * the end of its copy, a snapshot never sees half a record, and no
 * record written before the swap can land in the half being read.  Fill
 * and ring will be further cases of the reservation switch below.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dtd.h"

int
dtd_buf_init(dtd_buf_t *b, int policy, int ncpu, size_t size)
{
	int i;

	memset(b, 0, sizeof(*b));
	if (policy != DTD_BUFPOLICY_SWITCH) {
		errno = ENOTSUP;
		return -1;
	}
	if (ncpu < 1 || size < DTD_MIN_BUFSIZE || size % 8 != 0) {
		errno = EINVAL;
		return -1;
	}
	b->db_policy = policy;
	b->db_size = size;
	if ((b->db_cpu = calloc(ncpu, sizeof(*b->db_cpu))) == NULL)
		return -1;
	for (i = 0; i < ncpu; i++) {
		dtd_bufcpu_t *c = &b->db_cpu[i];

		b->db_ncpu = i + 1;
		pthread_mutex_init(&c->dbc_lock, NULL);
		/* calloc: large halves are mapped lazily, untouched pages cost nothing */
		if ((c->dbc_data[0] = calloc(1, size)) == NULL ||
		    (c->dbc_data[1] = calloc(1, size)) == NULL) {
			dtd_buf_fini(b);
			errno = ENOMEM;
			return -1;
		}
	}
	return 0;
}

void
dtd_buf_fini(dtd_buf_t *b)
{
	int i;

	if (b->db_cpu == NULL)
		return;
	for (i = 0; i < b->db_ncpu; i++) {
		free(b->db_cpu[i].dbc_data[0]);
		free(b->db_cpu[i].dbc_data[1]);
		pthread_mutex_destroy(&b->db_cpu[i].dbc_lock);
	}
	free(b->db_cpu);
	memset(b, 0, sizeof(*b));
}

/*
 * Append one record (len a multiple of 8) to cpu's active buffer.
 * Returns 0, or -1 when the record was dropped (and counted).
 */
int
dtd_buf_write(dtd_buf_t *b, int cpu, const void *rec, size_t len)
{
	dtd_bufcpu_t *c;
	char *dst = NULL;

	if (cpu < 0 || cpu >= b->db_ncpu)
		cpu = 0;
	c = &b->db_cpu[cpu];
	pthread_mutex_lock(&c->dbc_lock);
	switch (b->db_policy) {
	case DTD_BUFPOLICY_SWITCH:
		if (len <= b->db_size && c->dbc_off <= b->db_size - len) {
			dst = c->dbc_data[c->dbc_active] + c->dbc_off;
			c->dbc_off += len;
		}
		break;
	}
	if (dst == NULL) {
		c->dbc_drops++;
		pthread_mutex_unlock(&c->dbc_lock);
		return -1;
	}
	memcpy(dst, rec, len);
	pthread_mutex_unlock(&c->dbc_lock);
	return 0;
}

/*
 * Switch cpu's buffers.  The data handed out stays valid and unchanged
 * until the next snapshot of the same CPU (snapshots are serialized by
 * the caller: the main thread takes them).
 */
void
dtd_buf_snap(dtd_buf_t *b, int cpu, dtd_bufsnap_t *s)
{
	dtd_bufcpu_t *c = &b->db_cpu[cpu];
	int was;

	pthread_mutex_lock(&c->dbc_lock);
	was = c->dbc_active;
	s->dbs_data = c->dbc_data[was];
	s->dbs_len = c->dbc_off;
	s->dbs_drops = c->dbc_drops;
	s->dbs_flags = 0;
	c->dbc_active = !was;
	c->dbc_off = 0;
	c->dbc_drops = 0;
	pthread_mutex_unlock(&c->dbc_lock);
}
