#!/bin/sh
# A peer that sends garbage is dropped with a log line; the daemon keeps
# serving everyone else, including a consumer that is tracing meanwhile.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# A consumer tracing across the whole abuse below.
dtrace -q -n 'tick-20ms /++n == 50/ { printf("%d\n", n); exit(0); }' \
    >"$tmp/long" 2>&1 &
long=$!
"$TRIGGERS/sockpoke" "$sock" idle &
idle=$!

for mode in garbage badversion huge noHello; do
	check "peer sending '$mode' is dropped" "$TRIGGERS/sockpoke" "$sock" $mode
done
check "half a message then hang-up" "$TRIGGERS/sockpoke" "$sock" half
check "bad peers were logged" grep -q "pid" "$tmp/dtraced.log"

dtrace -n 'BEGIN { exit(0); }' >"$tmp/out" 2>&1
check "a new consumer is served after the abuse" [ $? -eq 0 ]
wait $long
check "the consumer tracing meanwhile finished normally" [ $? -eq 0 ]
same "$tmp/long" "50

" "and saw all its 50 firings"
kill $idle
wait $idle 2>/dev/null
stop_daemon TERM
check "daemon exits 0 on SIGTERM" [ "$dstatus" -eq 0 ]
done_testing
