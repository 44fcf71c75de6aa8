/*
 * test_dt_options.c: option defaults, sizes, rates, flags and errors.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "tap.h"

static void
opt_is(dtrace_hdl_t *dtp, const char *name, dtrace_optval_t want)
{
	dtrace_optval_t v = -12345;

	tap_ok(dtrace_getopt(dtp, name, &v) == 0, "getopt %s", name);
	tap_is(v, want, "  %s value", name);
}

static void
set_ok(dtrace_hdl_t *dtp, const char *name, const char *val,
    dtrace_optval_t want)
{
	tap_ok(dtrace_setopt(dtp, name, val) == 0, "setopt %s=%s", name,
	    val ? val : "(none)");
	opt_is(dtp, name, want);
}

static void
set_bad(dtrace_hdl_t *dtp, const char *name, const char *val, int err)
{
	dtp->dt_errno = 0;
	tap_is(dtrace_setopt(dtp, name, val), -1, "setopt %s=%s refused",
	    name, val ? val : "(none)");
	tap_is(dtrace_errno(dtp), err, "  errno %s", err == EDT_BADOPT ?
	    "EDT_BADOPT" : err == EDT_ACTIVE ? "EDT_ACTIVE" : "EDT_BADOPTVAL");
}

int
main(void)
{
	dtrace_hdl_t *dtp;
	dtrace_optval_t v;
	int err = 0;

	dtp = dtrace_open(DTRACE_VERSION, DTRACE_O_NODEV, &err);
	tap_ok(dtp != NULL, "dtrace_open");
	if (dtp == NULL)
		return tap_done();
	tap_ok(dtrace_open(DTRACE_VERSION + 1, 0, &err) == NULL &&
	    err == EDT_VERSION, "a newer version is refused");

	/* defaults, as dtrace(1) sees them */
	opt_is(dtp, "bufsize", 4 << 20);
	opt_is(dtp, "aggsize", 4 << 20);
	opt_is(dtp, "bufpolicy", DTRACEOPT_BUFPOLICY_SWITCH);
	opt_is(dtp, "bufresize", DTRACEOPT_BUFRESIZE_AUTO);
	opt_is(dtp, "strsize", 256);
	opt_is(dtp, "nspec", 1);
	opt_is(dtp, "specsize", 32 << 10);
	opt_is(dtp, "dynvarsize", 1 << 20);
	opt_is(dtp, "switchrate", 1000000000);
	opt_is(dtp, "aggrate", 1000000000);
	opt_is(dtp, "statusrate", 1000000000);
	opt_is(dtp, "cleanrate", 1000000000 / 101);
	opt_is(dtp, "stackframes", 20);
	opt_is(dtp, "ustackframes", 20);
	opt_is(dtp, "stackindent", 14);
	opt_is(dtp, "jstackframes", 50);
	opt_is(dtp, "jstackstrsize", 512);
	opt_is(dtp, "cpu", -1);
	opt_is(dtp, "quiet", DTRACEOPT_UNSET);
	opt_is(dtp, "destructive", DTRACEOPT_UNSET);
	opt_is(dtp, "zdefs", DTRACEOPT_UNSET);

	/* sizes */
	set_ok(dtp, "bufsize", "8k", 8 << 10);
	set_ok(dtp, "bufsize", "2M", 2 << 20);
	set_ok(dtp, "aggsize", "1g", 1LL << 30);
	set_ok(dtp, "dynvarsize", "1t", 1LL << 40);
	set_ok(dtp, "specsize", "12345", 12345);
	set_ok(dtp, "bufsize", "0x1000", 4096);
	set_ok(dtp, "strsize", "1k", 1024);
	set_bad(dtp, "bufsize", "4q", EDT_BADOPTVAL);
	set_bad(dtp, "bufsize", "4mb", EDT_BADOPTVAL);
	set_bad(dtp, "bufsize", "-4m", EDT_BADOPTVAL);
	set_bad(dtp, "bufsize", NULL, EDT_BADOPTVAL);
	set_bad(dtp, "strsize", "1", EDT_BADOPTVAL);
	set_ok(dtp, "strsize", "2", 2);
	set_bad(dtp, "strsize", "1m", EDT_BADOPTVAL);

	/* rates, in ns; a bare number is hertz */
	set_ok(dtp, "switchrate", "10hz", 100000000);
	set_ok(dtp, "switchrate", "4", 250000000);
	set_ok(dtp, "aggrate", "250ms", 250000000);
	set_ok(dtp, "aggrate", "2s", 2000000000);
	set_ok(dtp, "statusrate", "3us", 3000);
	set_ok(dtp, "statusrate", "7ns", 7);
	set_ok(dtp, "cleanrate", "1m", 60000000000LL);
	set_ok(dtp, "cleanrate", "1h", 3600000000000LL);
	set_ok(dtp, "cleanrate", "1d", 86400000000000LL);
	set_ok(dtp, "cleanrate", "5msec", 5000000);
	set_bad(dtp, "switchrate", "0", EDT_BADOPTVAL);
	set_bad(dtp, "switchrate", "10parsecs", EDT_BADOPTVAL);
	set_bad(dtp, "switchrate", "fast", EDT_BADOPTVAL);

	/* flags and enumerations */
	set_ok(dtp, "quiet", NULL, 0);
	set_ok(dtp, "flowindent", NULL, 0);
	set_ok(dtp, "aggsortrev", "1", 1);
	set_bad(dtp, "rawbytes", "yes", EDT_BADOPTVAL);
	set_ok(dtp, "bufpolicy", "ring", DTRACEOPT_BUFPOLICY_RING);
	set_ok(dtp, "bufpolicy", "fill", DTRACEOPT_BUFPOLICY_FILL);
	set_ok(dtp, "bufpolicy", "switch", DTRACEOPT_BUFPOLICY_SWITCH);
	set_bad(dtp, "bufpolicy", "circular", EDT_BADOPTVAL);
	set_ok(dtp, "bufresize", "manual", DTRACEOPT_BUFRESIZE_MANUAL);
	set_bad(dtp, "bufresize", "sometimes", EDT_BADOPTVAL);
	set_ok(dtp, "cpu", "3", 3);
	set_bad(dtp, "cpu", "-1", EDT_BADOPTVAL);
	set_ok(dtp, "nspec", "4", 4);
	set_ok(dtp, "stackframes", "5", 5);
	set_bad(dtp, "nspec", NULL, EDT_BADOPTVAL);

	/* compile-time flags */
	tap_ok(dtrace_setopt(dtp, "errtags", NULL) == 0 &&
	    (dtp->dt_copts & DT_COPT_ERRTAGS), "errtags sets DT_COPT_ERRTAGS");
	tap_ok(dtrace_setopt(dtp, "zdefs", NULL) == 0 &&
	    (dtp->dt_copts & DT_COPT_ZDEFS), "zdefs sets DT_COPT_ZDEFS");
	opt_is(dtp, "zdefs", 0);
	tap_ok(dtrace_setopt(dtp, "defaultargs", NULL) == 0 &&
	    (dtp->dt_copts & DT_COPT_DEFARGS), "defaultargs");
	tap_ok(dtrace_setopt(dtp, "droptags", NULL) == 0 &&
	    (dtp->dt_copts & DT_COPT_DROPTAGS), "droptags");
	tap_ok(dtrace_setopt(dtp, "socket", "/tmp/x.sock") == 0 &&
	    dtp->dt_socket != NULL && strcmp(dtp->dt_socket, "/tmp/x.sock") == 0,
	    "socket=PATH");
	set_bad(dtp, "socket", "", EDT_BADOPTVAL);

	/* unknown names */
	set_bad(dtp, "nosuchoption", "1", EDT_BADOPT);
	tap_is(dtrace_getopt(dtp, "nosuchoption", &v), -1,
	    "getopt of an unknown option fails");
	tap_str(dtrace_errmsg(dtp, EDT_BADOPT), "Invalid option name",
	    "  EDT_BADOPT text");

	/* illumos's compile-time options: version, linkmode, stdc ... */
	tap_is(dtrace_setopt(dtp, "version", "1.x"), -1, "version=1.x refused");
	tap_is(dtrace_errno(dtp), EDT_VERSINVAL, "  EDT_VERSINVAL");
	tap_is(dtrace_setopt(dtp, "version", "1.14"), -1,
	    "version=1.14 refused");
	tap_is(dtrace_errno(dtp), EDT_VERSUNDEF, "  EDT_VERSUNDEF");
	tap_is(dtrace_setopt(dtp, "version", "1.2.1"), 0, "version=1.2.1");
	tap_is(dtrace_setopt(dtp, "version", "1.3"), -1,
	    "a version is not raised again");
	tap_is(dtrace_errno(dtp), EDT_VERSREDUCED, "  EDT_VERSREDUCED");
	tap_is(dtrace_setopt(dtp, "linkmode", "dynamic"), 0,
	    "linkmode=dynamic");
	tap_is(dtrace_setopt(dtp, "linkmode", "elf"), -1,
	    "linkmode=elf refused");
	tap_is(dtrace_setopt(dtp, "linktype", "dof"), 0, "linktype=dof");
	tap_is(dtrace_setopt(dtp, "stdc", "s"), 0, "stdc=s");
	tap_is(dtrace_setopt(dtp, "stdc", "x"), -1, "stdc=x refused");
	tap_is(dtrace_setopt(dtp, "nolibs", NULL), 0, "nolibs");

	/* once a program is sent, only dynamic options may change */
	dtp->dt_execd = 1;
	set_bad(dtp, "bufsize", "1m", EDT_ACTIVE);
	set_bad(dtp, "strsize", "512", EDT_ACTIVE);
	set_ok(dtp, "quiet", NULL, 0);
	set_ok(dtp, "switchrate", "100hz", 10000000);
	set_ok(dtp, "aggrate", "1s", 1000000000);

	dtrace_close(dtp);
	return tap_done();
}
