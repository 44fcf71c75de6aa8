#!/bin/sh
# privs.sh: who may trace what.  A root daemon; a client running as an
# unprivileged user created for the test (dtracetest) may trace only its
# own processes: not a root process, not another user's (clear error,
# exit 1).  Skipped unless root with useradd and setpriv.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

test_user
user=dtracetest
other=nobody
ouid=$(id -u $other 2>/dev/null) || ouid=65534
start_daemon || { not_ok "daemon starts"; done_testing; }
check "the socket is mode 0660" [ "$(stat -c %a "$sock")" = 660 ]
chmod 666 "$sock"	# the test user is not in group dtrace


prog='pid$target:a.out:f:entry { @ = count(); } tick-200ms { exit(0); }'

# A root process.
"$TRIGGERS/loop" spin >/dev/null &
rpid=$!
waitfor spinning $rpid
udtrace -q -p $rpid -n "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "user cannot -p a root process: exit 1" [ $rc -eq 1 ]
check "user cannot -p a root process: error says so" \
    grep -q "failed to grab pid $rpid: Operation not permitted" "$tmp/err"
sed 's/^/# /' "$tmp/err"
kill -TERM $rpid 2>/dev/null
wait $rpid
check "the root process was not harmed (exit 0)" [ $? -eq 0 ]

# Another user's process.
# (setpriv itself in the background: $! is then the traced process)
setpriv --reuid="$ouid" --regid="$ouid" --clear-groups "$TRIGGERS/loop" spin >/dev/null &
opid=$!
waitfor spinning $opid
udtrace -q -p $opid -n "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "user cannot -p another user's process: exit 1" [ $rc -eq 1 ]
check "user cannot -p another user's process: error says so" \
    grep -q "failed to grab pid $opid: Operation not permitted" "$tmp/err"
kill -TERM $opid 2>/dev/null
wait $opid
check "the other user's process was not harmed (exit 0)" [ $? -eq 0 ]

# Its own process, but not dumpable: the kernel would refuse the user's
# own ptrace, so the daemon refuses too.
setpriv --reuid="$uid" --regid="$gid" --clear-groups "$TRIGGERS/loop" undumpable >/dev/null &
npid=$!
waitfor spinning $npid
udtrace -q -p $npid -n "$prog" >"$tmp/out" 2>"$tmp/err"
check "user cannot -p its own undumpable process: exit 1" [ $? -eq 1 ]
check "user cannot -p its own undumpable process: error says so" \
    grep -q "failed to grab pid $npid: Operation not permitted" "$tmp/err"
kill -TERM $npid 2>/dev/null
wait $npid
check "the undumpable process was not harmed (exit 0)" [ $? -eq 0 ]

# Its own process, by -p and by -c.
setpriv --reuid="$uid" --regid="$gid" --clear-groups "$TRIGGERS/loop" spin >/dev/null &
mpid=$!
waitfor spinning $mpid
udtrace -q -p $mpid -n 'pid$target:a.out:f:entry { @ = count(); }
    pid$target:a.out:f:entry /++n == 100/ { exit(0); }
    END { printf("fired\n"); }' >"$tmp/out" 2>"$tmp/err"
rc=$?
check "user can -p its own process: exit 0" [ $rc -eq 0 ]
check "user can -p its own process: probes fire" grep -q '^fired$' "$tmp/out"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err"
kill -TERM $mpid 2>/dev/null
wait $mpid
st=$?
check "its own process was not harmed (exit 0)" [ $st -eq 0 ]
[ $st -eq 0 ] || echo "# exit status $st"

udtrace -q -c "$TRIGGERS/loop 1000 0" -n 'pid$target:a.out:f:entry { @ = count(); }
    END { printa("%@d\n", @); }' >"$tmp/out" 2>"$tmp/err"
check "user can -c its own command: exit 0" [ $? -eq 0 ]
same "$tmp/out" "sum=1000000
1000

" "user can -c its own command: f:entry fires 1000 times"

stop_daemon TERM
done_testing
