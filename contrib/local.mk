# contrib/: systemd units, and the demo program `./build.sh demo` traces.
EXTRA_DIST += contrib/systemd/dtraced.service contrib/systemd/dtraced.socket
noinst_PROGRAMS += contrib/demo/demo
contrib_demo_demo_SOURCES = contrib/demo/demo.c
# built plain, as the programs people trace are
contrib_demo_demo_CFLAGS = $(WARN_CFLAGS) -O1
contrib_demo_demo_LDFLAGS =
