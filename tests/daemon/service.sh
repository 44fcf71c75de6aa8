#!/bin/sh
# service.sh: dtraced as a service without systemd.  Without -d it
# daemonizes (no terminal, not our child) and holds its pid file; a
# second daemon on the same pid file refuses to start and touches
# nothing; a stale pid file is taken over; SIGHUP reopens a rotated log
# file (-l); SIGTERM removes the pid file and the socket.  -d, and a
# daemon systemd starts (NOTIFY_SOCKET), stay in the foreground.  The
# units of contrib/systemd pass systemd-analyze verify when it exists.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

pidf=$tmp/dtraced.pid
log=$tmp/dtraced.log

# a daemonized dtraced is not our child: lib.sh's cleanup misses it
daemons=
trap 'for p in $daemons; do kill -TERM "$p" 2>/dev/null; done; cleanup' EXIT

# served: the daemon on $sock serves a client
served()
{
	dtrace -q -n 'BEGIN { exit(0); }' >/dev/null 2>&1
}

# isdtraced PID: PID is a live dtraced
isdtraced()
{
	[ -n "$1" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = dtraced ]
}

# gone PID: PID (not our child) exits within 10s
gone()
{
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

# field N of /proc/PID/stat, after the command name
statfield()
{
	sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f"$(($2 - 2))"
}

"$DTRACED" -s "$sock" -p "$pidf" -l "$log" -v 2>"$tmp/err"
check "daemonizing: the command exits 0 at once" [ $? -eq 0 ]
same "$tmp/err" "" "daemonizing: nothing on stderr"
dpid=$(cat "$pidf" 2>/dev/null)
daemons="$daemons $dpid"
check "the pid file names a live dtraced" isdtraced "$dpid"
check "it has no controlling terminal" [ "$(statfield "$dpid" 7)" = 0 ]
check "it leads no session (it cannot acquire a terminal)" \
    [ "$(statfield "$dpid" 6)" != "$dpid" ]
check "the pid file holds the pid and a newline" \
    [ "$(od -An -c "$pidf" | tr -d ' ')" = "$(printf '%s' "$dpid")\\n" ]
check "it serves clients" served

"$DTRACED" -s "$tmp/sock2" -p "$pidf" 2>"$tmp/err"
rc=$?
check "a second daemon on the pid file: exit 1" [ $rc -eq 1 ]
same "$tmp/err" "dtraced: another dtraced (pid $dpid) holds $pidf
" "a second daemon on the pid file: says who holds it"
check "a second daemon made no socket" [ ! -e "$tmp/sock2" ]
check "the first daemon still serves" served
check "its pid file is intact" [ "$(cat "$pidf")" = "$dpid" ]

# logrotate: rename, SIGHUP, the daemon writes to a new file by the name
mv "$log" "$log.1"
kill -HUP "$dpid"
i=0
while ! grep -q "logs reopened" "$log" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
check "SIGHUP: a new log file is opened" grep -q "SIGHUP: logs reopened" "$log"
served
check "SIGHUP: new lines go to the new file" grep -q "connected" "$log"
check "SIGHUP: the old file has the lines before" \
    grep -q "dtraced $dpid ready" "$log.1"
check "SIGHUP: the old file has none after" \
    sh -c "! grep -q 'logs reopened' '$log.1'"
check "log lines carry the time and the pid" grep -q \
    "^[0-9-]*T[0-9:]*Z dtraced\\[$dpid\\]: dtd_client_create: pid [0-9]* uid [0-9]* connected\$" \
    "$log"

kill -TERM "$dpid"
check "SIGTERM: the daemon exits" gone "$dpid"
check "SIGTERM: the pid file is removed" [ ! -e "$pidf" ]
check "SIGTERM: the socket is removed" [ ! -e "$sock" ]
check "SIGTERM: logged" grep -q "exiting" "$log"

# a pid file that no process locks is stale: taken over
echo 99999 >"$pidf"
"$DTRACED" -s "$sock" -p "$pidf" 2>"$tmp/err"
check "a stale pid file: the daemon starts" [ $? -eq 0 ]
dpid=$(cat "$pidf")
daemons="$daemons $dpid"
check "a stale pid file: it holds our pid now" isdtraced "$dpid"
kill -TERM "$dpid"
check "SIGTERM: the daemon exits" gone "$dpid"

# -d: the foreground, and a pid file only when asked for
start_daemon -p "$pidf"
check "-d -p: the pid file names the daemon itself" \
    [ "$(cat "$pidf" 2>/dev/null)" = "$dpid" ]
stop_daemon TERM
check "-d -p: exit 0 on SIGTERM" [ "$dstatus" -eq 0 ]
check "-d -p: the pid file is removed" [ ! -e "$pidf" ]

# started by systemd (NOTIFY_SOCKET): no daemonizing, as under -d
NOTIFY_SOCKET=$tmp/notify "$DTRACED" -s "$sock" -p "$pidf" \
    2>>"$tmp/dtraced.log" &
dpid=$!
waitfor [ -S "$sock" ]
check "NOTIFY_SOCKET: the daemon stays in the foreground" \
    [ "$(cat "$pidf" 2>/dev/null)" = "$dpid" ]
stop_daemon TERM
check "NOTIFY_SOCKET: exit 0 on SIGTERM" [ "$dstatus" -eq 0 ]

# stopped as soon as its socket exists (a service manager may): SIGTERM
# before the event loop runs is a clean shutdown too, 20 times
i=0
bad=
while [ $i -lt 20 ]; do
	NOTIFY_SOCKET=$tmp/notify "$DTRACED" -s "$sock" -p "$pidf" \
	    2>>"$tmp/dtraced.log" &
	dpid=$!
	j=0
	while [ ! -S "$sock" ] && [ $j -lt 1000 ]; do
		sleep 0.01
		j=$((j + 1))
	done
	kill -TERM $dpid
	wait $dpid
	rc=$?
	[ $rc -ne 0 ] && bad="$bad $rc"
	[ -e "$sock" ] && bad="$bad socket"
	[ -e "$pidf" ] && bad="$bad pidfile"
	rm -f "$sock" "$pidf"
	i=$((i + 1))
done
check "SIGTERM as soon as the socket exists: exit 0, nothing left (20 times)" \
    [ -z "$bad" ] || echo "# exit statuses and leftovers:$bad"

"$DTRACED" -d -s "$sock" -l /nonexistent/dir/log 2>"$tmp/err"
rc=$?
check "a log file that cannot be opened: exit 1" [ $rc -eq 1 ]
same "$tmp/err" "dtraced: log file /nonexistent/dir/log: No such file or directory
" "a log file that cannot be opened: says why"
"$DTRACED" -d -s "$sock" -p 2>/dev/null
check "-p without a file: usage, exit 2" [ $? -eq 2 ]
# -V: the version, and the protocol's from the header both sides use
proto=$(sed -n 's/^#define[[:space:]]*DT_PROTO_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
    "$srcdir/proto/dt_proto.h")
"$DTRACED" -V >"$tmp/v" 2>&1
check "-V: exit 0" [ $? -eq 0 ]
check "-V: dtraced VERSION (protocol $proto)" \
    grep -qx "dtraced [0-9][0-9.]* (protocol $proto)" "$tmp/v" ||
    sed 's/^/# /' "$tmp/v"
check "dtraced(8) shows -V with the protocol of the header ($proto)" \
    grep -qx "\.Dl dtraced [0-9][0-9.]* (protocol $proto)" \
    "$srcdir/man/dtraced.8"

# the systemd units, with ExecStart naming the dtraced under test
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir "$tmp/units"
	sed "s|^ExecStart=[^ ]*|ExecStart=$(cd "$(dirname "$DTRACED")" &&
	    pwd)/dtraced|" "$srcdir/contrib/systemd/dtraced.service.in" \
	    >"$tmp/units/dtraced.service"
	cp "$srcdir/contrib/systemd/dtraced.socket" "$tmp/units/"
	(cd "$tmp/units" && timeout -k 10 120 systemd-analyze verify --man=no \
	    ./dtraced.socket ./dtraced.service) >"$tmp/verify" 2>&1
	rc=$?
	check "systemd-analyze verify: exit 0" [ $rc -eq 0 ]
	same "$tmp/verify" "" "systemd-analyze verify: no warning"
else
	ok "# SKIP systemd-analyze verify: systemd-analyze not found"
fi
done_testing
