# tests/unit/: C unit tests printing TAP (tests/unit/tap.h).

check_PROGRAMS += tests/unit/test_dt_proto
TESTS += tests/unit/test_dt_proto
tests_unit_test_dt_proto_SOURCES = tests/unit/test_dt_proto.c tests/unit/tap.h
tests_unit_test_dt_proto_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dt_proto_LDADD = proto/libdtproto.a dif/libdif.a

check_PROGRAMS += tests/unit/test_ft_isa
TESTS += tests/unit/test_ft_isa
tests_unit_test_ft_isa_SOURCES = tests/unit/test_ft_isa.c tests/unit/tap.h
tests_unit_test_ft_isa_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_ft_isa_LDADD = $(FT_LIBS)

# dif/: VM, verifier and disassembler.
check_PROGRAMS += tests/unit/test_dif_vm tests/unit/test_dif_verify \
	tests/unit/test_dif_dis tests/unit/test_dif_vmfast
TESTS += tests/unit/test_dif_vm tests/unit/test_dif_verify \
	tests/unit/test_dif_dis tests/unit/test_dif_vmfast
tests_unit_test_dif_vm_SOURCES = tests/unit/test_dif_vm.c \
	tests/unit/dif_harness.h
tests_unit_test_dif_vm_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dif_vm_LDADD = dif/libdif.a
tests_unit_test_dif_vmfast_SOURCES = tests/unit/test_dif_vmfast.c \
	tests/unit/dif_harness.h tests/unit/tap.h
tests_unit_test_dif_vmfast_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dif_vmfast_LDADD = dif/libdif.a
tests_unit_test_dif_verify_SOURCES = tests/unit/test_dif_verify.c
tests_unit_test_dif_verify_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dif_verify_LDADD = dif/libdif.a
tests_unit_test_dif_dis_SOURCES = tests/unit/test_dif_dis.c
tests_unit_test_dif_dis_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dif_dis_LDADD = dif/libdif.a

# daemon/: buffers, aggregations, probe table (link daemon/libdtd.a).
DTD_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon $(DTD_CPPFLAGS) \
	$(LIBEVENT_CFLAGS)
DTD_TEST_LDADD = daemon/libdtd.a proto/libdtproto.a dif/libdif.a \
	$(LIBEVENT_LIBS) $(PTHREAD_LIBS)
check_PROGRAMS += tests/unit/test_dtd_buf tests/unit/test_dtd_agg \
	tests/unit/test_dtd_probe
TESTS += tests/unit/test_dtd_buf tests/unit/test_dtd_agg \
	tests/unit/test_dtd_probe
tests_unit_test_dtd_buf_SOURCES = tests/unit/test_dtd_buf.c tests/unit/tap.h
tests_unit_test_dtd_buf_CPPFLAGS = $(DTD_TEST_CPPFLAGS)
tests_unit_test_dtd_buf_LDADD = $(DTD_TEST_LDADD)
tests_unit_test_dtd_agg_SOURCES = tests/unit/test_dtd_agg.c tests/unit/tap.h
tests_unit_test_dtd_agg_CPPFLAGS = $(DTD_TEST_CPPFLAGS)
tests_unit_test_dtd_agg_LDADD = $(DTD_TEST_LDADD)
tests_unit_test_dtd_probe_SOURCES = tests/unit/test_dtd_probe.c tests/unit/tap.h
tests_unit_test_dtd_probe_CPPFLAGS = $(DTD_TEST_CPPFLAGS)
tests_unit_test_dtd_probe_LDADD = $(DTD_TEST_LDADD)
# the metrics text and address (dtd_metrics.o needs libevent's HTTP)
check_PROGRAMS += tests/unit/test_dtd_om
TESTS += tests/unit/test_dtd_om
tests_unit_test_dtd_om_SOURCES = tests/unit/test_dtd_om.c tests/unit/tap.h
tests_unit_test_dtd_om_CPPFLAGS = $(DTD_TEST_CPPFLAGS)
tests_unit_test_dtd_om_LDADD = $(DTD_TEST_LDADD) $(LIBEVENT_EXTRA_LIBS)
check_PROGRAMS += tests/unit/test_dtd_limit
TESTS += tests/unit/test_dtd_limit
tests_unit_test_dtd_limit_SOURCES = tests/unit/test_dtd_limit.c tests/unit/tap.h
tests_unit_test_dtd_limit_CPPFLAGS = $(DTD_TEST_CPPFLAGS)
tests_unit_test_dtd_limit_LDADD = $(DTD_TEST_LDADD)

# daemon/: a whole session against a private dtraced -f.
check_PROGRAMS += tests/unit/test_dtd_client
TESTS += tests/unit/test_dtd_client
tests_unit_test_dtd_client_SOURCES = tests/unit/test_dtd_client.c tests/unit/tap.h
tests_unit_test_dtd_client_CPPFLAGS = $(DTD_TEST_CPPFLAGS)
tests_unit_test_dtd_client_LDADD = proto/libdtproto.a dif/libdif.a
EXTRA_tests_unit_test_dtd_client_DEPENDENCIES = daemon/dtraced

# libdtrace runtime: printf formats, -x options.
check_PROGRAMS += tests/unit/test_dt_printf tests/unit/test_dt_options
TESTS += tests/unit/test_dt_printf tests/unit/test_dt_options
tests_unit_test_dt_printf_SOURCES = tests/unit/test_dt_printf.c tests/unit/tap.h
tests_unit_test_dt_printf_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dt_printf_LDADD = libdtrace/libdtrace.a proto/libdtproto.a dif/libdif.a
tests_unit_test_dt_options_SOURCES = tests/unit/test_dt_options.c tests/unit/tap.h
tests_unit_test_dt_options_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dt_options_LDADD = libdtrace/libdtrace.a proto/libdtproto.a dif/libdif.a

check_PROGRAMS += tests/unit/test_dt_cc
TESTS += tests/unit/test_dt_cc
tests_unit_test_dt_cc_SOURCES = tests/unit/test_dt_cc.c tests/unit/tap.h
tests_unit_test_dt_cc_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dt_cc_LDADD = libdtrace/libdtrace.a proto/libdtproto.a \
	dif/libdif.a $(LIBEVENT_LIBS)

# dif/: dynamic and clause-local variables, strtok (four threads at once).
check_PROGRAMS += tests/unit/test_dif_dvar
TESTS += tests/unit/test_dif_dvar
tests_unit_test_dif_dvar_SOURCES = tests/unit/test_dif_dvar.c tests/unit/tap.h
tests_unit_test_dif_dvar_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dif_dvar_LDADD = dif/libdif.a $(PTHREAD_LIBS)

# fasttrap/: the target model and the ptrace backend, on the triggers.
check_PROGRAMS += tests/unit/test_ft_ptrace
TESTS += tests/unit/test_ft_ptrace
tests_unit_test_ft_ptrace_SOURCES = tests/unit/test_ft_ptrace.c tests/unit/tap.h \
	tests/unit/ft_harness.h
tests_unit_test_ft_ptrace_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_ft_ptrace_LDADD = $(FT_LIBS)
EXTRA_tests_unit_test_ft_ptrace_DEPENDENCIES = tests/triggers/loop \
	tests/triggers/threads tests/triggers/shapes tests/triggers/forker \
	tests/triggers/execer tests/triggers/dl

# fasttrap/: resuming after a probe (emulate, relocate, refuse).
check_PROGRAMS += tests/unit/test_ft_emul
TESTS += tests/unit/test_ft_emul
tests_unit_test_ft_emul_SOURCES = tests/unit/test_ft_emul.c tests/unit/tap.h
tests_unit_test_ft_emul_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_ft_emul_LDADD = $(FT_LIBS)

# daemon/libdtd.a holds the pid provider: it needs fasttrap.
DTD_TEST_LDADD += $(FT_LIBS)

# daemon/dtd_spec.c: speculation states, failures, commit and discard.
check_PROGRAMS += tests/unit/test_dtd_spec
TESTS += tests/unit/test_dtd_spec
tests_unit_test_dtd_spec_SOURCES = tests/unit/test_dtd_spec.c tests/unit/tap.h
tests_unit_test_dtd_spec_CPPFLAGS = $(DTD_TEST_CPPFLAGS)
tests_unit_test_dtd_spec_LDADD = $(DTD_TEST_LDADD)

# fasttrap/: the uprobe backend, on the triggers (skips without BPF).
check_PROGRAMS += tests/unit/test_ft_uprobe
TESTS += tests/unit/test_ft_uprobe
tests_unit_test_ft_uprobe_SOURCES = tests/unit/test_ft_uprobe.c tests/unit/tap.h \
	tests/unit/ft_harness.h
tests_unit_test_ft_uprobe_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_ft_uprobe_LDADD = $(FT_LIBS)
EXTRA_tests_unit_test_ft_uprobe_DEPENDENCIES = tests/triggers/loop \
	tests/triggers/threads tests/triggers/forker

# libdtrace/dt_lex.l: the D lexer's tokens, values, states and errors.
check_PROGRAMS += tests/unit/test_dt_lex
TESTS += tests/unit/test_dt_lex
tests_unit_test_dt_lex_SOURCES = tests/unit/test_dt_lex.c tests/unit/tap.h
tests_unit_test_dt_lex_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dt_lex_LDADD = libdtrace/libdtrace.a proto/libdtproto.a \
	dif/libdif.a $(LIBEVENT_LIBS)

# fasttrap/ft_procfs.c: the maps and stat parsers, a mapped file opened.
check_PROGRAMS += tests/unit/test_ft_sdt
TESTS += tests/unit/test_ft_sdt
tests_unit_test_ft_sdt_SOURCES = tests/unit/test_ft_sdt.c tests/unit/tap.h
tests_unit_test_ft_sdt_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_ft_sdt_LDADD = $(FT_LIBS)
check_PROGRAMS += tests/unit/test_ft_procfs
TESTS += tests/unit/test_ft_procfs
tests_unit_test_ft_procfs_SOURCES = tests/unit/test_ft_procfs.c tests/unit/tap.h
tests_unit_test_ft_procfs_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_ft_procfs_LDADD = $(FT_LIBS)

# libdtrace/dtrace.h's action kinds against the protocol's.
check_PROGRAMS += tests/unit/test_dt_acts
TESTS += tests/unit/test_dt_acts
tests_unit_test_dt_acts_SOURCES = tests/unit/test_dt_acts.c \
	tests/unit/dt_acts_proto.c tests/unit/dt_acts.h tests/unit/tap.h
tests_unit_test_dt_acts_CPPFLAGS = $(TEST_CPPFLAGS)

# libdtrace/dt_usym.c: a function's preferred name, by fasttrap's rule.
check_PROGRAMS += tests/unit/test_dt_usym
TESTS += tests/unit/test_dt_usym
tests_unit_test_dt_usym_SOURCES = tests/unit/test_dt_usym.c tests/unit/tap.h
tests_unit_test_dt_usym_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dt_usym_LDADD = libdtrace/libdtrace.a proto/libdtproto.a \
	dif/libdif.a $(LIBEVENT_LIBS)

# libdtrace/dt_json.c: the JSON writer, byte for byte.
check_PROGRAMS += tests/unit/test_dt_json
TESTS += tests/unit/test_dt_json
tests_unit_test_dt_json_SOURCES = tests/unit/test_dt_json.c tests/unit/tap.h
tests_unit_test_dt_json_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_test_dt_json_LDADD = libdtrace/libdtrace.a proto/libdtproto.a \
	dif/libdif.a $(LIBEVENT_LIBS)
