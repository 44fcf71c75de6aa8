# client/: the dtrace(1) command.
bin_PROGRAMS += client/dtrace
client_dtrace_SOURCES = client/dtrace.c
# libdtrace's public dtrace.h only: nothing of proto/ or dif/ is on its path
client_dtrace_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libdtrace
client_dtrace_LDADD = libdtrace/libdtrace.a proto/libdtproto.a dif/libdif.a
