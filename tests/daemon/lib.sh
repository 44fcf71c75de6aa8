# tests/daemon/lib.sh: shared by the end-to-end scripts (sourced).
# Each script starts its own private daemon on a socket in a temporary
# directory (dtraced -d -s $sock), talks to it with dtrace -x socket=...,
# and stops it; it prints TAP.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
DTRACE=${DTRACE:-$builddir/client/dtrace}
DTRACED=${DTRACED_BIN:-$builddir/daemon/dtraced}
TRIGGERS=$builddir/tests/triggers
export _DTRACE_TESTING=1
unset DTRACED_SOCKET

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtd-e2e.XXXXXX") || exit 1
sock=$tmp/sock
dpid=
tap_n=0
tap_failed=0

# The pids of this script's children (targets it started, the daemon).
children()
{
	for st in /proc/[0-9]*/stat; do
		read -r cpid _ 2>/dev/null < "$st" || continue
		# field 4 is the parent; the command name (2) may hold spaces
		ppid=$(sed 's/^.*) [A-Za-z] \([0-9]*\) .*/\1/' "$st" 2>/dev/null)
		[ "$ppid" = "$$" ] && echo "$cpid"
	done
}

# However the script ends, leave no target or daemon running behind it.
cleanup()
{
	for c in $(children); do
		kill -KILL "$c" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

ok()
{
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok()
{
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# check DESCRIPTION COMMAND...: ok when the command succeeds; returns
# 1 when not, so that `check ... || sed ... log' can show why
check()
{
	desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
		return 1
	fi
}

# same FILE EXPECTED-TEXT DESCRIPTION: the file holds exactly the text
same()
{
	printf '%s' "$2" >"$tmp/expected"
	if cmp -s "$tmp/expected" "$1"; then
		ok "$3"
	else
		not_ok "$3"
		diff -u "$tmp/expected" "$1" | sed 's/^/# /'
	fi
}

# Start a daemon on $sock and wait until it accepts connections.
start_daemon()
{
	# a socket left by a daemon that crashed would look ready at once
	rm -f "$sock"
	"$DTRACED" -d -s "$sock" "$@" 2>>"$tmp/dtraced.log" &
	dpid=$!
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -S "$sock" ]
}

# Stop the daemon with a signal and collect its exit status in $dstatus.
# A daemon that has not ended 60 s later is hung: it is killed (status
# 137, which no test takes for success) and its threads' stacks are
# logged, so that a hang fails the test instead of the whole run.
stop_daemon()
{
	kill -"${1:-TERM}" "$dpid"
	i=0
	while kill -0 "$dpid" 2>/dev/null && [ $i -lt 1200 ]; do
		[ "$(cut -d' ' -f3 "/proc/$dpid/stat" 2>/dev/null)" = Z ] && break
		sleep 0.05
		i=$((i + 1))
	done
	if [ $i -ge 1200 ]; then
		echo "# dtraced $dpid did not end 60 s after SIG${1:-TERM}"
		if command -v gdb >/dev/null 2>&1; then
			gdb -p "$dpid" -batch -ex 'thread apply all bt' 2>&1 |
			    grep '^#' | sed 's/^/# /' | head -60
		fi
		kill -KILL "$dpid" 2>/dev/null
	fi
	wait "$dpid"
	dstatus=$?
	dpid=
}

# dtrace ARGS: our dtrace on the test's daemon, ended after 60 s (a hang
# is a failure, not a stuck run) and killed 10 s later if it does not
# end (a sanitizer's exit-time leak check can deadlock after SIGTERM)
dtrace()
{
	timeout -k 10 60 "$DTRACE" -x socket="$sock" "$@"
}

# waitready FILE...: wait until each says "ready" (a consumer's BEGIN),
# 60 s at most in all; empty them before the consumers start
waitready()
{
	i=0
	for f in "$@"; do
		while ! grep -q ready "$f" 2>/dev/null && [ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
}

# waitfor CMD...: until CMD succeeds, at most 10 s (a bound on a hang)
waitfor()
{
	i=0
	while [ $i -lt 200 ]; do
		"$@" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# patched PID: PID's text differs from its file's (a tracer's probes are
# in); `waitfor patched PID' waits until they are
patched()
{
	! "$TRIGGERS/textcmp" "$1" >/dev/null 2>&1
}

# restored PID: PID lives and, within 10 s (its tracer lets it go as it
# notices its consumer or itself going), its text is its file's again;
# where not, the first difference is shown
restored()
{
	i=0
	while [ $i -lt 200 ]; do
		kill -0 "$1" 2>/dev/null || return 1
		"$TRIGGERS/textcmp" "$1" >/dev/null 2>&1 && return 0
		sleep 0.05
		i=$((i + 1))
	done
	"$TRIGGERS/textcmp" "$1" | sed 's/^/# /'
	return 1
}

# spinning PID: the process catches SIGTERM (it has exec'd a trigger and
# set its handler), so that its "exit 0 on SIGTERM" later says it was not
# harmed, not that it was killed before it could answer
spinning()
{
	m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	# SIGTERM (15) is bit 14: the 4th hex digit from the right
	case $m in
	*[4567cdefCDEF][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]) return 0 ;;
	esac
	return 1
}

# execd PID: PID runs a trigger (it has exec'd one of $TRIGGERS: before,
# -p would grab the shell that forked it, whose a.out is sh)
execd()
{
	case $(readlink "/proc/$1/exe" 2>/dev/null) in
	"$TRIGGERS"/*) return 0 ;;
	esac
	return 1
}

# find_test_user: the unprivileged user dtracetest, created if need be
# (the suite runs as root).  Sets $uid and $gid, and makes $tmp
# reachable by that user; `as CMD...' runs a command with its real,
# effective and saved ids and no supplementary groups, `udtrace ARGS'
# our dtrace as that user on the test's daemon.  Returns 1, with the
# reason in $why, unless root with useradd and setpriv.
find_test_user()
{
	if [ "$(id -u)" -ne 0 ]; then
		why="needs root (to create the user dtracetest)"
		return 1
	fi
	for c in useradd setpriv; do
		if ! command -v $c >/dev/null 2>&1; then
			why="$c not found"
			return 1
		fi
	done
	if ! id -u dtracetest >/dev/null 2>&1 &&
	    ! useradd -M -r -s /usr/sbin/nologin dtracetest >/dev/null 2>&1
	then
		why="useradd dtracetest failed"
		return 1
	fi
	uid=$(id -u dtracetest)
	gid=$(id -g dtracetest)
	chmod 711 "$tmp"
}

# test_user: find_test_user, or skip the whole script (exit 0).
test_user()
{
	find_test_user && return 0
	echo "1..0 # SKIP $why"
	exit 0
}

as()
{
	setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@"
}

udtrace()
{
	as timeout -k 10 60 "$DTRACE" -x socket="$sock" "$@"
}

done_testing()
{
	echo "1..$tap_n"
	if [ $tap_failed -ne 0 ]; then
		echo "# daemon log:"
		sed 's/^/# /' "$tmp/dtraced.log" 2>/dev/null
	fi
	exit 0
}
