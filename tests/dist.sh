#!/bin/sh
# make dist: the tarball holds every file the repository tracks but the
# few that only the repository needs, so that a release's `make check'
# (and make distcheck) runs the same suite as the tree's.  Skipped
# outside a git checkout (in a tarball's own build, say).
. "$(dirname "$0")/daemon/lib.sh"

if ! git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "1..0 # SKIP not a git checkout"
	exit 0
fi
# the dist tarball, made in a copy of the build's Makefile's directory
make -s -C "$builddir" distdir distdir="$tmp/dist" >"$tmp/log" 2>&1
check "make distdir" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/log"
(cd "$tmp/dist" && find . -type f | sed 's|^\./||' | sort) >"$tmp/have"
# tracked, and meant for a release: all but the repository's own
git -C "$srcdir" ls-files | grep -v -e '^\.ci/' -e '^\.gitignore$' \
    -e '/\.keep$' | sort >"$tmp/want"
comm -13 "$tmp/have" "$tmp/want" >"$tmp/missing"
check "every tracked file is in the tarball" [ ! -s "$tmp/missing" ] ||
    sed 's/^/# missing: /' "$tmp/missing"
check "the D suite is in it ($(grep -c '^tests/d/' "$tmp/have") files)" \
    [ "$(grep -c '^tests/d/.*\.d$' "$tmp/have")" -gt 100 ]
done_testing
