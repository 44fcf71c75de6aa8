# contrib/: systemd units, the bash completion, an example retained
# program for /etc/dtraced, and the demo program `./build.sh demo` traces.

# The service names dtraced where this build installs it.
systemdsystemunit_DATA = contrib/systemd/dtraced.service \
	contrib/systemd/dtraced.socket
CLEANFILES += contrib/systemd/dtraced.service
contrib/systemd/dtraced.service: $(srcdir)/contrib/systemd/dtraced.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) contrib/systemd && \
	    sed -e 's|[@]sbindir[@]|$(sbindir)|g' \
	    $(srcdir)/contrib/systemd/dtraced.service.in >$@.tmp && mv $@.tmp $@
EXTRA_DIST += contrib/systemd/dtraced.service.in contrib/systemd/dtraced.socket

bashcompletion_DATA = contrib/bash-completion/dtrace
EXTRA_DIST += contrib/bash-completion/dtrace

# Not retained as installed: a file must end in .d for dtraced to load it.
dtracedconfdir = $(sysconfdir)/dtraced
dist_dtracedconf_DATA = contrib/dtraced/oncpu.d.example

noinst_PROGRAMS += contrib/demo/demo
contrib_demo_demo_SOURCES = contrib/demo/demo.c
# built plain, as the programs people trace are
contrib_demo_demo_CFLAGS = $(WARN_CFLAGS) -O1
contrib_demo_demo_LDFLAGS =

# The Debian package (debian/): built from this tree's dist tarball, so
# that it holds what a release would (./build.sh package-check).
EXTRA_DIST += debian/changelog debian/control debian/copyright \
	debian/rules debian/source/format debian/dtraced.preinst \
	debian/dtraced.postinst debian/dtraced.postrm \
	debian/dtraced-socket-group.conf
deb: dist
	rm -rf deb-build && $(MKDIR_P) deb-build
	tar -C deb-build -xzf $(distdir).tar.gz
	cd deb-build/$(distdir) && dpkg-buildpackage -us -uc -b
	@ls deb-build/*.deb
.PHONY: deb
