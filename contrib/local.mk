# contrib/: systemd units, and the demo program `./build.sh demo` traces.
EXTRA_DIST += contrib/systemd/dtraced.service contrib/systemd/dtraced.socket
noinst_PROGRAMS += contrib/demo/demo
contrib_demo_demo_SOURCES = contrib/demo/demo.c
contrib_demo_demo_CFLAGS = $(AM_CFLAGS) -O1
