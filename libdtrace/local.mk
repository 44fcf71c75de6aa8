# libdtrace/: the wire protocol (libdtproto.a, linked by the daemon too),
# and the D compiler and consumer library (libdtrace.a).
noinst_LIBRARIES += libdtrace/libdtproto.a libdtrace/libdtrace.a

libdtrace_libdtproto_a_SOURCES = libdtrace/dt_proto.h libdtrace/dt_msg.c \
	libdtrace/dt_proto.c

# compiler
libdtrace_libdtrace_a_SOURCES = libdtrace/dtrace.h libdtrace/dt_impl.h
# runtime
libdtrace_libdtrace_a_SOURCES += libdtrace/dt_error.c
