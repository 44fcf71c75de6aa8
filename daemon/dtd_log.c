/*
 * dtd_log.c: logging, OpenBSD style.  Under -d or -f messages go to
 * stderr; a daemonized dtraced logs to syslog.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "dtd.h"

static int	log_tostderr = 1;
static int	log_verbose;

static void	log_vlog(int, const char *, va_list)
		    __attribute__((format(printf, 2, 0)));
static void	log_verrno(int, int, const char *, va_list)
		    __attribute__((format(printf, 3, 0)));

void
log_init(int tostderr, int verbose)
{
	log_tostderr = tostderr;
	log_verbose = verbose;
	if (!tostderr)
		openlog("dtraced", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	tzset();
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

static void
log_vlog(int pri, const char *fmt, va_list ap)
{
	int saved = errno;

	if (log_tostderr) {
		fputs("dtraced: ", stderr);
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
	if (log_tostderr) {
		fprintf(stderr, "dtraced: %s: %s\n", msg, strerror(err));
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
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}
