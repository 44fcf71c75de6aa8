#!/bin/sh
# guardbench.sh: what a SIGKILL of dtraced still costs a ptrace-traced
# target, with the guardian (fasttrap/ft_guard.c) restoring the text.
# Figures, not pass/fail (issue 6).  Run it from a build directory:
#
#	top_srcdir=.. top_builddir=. sh ../tests/bench/guardbench.sh [TRIALS]
#
# For each pace (microseconds each of busy8's 8 threads sleeps between
# two calls of f; 0 is a hot loop), TRIALS times: start a daemon, trace
# busy8's f:entry, SIGKILL the daemon once the probe is in, and see
# whether busy8 survives (a thread that executes the int3 after the kernel
# has detached it and before the guardian has written the byte back dies
# of SIGTRAP).  Without the guardian every one of them would die at its
# next call of f.  The last column estimates the window from the survival
# rate: P(survive) = exp(-rate * window), rate = 8 threads / pace.
# Needs root (or ptrace rights) as any pid-provider run does.

builddir=${top_builddir:-.}
T=${1:-20}
BENCH=guardbench
. "$(dirname "$0")/lib.sh"
BUSY=$builddir/tests/triggers/busy8
TEXTCMP=$builddir/tests/triggers/textcmp

bench_need "$DTRACE" "$DTRACED" "$BUSY" "$TEXTCMP"
bench_tmp

# trial PACE: prints "lived" or "died"
trial()
{
	rm -f "$tmp/sock"
	"$DTRACED" -d -s "$tmp/sock" 2>/dev/null &
	d=$!
	i=0
	while [ ! -S "$tmp/sock" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	"$BUSY" "$1" >/dev/null 2>&1 &
	t=$!
	"$DTRACE" -x socket="$tmp/sock" -q -p "$t" \
	    -n 'pid$target:a.out:f:entry { @ = count(); }' >/dev/null 2>&1 &
	c=$!
	i=0
	while "$TEXTCMP" "$t" >/dev/null 2>&1 && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.3
	kill -KILL "$d"
	wait "$d" 2>/dev/null
	# long enough for every thread to call f again at the slowest pace
	sleep 0.5
	if kill -0 "$t" 2>/dev/null; then
		echo lived
		kill -TERM "$t"
	else
		echo died
	fi
	wait "$t" "$c" 2>/dev/null
}

printf '%-10s %8s %8s %10s %12s\n' "pace_us" "trials" "died" "hits/s" "window_us"
for pace in 0 100 1000 10000 100000; do
	died=0
	n=0
	while [ $n -lt "$T" ]; do
		[ "$(trial $pace)" = died ] && died=$((died + 1))
		n=$((n + 1))
	done
	if [ "$pace" -eq 0 ]; then
		printf '%-10s %8d %8d %10s %12s\n' "hot" "$T" "$died" "-" "-"
	else
		awk -v p="$pace" -v t="$T" -v d="$died" 'BEGIN {
			rate = 8 * 1e6 / p; s = (t - d) / t
			w = (s > 0 && s < 1) ? -log(s) / rate * 1e6 : -1
			printf "%-10d %8d %8d %10d %12s\n", p, t, d, rate,
			    (w < 0 ? (d == 0 ? "<" sprintf("%.0f", -log(1 - 1 / t) / rate * 1e6) : "-") : sprintf("%.0f", w))
		}'
	fi
done
