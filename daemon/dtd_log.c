/*
 * dtd_log.c: logging, OpenBSD style.  Under -d or -f messages go to
 * stderr; a daemonized dtraced logs to syslog; with -l, to a file,
 * each line stamped with the time and our pid.  log_reopen (SIGHUP)
 * opens the file again by name, as logrotate expects, or reconnects to
 * syslog.  When stderr is the systemd journal's stream (the unit runs
 * dtraced -d: $JOURNAL_STREAM names stderr's device and inode), each
 * line starts with its syslog priority, <3> to <7>, which journald takes
 * as the entry's priority (journalctl -p err finds the errors).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "dtd.h"
#include "ft.h"

static int	log_tostderr = 1;
static int	log_journal;		/* stderr is the journal's stream */
static int	log_verbose;
static FILE	*log_fp;		/* -l: the log file, or NULL */
static char	*log_path;		/* its absolute name */

static void	log_vlog(int, const char *, va_list)
		    __attribute__((format(printf, 2, 0)));
static void	log_verrno(int, int, const char *, va_list)
		    __attribute__((format(printf, 3, 0)));

void
log_init(int tostderr, int verbose)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	log_tostderr = tostderr;
	log_verbose = verbose;
	log_journal = tostderr && js != NULL &&
	    sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	    fstat(STDERR_FILENO, &st) == 0 &&
	    (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
	if (!tostderr)
		openlog("dtraced", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	tzset();
	/* a target's file refused as not the one it mapped (ft_procfs.c) */
	ft_procfs_setwarn(log_warnx);
}

/* Open path for appending; from now on logs go there.  -1: errno set. */
int
log_file(const char *path)
{
	char cwd[PATH_MAX], *abs;
	FILE *fp;
	int fd;

	if (path[0] == '/')
		abs = strdup(path);
	else if (getcwd(cwd, sizeof(cwd)) == NULL)
		return -1;
	else if (asprintf(&abs, "%s/%s", cwd, path) == -1)
		abs = NULL;
	if (abs == NULL)
		return -1;
	if ((fd = open(abs, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0640)) == -1 || (fp = fdopen(fd, "a")) == NULL) {
		int saved = errno;

		if (fd != -1)
			close(fd);
		free(abs);
		errno = saved;
		return -1;
	}
	if (log_fp != NULL)
		fclose(log_fp);
	free(log_path);
	log_fp = fp;
	log_path = abs;
	return 0;
}

/*
 * SIGHUP: a rotated log file is closed and a new one opened under its
 * name; syslog is reconnected.  If the file cannot be opened, logging
 * goes on into the old one.
 */
void
log_reopen(void)
{
	char *path;

	if (log_path != NULL) {
		if ((path = strdup(log_path)) == NULL ||
		    log_file(path) == -1)
			log_warn("%s: %s", __func__, path != NULL ? path :
			    log_path);
		free(path);
	} else if (!log_tostderr) {
		closelog();
		openlog("dtraced", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	}
}

void
log_close(void)
{
	if (log_fp != NULL)
		fclose(log_fp);
	log_fp = NULL;
	free(log_path);
	log_path = NULL;
}

/* The start of a line in the log file: 2026-11-22T10:11:12Z dtraced[42]: */
static void
log_stamp(void)
{
	char buf[32];
	struct tm tm;
	time_t now = time(NULL);

	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		buf[0] = '\0';
	fprintf(log_fp, "%s dtraced[%d]: ", buf, (int)getpid());
}

void
log_setverbose(int verbose)
{
	log_verbose = verbose;
}

int
log_getverbose(void)
{
	return log_verbose;
}

/* The start of a line on stderr: its priority for the journal, or our name. */
static void
log_prefix(int pri)
{
	if (log_journal)
		fprintf(stderr, "<%d>", pri);
	else
		fputs("dtraced: ", stderr);
}

static void
log_vlog(int pri, const char *fmt, va_list ap)
{
	int saved = errno;

	if (log_fp != NULL) {
		log_stamp();
		vfprintf(log_fp, fmt, ap);
		fputc('\n', log_fp);
		fflush(log_fp);
	} else if (log_tostderr) {
		log_prefix(pri);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		fflush(stderr);
	} else
		vsyslog(pri, fmt, ap);
	errno = saved;
}

static void
log_verrno(int pri, int err, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_fp != NULL) {
		log_stamp();
		fprintf(log_fp, "%s: %s\n", msg, strerror(err));
		fflush(log_fp);
	} else if (log_tostderr) {
		log_prefix(pri);
		fprintf(stderr, "%s: %s\n", msg, strerror(err));
		fflush(stderr);
	} else
		syslog(pri, "%s: %s", msg, strerror(err));
	errno = err;
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_verbose < 2)
		return;
	va_start(ap, fmt);
	log_vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	log_vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	log_verrno(LOG_WARNING, err, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_WARNING, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	log_verrno(LOG_CRIT, err, fmt, ap);
	va_end(ap);
	if (log_fp != NULL && log_tostderr) {
		/* not daemonized yet: the terminal hears it too */
		va_start(ap, fmt);
		fputs("dtraced: ", stderr);
		vfprintf(stderr, fmt, ap);
		fprintf(stderr, ": %s\n", strerror(err));
		va_end(ap);
	}
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_CRIT, fmt, ap);
	va_end(ap);
	if (log_fp != NULL && log_tostderr) {
		va_start(ap, fmt);
		fputs("dtraced: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	exit(1);
}
