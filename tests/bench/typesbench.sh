#!/bin/sh
# typesbench.sh: what naming a type of the traced program costs at
# compile time, in figures and a ratio, not pass/fail.  Run it from a
# build directory:
#
#	top_srcdir=/work/main top_builddir=. sh /work/main/tests/bench/typesbench.sh \
#	    [PROGRAM FUNCTION TYPE MEMBER]
#
# PROGRAM (default: Debian's debug build of Python, /usr/bin/python3.11d
# from python3.11-dbg, 24 MB with 10 MB of .debug_info) runs idle
# ("PROGRAM -c 'import time; time.sleep(600)'" for a Python, else the
# program alone), and dtrace -e compiles, against it (-p), each of
#	pid$target:a.out:FUNCTION:entry { trace(arg0); }
#	pid$target:a.out:FUNCTION:entry { trace(((TYPE *)arg0)->MEMBER); }
#	pid$target:a.out:FUNCTION:entry { trace(args[0]->MEMBER); }
# three times each, each run a new dtrace (so the debug information is
# read afresh: nothing is cached across processes); the best time of
# each, and the ratio of the typed ones to the first.  Needs root (or
# ptrace rights) as any pid-provider run does.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
BENCH=typesbench
. "$srcdir/tests/bench/lib.sh"
P=${1:-/usr/bin/python3.11d}
F=${2:-PyObject_GetAttr}
TY=${3:-PyObject}
M=${4:-ob_refcnt}

bench_need "$DTRACE" "$DTRACED" "$P"
bench_tmp
bench_daemon -d

case $(basename "$P") in
python*)	"$P" -c 'import time; time.sleep(600)' & ;;
*)		"$P" & ;;
esac
tpid=$!
trap 'kill $tpid $dpid 2>/dev/null; wait $tpid $dpid 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 1

# best CLAUSE: the best of three compiles, in microseconds
best()
{
	b=
	for r in 1 2 3; do
		t0=$(date +%s%N)
		"$DTRACE" -x socket="$sock" -e -p "$tpid" \
		    -n "pid\$target:a.out:$F:entry { $1 }" >"$tmp/out" 2>&1 ||
		    {
			echo "$BENCH: dtrace failed:" >&2
			cat "$tmp/out" >&2
			exit 1
		}
		t=$((($(date +%s%N) - t0) / 1000))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then
			b=$t
		fi
	done
	echo "$b"
}

plain=$(best 'trace(arg0);')
cast=$(best "trace((($TY *)arg0)->$M);")
typed=$(best "trace(args[0]->$M);")
echo "$BENCH: $P ($(du -h "$P" | cut -f1)), $F, $TY"
printf '%-44s %8d us\n' "untyped (trace(arg0))" "$plain"
printf '%-44s %8d us  x%s\n' "cast (($TY *)arg0)->$M" "$cast" \
    "$(echo "scale=2; $cast / $plain" | bc)"
printf '%-44s %8d us  x%s\n' "typed args[0]->$M" "$typed" \
    "$(echo "scale=2; $typed / $plain" | bc)"
