# daemon/: dtraced.
sbin_PROGRAMS += daemon/dtraced
daemon_dtraced_SOURCES = daemon/dtd.h daemon/dtraced.c
daemon_dtraced_CPPFLAGS = $(AM_CPPFLAGS) $(LIBEVENT_CFLAGS)
daemon_dtraced_LDADD = libdtrace/libdtproto.a dif/libdif.a $(LIBEVENT_LIBS) $(PTHREAD_LIBS)
