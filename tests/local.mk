# tests/: unit tests (C, TAP), the D suite, daemon end-to-end scripts.
# Every test prints TAP; the automake TAP driver collects the results.
# A test program sits above what it tests and may include any layer's
# headers (the product folders may not: see Makefile.am).
TEST_CPPFLAGS = $(AM_CPPFLAGS) $(LIBDTRACE_CPPFLAGS) -I$(top_srcdir)/fasttrap
include tests/unit/local.mk
include tests/bench/local.mk

check_PROGRAMS += tests/triggers/sockpoke
tests_triggers_sockpoke_SOURCES = tests/triggers/sockpoke.c
tests_triggers_sockpoke_CPPFLAGS = $(TEST_CPPFLAGS)
tests_triggers_sockpoke_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_sockpoke_LDFLAGS =

# Targets for the pid provider (fasttrap): small, deterministic programs,
# built plain even in a sanitizer build (see configure.ac).
TRIGGER_CFLAGS = $(WARN_CFLAGS)
check_PROGRAMS += tests/triggers/loop tests/triggers/threads \
	tests/triggers/shapes tests/triggers/forker tests/triggers/execer \
	tests/triggers/dl tests/triggers/recurse tests/triggers/setid \
	tests/triggers/deep tests/triggers/deepfp tests/triggers/deepnofp
# USDT probes of <sys/sdt.h>; no red zone, so that the short an argument
# reads from the stack is above %rsp, where the uprobe backend captures
check_PROGRAMS += tests/triggers/sdtglob
tests_triggers_sdtglob_SOURCES = tests/triggers/sdtglob.c
tests_triggers_sdtglob_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_sdtglob_LDFLAGS =
check_PROGRAMS += tests/triggers/sdt
tests_triggers_sdt_SOURCES = tests/triggers/sdt.c
tests_triggers_sdt_CFLAGS = $(TRIGGER_CFLAGS) -O2 -mno-red-zone
tests_triggers_sdt_LDFLAGS =
tests_triggers_loop_SOURCES = tests/triggers/loop.c
tests_triggers_loop_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_loop_LDFLAGS =
tests_triggers_threads_SOURCES = tests/triggers/threads.c
tests_triggers_threads_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_threads_LDFLAGS =
tests_triggers_threads_LDADD = $(PTHREAD_LIBS)
tests_triggers_shapes_SOURCES = tests/triggers/shapes.c
tests_triggers_shapes_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_shapes_LDFLAGS =
tests_triggers_forker_SOURCES = tests/triggers/forker.c
tests_triggers_forker_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_forker_LDFLAGS =
tests_triggers_execer_SOURCES = tests/triggers/execer.c
tests_triggers_execer_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_execer_LDFLAGS =
tests_triggers_setid_SOURCES = tests/triggers/setid.c
tests_triggers_setid_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_setid_LDFLAGS =
tests_triggers_dl_SOURCES = tests/triggers/dl.c
tests_triggers_dl_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_dl_LDFLAGS =
# evt and its library (a shared object with an initialiser), for
# -x evaltime: built as a program linked -shared, found through $ORIGIN
check_PROGRAMS += tests/triggers/libevtlib.so tests/triggers/evt
tests_triggers_libevtlib_so_SOURCES = tests/triggers/evtlib.c
tests_triggers_libevtlib_so_CFLAGS = $(TRIGGER_CFLAGS) -fPIC
tests_triggers_libevtlib_so_LDFLAGS = -shared -Wl,-soname,libevtlib.so
tests_triggers_evt_SOURCES = tests/triggers/evt.c
tests_triggers_evt_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_evt_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_triggers_evt_LDADD = tests/triggers/libevtlib.so
check_PROGRAMS += tests/triggers/storm
tests_triggers_storm_SOURCES = tests/triggers/storm.c
tests_triggers_storm_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_storm_LDFLAGS =
tests_triggers_storm_LDADD = $(PTHREAD_LIBS)
# GNU IFUNCs, its own and glibc's: strlen and memcpy called, not inlined
check_PROGRAMS += tests/triggers/ifunc
tests_triggers_ifunc_SOURCES = tests/triggers/ifunc.c
tests_triggers_ifunc_CFLAGS = $(TRIGGER_CFLAGS) -fno-builtin
tests_triggers_ifunc_LDFLAGS =
tests_triggers_recurse_SOURCES = tests/triggers/recurse.c
tests_triggers_recurse_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_recurse_LDFLAGS =
# one chain, three ways to unwind it (tests/triggers/deep.c)
tests_triggers_deep_SOURCES = tests/triggers/deep.c
tests_triggers_deep_CFLAGS = $(TRIGGER_CFLAGS) -fno-omit-frame-pointer
tests_triggers_deepfp_SOURCES = tests/triggers/deep.c
tests_triggers_deepfp_CFLAGS = $(TRIGGER_CFLAGS) -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-unwind-tables
# no .debug_frame either: nothing but %rbp to walk deep.c's frames with
tests_triggers_deepfp_LDFLAGS = -Wl,--strip-debug
tests_triggers_deepnofp_SOURCES = tests/triggers/deep.c
tests_triggers_deepnofp_CFLAGS = $(TRIGGER_CFLAGS) -fomit-frame-pointer
check_PROGRAMS += tests/triggers/structarg
tests_triggers_structarg_SOURCES = tests/triggers/structarg.c
tests_triggers_structarg_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_structarg_LDFLAGS =
TESTS += tests/daemon/types.sh
EXTRA_DIST += tests/daemon/types.sh
# the target's own types from its DWARF: the trigger is built with -g
check_PROGRAMS += tests/triggers/dwtypes
tests_triggers_dwtypes_SOURCES = tests/triggers/dwtypes.c
tests_triggers_dwtypes_CFLAGS = $(TRIGGER_CFLAGS) -g -O0
tests_triggers_dwtypes_LDFLAGS = -Wl,--build-id
TESTS += tests/daemon/dwarf.sh
EXTRA_DIST += tests/daemon/dwarf.sh
check_PROGRAMS += tests/triggers/oncpu
tests_triggers_oncpu_SOURCES = tests/triggers/oncpu.c
tests_triggers_oncpu_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_oncpu_LDFLAGS =
check_PROGRAMS += tests/triggers/textcmp tests/triggers/spin
tests_triggers_spin_SOURCES = tests/triggers/spin.c
tests_triggers_spin_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_spin_LDFLAGS =
check_PROGRAMS += tests/triggers/errnoer
tests_triggers_errnoer_SOURCES = tests/triggers/errnoer.c
tests_triggers_errnoer_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_errnoer_LDFLAGS =
tests_triggers_errnoer_LDADD = $(PTHREAD_LIBS)
# the same, linked statically: errno through local-exec TLS
check_PROGRAMS += tests/triggers/errnoer-static
tests_triggers_errnoer_static_SOURCES = tests/triggers/errnoer.c
tests_triggers_errnoer_static_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_errnoer_static_LDFLAGS = -static
tests_triggers_errnoer_static_LDADD = $(PTHREAD_LIBS)
TESTS += tests/daemon/errno.sh
EXTRA_DIST += tests/daemon/errno.sh
check_PROGRAMS += tests/triggers/syscaller
tests_triggers_syscaller_SOURCES = tests/triggers/syscaller.c
tests_triggers_syscaller_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_syscaller_LDFLAGS =
tests_triggers_syscaller_LDADD = $(PTHREAD_LIBS)
check_PROGRAMS += tests/triggers/firsttouch
tests_triggers_firsttouch_SOURCES = tests/triggers/firsttouch.c
tests_triggers_firsttouch_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_firsttouch_LDFLAGS =
check_PROGRAMS += tests/triggers/evex
tests_triggers_evex_SOURCES = tests/triggers/evex.c
tests_triggers_evex_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_evex_LDFLAGS =
TESTS += tests/daemon/syscall.sh
EXTRA_DIST += tests/daemon/syscall.sh
check_PROGRAMS += tests/triggers/procer
tests_triggers_procer_SOURCES = tests/triggers/procer.c
tests_triggers_procer_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_procer_LDFLAGS =
tests_triggers_procer_LDADD = $(PTHREAD_LIBS)
TESTS += tests/daemon/proc.sh
EXTRA_DIST += tests/daemon/proc.sh
TESTS += tests/daemon/psinfo.sh
EXTRA_DIST += tests/daemon/psinfo.sh
tests_triggers_textcmp_SOURCES = tests/triggers/textcmp.c
tests_triggers_textcmp_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_textcmp_LDFLAGS =

TESTS += tests/man-lint.sh tests/howto.sh tests/d/run.sh \
	tests/daemon/basic.sh tests/daemon/garbage.sh tests/daemon/cli.sh
EXTRA_DIST += tests/triggers/cxx.cc
EXTRA_DIST += tests/man-lint.sh tests/howto.sh tests/d/run.sh tests/daemon/lib.sh \
	tests/daemon/ifunc.d \
	tests/daemon/basic.sh tests/daemon/garbage.sh tests/daemon/cli.sh
TESTS += tests/man-d7.sh
EXTRA_DIST += tests/man-d7.sh
TESTS += tests/layers.sh tests/calls.sh
EXTRA_DIST += tests/layers.sh tests/calls.sh
TESTS += tests/daemon/dlibs.sh
EXTRA_DIST += tests/daemon/dlibs.sh
TESTS += tests/daemon/buffering.sh
EXTRA_DIST += tests/daemon/buffering.sh
TESTS += tests/daemon/pid.sh tests/daemon/pidmod.sh
EXTRA_DIST += tests/daemon/pid.sh tests/daemon/pidmod.sh
TESTS += tests/daemon/probes.sh
EXTRA_DIST += tests/daemon/probes.sh
TESTS += tests/daemon/lost.sh
EXTRA_DIST += tests/daemon/lost.sh
TESTS += tests/daemon/order.sh
EXTRA_DIST += tests/daemon/order.sh
TESTS += tests/install.sh
EXTRA_DIST += tests/install.sh
TESTS += tests/daemon/journal.sh
EXTRA_DIST += tests/daemon/journal.sh
# The D suite whole (run.sh finds its files), and the package's test.
EXTRA_DIST += tests/d tests/package.sh
TESTS += tests/dist.sh
EXTRA_DIST += tests/dist.sh
TESTS += tests/daemon/ustack.sh
EXTRA_DIST += tests/daemon/ustack.sh
TESTS += tests/daemon/ksym.sh
EXTRA_DIST += tests/daemon/ksym.sh
TESTS += tests/daemon/kstack.sh
EXTRA_DIST += tests/daemon/kstack.sh
TESTS += tests/daemon/destructive.sh
EXTRA_DIST += tests/daemon/destructive.sh
TESTS += tests/daemon/pidexec.sh
EXTRA_DIST += tests/daemon/pidexec.sh
TESTS += tests/daemon/evaltime.sh
EXTRA_DIST += tests/daemon/evaltime.sh
TESTS += tests/daemon/privs.sh tests/daemon/group.sh tests/daemon/setid.sh
EXTRA_DIST += tests/daemon/privs.sh tests/daemon/group.sh \
	tests/daemon/setid.sh
check_PROGRAMS += tests/triggers/strarg
tests_triggers_strarg_SOURCES = tests/triggers/strarg.c
tests_triggers_strarg_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_strarg_LDFLAGS =
TESTS += tests/daemon/subr.sh
EXTRA_DIST += tests/daemon/subr.sh
TESTS += tests/daemon/json.sh
EXTRA_DIST += tests/daemon/json.sh
TESTS += tests/daemon/aggrate.sh tests/daemon/output.sh
EXTRA_DIST += tests/daemon/aggrate.sh tests/daemon/output.sh
check_PROGRAMS += tests/triggers/busy8
tests_triggers_busy8_SOURCES = tests/triggers/busy8.c
tests_triggers_busy8_CFLAGS = $(TRIGGER_CFLAGS)
tests_triggers_busy8_LDFLAGS =
tests_triggers_busy8_LDADD = $(PTHREAD_LIBS)
TESTS += tests/daemon/faults.sh tests/daemon/storms.sh tests/daemon/pidreuse.sh
EXTRA_DIST += tests/daemon/faults.sh tests/daemon/storms.sh \
	tests/daemon/pidreuse.sh
TESTS += tests/daemon/uprobe.sh
EXTRA_DIST += tests/daemon/uprobe.sh
TESTS += tests/daemon/inline.sh
EXTRA_DIST += tests/daemon/inline.sh
TESTS += tests/daemon/usdt.sh
EXTRA_DIST += tests/daemon/usdt.sh
TESTS += tests/daemon/profile.sh
EXTRA_DIST += tests/daemon/profile.sh
TESTS += tests/daemon/retain.sh
EXTRA_DIST += tests/daemon/retain.sh
TESTS += tests/daemon/anon.sh
EXTRA_DIST += tests/daemon/anon.sh
TESTS += tests/daemon/metrics.sh
EXTRA_DIST += tests/daemon/metrics.sh
TESTS += tests/daemon/limits.sh tests/daemon/service.sh
EXTRA_DIST += tests/daemon/limits.sh tests/daemon/service.sh

# A soak of a real server (tests/soak/redis.sh), by hand: make soak
# [SOAK_SECONDS=600] [SOAK_BACKENDS="ptrace uprobe"].  Not part of check.
soak: tests/triggers/textcmp client/dtrace daemon/dtraced
	top_srcdir=$(abs_top_srcdir) top_builddir=$(abs_top_builddir) \
	    $(SHELL) $(top_srcdir)/tests/soak/redis.sh
.PHONY: soak
EXTRA_DIST += tests/soak/redis.sh
TESTS += tests/daemon/clients.sh
EXTRA_DIST += tests/daemon/clients.sh
TESTS += tests/daemon/mapfiles.sh
EXTRA_DIST += tests/daemon/mapfiles.sh
