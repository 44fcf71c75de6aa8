#!/bin/sh
# ustackbench.sh: what ustack() costs per hit, in figures and ratios, not
# pass/fail.  Run it from a build directory:
#
#	top_srcdir=.. top_builddir=. sh ../tests/bench/ustackbench.sh [N]
#
# On tests/triggers/recurse, which calls leaf() N times from main (a
# five-frame stack: leaf, main, two libc frames, _start), each of
#	pid$target:a.out:leaf:entry { @ = count(); }
#	pid$target:a.out:leaf:entry { @[ustack()] = count(); }
#	pid$target:a.out:leaf:entry { @ = sum(ustackdepth); }
# runs three times; the best time of each, per hit, and what the stack
# walk adds to a hit (the difference) and its ratio to the whole hit.
# Needs root (or ptrace rights) as any pid-provider run does.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
N=${1:-200000}
BENCH=ustackbench
. "$srcdir/tests/bench/lib.sh"
T=$(cd "$builddir/tests/triggers" && pwd)/recurse

bench_need "$DTRACE" "$DTRACED" "$T"
bench_tmp
bench_daemon -d

# best CLAUSE: the best of three runs, in nanoseconds
best()
{
	b=
	for r in 1 2 3; do
		t0=$(date +%s%N)
		"$DTRACE" -x socket="$sock" -q -c "$T sig $N" \
		    -n "pid\$target:a.out:leaf:entry { $1 }" \
		    >"$tmp/out" 2>&1 </dev/null || {
			echo "ustackbench: dtrace failed:" >&2
			cat "$tmp/out" >&2
			exit 1
		}
		t=$(($(date +%s%N) - t0))
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b"
}

base=$(best '@ = count();')
stk=$(best '@[ustack()] = count();')
dep=$(best '@ = sum(ustackdepth);')
awk -v n="$N" -v b="$base" -v s="$stk" -v d="$dep" 'BEGIN {
	printf "hits: %d, five frames each\n", n
	printf "count() alone:       %6.1f us per hit\n", b / n / 1000
	printf "@[ustack()]:         %6.1f us per hit (+%.1f us, %.2fx)\n",
	    s / n / 1000, (s - b) / n / 1000, s / b
	printf "sum(ustackdepth):    %6.1f us per hit (+%.1f us, %.2fx)\n",
	    d / n / 1000, (d - b) / n / 1000, d / b
}'
