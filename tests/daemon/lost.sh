#!/bin/sh
# The daemon dies under a consumer: dtrace prints what it had received
# (its records, and its aggregations as at any end), says that dtraced
# died, and exits 1; a traced target lives on with its text restored.
. "$(dirname "$0")/lib.sh"

# waitexe PID FILE: PID runs FILE within 10 s (it has exec'd)
waitexe()
{
	i=0
	until [ "$(readlink "/proc/$1/exe")" = "$(readlink -f "$2")" ]; do
		[ $i -ge 200 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# gone PID: the process has ended
gone()
{
	! kill -0 "$1" 2>/dev/null
}

for sig in KILL SEGV; do
	check "$sig: daemon starts" start_daemon
	"$TRIGGERS/loop" spin >"$tmp/spin.out" 2>&1 &
	tpid=$!
	check "$sig: the target runs" waitexe "$tpid" "$TRIGGERS/loop"
	# not through dtrace(): the wrapper would outlive what we wait for;
	# the last round's output goes first (the redirection is the
	# child's, and may come after our first look)
	rm -f "$tmp/c.out" "$tmp/c.err"
	"$DTRACE" -x socket="$sock" -x aggrate=10ms -q -p "$tpid" -n '
int seen;
BEGIN { @a["begin"] = count(); @b = sum(42); }
pid$target:a.out:f:entry /!seen/ { seen = 1; printf("in f\n"); }
tick-20ms /seen/ { printa("tick %@d\n", @b); }' >"$tmp/c.out" 2>"$tmp/c.err" &
	cpid=$!
	check "$sig: the consumer has records and aggregations" \
	    waitfor grep -q '^tick 42$' "$tmp/c.out"
	kill -"$sig" "$dpid"
	wait "$dpid"
	dpid=
	i=0
	while kill -0 "$cpid" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	check "$sig: dtrace ends" gone "$cpid"
	wait "$cpid"
	check "$sig: dtrace exits 1" [ $? -eq 1 ]
	check "$sig: dtrace says dtraced died" \
	    grep -q '^dtrace: processing aborted: dtraced died (' "$tmp/c.err" ||
	    sed 's/^/# /' "$tmp/c.err"
	# what it printed: the record, the ticks, then the aggregation that
	# printa() did not print
	grep -v '^tick 42$' "$tmp/c.out" | sed '/^$/d' >"$tmp/c.end"
	same "$tmp/c.end" "in f
  begin                                                             1
" "$sig: the records and the aggregations are printed"
	check "$sig: the target lives" kill -0 "$tpid"
	i=0
	until "$TRIGGERS/textcmp" "$tpid" >/dev/null 2>&1; do
		[ $i -ge 200 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	check "$sig: its text is its file's" "$TRIGGERS/textcmp" "$tpid"
	kill -TERM "$tpid"
	wait "$tpid"
	check "$sig: the target exits 0 on SIGTERM, every call right" \
	    [ $? -eq 0 ]
done
done_testing
