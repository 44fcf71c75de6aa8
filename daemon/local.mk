# daemon/: dtraced.  Everything but main() is in libdtd.a so that the
# unit tests can link the pieces they test.
noinst_LIBRARIES += daemon/libdtd.a
daemon_libdtd_a_SOURCES = daemon/dtd.h daemon/dtd_log.c \
	daemon/dtd_systemd.c daemon/dtd_control.c daemon/dtd_client.c \
	daemon/dtd_consumer.c daemon/dtd_probe.c daemon/dtd_prov_dtrace.c \
	daemon/dtd_prov_profile.c daemon/dtd_ecb.c daemon/dtd_host.c \
	daemon/dtd_buf.c daemon/dtd_agg.c daemon/dtd_prov_pid.c \
	daemon/dtd_prov_usdt.c daemon/dtd_prov_syscall.c \
	daemon/dtd_prov_proc.c daemon/dtd_kcap.c \
	daemon/dtd_spec.c daemon/dtd_retain.c daemon/dtd_limit.c \
	daemon/dtd_sample.c daemon/dtd_om.c daemon/dtd_metrics.c \
	daemon/dtd_target.c daemon/dtd_provider.c daemon/dtd_validate.c
# on proto/, dif/ and fasttrap/; never libdtrace/
DTD_CPPFLAGS = -I$(top_srcdir)/proto -I$(top_srcdir)/dif \
	-I$(top_srcdir)/fasttrap
daemon_libdtd_a_CPPFLAGS = $(AM_CPPFLAGS) $(DTD_CPPFLAGS) $(LIBEVENT_CFLAGS) \
	-I$(top_builddir)/daemon
nodist_daemon_libdtd_a_SOURCES = daemon/dtd_sysnames.h

# The syscall provider's names and numbers, from the kernel's headers
# that build against (linux-libc-dev): `{ "read", 0 },' lines.
daemon/dtd_sysnames.h: Makefile
	$(AM_V_GEN)$(MKDIR_P) daemon && \
	echo '#include <asm/unistd_64.h>' | $(CPP) -dM - | \
	LC_ALL=C sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$$/{ "\1", \2 },/p' | \
	LC_ALL=C sort -t, -k2n > $@.tmp && test -s $@.tmp && mv $@.tmp $@
BUILT_SOURCES += daemon/dtd_sysnames.h
CLEANFILES += daemon/dtd_sysnames.h

sbin_PROGRAMS += daemon/dtraced
daemon_dtraced_SOURCES = daemon/dtd.h daemon/dtraced.c
daemon_dtraced_CPPFLAGS = $(AM_CPPFLAGS) $(DTD_CPPFLAGS) $(LIBEVENT_CFLAGS)
daemon_dtraced_LDADD = daemon/libdtd.a proto/libdtproto.a dif/libdif.a \
	$(FT_LIBS) $(LIBEVENT_EXTRA_LIBS) $(LIBEVENT_LIBS) $(PTHREAD_LIBS)
