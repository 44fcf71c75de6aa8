/*
 * dt_error.c: library errnos and their text; compile-error messages.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dt_impl.h"

static const char *const dt_errtab[EDT_MAX - EDT_BASE] = {
	[EDT_VERSION - EDT_BASE] = "Client requested version newer than library",
	[EDT_VERSINVAL - EDT_BASE] = "Version is not properly formatted or is too large",
	[EDT_VERSUNDEF - EDT_BASE] = "Requested version is not supported by compiler",
	[EDT_VERSREDUCED - EDT_BASE] = "Requested version is not supported by compiler",
	[EDT_CTF - EDT_BASE] = "Type information error",
	[EDT_COMPILER - EDT_BASE] = "Error in D program",
	[EDT_NOTUPREG - EDT_BASE] = "Insufficient tuple registers to generate code",
	[EDT_NOMEM - EDT_BASE] = "Memory allocation failure",
	[EDT_INT2BIG - EDT_BASE] = "Integer constant table limit exceeded",
	[EDT_STR2BIG - EDT_BASE] = "String constant table limit exceeded",
	[EDT_NOMOD - EDT_BASE] = "Unknown module name",
	[EDT_NOPROV - EDT_BASE] = "Unknown provider name",
	[EDT_NOPROBE - EDT_BASE] = "No probe matches description",
	[EDT_NOSYM - EDT_BASE] = "Unknown symbol name",
	[EDT_NOSYMADDR - EDT_BASE] = "No symbol corresponds to address",
	[EDT_NOTYPE - EDT_BASE] = "Unknown type name",
	[EDT_NOVAR - EDT_BASE] = "Unknown variable name",
	[EDT_NOAGG - EDT_BASE] = "Unknown aggregation name",
	[EDT_BADSCOPE - EDT_BASE] = "Improper use of scoping operator in type name",
	[EDT_BADSPEC - EDT_BASE] = "Overspecified probe description",
	[EDT_BADSPCV - EDT_BASE] = "Undefined macro variable in probe description",
	[EDT_BADID - EDT_BASE] = "Invalid probe identifier",
	[EDT_NOTDIR - EDT_BASE] = "Not a directory",
	[EDT_NOSTAB - EDT_BASE] = "Symbol table is not present",
	[EDT_BADOPT - EDT_BASE] = "Invalid option name",
	[EDT_BADOPTVAL - EDT_BASE] = "Invalid value for specified option",
	[EDT_BADOPTCTX - EDT_BASE] = "Option cannot be used from within a D program",
	[EDT_CPPFORK - EDT_BASE] = "Failed to fork preprocessor",
	[EDT_CPPEXEC - EDT_BASE] = "Failed to exec preprocessor",
	[EDT_CPPENT - EDT_BASE] = "Preprocessor not found",
	[EDT_CPPERR - EDT_BASE] = "Preprocessor failed to process input program",
	[EDT_SYMOFLOW - EDT_BASE] = "Symbol table identifier space exhausted",
	[EDT_ACTIVE - EDT_BASE] = "Operation illegal when tracing is active",
	[EDT_DESTRUCTIVE - EDT_BASE] = "Destructive actions not allowed",
	[EDT_NOANON - EDT_BASE] = "No anonymous tracing state",
	[EDT_ISANON - EDT_BASE] = "Can't claim anonymous state and enable probes",
	[EDT_ENDTOOBIG - EDT_BASE] = "END enablings exceed size of principal buffer",
	[EDT_NOCONV - EDT_BASE] = "Failed to load type for printf-style conversion",
	[EDT_BADCONV - EDT_BASE] = "Incomplete printf-style conversion",
	[EDT_BADERROR - EDT_BASE] = "Invalid library ERROR action",
	[EDT_ERRABORT - EDT_BASE] = "Abort due to error",
	[EDT_DROPABORT - EDT_BASE] = "Abort due to drop",
	[EDT_DIRABORT - EDT_BASE] = "Abort explicitly directed",
	[EDT_BADRVAL - EDT_BASE] = "Invalid return value from callback",
	[EDT_BADNORMAL - EDT_BASE] = "Invalid normalization",
	[EDT_BUFTOOSMALL - EDT_BASE] = "Enabling exceeds size of buffer",
	[EDT_BADTRUNC - EDT_BASE] = "Invalid truncation",
	[EDT_BUSY - EDT_BASE] = "DTrace cannot be used when kernel debugger is active",
	[EDT_ACCESS - EDT_BASE] = "DTrace requires additional privileges",
	[EDT_NOENT - EDT_BASE] = "DTrace device not available on system",
	[EDT_BRICKED - EDT_BASE] = "Abort due to systemic unresponsiveness",
	[EDT_HARDWIRE - EDT_BASE] = "Failed to load language definitions",
	[EDT_ELFVERSION - EDT_BASE] = "ELF library version is out-of-date",
	[EDT_NOBUFFERED - EDT_BASE] = "Attempt to buffer output without handler",
	[EDT_UNSTABLE - EDT_BASE] = "Description matched an unstable set of probes",
	[EDT_BADSETOPT - EDT_BASE] = "Invalid setopt() library action",
	[EDT_BADSTACKPC - EDT_BASE] = "Invalid stack program counter size",
	[EDT_BADAGGVAR - EDT_BASE] = "Invalid aggregation variable identifier",
	[EDT_OVERSION - EDT_BASE] = "Client requested deprecated version of library",
	[EDT_DAEMON - EDT_BASE] = "Cannot reach or start dtraced",
	[EDT_PROTO - EDT_BASE] = "Malformed or unexpected message from dtraced",
	[EDT_REMOTE - EDT_BASE] = "dtraced refused the request",
	[EDT_NODAEMON - EDT_BASE] = "Cannot reach or start dtraced",
};

int
dt_set_errno(dtrace_hdl_t *dtp, int err)
{
	dtp->dt_errno = err;
	return -1;
}

/*
 * Record a compile error: "[D_TAG] " when -xerrtags is on, then the text.
 * The text already carries "line N: " where a line applies.
 */
void
dt_set_errmsg(dtrace_hdl_t *dtp, const char *errtag, const char *fmt, ...)
{
	size_t off = 0;
	va_list ap;

	dtp->dt_errtag = errtag;
	if (errtag != NULL && (dtp->dt_copts & DT_COPT_ERRTAGS))
		off = snprintf(dtp->dt_errmsg, sizeof(dtp->dt_errmsg), "[%s] ",
		    errtag);
	va_start(ap, fmt);
	vsnprintf(dtp->dt_errmsg + off, sizeof(dtp->dt_errmsg) - off, fmt, ap);
	va_end(ap);
	/* messages are printed whole by dtrace(1); drop a trailing newline */
	off = strlen(dtp->dt_errmsg);
	while (off > 0 && dtp->dt_errmsg[off - 1] == '\n')
		dtp->dt_errmsg[--off] = '\0';
	dtp->dt_errno = EDT_COMPILER;
}

int
dtrace_errno(dtrace_hdl_t *dtp)
{
	return dtp->dt_errno;
}

const char *
dtrace_errmsg(dtrace_hdl_t *dtp, int err)
{
	/* errors that carry their own text (dt_set_errmsg, dt_conn_error) */
	if (dtp != NULL && (err == EDT_COMPILER || err == EDT_REMOTE ||
	    err == EDT_DAEMON || err == EDT_NODAEMON || err == EDT_PROTO ||
	    err == EDT_NOPROBE) &&
	    dtp->dt_errmsg[0] != '\0')
		return dtp->dt_errmsg;
	if (err >= EDT_BASE && err < EDT_MAX && dt_errtab[err - EDT_BASE])
		return dt_errtab[err - EDT_BASE];
	return strerror(err);
}
