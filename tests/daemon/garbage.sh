#!/bin/sh
# A peer that sends garbage, or hangs up in the middle of a message (a
# header alone, half a payload, half a message with an fd attached), is
# dropped with a log line; the daemon keeps serving everyone else,
# including two consumers tracing meanwhile (ticks, and a pid target
# whose calls are counted exactly), and holds no fd of the bad peers.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon -v

nfds()
{
	ls "/proc/$dpid/fd" | wc -l
}
# the socket comes before the rest of the daemon's start-up (its event
# loop's descriptors): count once it has served a consumer (a run on a
# loaded machine counted 9 at once, and 12 at the end, all its own),
# and has closed that consumer's connection (it logs that it is gone
# once it has; one run counted 13 before it had, and 12 at the end)
dtrace -n 'BEGIN { exit(0); }' >/dev/null 2>&1
check "a first consumer is served" [ $? -eq 0 ]
check "and let go" waitfor grep -q "dtd_client_free: pid [0-9]* gone" \
    "$tmp/dtraced.log"
fd0=$(nfds)

# A pid consumer counting every call of f of a target making 300000.
dtrace -q -c "$TRIGGERS/loop 300000" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' \
    -n 'END { printa("%@d\n", @); }' -o "$tmp/pid" >/dev/null 2>&1 &
pidc=$!

# A consumer tracing across the whole abuse below.
dtrace -q -n 'tick-20ms /++n == 50/ { printf("%d\n", n); exit(0); }' \
    >"$tmp/long" 2>&1 &
long=$!
"$TRIGGERS/sockpoke" "$sock" idle &
idle=$!

for mode in garbage badversion oldversion newversion huge noHello; do
	check "peer sending '$mode' is dropped" "$TRIGGERS/sockpoke" "$sock" $mode
done
check "half a message then hang-up" "$TRIGGERS/sockpoke" "$sock" half
check "a header alone, then hang-up" "$TRIGGERS/sockpoke" "$sock" header
check "HELLO, half a PROGRAM, then hang-up" \
    "$TRIGGERS/sockpoke" "$sock" halfpayload
check "HELLO, half a GRAB with an fd, then hang-up" \
    "$TRIGGERS/sockpoke" "$sock" fd
check "bad peers were logged" grep -q "pid" "$tmp/dtraced.log"
proto=$(sed -n 's/^#define[[:space:]]*DT_PROTO_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
    "$srcdir/proto/dt_proto.h")
check "a peer of the protocol before ours is logged with both versions" \
    grep -q "speaks protocol $((proto - 1)), not $proto, dropping client" \
    "$tmp/dtraced.log"
check "a peer of the protocol after ours is logged with both versions" \
    grep -q "speaks protocol $((proto + 1)), not $proto, dropping client" \
    "$tmp/dtraced.log"
check "a hang-up after a header was logged" grep -q \
    "hung up in the middle of a message (12 bytes, 0 fds unread), dropping client" \
    "$tmp/dtraced.log"
check "a hang-up in a payload was logged" grep -q \
    "hung up in the middle of a message (2012 bytes, 0 fds unread), dropping client" \
    "$tmp/dtraced.log"
check "a hang-up with an fd attached was logged" grep -q \
    "hung up in the middle of a message (16 bytes, 1 fds unread), dropping client" \
    "$tmp/dtraced.log"
kill -0 $pidc 2>/dev/null ||
    echo "# the pid consumer had finished before the abuse did"

dtrace -n 'BEGIN { exit(0); }' >"$tmp/out" 2>&1
check "a new consumer is served after the abuse" [ $? -eq 0 ]
wait $long
check "the consumer tracing meanwhile finished normally" [ $? -eq 0 ]
same "$tmp/long" "50

" "and saw all its 50 firings"
wait $pidc
check "the pid consumer tracing meanwhile finished normally" [ $? -eq 0 ]
same "$tmp/pid" "300000

" "and counted every one of the 300000 calls"
kill $idle
wait $idle 2>/dev/null
# the daemon closes a socket when it reads its end, and lets the pid
# consumer's target go (its descriptors with it): a bound on a hang,
# long enough for a loaded machine
i=0
while fd1=$(nfds) && [ "$fd1" -gt "$fd0" ] && [ $i -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
check "no fd of a bad peer is left: $fd0 before, $fd1 after" \
    [ "$fd0" -eq "$fd1" ]
stop_daemon TERM
check "daemon exits 0 on SIGTERM" [ "$dstatus" -eq 0 ]
done_testing
