/*
 * dt_peer.c: one end of a connection, shared by libdtrace and dtraced.
 *
 * A dt_peer_t reads bytes and file descriptors as they come, checks
 * every header (dt_msg_check: version, size against the type's bounds,
 * fd presence) before a message is handed out, and queues output so a
 * non-blocking daemon never waits on a slow client; the client's side
 * blocks with dt_peer_recv and dt_peer_request.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_proto.h"

int
dt_peer_init(dt_peer_t *p, int fd, size_t maxmsg)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	memset(p, 0, sizeof(*p));
	p->dp_fd = fd;
	p->dp_maxmsg = maxmsg;
	p->dp_pid = -1;
	p->dp_uid = (uid_t)-1;
	p->dp_gid = (gid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == -1)
		return -1;
	p->dp_pid = uc.pid;
	p->dp_uid = uc.uid;
	p->dp_gid = uc.gid;
	return 0;
}

void
dt_peer_close(dt_peer_t *p)
{
	int i;

	for (i = 0; i < p->dp_ninfd; i++)
		close(p->dp_infd[i]);
	for (i = 0; i < p->dp_noutfd; i++)
		close(p->dp_outfd[i]);
	if (p->dp_fd != -1)
		close(p->dp_fd);
	free(p->dp_in);
	free(p->dp_out);
	memset(p, 0, sizeof(*p));
	p->dp_fd = -1;
}

/*
 * Read what the socket has.  Returns the bytes read, 0 at end of file,
 * -1 with errno set (EAGAIN when nothing is there on a non-blocking fd).
 */
ssize_t
dt_peer_read(dt_peer_t *p)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * 4)];
	} cbuf;
	struct cmsghdr *cm;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	if (p->dp_incap - p->dp_inlen < 65536) {
		size_t cap = p->dp_incap ? p->dp_incap * 2 : 131072;
		uint8_t *nb;

		if ((nb = realloc(p->dp_in, cap)) == NULL)
			return -1;
		p->dp_in = nb;
		p->dp_incap = cap;
	}
	iov.iov_base = p->dp_in + p->dp_inlen;
	iov.iov_len = p->dp_incap - p->dp_inlen;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = sizeof(cbuf.buf);
	do {
		n = recvmsg(p->dp_fd, &mh, MSG_CMSG_CLOEXEC);
	} while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		int *fds, nfd, i;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		fds = (int *)CMSG_DATA(cm);
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			if (p->dp_ninfd < 4)
				p->dp_infd[p->dp_ninfd++] = fds[i];
			else
				close(fds[i]);	/* more than anyone may send */
		}
	}
	p->dp_inlen += n;
	return n;
}

/*
 * Take the next whole message out of what has been read.  Returns 1 with
 * the message (the caller frees it), 0 when more bytes are needed, -1
 * (errno EPROTO or EMSGSIZE) when the peer sent something malformed: the
 * caller must drop it.
 */
int
dt_peer_get(dt_peer_t *p, dt_msg_t *m)
{
	uint32_t len, flags;
	uint16_t type, version;
	int err;

	dt_msg_init(m, 0);
	if (p->dp_inlen < DT_MSG_HDRSIZE)
		return 0;
	memcpy(&len, p->dp_in, 4);
	memcpy(&type, p->dp_in + 4, 2);
	memcpy(&version, p->dp_in + 6, 2);
	memcpy(&flags, p->dp_in + 8, 4);
	len = le32toh(len);
	type = le16toh(type);
	version = le16toh(version);
	flags = le32toh(flags);

	if ((err = dt_msg_check(type, version, flags, len,
	    p->dp_maxmsg)) != 0) {
		/* for the caller to name the versions, not just EPROTO */
		if (version != DT_PROTO_VERSION)
			p->dp_version = version;
		errno = err;
		return -1;
	}
	if (p->dp_inlen - DT_MSG_HDRSIZE < len)
		return 0;
	if (flags & DT_MSGF_FD) {
		if (p->dp_ninfd == 0) {
			errno = EPROTO;
			return -1;
		}
		m->dm_fd = p->dp_infd[0];
		memmove(p->dp_infd, p->dp_infd + 1,
		    --p->dp_ninfd * sizeof(int));
	}
	m->dm_type = type;
	if (len > 0) {
		if ((m->dm_data = malloc(len)) == NULL) {
			if (m->dm_fd != -1)
				close(m->dm_fd);
			m->dm_fd = -1;
			return -1;
		}
		memcpy(m->dm_data, p->dp_in + DT_MSG_HDRSIZE, len);
	}
	m->dm_len = m->dm_cap = len;
	p->dp_inlen -= DT_MSG_HDRSIZE + len;
	memmove(p->dp_in, p->dp_in + DT_MSG_HDRSIZE + len, p->dp_inlen);
	return 1;
}

/* Queue a message (and its fd, duplicated) for sending. */
int
dt_peer_send(dt_peer_t *p, const dt_msg_t *m)
{
	uint32_t len, flags;
	uint16_t type, version;
	size_t need;
	uint8_t *h;

	if (m->dm_err) {
		errno = m->dm_err;
		return -1;
	}
	need = DT_MSG_HDRSIZE + m->dm_len;
	if (p->dp_outoff > 0 && p->dp_outoff == p->dp_outlen) {
		p->dp_outoff = p->dp_outlen = 0;
	}
	if (p->dp_outcap - p->dp_outlen < need) {
		size_t cap = p->dp_outcap ? p->dp_outcap : 4096;
		uint8_t *nb;

		while (cap - p->dp_outlen < need)
			cap *= 2;
		if ((nb = realloc(p->dp_out, cap)) == NULL)
			return -1;
		p->dp_out = nb;
		p->dp_outcap = cap;
	}
	flags = 0;
	if (m->dm_fd != -1) {
		int fd;

		if (p->dp_noutfd == 4) {
			errno = EAGAIN;
			return -1;
		}
		if ((fd = fcntl(m->dm_fd, F_DUPFD_CLOEXEC, 0)) == -1)
			return -1;
		p->dp_outfd[p->dp_noutfd] = fd;
		p->dp_outfdat[p->dp_noutfd] = p->dp_outlen;
		p->dp_noutfd++;
		flags |= DT_MSGF_FD;
	}
	h = p->dp_out + p->dp_outlen;
	len = htole32((uint32_t)m->dm_len);
	type = htole16(m->dm_type);
	version = htole16(DT_PROTO_VERSION);
	flags = htole32(flags);
	memcpy(h, &len, 4);
	memcpy(h + 4, &type, 2);
	memcpy(h + 6, &version, 2);
	memcpy(h + 8, &flags, 4);
	if (m->dm_len > 0)
		memcpy(h + DT_MSG_HDRSIZE, m->dm_data, m->dm_len);
	p->dp_outlen += need;
	return 0;
}

/*
 * Write queued output.  Returns 1 when everything is written, 0 when the
 * socket would block with output left, -1 on error.
 */
int
dt_peer_flush(dt_peer_t *p)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	while (p->dp_outoff < p->dp_outlen) {
		size_t end = p->dp_outlen;
		int withfd = 0;

		/* An fd goes with the first byte of its message, alone. */
		if (p->dp_noutfd > 0) {
			if (p->dp_outfdat[0] == p->dp_outoff)
				withfd = 1;
			else
				end = p->dp_outfdat[0];
		}
		iov.iov_base = p->dp_out + p->dp_outoff;
		iov.iov_len = end - p->dp_outoff;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (withfd) {
			struct cmsghdr *cm;

			memset(&cbuf, 0, sizeof(cbuf));
			mh.msg_control = cbuf.buf;
			mh.msg_controllen = sizeof(cbuf.buf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &p->dp_outfd[0], sizeof(int));
		}
		do {
			n = sendmsg(p->dp_fd, &mh, MSG_NOSIGNAL);
		} while (n == -1 && errno == EINTR);
		if (n == -1)
			return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
		if (withfd) {
			close(p->dp_outfd[0]);
			p->dp_noutfd--;
			memmove(p->dp_outfd, p->dp_outfd + 1,
			    p->dp_noutfd * sizeof(int));
			memmove(p->dp_outfdat, p->dp_outfdat + 1,
			    p->dp_noutfd * sizeof(size_t));
		}
		p->dp_outoff += n;
	}
	p->dp_outoff = p->dp_outlen = 0;
	return 1;
}

/*
 * Wait for the socket to become readable or writable: at most
 * dp_timeout ms when it is set, then -1 with errno ETIMEDOUT (a peer
 * that stopped answering is not waited for without end).  0 when the
 * caller may try again (ready, or a signal).
 */
static int
dt_peer_poll(dt_peer_t *p, short events)
{
	struct pollfd pfd = { p->dp_fd, events, 0 };
	int n;

	n = poll(&pfd, 1, p->dp_timeout > 0 ? p->dp_timeout : -1);
	if (n == -1)
		return errno == EINTR ? 0 : -1;
	if (n == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

/*
 * Blocking receive of the next message (the client's side).  Returns 1
 * with a message, 0 when the peer closed, -1 on error or malformed input
 * (ETIMEDOUT: nothing came for dp_timeout ms).
 */
int
dt_peer_recv(dt_peer_t *p, dt_msg_t *m)
{
	for (;;) {
		ssize_t n;
		int rv;

		if ((rv = dt_peer_get(p, m)) != 0)
			return rv;
		if ((n = dt_peer_read(p)) == 0) {
			if (p->dp_inlen > 0) {
				errno = EPROTO;
				return -1;
			}
			return 0;
		}
		if (n == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -1;
			if (dt_peer_poll(p, POLLIN) == -1)
				return -1;
		}
	}
}

/* Blocking send of one message and everything queued before it. */
int
dt_peer_request(dt_peer_t *p, const dt_msg_t *m)
{
	int rv;

	if (dt_peer_send(p, m) == -1)
		return -1;
	while ((rv = dt_peer_flush(p)) == 0) {
		if (dt_peer_poll(p, POLLOUT) == -1)
			return -1;
	}
	return rv == 1 ? 0 : -1;
}

/* Bytes queued and not yet written. */
size_t
dt_peer_queued(const dt_peer_t *p)
{
	return p->dp_outlen - p->dp_outoff;
}
