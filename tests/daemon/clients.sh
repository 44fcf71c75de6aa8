#!/bin/sh
# clients.sh: what one client may cost the daemon.  The daemon raises
# its soft RLIMIT_NOFILE to the hard limit.  A client that asks for
# snapshot after snapshot and reads none is no longer fed once its
# output queue is full, is dropped after output-timeout with the reason
# logged, and the daemon's peak RSS grows by less than one snapshot, the
# output limit and some slack; dropped, a client that claimed a program
# has its tracing stopped and its target let go, text restored.  A user
# holding more idle connections than user-connections has the next one
# refused with dtrace's message and exit 1, while root's and another
# user's clients trace a pid target and count exactly.  dtrace against a
# listener that accepts and never answers, or one that accepts nothing,
# ends with an error and exit 1.
# The per-user part needs root, useradd and setpriv (skipped otherwise).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

# logged N REGEX: the daemon's log has at least N lines matching REGEX
logged()
{
	[ "$(grep -c "$2" "$tmp/dtraced.log")" -ge "$1" ]
}

# status FIELD PID: a field of /proc/PID/status, without its unit
status()
{
	awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/status"
}

hard=$(ulimit -Hn)
[ "$hard" != unlimited ] && [ "$hard" -gt 1024 ] && ulimit -Sn 1024
n=$(getconf _NPROCESSORS_CONF)
start_daemon -v -L user-connections=4,output=1m,output-timeout=5 ||
    { not_ok "daemon starts"; done_testing; }
chmod 666 "$sock"	# the test users are not in group dtrace

# --- the daemon's descriptors
if [ "$hard" = unlimited ] || [ "$hard" -le 1024 ]; then
	ok "# SKIP RLIMIT_NOFILE raised: the hard limit is $hard"
else
	set -- $(awk '/^Max open files/ { print $4, $5 }' "/proc/$dpid/limits")
	check "RLIMIT_NOFILE: soft limit raised from 1024 to the hard ($1 $2)" \
	    [ "$1" = "$hard" ] && [ "$2" = "$hard" ]
fi

# --- a client that never reads
"$TRIGGERS/loop" spin >"$tmp/spin.out" &
lpid=$!
waitfor spinning $lpid	# exec'd: -p of the shell before it is a.out of sh
dtrace -x retain=rec -x bufpolicy=ring -x bufsize=1m -q -p $lpid -n '
pid$target:a.out:f:entry { printf("%d %s\n", arg0, "a record of some size"); }' \
    >"$tmp/out" 2>"$tmp/err"
check "a ring recorder is retained: exit 0" [ $? -eq 0 ]
# fill the ring buffers: every snapshot of them is a megabyte a CPU
sleep 1
echo 5 >"/proc/$dpid/clear_refs"	# the peak RSS starts again
rss0=$(status VmRSS "$dpid")
timeout -k 10 60 "$TRIGGERS/sockpoke" "$sock" flood rec snapshot
check "snapshots read by no one: the daemon hangs up" [ $? -eq 0 ]
hwm=$(status VmHWM "$dpid")
# one snapshot (n megabytes), and its copy as it is framed; the output
# limit and the 256k the requests stop at; 8m for malloc's slack
bound=$(((2 * n + 1 + 8) * 1024 + 256))
check "its peak RSS grew by less than ${bound}k ($((hwm - rss0))k)" \
    [ $((hwm - rss0)) -lt $bound ]
check "it was dropped, with the reason logged" logged 1 \
    "dtd_client_stalled: pid [0-9]* uid 0: read nothing of its [0-9]* queued bytes in 5 seconds, dropping client"
check "it only read: rec still runs" \
    sh -c "! '$TRIGGERS/textcmp' $lpid >/dev/null 2>&1"

# a client that asks for 40 snapshots at once and reads them late is
# held back, not dropped, and gets every one
timeout -k 10 60 "$TRIGGERS/sockpoke" "$sock" late rec 40 >"$tmp/out"
check "a late reader: exit 0" [ $? -eq 0 ]
same "$tmp/out" "40
" "a late reader: all 40 snapshots are answered"
check "a late reader is not dropped" \
    [ "$(grep -c "dropping client" "$tmp/dtraced.log")" -eq 1 ]

# the same, claiming rec: dropped, its tracing stops with it
timeout -k 10 60 "$TRIGGERS/sockpoke" "$sock" flood rec
check "a claim that reads nothing: the daemon hangs up" [ $? -eq 0 ]
check "a claim that reads nothing: dropped, the reason logged" logged 2 \
    "dtd_client_stalled: pid [0-9]* uid 0: read nothing of its"
check "its target is let go" waitfor logged 1 \
    "dtd_target_drop: pid $lpid released"
check "its target has no tracer" [ "$(status TracerPid $lpid)" = 0 ]
check "its target's text is restored" "$TRIGGERS/textcmp" $lpid
kill -TERM $lpid
wait $lpid
check "its target ran right throughout (exit 0)" [ $? -eq 0 ]

# --- too many connections from one user
user=dtracetest
if [ "$(id -u)" -ne 0 ]; then
	ok "# SKIP connections per user: needs root"
	skipusers=1
fi
for c in useradd setpriv; do
	if [ -z "$skipusers" ] && ! command -v $c >/dev/null 2>&1; then
		ok "# SKIP connections per user: $c not found"
		skipusers=1
	fi
done
if [ -z "$skipusers" ] && ! id -u $user >/dev/null 2>&1 &&
    ! useradd -M -r -s /usr/sbin/nologin $user >/dev/null 2>&1; then
	ok "# SKIP connections per user: useradd $user failed"
	skipusers=1
fi
other=$(id -u nobody 2>/dev/null)
if [ -z "$skipusers" ] && [ -z "$other" ]; then
	ok "# SKIP connections per user: no user nobody"
	skipusers=1
fi
if [ -z "$skipusers" ]; then
	uid=$(id -u $user)
	gid=$(id -g $user)
	ogid=$(id -g nobody)
	chmod 711 "$tmp"
	# as UID GID COMMAND...: run it as that user, no groups
	as()
	{
		u=$1
		g=$2
		shift 2
		setpriv --reuid="$u" --regid="$g" --clear-groups "$@"
	}
	# ten idle connections: four are served, six refused
	pokes=
	for i in 1 2 3 4 5 6 7 8 9 10; do
		setpriv --reuid="$uid" --regid="$gid" --clear-groups \
		    "$TRIGGERS/sockpoke" "$sock" idle &
		pokes="$pokes $!"
	done
	check "ten idle connections of uid $uid: four served" \
	    waitfor logged 4 "dtd_client_create: pid [0-9]* uid $uid connected"
	check "ten idle connections of uid $uid: six refused" \
	    waitfor logged 6 "dtd_client_refuse: pid [0-9]* uid $uid: too many connections from uid $uid: dtraced allows 4 per user, refused"
	as "$uid" "$gid" timeout -k 10 60 "$DTRACE" -x socket="$sock" \
	    -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
	check "uid $uid's dtrace is refused: exit 1" [ $? -eq 1 ]
	check "uid $uid's dtrace is refused: it says why" grep -q \
	    ": too many connections from uid $uid: dtraced allows 4 per user\$" \
	    "$tmp/err"
	sed 's/^/# /' "$tmp/err"

	dtrace -q -c "$TRIGGERS/loop 1000" \
	    -n 'pid$target:a.out:f:entry { @ = count(); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "meanwhile root traces: exit 0" [ $? -eq 0 ]
	same "$tmp/out" "sum=1000000

             1000
" "meanwhile root traces: f:entry fires 1000 times"
	as "$other" "$ogid" timeout -k 10 60 "$DTRACE" -x socket="$sock" \
	    -q -c "$TRIGGERS/loop 1000" \
	    -n 'pid$target:a.out:f:entry { @ = count(); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "meanwhile uid $other traces: exit 0" [ $? -eq 0 ]
	same "$tmp/out" "sum=1000000

             1000
" "meanwhile uid $other traces: f:entry fires 1000 times"
	same "$tmp/err" "" "meanwhile uid $other traces: nothing said"

	gone=$(grep -c "dtd_client_free: pid [0-9]* gone" "$tmp/dtraced.log")
	kill $pokes 2>/dev/null
	wait $pokes 2>/dev/null
	check "the idle connections go" \
	    waitfor logged $((gone + 4)) "dtd_client_free: pid [0-9]* gone"
	as "$uid" "$gid" timeout -k 10 60 "$DTRACE" -x socket="$sock" -q \
	    -n 'BEGIN { printf("back\n"); exit(0); }' >"$tmp/out" 2>"$tmp/err"
	check "uid $uid connects again once they are gone: exit 0" [ $? -eq 0 ]
	same "$tmp/out" "back

" "uid $uid connects again: BEGIN fires"
fi

stop_daemon TERM
check "daemon exits 0" [ "$dstatus" -eq 0 ]

# --- a daemon that accepts and never answers
# (mute.py PATH deaf: it accepts nothing, its backlog full, as a daemon
# out of descriptors)
cat >"$tmp/mute.py" <<'EOF'
import signal, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1] + ".tmp")
s.listen(0 if len(sys.argv) > 2 else 8)
held = []
if len(sys.argv) > 2:
    while True:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.setblocking(False)
        try:
            c.connect(sys.argv[1] + ".tmp")
        except BlockingIOError:
            break
        held.append(c)
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
if len(sys.argv) > 2:
    signal.pause()
while True:
    held.append(s.accept()[0])
EOF
# against SOCKET SCRIPT [ARG...]: a BEGIN consumer run against a python
# stand-in for dtraced listening at SOCKET; its status in rc, its stderr
# in $tmp/err
against()
{
	sockpath=$1
	shift
	python3 "$@" &
	mpid=$!
	waitfor [ -S "$sockpath" ]
	timeout -k 10 90 "$DTRACE" -x socket="$sockpath" \
	    -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sed 's/^/# /' "$tmp/err"
	kill $mpid 2>/dev/null
}

if command -v python3 >/dev/null 2>&1; then
	against "$tmp/mute" "$tmp/mute.py" "$tmp/mute"
	check "a mute daemon: dtrace gives up, exit 1 ($rc)" [ $rc -eq 1 ]
	check "a mute daemon: it says so" grep -q \
	    ": dtraced did not answer in 30 seconds\$" "$tmp/err"

	against "$tmp/deaf" "$tmp/mute.py" "$tmp/deaf" deaf
	check "a deaf daemon: dtrace gives up, exit 1 ($rc)" [ $rc -eq 1 ]
	check "a deaf daemon: it says so" grep -q \
	    ": failed to connect to dtraced at $tmp/deaf: it accepted nothing in 30 seconds\$" \
	    "$tmp/err"

	# a daemon of the next protocol version (an upgrade not yet
	# restarted into): it answers HELLO with an error of its own
	# version, which this dtrace cannot read but names
	proto=$(sed -n 's/^#define[[:space:]]*DT_PROTO_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	    "$srcdir/proto/dt_proto.h")
	cat >"$tmp/other.py" <<'EOF2'
import os, socket, struct, sys
path, version = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path + ".tmp")
s.listen(8)
os.rename(path + ".tmp", path)
c = s.accept()[0]
c.recv(4096)
text = b"dtraced speaks protocol %d" % version
payload = struct.pack("<II", 71, len(text)) + text
c.sendall(struct.pack("<IHHI", len(payload), 400, version, 0) + payload)
c.close()
EOF2
	against "$tmp/other" "$tmp/other.py" "$tmp/other" $((proto + 1))
	check "a daemon of protocol $((proto + 1)): exit 1 ($rc)" [ $rc -eq 1 ]
	check "a daemon of protocol $((proto + 1)): both versions are named" \
	    grep -q ": dtraced speaks protocol $((proto + 1)), this dtrace $proto: restart dtraced from the same release\$" \
	    "$tmp/err"
else
	ok "# SKIP a mute daemon: no python3"
fi
done_testing
