/*
 * dtd_control.c: the listening socket.  Every accepted connection
 * becomes a client (dtd_client.c); when we run out of descriptors,
 * accepting pauses for a second instead of spinning.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <grp.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "dtd.h"

#define DTD_CONTROL_GROUP	"dtrace"

struct event_base	*dtd_base;

static int		 dtd_control_fd = -1;
static struct event	*dtd_control_ev;
static struct event	*dtd_control_pausev;
static char		*dtd_control_path;	/* ours to unlink at exit */

static int
dtd_control_sun(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun->sun_path, path, strlen(path) + 1);
	return 0;
}

/* Is a daemon answering on path?  A refused connection is a stale socket. */
static int
dtd_control_live(const struct sockaddr_un *sun)
{
	int fd, rv;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("%s: socket", __func__);
	rv = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	if (rv == 0)
		return 1;
	if (errno == ECONNREFUSED || errno == ENOENT)
		return 0;
	return -1;
}

static void
dtd_control_rundir(const char *path, gid_t gid)
{
	char *copy, *dir;

	if ((copy = strdup(path)) == NULL)
		fatal("%s: strdup", __func__);
	dir = dirname(copy);
	if (mkdir(dir, 0750) == 0) {
		if (gid != (gid_t)-1 && chown(dir, (uid_t)-1, gid) == -1)
			log_warn("%s: chown %s", __func__, dir);
		log_info("%s: created %s", __func__, dir);
	} else if (errno != EEXIST)
		fatal("%s: mkdir %s", __func__, dir);
	free(copy);
}

/*
 * Create the listening socket at path: mode 0660, group dtrace when
 * that group exists.  Exits if another dtraced answers there.
 */
int
dtd_control_open(const char *path)
{
	struct sockaddr_un sun;
	struct group *gr;
	gid_t gid = (gid_t)-1;
	mode_t old;
	int fd;

	if (dtd_control_sun(&sun, path) == -1)
		fatalx("socket path too long: %s", path);
	if ((gr = getgrnam(DTD_CONTROL_GROUP)) != NULL)
		gid = gr->gr_gid;
	dtd_control_rundir(path, gid);

	switch (dtd_control_live(&sun)) {
	case 1:
		fatalx("another dtraced is listening on %s", path);
	case 0:
		if (unlink(path) == 0)
			log_info("%s: removed stale socket %s", __func__, path);
		else if (errno != ENOENT)
			fatal("%s: unlink %s", __func__, path);
		break;
	default:
		fatal("%s: %s", __func__, path);
	}

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		fatal("%s: socket", __func__);
	old = umask(0117);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		fatal("%s: bind %s", __func__, path);
	umask(old);
	if (chmod(path, 0660) == -1)
		fatal("%s: chmod %s", __func__, path);
	if (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) == -1)
		log_warn("%s: chown %s to group %s", __func__, path,
		    DTD_CONTROL_GROUP);
	if (listen(fd, 128) == -1)
		fatal("%s: listen %s", __func__, path);
	if ((dtd_control_path = strdup(path)) == NULL)
		fatal("%s: strdup", __func__);
	log_info("%s: listening on %s", __func__, path);
	return fd;
}

static void
dtd_control_resume(evutil_socket_t fd, short ev, void *arg)
{
	event_add(dtd_control_ev, NULL);
}

static void
dtd_control_accept(evutil_socket_t lfd, short ev, void *arg)
{
	struct timeval tv = { 1, 0 };
	int fd;

	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			switch (errno) {
			case EAGAIN:
			case EINTR:
			case ECONNABORTED:
				return;
			case EMFILE:
			case ENFILE:
				log_warn("%s: accept, pausing 1s", __func__);
				event_del(dtd_control_ev);
				evtimer_add(dtd_control_pausev, &tv);
				return;
			default:
				log_warn("%s: accept", __func__);
				return;
			}
		}
		dtd_client_create(fd, 0);
	}
}

void
dtd_control_listen(int fd)
{
	dtd_control_fd = fd;
	if ((dtd_control_ev = event_new(dtd_base, fd, EV_READ | EV_PERSIST,
	    dtd_control_accept, NULL)) == NULL ||
	    (dtd_control_pausev = evtimer_new(dtd_base, dtd_control_resume,
	    NULL)) == NULL)
		fatalx("%s: event_new", __func__);
	if (event_add(dtd_control_ev, NULL) == -1)
		fatalx("%s: event_add", __func__);
}

/*
 * The path clients reach us at (the one we bound, or the one systemd
 * bound), for the dtrace(1) that retains the configured programs; NULL
 * if there is none.
 */
const char *
dtd_control_sockpath(void)
{
	static struct sockaddr_un sun;
	socklen_t len = sizeof(sun);

	if (dtd_control_path != NULL)
		return dtd_control_path;
	if (dtd_control_fd == -1)
		return NULL;
	memset(&sun, 0, sizeof(sun));
	if (getsockname(dtd_control_fd, (struct sockaddr *)&sun, &len) == -1 ||
	    sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
		return NULL;
	sun.sun_path[sizeof(sun.sun_path) - 1] = '\0';
	return sun.sun_path;
}

void
dtd_control_close(void)
{
	if (dtd_control_ev != NULL)
		event_free(dtd_control_ev);
	if (dtd_control_pausev != NULL)
		event_free(dtd_control_pausev);
	dtd_control_ev = dtd_control_pausev = NULL;
	if (dtd_control_fd != -1)
		close(dtd_control_fd);
	dtd_control_fd = -1;
	/* a socket systemd handed us is systemd's to remove */
	if (dtd_control_path != NULL && unlink(dtd_control_path) == -1 &&
	    errno != ENOENT)
		log_warn("%s: unlink %s", __func__, dtd_control_path);
	free(dtd_control_path);
	dtd_control_path = NULL;
}
