#!/bin/sh
# pidbench.sh: the cost of the pid provider, in figures and ratios, not
# pass/fail (issue 4, "Measure").  Run it from a build directory:
#
#	top_srcdir=.. top_builddir=. sh ../tests/bench/pidbench.sh [N]
#
# 1. Per-hit overhead of
#	dtrace -q -c 'loop bench N' -n 'pid$target:a.out:g:entry { @ = count(); }'
#    against, in the same run: tests/bench/rawtrace (one ptrace stop per
#    hit, push %rbp emulated: the floor), and when installed ltrace -x g,
#    gdb with a silent breakpoint, bpftrace's uprobe count.  Each figure is
#    (traced time - untraced time) / hits; dtraced's is net of a 1-hit
#    run too (its connection, compilation and enabling are not per hit).
#    dtraced and the floor run in ROUNDS (default 5) interleaved rounds;
#    each round gives a ratio, and the median ratio is the figure, with
#    the lowest and highest.  Two placements: left to the scheduler (the
#    tracer and its target may run on different CPUs, a stop then costs
#    more), and everything of both sides on CPU 0 (taskset -c 0: the
#    daemon, dtrace and its target; rawtrace and its target), where the
#    comparison is the fairest.  The slow tracers run fewer hits (N / 10)
#    so the run stays short; per-hit figures compare anyway.
# 2. The time to enable and to disable pid$target:libc.so.6::entry on a
#    target held by -c (loop spin, alive throughout, so every patch is
#    really restored), against the same run with a single probe (which
#    leaves out process start-up, compilation and the connection).  BEGIN
#    fires once every probe is enabled and calls exit(); END fires before
#    the probes are removed, so their walltimestamps split the run.
# 3. The uprobe backend (-x backend=uprobe), same trigger, against, in the
#    same run: tests/bench/rawuprobe (one perf uprobe event sampling
#    registers and 256 bytes of stack into a perf ring: the floor for a
#    sampler), bpftrace's uprobe count, and our ptrace backend; and the
#    enable and disable times of libc.so.6::entry under uprobes.  Here
#    dtraced's figure is net of a 1-hit run (start-up is not per hit).
# HITS_ONLY=1 stops after 1.  ROUNDS=n sets the rounds of 1.
# Needs root (or ptrace rights) as any pid-provider run does; 3 needs
# BPF uprobe_multi links and the uprobe PMU.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
N=${1:-200000}
ROUNDS=${ROUNDS:-5}
NSLOW=$((N / 10))
BENCH=pidbench
. "$srcdir/tests/bench/lib.sh"
LOOP=$(cd "$builddir/tests/triggers" && pwd)/loop
RAW=$builddir/tests/bench/rawtrace
RAWU=$builddir/tests/bench/rawuprobe

bench_need "$DTRACE" "$DTRACED" "$LOOP" "$RAW" "$RAWU"
bench_tmp
bench_daemon -dv

now()
{
	date +%s%N
}

# elapsed COMMAND...: run it, its output to $tmp/out, print nanoseconds
elapsed()
{
	t0=$(now)
	"$@" >"$tmp/out" 2>&1 </dev/null
	rc=$?
	t1=$(now)
	if [ $rc -ne 0 ] && [ $rc -ne 7 ]; then
		echo "pidbench: $* failed ($rc):" >&2
		sed 's/^/	/' "$tmp/out" >&2
	fi
	echo $((t1 - t0))
}

# best3 COMMAND...: the fastest of three runs (the least disturbed one)
best3()
{
	b=
	for _ in 1 2 3; do
		t=$(elapsed "$@")
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then
			b=$t
		fi
	done
	echo "$b"
}

# us TRACED BASE HITS: per-hit microseconds, 2 decimals
us()
{
	echo "$1 $2 $3" | awk '{ printf "%.2f", ($1 - $2) / $3 / 1000 }'
}

ratio()
{
	echo "$1 $2" | awk '{ if ($2 > 0) printf "%.1fx", $1 / $2; else print "-" }'
}

addr=$(nm "$LOOP" | awk '$3 == "g" { print $1 }')

base=$(best3 "$LOOP" bench "$N")
base_slow=$(best3 "$LOOP" bench "$NSLOW")

# median < "a b c ...": the median, the lowest and the highest
median()
{
	tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 }
	    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'
}

# rounds SOCKET PIN...: ROUNDS interleaved rounds of dtraced (on SOCKET)
# and rawtrace, each run under PIN (a command prefix, may be empty);
# prints "dtraced-median raw-median ratio-median ratio-min ratio-max"
rounds()
{
	rsock=$1
	shift
	dts= raws= ratios=
	for _ in $(seq "$ROUNDS"); do
		tb=$(elapsed "$@" "$LOOP" bench "$N")
		t1=$(elapsed "$@" "$DTRACE" -x socket="$rsock" -x backend=ptrace \
		    -q -c "$LOOP bench 1" -n 'pid$target:a.out:g:entry { @ = count(); }')
		tn=$(elapsed "$@" "$DTRACE" -x socket="$rsock" -x backend=ptrace \
		    -q -c "$LOOP bench $N" -n 'pid$target:a.out:g:entry { @ = count(); }')
		n_dt=$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1 }' "$tmp/out")
		[ "$n_dt" = "$N" ] ||
		    echo "pidbench: dtrace counted '$n_dt' hits, not $N" >&2
		tr=$(elapsed "$@" "$RAW" "$addr" "$LOOP" bench "$N")
		grep -q "^rawtrace: $N hits" "$tmp/out" ||
		    echo "pidbench: rawtrace: $(cat "$tmp/out")" >&2
		d=$(echo "$tn $t1 $tb $N" | awk '{ printf "%.3f",
		    ($1 - $2 - $3 * ($4 - 1) / $4) / ($4 - 1) / 1000 }')
		r=$(us "$tr" "$tb" "$N")
		dts="$dts $d" raws="$raws $r"
		ratios="$ratios $(echo "$d $r" | awk '{ printf "%.3f", $1 / $2 }')"
	done
	echo "$(echo "$dts" | median | cut -d' ' -f1)" \
	    "$(echo "$raws" | median | cut -d' ' -f1)" \
	    "$(echo "$ratios" | median)"
}

set -- $(rounds "$sock")
dt=$1
raw=$2
line="per hit ($ROUNDS rounds, medians; placement left to the scheduler): dtraced $dt us, raw ptrace $raw us, dtraced/raw $(printf '%.2fx' "$3") (rounds: $(printf '%.2fx' "$4") - $(printf '%.2fx' "$5"))"
if command -v taskset >/dev/null 2>&1; then
	taskset -c 0 "$DTRACED" -d -s "$sock.pin" 2>>"$tmp/dtraced.log" &
	dpin=$!
	i=0
	while [ ! -S "$sock.pin" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	set -- $(rounds "$sock.pin" taskset -c 0)
	kill $dpin
	wait $dpin 2>/dev/null
	pinline="per hit ($ROUNDS rounds, medians; both sides pinned to CPU 0 with taskset: dtraced, dtrace and its target; rawtrace and its target): dtraced $1 us, raw ptrace $2 us, dtraced/raw $(printf '%.2fx' "$3") (rounds: $(printf '%.2fx' "$4") - $(printf '%.2fx' "$5"))"
else
	pinline="per hit, pinned: taskset not installed"
fi

if command -v ltrace >/dev/null 2>&1; then
	t=$(elapsed ltrace -x g -o /dev/null "$LOOP" bench "$NSLOW")
	lt=$(us "$t" "$base_slow" "$NSLOW")
	line="$line, ltrace $lt us (dtraced $(ratio "$lt" "$dt") faster)"
else
	line="$line, ltrace not installed"
fi

if command -v gdb >/dev/null 2>&1; then
	printf 'break g\ncommands 1\nsilent\ncontinue\nend\nrun\n' \
	    >"$tmp/gdb.cmd"
	t=$(elapsed gdb -nx -batch -x "$tmp/gdb.cmd" --args \
	    "$LOOP" bench "$NSLOW")
	gd=$(us "$t" "$base_slow" "$NSLOW")
	line="$line, gdb $gd us (dtraced $(ratio "$gd" "$dt") faster)"
else
	line="$line, gdb not installed"
fi

if command -v bpftrace >/dev/null 2>&1; then
	t=$(best3 bpftrace -e "uprobe:$LOOP:g { @ = count(); }" \
	    -c "$LOOP bench $N")
	if grep -q "@: $N" "$tmp/out"; then
		# bpftrace's own start-up (BTF, attach) is not per hit
		t0=$(best3 bpftrace -e "uprobe:$LOOP:g { @ = count(); }" \
		    -c "$LOOP bench 1")
		bp=$(us "$t" "$t0" "$((N - 1))")
		line="$line, bpftrace uprobe $bp us (in-kernel, no stop: dtraced $(ratio "$dt" "$bp") slower)"
	else
		line="$line, bpftrace failed: $(tail -1 "$tmp/out")"
	fi
else
	line="$line, bpftrace not installed"
fi
echo "pidbench: $N hits (ltrace and gdb: $NSLOW), untraced loop $(us "$base" 0 1000) ms"
echo "$pinline"
echo "$line"
# HITS_ONLY=1: only the per-hit figures (section 1)
[ -z "$HITS_ONLY" ] || exit 0

# 2. Enable and disable libc.so.6::entry on a -c target.
"$DTRACE" -x socket="$sock" -l -c "$LOOP bench 1" \
    -n 'pid$target:libc.so.6::entry' >"$tmp/list" 2>&1 </dev/null
nprobes=$(($(wc -l <"$tmp/list") - 1))

# split DESC: prints "ENABLE DISABLE" in ns for one run with probes DESC
# ($BACKEND: -x backend=...)
BACKEND=ptrace
split()
{
	t0=$(now)
	"$DTRACE" -x socket="$sock" -x backend=$BACKEND -q -c "$LOOP spin" \
	    -n "$1 { }" \
	    -n 'BEGIN { printf("b %d\n", walltimestamp); exit(0); }' \
	    -n 'END { printf("e %d\n", walltimestamp); }' \
	    >"$tmp/split" 2>&1 </dev/null
	t1=$(now)
	awk -v t0="$t0" -v t1="$t1" '$1 == "b" { b = $2 } $1 == "e" { e = $2 }
	    END { if (b && e) print b - t0, t1 - e; else print "fail" }' \
	    "$tmp/split"
}

best_split()
{
	desc=$1
	be=
	bd=
	for _ in 1 2 3; do
		set -- $(split "$desc")
		if [ "$1" = fail ]; then
			echo "pidbench: enabling $desc failed:" >&2
			sed 's/^/	/' "$tmp/split" >&2
			echo "0 0"
			return
		fi
		if [ -z "$be" ] || [ "$1" -lt "$be" ]; then be=$1; fi
		if [ -z "$bd" ] || [ "$2" -lt "$bd" ]; then bd=$2; fi
	done
	echo "$be $bd"
}

set -- $(best_split 'pid$target:a.out:main:entry')
e1=$1 d1=$2
set -- $(best_split 'pid$target:libc.so.6::entry')
eN=$1 dN=$2
echo "$nprobes $eN $e1 $dN $d1" | awk '{
	printf "libc.so.6::entry: %d probes: enable %.1f ms, disable %.1f ms", \
	    $1, ($2 - $3) / 1e6, ($4 - $5) / 1e6
	printf " (net of a 1-probe run: %.1f ms, %.1f ms)\n", $3 / 1e6, $5 / 1e6
}'

# 3. The uprobe backend.
t_u=$(best3 "$DTRACE" -x socket="$sock" -x backend=uprobe -q \
    -c "$LOOP bench $N" -n 'pid$target:a.out:g:entry { @ = count(); }')
n_u=$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1 }' "$tmp/out")
if [ "$n_u" != "$N" ]; then
	echo "pidbench: uprobe backend counted '$n_u' hits, not $N:" >&2
	sed 's/^/	/' "$tmp/out" >&2
fi
t_u1=$(best3 "$DTRACE" -x socket="$sock" -x backend=uprobe -q \
    -c "$LOOP bench 1" -n 'pid$target:a.out:g:entry { @ = count(); }')
du=$(us "$t_u" "$t_u1" "$((N - 1))")
t_ru=$(best3 "$RAWU" "$addr" "$LOOP" bench "$N")
grep -q "^rawuprobe: $N hits, 0 lost" "$tmp/out" ||
    echo "pidbench: rawuprobe: $(cat "$tmp/out")" >&2
ru=$(us "$t_ru" "$base" "$N")
line="uprobe backend: dtraced $du us, raw perf uprobe sampler $ru us ($(ratio "$du" "$ru") the raw sampler)"
if [ -n "$bp" ]; then
	line="$line, bpftrace count $bp us ($(ratio "$du" "$bp") bpftrace)"
fi
line="$line, ptrace backend $dt us (uprobe $(ratio "$dt" "$du") faster)"
echo "$line"

# enable and release on a running program (-p), uprobe and ptrace: enable
# as above (BEGIN's walltimestamp, net of a 1-probe run), release the
# daemon's own figure for letting the process go (uprobe: until the
# kernel has taken the breakpoints out)
"$LOOP" spin >/dev/null 2>&1 &
spin=$!
usplit()
{
	t0=$(now)
	"$DTRACE" -x socket="$sock" -x backend=$BACKEND -q -p "$spin" \
	    -n "$1 { }" \
	    -n 'BEGIN { printf("b %d\n", walltimestamp); exit(0); }' \
	    >"$tmp/split" 2>&1 </dev/null
	sleep 0.2
	r=$(sed -n "s/.*pid $spin released in \([0-9.]*\) ms/\1/p" \
	    "$tmp/dtraced.log" | tail -1)
	awk -v t0="$t0" -v r="$r" '$1 == "b" { b = $2 }
	    END { if (b && r != "") print b - t0, r * 1e6; else print "fail" }' \
	    "$tmp/split"
}
best_usplit()
{
	desc=$1
	be=
	bd=
	for _ in 1 2 3; do
		set -- $(usplit "$desc")
		if [ "$1" = fail ]; then
			echo "pidbench: uprobe enabling $desc failed:" >&2
			sed 's/^/	/' "$tmp/split" >&2
			echo "0 0"
			return
		fi
		if [ -z "$be" ] || [ "$1" -lt "$be" ]; then be=$1; fi
		if [ -z "$bd" ] || [ "${2%.*}" -lt "${bd%.*}" ]; then bd=$2; fi
	done
	echo "$be $bd"
}
for BACKEND in uprobe ptrace; do
	set -- $(best_usplit 'pid$target:a.out:main:entry')
	e1=$1 d1=$2
	set -- $(best_usplit 'pid$target:libc.so.6::entry')
	eN=$1 dN=$2
	echo "$BACKEND $nprobes $eN $e1 $dN $d1" | awk '{
		printf "%s backend, -p, libc.so.6::entry: %d probes: enable %.1f ms, release %.1f ms", \
		    $1, $2, ($3 - $4) / 1e6, $5 / 1e6
		printf " (a 1-probe run: %.1f ms, %.1f ms)\n", $4 / 1e6, $6 / 1e6
	}'
done
kill "$spin"
wait "$spin" 2>/dev/null
