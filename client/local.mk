# client/: the dtrace(1) command.
bin_PROGRAMS += client/dtrace
client_dtrace_SOURCES = client/dtrace.c
client_dtrace_LDADD = libdtrace/libdtrace.a libdtrace/libdtproto.a dif/libdif.a
