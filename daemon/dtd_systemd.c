/*
 * dtd_systemd.c: socket activation and readiness without libsystemd.
 * The protocol is small and documented (sd_listen_fds(3), sd_notify(3)):
 * LISTEN_PID/LISTEN_FDS name inherited sockets starting at fd 3, and
 * NOTIFY_SOCKET names a datagram socket that takes "READY=1".
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtd.h"

#define DTD_SYSTEMD_FDSTART	3

/* The listening socket systemd passed us, or -1. */
int
dtd_systemd_listen_fd(void)
{
	const char *s;
	char *end;
	long pid, n;
	int fd, fl;

	if ((s = getenv("LISTEN_PID")) == NULL)
		return -1;
	errno = 0;
	pid = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || pid != (long)getpid())
		return -1;
	if ((s = getenv("LISTEN_FDS")) == NULL)
		return -1;
	n = strtol(s, &end, 10);
	if (*end != '\0' || n < 1)
		return -1;
	if (n > 1)
		log_warnx("%s: %ld sockets passed, using the first", __func__, n);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");

	fd = DTD_SYSTEMD_FDSTART;
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		log_warn("%s: fd %d", __func__, fd);
		return -1;
	}
	return fd;
}

/* Send a state string to the service manager; 0 when there is none. */
int
dtd_systemd_notify(const char *state)
{
	struct sockaddr_un sun;
	const char *path;
	socklen_t len;
	size_t plen;
	int fd, rv = 0;

	if ((path = getenv("NOTIFY_SOCKET")) == NULL || *path == '\0')
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sun.sun_path)) {
		log_warnx("%s: unusable NOTIFY_SOCKET %s", __func__, path);
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, plen);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';	/* abstract namespace */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen);

	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		log_warn("%s: socket", __func__);
		return -1;
	}
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL,
	    (struct sockaddr *)&sun, len) == -1) {
		log_warn("%s: sendto %s", __func__, path);
		rv = -1;
	}
	close(fd);
	return rv;
}
