# libdtrace/: the D compiler and consumer library (libdtrace.a), on
# proto/ and dif/.  dtrace.h is its public interface, the one header of
# it client/ may use; the build directory holds the generated
# dt_grammar.h.
LIBDTRACE_CPPFLAGS = -I$(top_srcdir)/libdtrace -I$(top_builddir)/libdtrace \
	-I$(top_srcdir)/proto -I$(top_srcdir)/dif
noinst_LIBRARIES += libdtrace/libdtrace.a
libdtrace_libdtrace_a_CPPFLAGS = $(AM_CPPFLAGS) $(LIBDTRACE_CPPFLAGS)

# compiler
libdtrace_libdtrace_a_SOURCES = libdtrace/dtrace.h libdtrace/dt_impl.h \
	libdtrace/dt_errtags.h libdtrace/dt_lex.l libdtrace/dt_grammar.y \
	libdtrace/dt_parser.c libdtrace/dt_decl.c libdtrace/dt_ident.c \
	libdtrace/dt_pragma.c libdtrace/dt_cpp.c libdtrace/dt_cc.c libdtrace/dt_cg.c \
	libdtrace/dt_regset.c libdtrace/dt_as.c libdtrace/dt_lib.c \
	libdtrace/dt_sdt.c
BUILT_SOURCES += libdtrace/dt_grammar.h
libdtrace/libdtrace_a-dt_lex.$(OBJEXT) \
    libdtrace/libdtrace_a-dt_parser.$(OBJEXT) \
    libdtrace/libdtrace_a-dt_cg.$(OBJEXT) \
    libdtrace/libdtrace_a-dt_cc.$(OBJEXT): libdtrace/dt_grammar.h
# runtime
libdtrace_libdtrace_a_SOURCES += libdtrace/dt_error.c libdtrace/dt_open.c \
	libdtrace/dt_options.c libdtrace/dt_conn.c libdtrace/dt_program.c \
	libdtrace/dt_work.c libdtrace/dt_proc.c libdtrace/dt_pscan.c \
	libdtrace/dt_retain.c \
	libdtrace/dt_consume.c libdtrace/dt_json.c libdtrace/dt_printf.c \
	libdtrace/dt_aggregate.c \
	libdtrace/dt_usym.c libdtrace/dt_ksym.c libdtrace/dt_probe.c \
	libdtrace/dt_dwarf.c

# D libraries, compiled before every program (dt_lib.c): installed in
# the system directory; a build tree's dtrace reads the copy made in
# libdtrace/lib/ next to it.
dtracelibdir = $(libdir)/dtrace
dist_dtracelib_DATA = libdtrace/procfs.d
noinst_DATA = libdtrace/lib/procfs.d
libdtrace/lib/procfs.d: $(srcdir)/libdtrace/procfs.d
	$(AM_V_GEN)$(MKDIR_P) libdtrace/lib && \
	    cp $(srcdir)/libdtrace/procfs.d $@
CLEANFILES += libdtrace/lib/procfs.d
