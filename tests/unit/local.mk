# tests/unit/: C unit tests printing TAP (tests/unit/tap.h).

check_PROGRAMS += tests/unit/test_dt_proto
TESTS += tests/unit/test_dt_proto
tests_unit_test_dt_proto_SOURCES = tests/unit/test_dt_proto.c tests/unit/tap.h
tests_unit_test_dt_proto_LDADD = libdtrace/libdtproto.a dif/libdif.a

check_PROGRAMS += tests/unit/test_ft_isa
TESTS += tests/unit/test_ft_isa
tests_unit_test_ft_isa_SOURCES = tests/unit/test_ft_isa.c tests/unit/tap.h
tests_unit_test_ft_isa_LDADD = $(FT_LIBS)
