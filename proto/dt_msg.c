/*
 * dt_msg.c: message framing shared by libdtrace and dtraced.
 *
 * A dt_msg_t is one payload being built (dt_msg_put_*) or read
 * (dt_msg_get_*).  Writers and readers keep a sticky error, so a caller
 * does a run of puts or gets and checks dm_err (or dt_msg_done) once.
 * Every type's payload bounds are here (dt_msg_check); the connection
 * that carries messages is dt_peer.c.
 */
#include <sys/types.h>

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_proto.h"

/* Payload bounds per type: every message is size-checked before dispatch. */
static const struct dt_msg_bound {
	uint16_t	mb_type;
	const char	*mb_name;
	uint32_t	mb_min;
	uint32_t	mb_max;		/* 0: the peer's maximum */
	int		mb_fd;		/* may carry an fd */
} dt_msg_bounds[] = {
	{ DT_MSG_HELLO,		"HELLO",	4,	4,	0 },
	{ DT_MSG_HELLO_OK,	"HELLO_OK",	8,	8,	0 },
	{ DT_MSG_PROGRAM,	"PROGRAM",	16,	0,	0 },
	{ DT_MSG_PROGRAM_OK,	"PROGRAM_OK",	4,	0,	0 },
	{ DT_MSG_GO,		"GO",		0,	0,	0 },
	{ DT_MSG_GO_OK,		"GO_OK",	32,	32,	0 },
	{ DT_MSG_STOP,		"STOP",		0,	0,	0 },
	{ DT_MSG_STOP_OK,	"STOP_OK",	0,	0,	0 },
	{ DT_MSG_LIST,		"LIST",		16,	4 * (4 + 256), 0 },
	{ DT_MSG_LIST_OK,	"LIST_OK",	4,	0,	0 },
	{ DT_MSG_STATUS,		"STATUS",	0,	0,	0 },
	{ DT_MSG_STATUS_OK,	"STATUS_OK",	8,	8,	0 },
	{ DT_MSG_RETAIN,	"RETAIN",	8,	0,	0 },
	{ DT_MSG_RETAIN_OK,	"RETAIN_OK",	0,	0,	0 },
	{ DT_MSG_CLAIM,		"CLAIM",	8,	8 + DT_RETAIN_NAMELEN, 0 },
	{ DT_MSG_CLAIM_OK,	"CLAIM_OK",	52,	0,	0 },
	{ DT_MSG_RETAINED,	"RETAINED",	0,	0,	0 },
	{ DT_MSG_RETAINED_OK,	"RETAINED_OK",	4,	0,	0 },
	{ DT_MSG_SNAP,		"SNAP",		4,	4,	0 },
	{ DT_MSG_BUF,		"BUF",		16,	0,	0 },
	{ DT_MSG_AGG,		"AGG",		16,	0,	0 },
	{ DT_MSG_SNAP_END,	"SNAP_END",	52,	52,	0 },
	{ DT_MSG_NOTIFY,	"NOTIFY",	8,	8,	0 },
	{ DT_MSG_ERROR,		"ERROR",	8,	4 + 4 + 4096, 0 },
	{ DT_MSG_GRAB,		"GRAB",		8,	8,	1 },
	{ DT_MSG_GRAB_OK,	"GRAB_OK",	4,	4,	0 },
	{ DT_MSG_PROC,		"PROC",		12,	12,	0 },
	{ DT_MSG_MODMAP,	"MODMAP",	8,	0,	0 },
	{ DT_MSG_ECBS,		"ECBS",		4,	0,	0 },
};

#define DT_MSG_NBOUNDS	(sizeof(dt_msg_bounds) / sizeof(dt_msg_bounds[0]))

static const struct dt_msg_bound *
dt_msg_bound(uint32_t type)
{
	size_t i;

	for (i = 0; i < DT_MSG_NBOUNDS; i++) {
		if (dt_msg_bounds[i].mb_type == type)
			return &dt_msg_bounds[i];
	}
	return NULL;
}

const char *
dt_msg_type_name(uint32_t type)
{
	const struct dt_msg_bound *mb = dt_msg_bound(type);

	return mb != NULL ? mb->mb_name : "unknown";
}

void
dt_msg_init(dt_msg_t *m, uint16_t type)
{
	memset(m, 0, sizeof(*m));
	m->dm_type = type;
	m->dm_fd = -1;
}

void
dt_msg_free(dt_msg_t *m)
{
	free(m->dm_data);
	if (m->dm_fd != -1)
		close(m->dm_fd);
	dt_msg_init(m, 0);
}

void *
dt_msg_reserve(dt_msg_t *m, size_t len)
{
	void *p;

	if (m->dm_err)
		return NULL;
	if (len > DT_MSG_MAXDAEMON - m->dm_len) {
		m->dm_err = EMSGSIZE;
		return NULL;
	}
	if (m->dm_len + len > m->dm_cap) {
		size_t cap = m->dm_cap ? m->dm_cap : 256;
		uint8_t *nd;

		while (cap < m->dm_len + len)
			cap *= 2;
		if ((nd = realloc(m->dm_data, cap)) == NULL) {
			m->dm_err = ENOMEM;
			return NULL;
		}
		m->dm_data = nd;
		m->dm_cap = cap;
	}
	p = m->dm_data + m->dm_len;
	m->dm_len += len;
	return p;
}

void
dt_msg_put_bytes(dt_msg_t *m, const void *buf, size_t len)
{
	void *p;

	if (len == 0)
		return;
	if ((p = dt_msg_reserve(m, len)) != NULL)
		memcpy(p, buf, len);
}

void
dt_msg_put_u8(dt_msg_t *m, uint8_t v)
{
	dt_msg_put_bytes(m, &v, 1);
}

void
dt_msg_put_u16(dt_msg_t *m, uint16_t v)
{
	v = htole16(v);
	dt_msg_put_bytes(m, &v, 2);
}

void
dt_msg_put_u32(dt_msg_t *m, uint32_t v)
{
	v = htole32(v);
	dt_msg_put_bytes(m, &v, 4);
}

void
dt_msg_put_u64(dt_msg_t *m, uint64_t v)
{
	v = htole64(v);
	dt_msg_put_bytes(m, &v, 8);
}

void
dt_msg_put_str(dt_msg_t *m, const char *s)
{
	size_t len = s != NULL ? strlen(s) : 0;

	dt_msg_put_u32(m, (uint32_t)len);
	dt_msg_put_bytes(m, s, len);
}

const void *
dt_msg_get_bytes(dt_msg_t *m, size_t len)
{
	const void *p;

	if (m->dm_err)
		return NULL;
	if (len > m->dm_len - m->dm_off) {
		m->dm_err = EPROTO;
		return NULL;
	}
	p = m->dm_data + m->dm_off;
	m->dm_off += len;
	return p;
}

uint8_t
dt_msg_get_u8(dt_msg_t *m)
{
	const uint8_t *p = dt_msg_get_bytes(m, 1);

	return p != NULL ? *p : 0;
}

uint16_t
dt_msg_get_u16(dt_msg_t *m)
{
	const void *p = dt_msg_get_bytes(m, 2);
	uint16_t v = 0;

	if (p != NULL)
		memcpy(&v, p, 2);
	return le16toh(v);
}

uint32_t
dt_msg_get_u32(dt_msg_t *m)
{
	const void *p = dt_msg_get_bytes(m, 4);
	uint32_t v = 0;

	if (p != NULL)
		memcpy(&v, p, 4);
	return le32toh(v);
}

uint64_t
dt_msg_get_u64(dt_msg_t *m)
{
	const void *p = dt_msg_get_bytes(m, 8);
	uint64_t v = 0;

	if (p != NULL)
		memcpy(&v, p, 8);
	return le64toh(v);
}

/*
 * Read a string of at most max bytes into fresh memory.  A longer string
 * or one containing NUL is a protocol error.
 */
char *
dt_msg_get_strdup(dt_msg_t *m, size_t max)
{
	uint32_t len = dt_msg_get_u32(m);
	const char *p;
	char *s;

	if (m->dm_err)
		return NULL;
	if (len > max) {
		m->dm_err = EPROTO;
		return NULL;
	}
	if ((p = dt_msg_get_bytes(m, len)) == NULL)
		return NULL;
	if (memchr(p, '\0', len) != NULL) {
		m->dm_err = EPROTO;
		return NULL;
	}
	if ((s = malloc(len + 1)) == NULL) {
		m->dm_err = ENOMEM;
		return NULL;
	}
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* Read a string into buf (size bytes, NUL included); too long is an error. */
int
dt_msg_get_strbuf(dt_msg_t *m, char *buf, size_t size)
{
	uint32_t len = dt_msg_get_u32(m);
	const char *p;

	if (m->dm_err == 0 && len >= size)
		m->dm_err = EPROTO;
	if (m->dm_err || (p = dt_msg_get_bytes(m, len)) == NULL) {
		buf[0] = '\0';
		return -1;
	}
	if (memchr(p, '\0', len) != NULL) {
		m->dm_err = EPROTO;
		buf[0] = '\0';
		return -1;
	}
	memcpy(buf, p, len);
	buf[len] = '\0';
	return 0;
}

/*
 * A message header against the protocol: the version, the type's flags
 * and payload bounds (and the reader's maximum, maxmsg).  0 when it may
 * be read, else EPROTO (not our protocol) or EMSGSIZE.
 */
int
dt_msg_check(uint16_t type, uint16_t version, uint32_t flags, uint32_t len,
    size_t maxmsg)
{
	const struct dt_msg_bound *mb;
	size_t max;

	if (version != DT_PROTO_VERSION || (mb = dt_msg_bound(type)) == NULL ||
	    (flags & ~DT_MSGF_FD) != 0 ||
	    ((flags & DT_MSGF_FD) && !mb->mb_fd))
		return EPROTO;
	max = mb->mb_max != 0 ? mb->mb_max : maxmsg;
	if (max > maxmsg)
		max = maxmsg;
	if (len < mb->mb_min || len > max)
		return EMSGSIZE;
	return 0;
}

/* A payload was read whole and exactly: no error, nothing left over. */
int
dt_msg_done(const dt_msg_t *m)
{
	return m->dm_err == 0 && m->dm_off == m->dm_len;
}
