/*
 * dtraced.c: main.  Serve dtrace(1) clients on a Unix socket, or exactly
 * one client on an inherited socket (-f, a private daemon).  A shared
 * daemon retains the programs of its configuration directory (-D) once
 * it listens.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "dtd.h"
#include "ft.h"

#ifndef RUNSTATEDIR
#define RUNSTATEDIR	"/run"
#endif
#define DTRACED_SOCKET	RUNSTATEDIR "/dtraced/dtraced.sock"

static void	usage(void) __attribute__((noreturn));

static void
usage(void)
{
	fprintf(stderr, "usage: dtraced [-dv] [-D confdir] [-f fd] "
	    "[-L limit=value] [-s socket]\n");
	exit(2);
}

static void
dtraced_signal(evutil_socket_t sig, short ev, void *arg)
{
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		log_info("%s: %s, shutting down", __func__,
		    sig == SIGTERM ? "SIGTERM" : "SIGINT");
		event_base_loopexit(dtd_base, NULL);
		break;
	case SIGHUP:
		log_info("%s: SIGHUP: nothing to reload", __func__);
		break;
	}
}

/*
 * A crash must not kill the processes we trace: put their original
 * bytes back (async-signal-safe), then die of the same signal.
 */
static void
dtraced_fatal(int sig)
{
	ft_proc_fatal_restore();
	ft_proc_fatal_detach();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
dtraced_fatal_handlers(void)
{
	static const int fsigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = dtraced_fatal;
	sigemptyset(&sa.sa_mask);
	/* one shot: a fault inside the handler kills us by default */
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (i = 0; i < sizeof(fsigs) / sizeof(fsigs[0]); i++)
		sigaction(fsigs[i], &sa, NULL);
}

static void
dtraced_daemonize(void)
{
	int fd;

	switch (fork()) {
	case -1:
		fatal("fork");
	case 0:
		break;
	default:
		_exit(0);
	}
	if (setsid() == -1)
		fatal("setsid");
	/* the session leader goes too, so no terminal can be acquired */
	switch (fork()) {
	case -1:
		fatal("fork");
	case 0:
		break;
	default:
		_exit(0);
	}
	if (chdir("/") == -1)
		fatal("chdir /");
	if ((fd = open("/dev/null", O_RDWR)) == -1)
		fatal("/dev/null");
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static int
dtraced_fdarg(const char *s)
{
	int type, fl;
	socklen_t len = sizeof(type);
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno != 0 || *s == '\0' || *end != '\0' || n < 0 || n > INT_MAX)
		fatalx("-f %s: not a file descriptor", s);
	if (getsockopt((int)n, SOL_SOCKET, SO_TYPE, &type, &len) == -1)
		fatal("-f %s", s);
	if (type != SOCK_STREAM)
		fatalx("-f %s: not a stream socket", s);
	if ((fl = fcntl((int)n, F_GETFL)) == -1 ||
	    fcntl((int)n, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    fcntl((int)n, F_SETFD, FD_CLOEXEC) == -1)
		fatal("-f %s", s);
	return (int)n;
}

int
main(int argc, char *argv[])
{
	struct event *sigev[3];
	static const int sigs[3] = { SIGTERM, SIGINT, SIGHUP };
	const char *path, *farg = NULL, *sarg = NULL, *sock;
	const char *confdir = DTD_RETAIN_CONFDIR;
	char confabs[PATH_MAX];
	int ch, debug = 0, verbose = 0, lfd = -1, cfd = -1, i, limits = 0;
	char err[256], lim[256];

	while ((ch = getopt(argc, argv, "dD:f:L:s:v")) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'D':
			confdir = optarg;
			break;
		case 'f':
			farg = optarg;
			break;
		case 'L':
			if (dtd_limit_parse(optarg, err, sizeof(err)) == -1) {
				fprintf(stderr, "dtraced: %s\n", err);
				usage();
			}
			limits = 1;
			break;
		case 's':
			sarg = optarg;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	log_init(1, verbose);
	signal(SIGPIPE, SIG_IGN);
	dtraced_fatal_handlers();
	if (dtd_probe_init() == -1)
		fatal("probe table");

	if (farg != NULL) {
		cfd = dtraced_fdarg(farg);
		/* a private daemon: its one user's own memory and rights */
		if (!limits)
			dtd_limit_enforce(0);
	} else if ((lfd = dtd_systemd_listen_fd()) != -1)
		log_info("listening on the socket systemd passed");
	else {
		if ((path = sarg) == NULL &&
		    ((path = getenv("DTRACED_SOCKET")) == NULL || *path == '\0'))
			path = DTRACED_SOCKET;
		lfd = dtd_control_open(path);
	}

	/* daemonizing goes to /: a relative -D must name the same place */
	if (confdir[0] != '/' && realpath(confdir, confabs) != NULL)
		confdir = confabs;
	if (!debug && farg == NULL) {
		dtraced_daemonize();
		log_init(0, verbose);
	}

	/* before any thread: the guardian restores targets if we are killed */
	if (ft_guard_start(err, sizeof(err)) == -1)
		log_warnx("%s: a SIGKILL of dtraced would harm its targets", err);

	if ((dtd_base = event_base_new()) == NULL)
		fatalx("event_base_new");
	if (dtd_client_init() == -1)
		fatal("notification eventfd");
	for (i = 0; i < 3; i++) {
		if ((sigev[i] = evsignal_new(dtd_base, sigs[i], dtraced_signal,
		    NULL)) == NULL || evsignal_add(sigev[i], NULL) == -1)
			fatalx("cannot handle signal %d", sigs[i]);
	}

	if (cfd != -1)
		dtd_client_create(cfd, 1);
	else {
		dtd_control_listen(lfd);
		dtd_systemd_notify("READY=1");
		/* the anonymous enablings of a boot: retained programs */
		if ((sock = dtd_control_sockpath()) != NULL)
			dtd_retain_load(confdir, sock);
		else
			log_warnx("no socket path: %s not loaded", confdir);
	}
	dtd_limit_describe(lim, sizeof(lim));
	log_info("dtraced %d ready; limits for users other than root: %s",
	    (int)getpid(), lim);

	if (cfd == -1 || dtd_client_count() > 0)
		event_base_dispatch(dtd_base);

	dtd_systemd_notify("STOPPING=1");
	dtd_client_shutdown();
	dtd_retain_shutdown();		/* their probes come out too */
	dtd_prov_pid_shutdown();	/* every target released, restored */
	dtd_control_close();
	dtd_probe_fini();
	for (i = 0; i < 3; i++)
		event_free(sigev[i]);
	event_base_free(dtd_base);
	dtd_base = NULL;
	log_info("exiting");
	return 0;
}
