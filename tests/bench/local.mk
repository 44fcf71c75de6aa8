# tests/bench/: benchmarks that print figures and ratios, not pass/fail.
# They are built with the check programs but never run by `make check`:
# run tests/bench/pidbench.sh, ustackbench.sh, guardbench.sh,
# typesbench.sh, metricsbench.sh, syscallbench.sh, inlinebench.sh and
# difbench by hand.
check_PROGRAMS += tests/bench/rawtrace tests/bench/difbench tests/bench/rawuprobe
tests_bench_rawtrace_SOURCES = tests/bench/rawtrace.c
tests_bench_rawtrace_CFLAGS = $(TRIGGER_CFLAGS)
tests_bench_rawtrace_LDFLAGS =
tests_bench_rawuprobe_SOURCES = tests/bench/rawuprobe.c
tests_bench_rawuprobe_CFLAGS = $(TRIGGER_CFLAGS)
tests_bench_rawuprobe_LDFLAGS =
tests_bench_difbench_SOURCES = tests/bench/difbench.c
tests_bench_difbench_CPPFLAGS = $(TEST_CPPFLAGS)
tests_bench_difbench_LDADD = libdtrace/libdtrace.a proto/libdtproto.a \
	dif/libdif.a $(LIBEVENT_LIBS)
EXTRA_DIST += tests/bench/pidbench.sh tests/bench/ustackbench.sh \
	tests/bench/guardbench.sh tests/bench/typesbench.sh \
	tests/bench/metricsbench.sh tests/bench/syscallbench.sh tests/bench/lib.sh \
	tests/bench/inlinebench.sh
