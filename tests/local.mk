# tests/: unit tests (C, TAP), the D suite, daemon end-to-end scripts.
# Every test prints TAP; the automake TAP driver collects the results.
include tests/unit/local.mk

check_PROGRAMS += tests/triggers/sockpoke
tests_triggers_sockpoke_SOURCES = tests/triggers/sockpoke.c

TESTS += tests/man-lint.sh tests/d/run.sh \
	tests/daemon/basic.sh tests/daemon/garbage.sh tests/daemon/cli.sh
EXTRA_DIST += tests/man-lint.sh tests/d/run.sh tests/daemon/lib.sh \
	tests/daemon/basic.sh tests/daemon/garbage.sh tests/daemon/cli.sh
