# libdtrace/: the wire protocol (libdtproto.a, linked by the daemon too),
# and the D compiler and consumer library (libdtrace.a).
noinst_LIBRARIES += libdtrace/libdtproto.a libdtrace/libdtrace.a

libdtrace_libdtproto_a_SOURCES = libdtrace/dt_proto.h libdtrace/dt_msg.c \
	libdtrace/dt_proto.c

# compiler
libdtrace_libdtrace_a_SOURCES = libdtrace/dtrace.h libdtrace/dt_impl.h \
	libdtrace/dt_errtags.h libdtrace/dt_lex.l libdtrace/dt_grammar.y \
	libdtrace/dt_parser.c libdtrace/dt_decl.c libdtrace/dt_ident.c \
	libdtrace/dt_pragma.c libdtrace/dt_cpp.c libdtrace/dt_cc.c libdtrace/dt_cg.c \
	libdtrace/dt_regset.c libdtrace/dt_as.c libdtrace/dt_lib.c
BUILT_SOURCES += libdtrace/dt_grammar.h
libdtrace/dt_lex.$(OBJEXT) libdtrace/dt_parser.$(OBJEXT) \
    libdtrace/dt_cg.$(OBJEXT) libdtrace/dt_cc.$(OBJEXT): libdtrace/dt_grammar.h
# runtime
libdtrace_libdtrace_a_SOURCES += libdtrace/dt_error.c libdtrace/dt_open.c \
	libdtrace/dt_options.c libdtrace/dt_conn.c libdtrace/dt_work.c \
	libdtrace/dt_retain.c \
	libdtrace/dt_consume.c libdtrace/dt_printf.c libdtrace/dt_aggregate.c \
	libdtrace/dt_usym.c libdtrace/dt_probe.c
