#!/bin/sh
# Output order across CPUs, as illumos reads buffers: BEGIN's records
# first, END's last, even when BEGIN and END ran on one CPU and the
# probes between them on another.  The daemon (whose main thread fires
# BEGIN and END) is pinned to CPU 0, the traced program to CPU 1, under
# the uprobe backend (each hit on its own CPU); all of it is read in one
# snapshot at the end.  Skipped with one CPU or without uprobes.
. "$(dirname "$0")/lib.sh"

if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null 2>&1; then
	echo "1..0 # SKIP needs 2 CPUs and taskset"
	exit 0
fi
rm -f "$sock"
taskset -c 0 "$DTRACED" -d -s "$sock" 2>>"$tmp/dtraced.log" &
dpid=$!
waitfor [ -S "$sock" ]
check "daemon starts on CPU 0" [ -S "$sock" ]
P='BEGIN { printf("begin\n"); }
pid$target:a.out:f:entry /++n == 3/ { printf("hit %d\n", n); exit(0); }
END { printf("end\n"); }'
taskset -c 1 timeout -k 10 60 "$DTRACE" -x socket="$sock" -x backend=uprobe \
    -q -c "$TRIGGERS/loop 10" -n "$P" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "uprobe backend" "$tmp/err"; then
	ok "# SKIP no uprobe backend here"
else
	check "exit 0" [ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err"
	# the target's own line (sum=) may come anywhere: it is not ours
	grep -v '^sum=' "$tmp/out" >"$tmp/ours"
	same "$tmp/ours" "begin
hit 3
end

" "BEGIN's line first, the hit's, END's last"
fi
stop_daemon
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
