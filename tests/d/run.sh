#!/bin/sh
# tests/d/run.sh: the D test suite runner, printing TAP.
#
# For every tests/d/<area>/ file:
#   tst.*.d       must exit 0; stdout must equal tst.*.out byte for byte
#                 (when that file exists), stderr tst.*.err (when it exists).
#   err.D_TAG.*.d must exit 1 and print "[D_TAG]" on stderr under -xerrtags.
#   err.*.d       (no tag) must exit 1.
# dtrace runs with _DTRACE_TESTING set (no CPU and ID columns) and starts
# its own private daemon, so no system dtraced is needed.  A test may give
# extra dtrace arguments on a first line "/* @@args: ... */".
# Usage: run.sh [area-or-file ...]   (default: every area)

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
DTRACE=${DTRACE:-$builddir/client/dtrace}
export _DTRACE_TESTING=1
# %Y prints local time: make it the same everywhere
export TZ=UTC

# Records come out CPU by CPU (as in illumos), so a test whose BEGIN and
# END run on different CPUs would print in an order that depends on the
# scheduler.  Run dtrace, and so its private daemon, on one CPU.
if command -v taskset >/dev/null 2>&1 &&
    cpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: *//; s/[,-].*//') &&
    [ -n "$cpu" ]; then
	PIN="taskset -c $cpu"
fi
unset DTRACED_SOCKET

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if [ $# -eq 0 ]; then
	set -- "$srcdir"/tests/d/*/
fi
files=
for a in "$@"; do
	case $a in
	*.d)	files="$files $a" ;;
	*)	[ -d "$a" ] || a=$srcdir/tests/d/$a
		files="$files $(ls "$a"/tst.*.d "$a"/err.*.d 2>/dev/null)" ;;
	esac
done

n=0
failed=0
count=$(echo $files | wc -w)
echo "1..$count"
for f in $files; do
	n=$((n + 1))
	base=${f%.d}
	name=$(basename "$(dirname "$f")")/$(basename "$f")
	args=$(sed -n '1s|^/\* @@args: \(.*\) \*/$|\1|p' "$f")
	case $(basename "$f") in
	err.D_*)
		tag=$(basename "$f" | cut -d. -f2)
		timeout -k 10 60 $PIN "$DTRACE" -xerrtags $args -s "$f" \
		    >"$tmp/out" 2>"$tmp/err" </dev/null
		rc=$?
		if [ $rc -eq 1 ] && grep -q "\[$tag\]" "$tmp/err"; then
			echo "ok $n - $name"
		else
			echo "not ok $n - $name (exit $rc, want 1 and [$tag])"
			sed 's/^/# /' "$tmp/err"
			failed=$((failed + 1))
		fi
		;;
	err.*)
		timeout -k 10 60 $PIN "$DTRACE" $args -s "$f" >"$tmp/out" 2>"$tmp/err" \
		    </dev/null
		rc=$?
		if [ $rc -eq 1 ]; then
			echo "ok $n - $name"
		else
			echo "not ok $n - $name (exit $rc, want 1)"
			sed 's/^/# /' "$tmp/err"
			failed=$((failed + 1))
		fi
		;;
	*)
		timeout -k 10 60 $PIN "$DTRACE" $args -s "$f" >"$tmp/out" 2>"$tmp/err" \
		    </dev/null
		rc=$?
		why=
		[ $rc -eq 0 ] || why="exit $rc"
		if [ -z "$why" ] && [ -f "$base.out" ] &&
		    ! cmp -s "$base.out" "$tmp/out"; then
			why="stdout differs"
		fi
		if [ -z "$why" ] && [ -f "$base.err" ] &&
		    ! cmp -s "$base.err" "$tmp/err"; then
			why="stderr differs"
		fi
		if [ -z "$why" ]; then
			echo "ok $n - $name"
		else
			echo "not ok $n - $name ($why)"
			[ -f "$base.out" ] &&
			    diff -u "$base.out" "$tmp/out" | sed 's/^/# /'
			sed 's/^/# stderr: /' "$tmp/err"
			failed=$((failed + 1))
		fi
		;;
	esac
done
exit 0
