# tests/fuzz/: libFuzzer targets (clang -fsanitize=fuzzer), built only
# when configure found a clang that links libFuzzer.  They compile the
# sources they test themselves, with clang's coverage, ASan and UBSan,
# whatever compiler the rest of the build uses.  tests/fuzz/run.sh runs
# each briefly from its seed corpus (skipped without them);
# `make fuzz-long FUZZ_SECONDS=N` runs each for N seconds.
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_DIF_SRCS = $(filter %.c,$(dif_libdif_a_SOURCES))
FUZZ_PROTO_SRCS = $(FUZZ_DIF_SRCS) \
	$(filter %.c,$(proto_libdtproto_a_SOURCES))
FUZZ_CC_SRCS = $(FUZZ_PROTO_SRCS) \
	$(filter %.c,$(libdtrace_libdtrace_a_SOURCES)) \
	libdtrace/dt_grammar.c libdtrace/dt_lex.c
# fuzz_elf and fuzz_procfs: what the daemon reads of a traced process's
# files and of /proc (fasttrap/ft_elf.c, ft_procfs.c, the decoding in
# ft_isa_x86.c; libdw's CFI).
FUZZ_ELF_SRCS = fasttrap/ft_elf.c fasttrap/ft_procfs.c fasttrap/ft_isa_x86.c
FUZZ_PROCFS_SRCS = fasttrap/ft_procfs.c
# fuzz_sdt: the <sys/sdt.h> notes of those files and their argument
# operands (fasttrap/ft_sdt.c), read through ft_elf.c as the USDT
# provider reads them.
FUZZ_SDT_SRCS = fasttrap/ft_sdt.c fasttrap/ft_elf.c
FUZZ_TARGETS = tests/fuzz/fuzz_proto tests/fuzz/fuzz_dif tests/fuzz/fuzz_cc \
	tests/fuzz/fuzz_elf tests/fuzz/fuzz_procfs tests/fuzz/fuzz_cli \
	tests/fuzz/fuzz_sdt
FUZZ_BUILD = $(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_FLAGS) $(DEFS) $(TEST_CPPFLAGS) \
	-o $@ $(filter %.c,$^) $(LIBDW_LIBS)

EXTRA_DIST += tests/fuzz/fuzz_proto.c tests/fuzz/fuzz_dif.c \
	tests/fuzz/fuzz_cc.c tests/fuzz/fuzz_elf.c tests/fuzz/fuzz_procfs.c \
	tests/fuzz/fuzz_cli.c tests/fuzz/fuzz_sdt.c \
	tests/fuzz/mkcorpus.c tests/fuzz/run.sh tests/fuzz/corpus
TESTS += tests/fuzz/run.sh
CLEANFILES += $(FUZZ_TARGETS)

if HAVE_LIBFUZZER
check_SCRIPTS = $(FUZZ_TARGETS)

tests/fuzz/fuzz_proto: tests/fuzz/fuzz_proto.c $(FUZZ_PROTO_SRCS)
	@$(MKDIR_P) tests/fuzz
	$(FUZZ_BUILD)
tests/fuzz/fuzz_dif: tests/fuzz/fuzz_dif.c $(FUZZ_PROTO_SRCS)
	@$(MKDIR_P) tests/fuzz
	$(FUZZ_BUILD)
tests/fuzz/fuzz_cc: tests/fuzz/fuzz_cc.c $(FUZZ_CC_SRCS) \
    libdtrace/dt_grammar.h
	@$(MKDIR_P) tests/fuzz
	$(FUZZ_BUILD)
# fuzz_cli: dtrace(1)'s main() itself (fuzz_cli.c includes dtrace.c),
# over the compiler's sources
tests/fuzz/fuzz_cli: tests/fuzz/fuzz_cli.c client/dtrace.c $(FUZZ_CC_SRCS) \
    libdtrace/dt_grammar.h
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_FLAGS) $(DEFS) $(TEST_CPPFLAGS) -o $@ \
	    $(filter-out %client/dtrace.c,$(filter %.c,$^)) $(LIBDW_LIBS)
tests/fuzz/fuzz_elf: tests/fuzz/fuzz_elf.c $(FUZZ_ELF_SRCS) fasttrap/ft.h
	@$(MKDIR_P) tests/fuzz
	$(FUZZ_BUILD) $(ZYDIS_LIBS)
tests/fuzz/fuzz_procfs: tests/fuzz/fuzz_procfs.c $(FUZZ_PROCFS_SRCS) \
    fasttrap/ft.h
	@$(MKDIR_P) tests/fuzz
	$(FUZZ_BUILD)
tests/fuzz/fuzz_sdt: tests/fuzz/fuzz_sdt.c $(FUZZ_SDT_SRCS) fasttrap/ft.h
	@$(MKDIR_P) tests/fuzz
	$(FUZZ_BUILD)

endif

# The seeds of fuzz_proto and fuzz_dif, remade from the D suite (the D
# suite itself seeds fuzz_cc): make fuzz-corpus, in a build of any
# compiler.  Those of fuzz_elf (trigger programs, whole, without debug
# sections, stripped; a library with .debug_frame) and fuzz_procfs
# (maps and stat of a trigger, and odd lines) and fuzz_sdt (the
# .note.stapsdt sections of python3, libstdc++ and tests/triggers/sdt,
# and that trigger whole) are kept as they are.
EXTRA_PROGRAMS = tests/fuzz/mkcorpus
tests_fuzz_mkcorpus_SOURCES = tests/fuzz/mkcorpus.c
tests_fuzz_mkcorpus_CPPFLAGS = $(TEST_CPPFLAGS)
tests_fuzz_mkcorpus_LDADD = libdtrace/libdtrace.a proto/libdtproto.a \
	dif/libdif.a
fuzz-corpus: tests/fuzz/mkcorpus
	c=$(top_srcdir)/tests/fuzz/corpus && rm -rf $$c/proto $$c/dif && \
	    $(MKDIR_P) $$c/proto $$c/dif && \
	    tests/fuzz/mkcorpus $$c $(top_srcdir)/tests/d/*/*.d && \
	    for d in $$c/proto $$c/dif; do \
		(cd $$d && md5sum * | sort | \
		    awk 'seen[$$1]++ { print $$2 }' | xargs -r rm); \
	    done

fuzz-long: $(FUZZ_TARGETS)
	FUZZ_SECONDS=$${FUZZ_SECONDS:-300} top_srcdir=$(abs_top_srcdir) \
	    top_builddir=$(abs_top_builddir) $(SHELL) \
	    $(top_srcdir)/tests/fuzz/run.sh
.PHONY: fuzz-long fuzz-corpus
