#!/bin/sh
# storms.sh: process and thread churn under tracing (issue 6, fault
# injection).  A target forks, execs, creates and joins threads, or loads
# and unloads a library in a loop: counts are exact (children get no
# probes, new threads and new images do), and a consumer SIGKILLed in the
# middle of a storm leaves the target running to its normal end with
# every result right and its text restored.
. "$(dirname "$0")/lib.sh"

STORM=$TRIGGERS/storm
check "daemon starts" start_daemon

# -- exact counts over whole storms
dtrace -q -c "$STORM fork 300 20" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/out" 2>"$tmp/err"
check "fork storm: exit 0" [ $? -eq 0 ]
same "$tmp/out" "storm fork ok

              300
" "fork storm: f fires once per round in the parent, never in a child"

dtrace -q -c "$STORM threads 60 100" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/out" 2>"$tmp/err"
check "thread storm: exit 0" [ $? -eq 0 ]
same "$tmp/out" "storm threads ok

            48000
" "thread storm: f fires in all 480 threads, 100 times each"

dtrace -q -c "$STORM exec 30 50" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/out" 2>"$tmp/err"
check "exec storm: exit 0" [ $? -eq 0 ]
same "$tmp/out" "storm exec ok

             1550
" "exec storm: f fires 50 times in each of 31 images"

dtrace -Z -q -c "$STORM dl 200 10" \
    -n 'pid$target:libm.so.6:cbrt:entry { @ = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "dlopen loop: exit 0" [ $? -eq 0 ]
same "$tmp/out" "storm dl ok

             2000
" "dlopen loop: cbrt fires 10 times after each of 200 loads"

# -- a consumer SIGKILLed mid-storm: the target goes on unharmed.
# consumer PID PROBE: trace PROBE in PID, printing the running count
# every 100ms to $tmp/c.out; $cpid is dtrace itself (no timeout wrapper)
consumer()
{
	: >"$tmp/c.out"
	"$DTRACE" -x socket="$sock" -x aggrate=50ms -Z -q -p "$1" -n "
$2 { @ = count(); }
tick-100ms { printa(\"%@d\n\", @); }" >"$tmp/c.out" 2>"$tmp/c.err" &
	cpid=$!
}

# counting: the consumer has counted some firings (within 10s)
counting()
{
	i=0
	while [ "$(tail -n 1 "$tmp/c.out" 2>/dev/null || echo 0)" = "" ] ||
	    [ "$(tail -n 1 "$tmp/c.out" 2>/dev/null || echo 0)" -eq 0 ]; do
		[ $i -ge 200 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# storm MODE R K PROBE: run the storm, kill its consumer mid-way
storm()
{
	"$STORM" "$1" "$2" "$3" >"$tmp/t.out" 2>&1 &
	tpid=$!
	consumer $tpid "$4"
	check "$1 storm: the consumer counts" counting ||
	    sed 's/^/# /' "$tmp/c.err"
	kill -KILL "$cpid"
	wait "$cpid" 2>/dev/null
	wait "$tpid"
	st=$?
	check "$1 storm, consumer SIGKILLed: the target exits 0 ($st)" \
	    [ $st -eq 0 ] || sed 's/^/# target: /' "$tmp/t.out"
	same "$tmp/t.out" "storm $1 ok
" "$1 storm, consumer SIGKILLed: every result was right"
}

storm fork 5000 20 'pid$target:a.out:f:entry'
# (8000 rounds: about 11 s untraced, so the storm outlasts the grab of
# its ever-changing threads even on a loaded machine)
storm threads 8000 100 'pid$target:a.out:f:entry'
storm dl 5000 10 'pid$target:libm.so.6:cbrt:entry'

# -- grabbed while it execs: a grab that lands between an exec and that
# exec's event wrote the linker's hook into the new image, where the
# exec's handling forgot it and the process trapped on it untraced
# (SIGTRAP, one round in eight).  Processes that exec themselves over
# and over, each grabbed at once and its consumer SIGKILLed soon after.
bad=0
for i in $(seq 1 16); do
	"$STORM" exec 100 5 >"$tmp/t.out" 2>&1 &
	tpid=$!
	consumer $tpid 'pid$target:a.out:f:entry'
	sleep 0.3
	kill -KILL "$cpid"
	wait "$cpid" 2>/dev/null
	wait "$tpid"
	st=$?
	if [ $st -ne 0 ] || ! grep -q "storm exec ok" "$tmp/t.out"; then
		bad=$((bad + 1))
		echo "# round $i: the target's status $st"
	fi
done
check "exec storms grabbed as they run: every target exits 0 ($bad bad)" \
    [ $bad -eq 0 ]

stop_daemon TERM
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
