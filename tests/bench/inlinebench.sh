#!/bin/sh
# inlinebench.sh: what a hit costs the traced program under the inline
# backend, in ratios against what it costs under the uprobe backend and
# under bpftrace's in-kernel uprobe count, all measured in the same run.
# Run it from a build directory:
#
#	top_srcdir=.. top_builddir=. sh ../tests/bench/inlinebench.sh [N]
#
# 1. Recorded hits: `loop rounds 30000 10', ten rounds of 30000 calls of
#    g (push %rbp; mov; lea; pop; ret) 100 ms apart, so that the daemon
#    drains each round before the next (a 64 MiB ring holds a round):
#    the program times each round itself, and the fastest round (the
#    first ones run before the patch is in, under the uprobe) less the
#    untraced one is the cost of a recorded hit.
# 2. Flat out: `loop bench N', N calls of g with nothing between.  No
#    consumer keeps up with that: the ring fills and the hits past it are
#    counted as drops (records + drops must equal N, checked), so this is
#    mostly the drop path's cost.  The figure is the program's run time
#    traced less untraced, with its start under dtrace (a 1-call run)
#    taken off, over N.
# Each against the uprobe backend and bpftrace's uprobe count, measured
# the same way in the same run.  ROUNDS=n (default 3) runs of each in 2,
# the fastest kept.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
N=${1:-20000000}
ROUNDS=${ROUNDS:-3}
BENCH=inlinebench
. "$srcdir/tests/bench/lib.sh"
LOOP=$(cd "$builddir/tests/triggers" && pwd)/loop

bench_need "$DTRACE" "$DTRACED" "$LOOP"
bench_tmp
bench_daemon -d

now()
{
	date +%s%N
}

# best COMMAND...: the fastest of ROUNDS runs in ns; its output in $tmp/out
best()
{
	b=
	for _ in $(seq "$ROUNDS"); do
		t0=$(now)
		"$@" >"$tmp/o" 2>&1 </dev/null
		t1=$(now)
		t=$((t1 - t0))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then
			b=$t
			cp "$tmp/o" "$tmp/out"
		fi
	done
	echo "$b"
}

ns()
{
	echo "$1 $2 $3" | awk '{ printf "%.1f", ($1 - $2) / $3 }'
}

P='pid$target:a.out:g:entry { @ = count(); }'

# rec BACKEND: the fastest round's ns a call under dtrace with BACKEND
# (bpftrace: bpftrace's count)
rec()
{
	if [ "$1" = bpftrace ]; then
		bpftrace -e "uprobe:$LOOP:g { @ = count(); }" \
		    -c "$LOOP rounds 30000 10" >"$tmp/r" 2>&1
	else
		"$DTRACE" -x socket="$sock" -x backend="$1" -x uprobebufsize=64m \
		    -q -c "$LOOP rounds 30000 10" -n "$P" >"$tmp/r" 2>&1
	fi
	sed -n 's/^best=//p' "$tmp/r"
}

# less A B: A - B; cheaper X Y B: (Y - B) / (X - B)
less()
{
	echo "$1 $2" | awk '{ printf "%.1f", $1 - $2 }'
}

cheaper()
{
	echo "$1 $2 $3" | awk '{ printf "%.0fx", ($2 - $3) / ($1 - $3) }'
}

r0=$("$LOOP" rounds 30000 10 | sed -n 's/^best=//p')
ri=$(rec inline)
ru=$(rec uprobe)
line="inlinebench: recorded hits (rounds of 30000 calls): inline $(less "$ri" "$r0") ns a hit, uprobe backend $(less "$ru" "$r0") ns (inline $(cheaper "$ri" "$ru" "$r0") cheaper)"
if command -v bpftrace >/dev/null 2>&1; then
	rb=$(rec bpftrace)
	line="$line; bpftrace uprobe count $(less "$rb" "$r0") ns (inline $(cheaper "$ri" "$rb" "$r0") cheaper)"
fi
echo "$line"
base=$(best "$LOOP" bench "$N")
base1=$(best "$LOOP" bench 1)

# dt BACKEND: per-call ns of the program under dtrace with BACKEND
dt()
{
	t1=$(best "$DTRACE" -x socket="$sock" -x backend="$1" -q \
	    -c "$LOOP bench 1" -n "$P")
	tn=$(best "$DTRACE" -x socket="$sock" -x backend="$1" -q \
	    -c "$LOOP bench $N" -n "$P")
	rec=$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1 }' "$tmp/out")
	drops=$(sed -n 's/^dtrace: \([0-9]*\) drops.*/\1/p' "$tmp/out" |
	    awk '{ s += $1 } END { print s + 0 }')
	[ $((${rec:-0} + drops)) -eq "$N" ] ||
	    echo "$BENCH: $1: $rec records + $drops drops != $N" >&2
	echo "$(ns "$((tn - t1))" "$((base - base1))" "$N") ${rec:-0} $drops"
}

set -- $(dt inline)
inl=$1 inlrec=$2 inldrops=$3
set -- $(dt uprobe)
upr=$1
line="inlinebench: $N calls flat out: inline $inl ns a hit ($inlrec records, $inldrops drops), uprobe backend $upr ns"
line="$line, inline $(echo "$upr $inl" | awk '{ printf "%.0fx", $1 / $2 }') cheaper"
if command -v bpftrace >/dev/null 2>&1; then
	tb=$(best bpftrace -e "uprobe:$LOOP:g { @ = count(); }" \
	    -c "$LOOP bench $N")
	tb1=$(best bpftrace -e "uprobe:$LOOP:g { @ = count(); }" \
	    -c "$LOOP bench 1")
	bp=$(ns "$((tb - tb1))" "$((base - base1))" "$N")
	line="$line; bpftrace uprobe count $bp ns (inline $(echo "$bp $inl" |
	    awk '{ printf "%.0fx", $1 / $2 }') cheaper)"
else
	line="$line; bpftrace not installed"
fi
echo "$line"
