/*
 * dtraced.c: main.  Serve dtrace(1) clients on a Unix socket, or exactly
 * one client on an inherited socket (-f, a private daemon).  A shared
 * daemon retains the programs of its configuration directory (-D) once
 * it listens.  Unless told to stay in the foreground (-d, or started by
 * systemd) it daemonizes and holds a pid file (-p), locked for its life
 * so that a second daemon refuses to start, and removed on a clean exit.
 * SIGHUP reopens the logs (-l file, or syslog).
 */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
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
#define DTRACED_PIDFILE	RUNSTATEDIR "/dtraced/dtraced.pid"

static int	dtraced_pidfd = -1;	/* the pid file, locked */
static char	*dtraced_pidpath;
static pid_t	dtraced_pidowner;	/* the process that removes it */

static void	usage(void) __attribute__((noreturn));
static void	dtraced_pidfile_remove(void);

static void
usage(void)
{
	fprintf(stderr, "usage: dtraced [-dVv] [-D confdir] [-f fd] "
	    "[-L limit=value] [-l logfile]\n"
	    "               [-M [address:]port] [-p pidfile] [-s socket]\n");
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
		log_reopen();
		log_info("%s: SIGHUP: logs reopened", __func__);
		break;
	}
}

/*
 * SIGTERM or SIGINT before the event loop handles signals (the socket
 * and the pid file exist from early on, and a service manager may stop
 * us at any moment after them): kept here, acted on once it does, so
 * that the daemon still shuts down cleanly and removes what it made.
 */
static volatile sig_atomic_t dtraced_early_sig;

static void
dtraced_early(int sig)
{
	if (sig != SIGHUP)	/* (the logs are not open to reopen yet) */
		dtraced_early_sig = sig;
}

static void
dtraced_early_handlers(const int *sigs, size_t n)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = dtraced_early;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < n; i++)
		sigaction(sigs[i], &sa, NULL);
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

/*
 * Detach from the terminal.  The command returns only when the daemon is
 * ready (dtraced_ready): 0 then, 1 if it died first, so that a script
 * starting dtraced may use it at once.
 */
static int	dtraced_readyfd = -1;

static void
dtraced_daemonize(void)
{
	int fd, p[2];
	ssize_t n;
	char c;

	if (pipe2(p, O_CLOEXEC) == -1)
		fatal("pipe");
	switch (fork()) {
	case -1:
		fatal("fork");
	case 0:
		break;
	default:
		close(p[1]);
		do
			n = read(p[0], &c, 1);
		while (n == -1 && errno == EINTR);
		if (n == 1 && c == 'r')
			_exit(0);
		fprintf(stderr, "dtraced: the daemon exited before it was "
		    "ready; see its log\n");
		_exit(1);
	}
	close(p[0]);
	dtraced_readyfd = p[1];
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

/* Listening, pid file written: the command that daemonized may return. */
static void
dtraced_ready(void)
{
	if (dtraced_readyfd == -1)
		return;
	if (write(dtraced_readyfd, "r", 1) != 1)
		log_warn("%s: write", __func__);
	close(dtraced_readyfd);
	dtraced_readyfd = -1;
}

/*
 * Take the pid file: create it (and its directory, as the socket's),
 * and lock it for as long as we run.  Before daemonizing, so that the
 * error reaches the terminal: a lock that another process holds is a
 * live daemon; a file nobody locks is stale and is taken over.  The
 * lock (flock) belongs to the open file, so the daemonized child keeps
 * it; the guardian closes its copy.
 */
static void
dtraced_pidfile_open(const char *path)
{
	char buf[32], *copy, *dir;
	ssize_t n;
	int fd;

	if ((copy = strdup(path)) == NULL)
		fatal("%s: strdup", __func__);
	dir = dirname(copy);
	if (mkdir(dir, 0750) == -1 && errno != EEXIST)
		fatal("pid file %s: mkdir %s", path, dir);
	free(copy);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0644)) == -1)
		fatal("pid file %s", path);
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK)
			fatal("pid file %s: flock", path);
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		fatalx("another dtraced (pid %s) holds %s", buf[0] != '\0' ?
		    buf : "unknown", path);
	}
	if ((dtraced_pidpath = strdup(path)) == NULL)
		fatal("%s: strdup", __func__);
	dtraced_pidfd = fd;
	dtraced_pidowner = getpid();
	/* fatal() exits: the file goes with us from now on */
	atexit(dtraced_pidfile_remove);
}

/* Write our pid (after daemonizing: the daemon's). */
static void
dtraced_pidfile_write(void)
{
	char buf[32];
	int n;

	if (dtraced_pidfd == -1)
		return;
	dtraced_pidowner = getpid();
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(dtraced_pidfd, 0) == -1 ||
	    pwrite(dtraced_pidfd, buf, (size_t)n, 0) != n)
		fatal("pid file %s", dtraced_pidpath);
}

/* A clean exit: the file goes, then the lock. */
static void
dtraced_pidfile_remove(void)
{
	if (dtraced_pidfd == -1 || dtraced_pidowner != getpid())
		return;
	if (unlink(dtraced_pidpath) == -1)
		log_warn("%s: unlink %s", __func__, dtraced_pidpath);
	close(dtraced_pidfd);
	dtraced_pidfd = -1;
	free(dtraced_pidpath);
	dtraced_pidpath = NULL;
}

/*
 * Every client, every target and every traced thread's files take a
 * descriptor, and the soft limit a daemon inherits (1024 under systemd
 * and most shells) is far below what a loaded daemon needs: take the
 * hard limit.  Nothing here uses select(), so descriptors above 1023
 * are safe.
 */
static void
dtraced_nofile(void)
{
	struct rlimit rl;
	rlim_t was;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_warn("%s: getrlimit", __func__);
		return;
	}
	if (rl.rlim_cur >= rl.rlim_max)
		return;
	was = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		log_warn("%s: setrlimit to %llu", __func__,
		    (unsigned long long)rl.rlim_max);
	else
		log_debug("%s: open files: %llu, was %llu", __func__,
		    (unsigned long long)rl.rlim_max,
		    (unsigned long long)was);
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
	const char *larg = NULL, *parg = NULL, *marg = NULL;
	const char *confdir = DTD_RETAIN_CONFDIR;
	char confabs[PATH_MAX];
	int ch, debug = 0, verbose = 0, lfd = -1, cfd = -1, i, limits = 0;
	int systemd = 0, daemonize;
	char err[256], lim[256], alllim[256];

	/*
	 * Every large block (a principal buffer's half, a snapshot) is its
	 * own mapping, handed back to the system when freed.  glibc would
	 * otherwise raise its mapping threshold to the size of the first
	 * such block freed, and carve the next ones out of its arenas:
	 * calloc() then writes zeros over pages that were never used, and
	 * freed megabytes stay resident in whichever arena a thread got
	 * (16 MB more after a thousand short sessions, on one machine).
	 */
	(void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);

	while ((ch = getopt(argc, argv, "dD:f:L:l:M:p:s:Vv")) != -1) {
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
		case 'l':
			larg = optarg;
			break;
		case 'M':
			if (dtd_metrics_listen(optarg, err,
			    sizeof(err)) == -1) {
				fprintf(stderr, "dtraced: %s\n", err);
				usage();
			}
			marg = optarg;
			break;
		case 'p':
			parg = optarg;
			break;
		case 's':
			sarg = optarg;
			break;
		case 'V':
			/* what an operator asks of an installed daemon */
			printf("dtraced %s (protocol %d)\n", PACKAGE_VERSION,
			    DT_PROTO_VERSION);
			return 0;
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
	if (larg != NULL && log_file(larg) == -1)
		fatal("log file %s", larg);
	signal(SIGPIPE, SIG_IGN);
	dtraced_early_handlers(sigs, 3);
	dtraced_fatal_handlers();
	dtraced_nofile();
	if (dtd_probe_init() == -1)
		fatal("probe table");

	if (farg != NULL) {
		cfd = dtraced_fdarg(farg);
		/* a private daemon: its one user's own memory and rights */
		if (!limits)
			dtd_limit_enforce(0);
	} else if ((lfd = dtd_systemd_listen_fd()) != -1) {
		log_info("listening on the socket systemd passed");
		systemd = 1;
	}
	/* systemd keeps us as we are (it waits for READY=1 from us) */
	if (getenv("NOTIFY_SOCKET") != NULL)
		systemd = 1;
	daemonize = !debug && farg == NULL && !systemd;
	/* the pid file first: a second daemon touches nothing */
	if (farg == NULL && (daemonize || parg != NULL))
		dtraced_pidfile_open(parg != NULL ? parg : DTRACED_PIDFILE);
	if (farg == NULL && lfd == -1) {
		if ((path = sarg) == NULL &&
		    ((path = getenv("DTRACED_SOCKET")) == NULL || *path == '\0'))
			path = DTRACED_SOCKET;
		lfd = dtd_control_open(path);
	}

	/* daemonizing goes to /: a relative -D must name the same place */
	if (confdir[0] != '/' && realpath(confdir, confabs) != NULL)
		confdir = confabs;
	/* a shared daemon's metrics: -M, or else its configuration */
	if (farg == NULL && marg == NULL &&
	    dtd_metrics_config(confdir, err, sizeof(err)) == -1)
		fatalx("%s", err);
	if (daemonize) {
		dtraced_daemonize();
		log_init(0, verbose);
	}
	dtraced_pidfile_write();

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
	if (dtraced_early_sig != 0)
		dtraced_signal(dtraced_early_sig, EV_SIGNAL, NULL);

	if (cfd != -1)
		dtd_client_create(cfd, 1);
	else {
		dtd_control_listen(lfd);
		if (dtd_metrics_start(dtd_base, err, sizeof(err)) == -1)
			fatalx("%s", err);
		dtd_systemd_notify("READY=1");
		/* the anonymous enablings of a boot: retained programs */
		if ((sock = dtd_control_sockpath()) != NULL)
			dtd_retain_load(confdir, sock);
		else
			log_warnx("no socket path: %s not loaded", confdir);
	}
	dtd_limit_describe(lim, sizeof(lim), 0);
	dtd_limit_describe(alllim, sizeof(alllim), 1);
	dtraced_ready();
	log_info("dtraced %d ready; limits for users other than root: %s; "
	    "for every client: %s", (int)getpid(), lim, alllim);

	if (cfd == -1 || dtd_client_count() > 0)
		event_base_dispatch(dtd_base);

	dtd_systemd_notify("STOPPING=1");
	dtd_metrics_stop();
	dtd_client_shutdown();
	dtd_retain_shutdown();		/* their probes come out too */
	dtd_target_shutdown();		/* every target released, restored */
	dtd_provider_shutdown();
	dtd_control_close();
	dtd_probe_fini();
	for (i = 0; i < 3; i++)
		event_free(sigev[i]);
	event_base_free(dtd_base);
	dtd_base = NULL;
	dtraced_pidfile_remove();
	log_info("exiting");
	log_close();
	return 0;
}
