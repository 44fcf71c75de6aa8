/*
 * sockpoke: connect to a Unix socket and misbehave on purpose, to check
 * that the daemon drops a bad peer and keeps serving everyone else.
 *
 *	sockpoke SOCKET garbage		random bytes, then hang up
 *	sockpoke SOCKET badversion	a header with a wrong version
 *	sockpoke SOCKET oldversion	a HELLO of the protocol before ours,
 *					answered by an error of ours
 *	sockpoke SOCKET newversion	a HELLO of the protocol after ours,
 *					answered likewise
 *	sockpoke SOCKET huge		a header announcing 1 GiB
 *	sockpoke SOCKET half		half a HELLO, then hang up
 *	sockpoke SOCKET header		a whole HELLO header, no payload, then
 *					hang up
 *	sockpoke SOCKET halfpayload	HELLO, then half a PROGRAM, hang up
 *	sockpoke SOCKET fd		HELLO, then half a GRAB with an fd
 *					attached, hang up
 *	sockpoke SOCKET noHello		a GO before HELLO
 *	sockpoke SOCKET idle		connect and wait to be killed
 *	sockpoke SOCKET flood NAME [snapshot]
 *					claim the retained program NAME
 *					(or only read it), then ask for
 *					snapshot after snapshot and read
 *					none of them
 *	sockpoke SOCKET late NAME N	only read NAME: ask for N snapshots
 *					at once, sleep a second, then read;
 *					print how many ended (SNAP_END)
 *
 * Exits 0 when the daemon closed the connection (or, for "half" and
 * "garbage", when it wrote everything), 1 otherwise.  The last three
 * speak the current protocol (dt_proto.h) up to where they stop, then
 * wait for the daemon to close its end.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_proto.h"

static int
hdr(uint8_t *h, uint32_t len, uint16_t type, uint16_t version)
{
	h[0] = len & 0xff;
	h[1] = (len >> 8) & 0xff;
	h[2] = (len >> 16) & 0xff;
	h[3] = (len >> 24) & 0xff;
	h[4] = type & 0xff;
	h[5] = type >> 8;
	h[6] = version & 0xff;
	h[7] = version >> 8;
	memset(h + 8, 0, 4);
	return 12;
}

/* HELLO, and its answer read. */
static int
hello(int fd)
{
	uint8_t buf[4096];
	uint32_t pid = (uint32_t)getpid();

	hdr(buf, 4, DT_MSG_HELLO, DT_PROTO_VERSION);
	memcpy(buf + 12, &pid, 4);
	if (write(fd, buf, 16) != 16)
		return -1;
	/* HELLO_OK: a header and two u32 */
	return read(fd, buf, sizeof(buf)) >= 12 ? 0 : -1;
}

/* Send len bytes with fd attached to the first, SCM_RIGHTS. */
static int
sendfd(int fd, const uint8_t *buf, size_t len, int pass)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct cmsghdr *cm;
	struct msghdr mh;
	struct iovec iov;

	memset(&mh, 0, sizeof(mh));
	memset(&cbuf, 0, sizeof(cbuf));
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = sizeof(cbuf.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &pass, sizeof(int));
	return sendmsg(fd, &mh, 0) == (ssize_t)len ? 0 : -1;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

/*
 * A client that asks and never reads: CLAIM, then SNAPs until the daemon
 * hangs up on us (0) or something else goes wrong (1).
 */
static int
flood(int fd, const char *name, int snapshot)
{
	uint8_t buf[16 * 256];
	size_t len = strlen(name), n;
	int i;

	signal(SIGPIPE, SIG_IGN);
	if (len > 256 || hello(fd) == -1)
		return 1;
	hdr(buf, 4 + len + 4, DT_MSG_CLAIM, DT_PROTO_VERSION);
	put32(buf + 12, (uint32_t)len);
	memcpy(buf + 16, name, len);
	put32(buf + 16 + len, snapshot ? DT_CLAIM_SNAPSHOT : 0);
	n = 16 + len + 4;
	if (write(fd, buf, n) != (ssize_t)n)
		return 1;
	for (i = 0; i < 256; i++) {
		hdr(buf + 16 * i, 4, DT_MSG_SNAP, DT_PROTO_VERSION);
		put32(buf + 16 * i + 12, DT_SNAP_BUF | DT_SNAP_AGG);
	}
	for (;;) {
		if (write(fd, buf, sizeof(buf)) == -1)
			return errno == EPIPE || errno == ECONNRESET ? 0 : 1;
	}
}

/* Read n bytes whole; -1 at end of file or on an error. */
static int
readall(int fd, uint8_t *buf, size_t n)
{
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, buf, n)) <= 0)
			return -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

/*
 * A client that asks for many snapshots at once and reads them late:
 * every one must be answered, none lost while the daemon waited.
 */
static int
late(int fd, const char *name, int n)
{
	uint8_t buf[65536];
	uint32_t len;
	size_t l = strlen(name), k;
	int i, ended = 0;

	if (l > 256 || hello(fd) == -1)
		return 1;
	hdr(buf, 4 + l + 4, DT_MSG_CLAIM, DT_PROTO_VERSION);
	put32(buf + 12, (uint32_t)l);
	memcpy(buf + 16, name, l);
	put32(buf + 16 + l, DT_CLAIM_SNAPSHOT);
	k = 16 + l + 4;
	for (i = 0; i < n && k + 16 <= sizeof(buf); i++, k += 16) {
		hdr(buf + k, 4, DT_MSG_SNAP, DT_PROTO_VERSION);
		put32(buf + k + 12, DT_SNAP_BUF | DT_SNAP_AGG);
	}
	if (write(fd, buf, k) != (ssize_t)k)
		return 1;
	sleep(1);
	while (ended < i && readall(fd, buf, 12) == 0) {
		len = buf[0] | buf[1] << 8 | buf[2] << 16 |
		    (uint32_t)buf[3] << 24;
		if ((buf[4] | buf[5] << 8) == DT_MSG_SNAP_END)
			ended++;
		while (len > 0) {
			k = len < sizeof(buf) ? len : sizeof(buf);
			if (readall(fd, buf, k) == -1)
				return 1;
			len -= (uint32_t)k;
		}
	}
	printf("%d\n", ended);
	return 0;
}

/* Hang up our end, then wait for the daemon to close its end. */
static int
hangup(int fd)
{
	char c;

	shutdown(fd, SHUT_WR);
	while (read(fd, &c, 1) > 0)
		continue;
	return 0;
}

/* Wait for the daemon to close the connection. */
static int
wait_closed(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		continue;
	return n == 0 ? 0 : 1;
}

int
main(int argc, char *argv[])
{
	struct sockaddr_un sun;
	uint8_t buf[4096];
	int fd, i;

	if (argc == 4 || argc == 5) {
		if ((strcmp(argv[2], "flood") != 0 ||
		    (argc == 5 && strcmp(argv[4], "snapshot") != 0)) &&
		    (strcmp(argv[2], "late") != 0 || argc != 5)) {
			fprintf(stderr, "usage: sockpoke socket flood name "
			    "[snapshot]\n       sockpoke socket late name n\n");
			return 2;
		}
	} else if (argc != 3) {
		fprintf(stderr, "usage: sockpoke socket mode\n");
		return 2;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", argv[1]);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		perror("sockpoke: connect");
		return 1;
	}
	if (strcmp(argv[2], "garbage") == 0) {
		srandom(getpid());
		for (i = 0; i < (int)sizeof(buf); i++)
			buf[i] = random();
		/* a plausible length so the daemon must look further */
		hdr(buf, 64, 100, 1);
		buf[4] = 0x77;
		return write(fd, buf, sizeof(buf)) == sizeof(buf) ?
		    wait_closed(fd) : 1;
	} else if (strcmp(argv[2], "badversion") == 0) {
		hdr(buf, 4, 100, 9999);
		memset(buf + 12, 0, 4);
		write(fd, buf, 16);
		return wait_closed(fd);
	} else if (strcmp(argv[2], "oldversion") == 0 ||
	    strcmp(argv[2], "newversion") == 0) {
		/* a peer one release away: well formed but for the version */
		hdr(buf, 4, DT_MSG_HELLO, argv[2][0] == 'o' ?
		    DT_PROTO_VERSION - 1 : DT_PROTO_VERSION + 1);
		memset(buf + 12, 0, 4);
		write(fd, buf, 16);
		/* the answer: an error whose header names the daemon's */
		if (read(fd, buf, 12) != 12 || (buf[4] | buf[5] << 8) !=
		    DT_MSG_ERROR || (buf[6] | buf[7] << 8) != DT_PROTO_VERSION) {
			fprintf(stderr, "sockpoke: no error of protocol %d\n",
			    DT_PROTO_VERSION);
			return 1;
		}
		return wait_closed(fd);
	} else if (strcmp(argv[2], "huge") == 0) {
		hdr(buf, 1u << 30, 200, 1);
		write(fd, buf, 12);
		return wait_closed(fd);
	} else if (strcmp(argv[2], "half") == 0) {
		hdr(buf, 4, 100, 1);
		return write(fd, buf, 7) == 7 ? 0 : 1;
	} else if (strcmp(argv[2], "header") == 0) {
		hdr(buf, 4, DT_MSG_HELLO, DT_PROTO_VERSION);
		return write(fd, buf, 12) == 12 ? hangup(fd) : 1;
	} else if (strcmp(argv[2], "halfpayload") == 0) {
		if (hello(fd) == -1)
			return 1;
		memset(buf, 0, sizeof(buf));
		hdr(buf, 4000, DT_MSG_PROGRAM, DT_PROTO_VERSION);
		return write(fd, buf, 12 + 2000) == 12 + 2000 ? hangup(fd) : 1;
	} else if (strcmp(argv[2], "fd") == 0) {
		int pass;

		if (hello(fd) == -1 ||
		    (pass = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
			return 1;
		memset(buf, 0, sizeof(buf));
		hdr(buf, 8, DT_MSG_GRAB, DT_PROTO_VERSION);
		buf[8] = DT_MSGF_FD;
		if (sendfd(fd, buf, 12 + 4, pass) == -1)
			return 1;
		close(pass);
		return hangup(fd);
	} else if (strcmp(argv[2], "noHello") == 0) {
		hdr(buf, 0, 202, 1);
		write(fd, buf, 12);
		return wait_closed(fd);
	} else if (strcmp(argv[2], "late") == 0 && argc == 5) {
		return late(fd, argv[3], atoi(argv[4]));
	} else if (strcmp(argv[2], "flood") == 0 && argc >= 4) {
		return flood(fd, argv[3], argc == 5);
	} else if (strcmp(argv[2], "idle") == 0) {
		pause();
		return 0;
	}
	fprintf(stderr, "sockpoke: unknown mode %s\n", argv[2]);
	return 2;
}
