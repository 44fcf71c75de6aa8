#!/bin/sh
# syscallbench.sh: the cost of the syscall provider, in figures and
# ratios, not pass/fail.  Run it from a build directory:
#
#	top_srcdir=.. top_builddir=. sh ../tests/bench/syscallbench.sh [N]
#
# The trigger (tests/triggers/syscaller N) makes 2N getppid() calls
# (N in each of two threads), N openat() and N write() calls.  Each
# figure is (traced time - untraced time) / traced calls, the best of
# three runs, for:
#  - dtrace -n 'syscall::getppid:entry /pid == $target/ { @ = count(); }'
#    (net of a run of 1 round: connection, compilation and enabling are
#    not per call);
#  - the same with syscall::getppid:entry,syscall::getppid:return;
#  - a clause on every call, syscall:::entry, counted by name;
#  - the calls no probe wants: syscall::read:entry enabled, the trigger's
#    calls turned away in the kernel (per call of the trigger, all 4N);
#  - in the same run, strace -f -e trace=getppid (a ptrace stop at entry
#    and at return of each call) and, when installed, bpftrace counting
#    getppid on the raw_syscalls:sys_enter tracepoint (in-kernel
#    aggregation, the floor for a BPF tracer; tracefs is mounted for it
#    in a mount namespace of its own).
# The ratios are to bpftrace where it ran, else to strace.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
N=${1:-100000}
BENCH=syscallbench
. "$srcdir/tests/bench/lib.sh"
TRIG=$(cd "$builddir/tests/triggers" && pwd)/syscaller

bench_need "$DTRACE" "$DTRACED" "$TRIG"
bench_tmp
bench_daemon -d

now()
{
	date +%s%N
}

# best COMMAND...: the fastest of three runs, in nanoseconds
best()
{
	b=
	for _ in 1 2 3; do
		t0=$(now)
		"$@" >"$tmp/out" 2>&1 </dev/null ||
		    { echo "$BENCH: $* failed:" >&2; sed 's/^/	/' "$tmp/out" >&2; }
		t=$(($(now) - t0))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then
			b=$t
		fi
	done
	echo "$b"
}

dt()
{
	"$DTRACE" -x socket="$sock" -q "$@"
}

# percall NAME TRACED BASE CALLS: print and return ns per call
percall()
{
	v=$((($2 - $3) / $4))
	printf '%-44s %8d ns per call\n' "$1" "$v" >&2
	echo "$v"
}

base=$(best "$TRIG" "$N")
base1=$(best "$TRIG" 1)
printf '%-44s %8d ns per round (4 calls)\n' "untraced" $((base / N)) >&2

getppid='syscall::getppid:entry /pid == $target/ { @ = count(); }'
t=$(best dt -c "$TRIG $N" -n "$getppid")
t1=$(best dt -c "$TRIG 1" -n "$getppid")
d1=$(percall "dtrace getppid:entry count" $((t - t1)) $((base - base1)) \
    $((2 * N)))
both='syscall::getppid:entry,syscall::getppid:return /pid == $target/ { @ = count(); }'
t=$(best dt -c "$TRIG $N" -n "$both")
t1=$(best dt -c "$TRIG 1" -n "$both")
percall "dtrace getppid:entry,return count" $((t - t1)) $((base - base1)) \
    $((2 * N)) >/dev/null
all='syscall:::entry /pid == $target/ { @[probefunc] = count(); }'
t=$(best dt -c "$TRIG $N" -n "$all")
t1=$(best dt -c "$TRIG 1" -n "$all")
percall "dtrace syscall:::entry by name" $((t - t1)) $((base - base1)) \
    $((4 * N)) >/dev/null
none='syscall::read:entry /pid == $target/ { @ = count(); }'
t=$(best dt -c "$TRIG $N" -n "$none")
t1=$(best dt -c "$TRIG 1" -n "$none")
percall "dtrace, the calls no probe wants" $((t - t1)) $((base - base1)) \
    $((4 * N)) >/dev/null

ref=
if command -v strace >/dev/null 2>&1; then
	t=$(best strace -f -qq -e trace=getppid -o /dev/null "$TRIG" "$N")
	s=$(percall "strace -f -e trace=getppid" "$t" "$base" $((2 * N)))
	ref="strace $s"
fi
# bpftrace's tracepoints need tracefs: mounted in a mount namespace of
# its own, seen by nothing else
bpft()
{
	unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing &&
	    exec bpftrace -e "$1" -c "$2"' sh "$@"
}
if command -v bpftrace >/dev/null 2>&1 &&
    bpft 'BEGIN { exit(); }' /bin/true >/dev/null 2>&1; then
	# getppid is 110 on x86-64
	p='tracepoint:raw_syscalls:sys_enter /args->id == 110 && comm == "syscaller"/ { @ = count(); }'
	t=$(best bpft "$p" "$TRIG $N")
	t1=$(best bpft "$p" "$TRIG 1")
	b=$(percall "bpftrace raw_syscalls:sys_enter count" $((t - t1)) \
	    $((base - base1)) $((2 * N)))
	ref="bpftrace $b"
fi
if [ -n "$ref" ]; then
	set -- $ref
	if [ "$2" -gt 0 ]; then
		echo "dtrace getppid:entry count / $1: $(echo "scale=2; $d1 / $2" | bc)" >&2
	fi
fi
