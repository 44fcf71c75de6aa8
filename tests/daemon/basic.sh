#!/bin/sh
# The first path end to end through a private daemon on its own socket:
# compile, send, verify, enable, fire, buffer, snapshot, print.
. "$(dirname "$0")/lib.sh"

check "daemon starts and listens" start_daemon

dtrace -n 'BEGIN { printf("hello %d\n", 42); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "BEGIN/exit(0) exits 0" [ $? -eq 0 ]
same "$tmp/out" "$(printf '%32s\n%32s ' FUNCTION:NAME :BEGIN)hello 42


" "BEGIN printf output under the FUNCTION:NAME header"
same "$tmp/err" "dtrace: description 'BEGIN ' matched 1 probe
" "matched-probes report on stderr"

dtrace -q -n 'tick-10ms { @n = count(); } tick-10ms /++i == 10/ { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "tick count program exits 0" [ $? -eq 0 ]
same "$tmp/out" '
               10
' "count() of tick-10ms before the exit is exactly 10"

dtrace -q -n 'BEGIN { exit(3); }' >"$tmp/out" 2>&1
check "exit(3) sets the exit status" [ $? -eq 3 ]

# Several consumers at once, each with its own state.
for k in 1 2 3 4; do
	dtrace -q -n "tick-5ms { @c = sum($k); } tick-5ms /++n == $((k * 5))/ { exit(0); }" \
	    >"$tmp/c$k" 2>&1 &
	pids="$pids $!"
done
wait $pids
for k in 1 2 3 4; do
	same "$tmp/c$k" "
$(printf ' %16d' $((k * k * 5)))
" "concurrent consumer $k sees only its own $((k * 5)) firings"
done

# A runtime fault fires ERROR, is reported in dtrace's words, and tracing
# goes on; the faulting clause records nothing.
dtrace -q -n 'BEGIN { x = 0; } BEGIN { printf("%d\n", 10 / x); }
    ERROR { printf("ERROR arg4=%d\n", arg4); }
    BEGIN { printf("after\n"); exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "runtime fault: exit status still 0" [ $? -eq 0 ]
same "$tmp/out" "ERROR arg4=4
after

" "runtime fault: ERROR clause ran with arg4 = DTRACEFLT_DIVZERO, then tracing went on"
check "runtime fault: standard message" grep -q \
    "^dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): divide-by-zero in action #1 at DIF offset [0-9][0-9]*$" \
    "$tmp/err"

# The daemon outlives its clients, and a clean stop removes the socket.
check "daemon still running" kill -0 "$dpid"
stop_daemon TERM
check "SIGTERM: daemon exits 0" [ "$dstatus" -eq 0 ]
check "SIGTERM: socket removed" [ ! -e "$sock" ]
done_testing
