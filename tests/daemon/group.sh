#!/bin/sh
# group.sh: the socket's ownership.  dtraced creates its runtime
# directory mode 0750 and the socket mode 0660, both of group dtrace when
# that group exists; a user in group dtrace may connect, a user outside
# it may not (a clear error, exit 1).  The same holds for what the
# systemd units would make, their modes read from contrib/systemd with
# the documented SocketGroup=dtrace (systemd itself is not needed).
# Skipped unless root with groupadd, useradd and setpriv.  Creates group
# dtrace and user dtracetest when missing; removes the group again if it
# created it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

user=dtracetest
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (to create group dtrace and user $user)"
	exit 0
fi
for c in groupadd groupdel useradd setpriv; do
	if ! command -v $c >/dev/null 2>&1; then
		echo "1..0 # SKIP $c not found"
		exit 0
	fi
done
made=
if ! getent group dtrace >/dev/null 2>&1; then
	if ! groupadd -r dtrace >/dev/null 2>&1; then
		echo "1..0 # SKIP groupadd dtrace failed"
		exit 0
	fi
	made=1
fi
if ! find_test_user; then
	[ -n "$made" ] && groupdel dtrace
	echo "1..0 # SKIP $why"
	exit 0
fi
dgid=$(getent group dtrace | cut -d: -f3)

sock=$tmp/run/sock
check "daemon starts, creating its runtime directory" start_daemon
check "the runtime directory is mode 0750" \
    [ "$(stat -c %a "$tmp/run")" = 750 ]
check "the runtime directory is group dtrace" \
    [ "$(stat -c %G "$tmp/run")" = dtrace ]
check "the socket is mode 0660" [ "$(stat -c %a "$sock")" = 660 ]
check "the socket is group dtrace" [ "$(stat -c %G "$sock")" = dtrace ]

setpriv --reuid="$uid" --regid="$gid" --groups="$dgid" \
    timeout -k 10 60 "$DTRACE" -x socket="$sock" -q \
    -n 'BEGIN { printf("in\n"); exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "a member of group dtrace connects: exit 0" [ $? -eq 0 ]
same "$tmp/out" "in

" "a member of group dtrace connects: BEGIN fires"

setpriv --reuid="$uid" --regid="$gid" --clear-groups \
    timeout -k 10 60 "$DTRACE" -x socket="$sock" -q \
    -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "a user outside group dtrace cannot connect: exit 1" [ $? -eq 1 ]
check "a user outside group dtrace cannot connect: error says so" \
    grep -q "failed to connect to dtraced at $sock: Permission denied" \
    "$tmp/err"
sed 's/^/# /' "$tmp/err"

stop_daemon TERM
check "daemon exits 0" [ "$dstatus" -eq 0 ]

# --- what the systemd units make (PID 1 need not be systemd): their
# directory and socket modes, read from the unit files, with the
# documented SocketGroup=dtrace; the socket passed to dtraced as systemd
# passes it (LISTEN_FDS)
unit()
{
	sed -n "s/^$2=//p" "$srcdir/contrib/systemd/$1" | tail -n 1
}
dmode=$(unit dtraced.socket DirectoryMode)
rmode=$(unit dtraced.service.in RuntimeDirectoryMode)
smode=$(unit dtraced.socket SocketMode)
check "the units agree on the directory's mode ($dmode, $rmode)" \
    [ -n "$dmode" ] && [ "$dmode" = "$rmode" ]
check "the socket unit sets SocketMode ($smode)" [ -n "$smode" ]
cat >"$tmp/activate.py" <<'EOF'
import grp, os, socket, sys
path, mode, group = sys.argv[1], int(sys.argv[2], 8), sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
os.chmod(path, mode)
os.chown(path, 0, grp.getgrnam(group).gr_gid)
s.listen(16)
os.dup2(s.fileno(), 3)
os.environ["LISTEN_FDS"] = "1"
os.environ["LISTEN_PID"] = str(os.getpid())
os.execv(sys.argv[4], sys.argv[4:])
EOF
if command -v python3 >/dev/null 2>&1; then
	mkdir -m "$dmode" "$tmp/unit"
	chown root:root "$tmp/unit"
	sock=$tmp/unit/dtraced.sock
	python3 "$tmp/activate.py" "$sock" "$smode" dtrace "$DTRACED" -d -v \
	    2>>"$tmp/dtraced.log" &
	dpid=$!
	i=0
	while ! grep -q "dtraced $dpid ready" "$tmp/dtraced.log" &&
	    [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	check "units: dtraced takes the socket systemd would pass" \
	    grep -q "listening on the socket systemd passed" "$tmp/dtraced.log"
	check "units: the directory is mode $dmode, root's" \
	    [ "$(stat -c '%a %U %G' "$tmp/unit")" = "${dmode#0} root root" ]
	check "units: the socket is mode $smode, group dtrace" \
	    [ "$(stat -c '%a %G' "$sock")" = "${smode#0} dtrace" ]
	setpriv --reuid="$uid" --regid="$gid" --groups="$dgid" \
	    timeout -k 10 60 "$DTRACE" -x socket="$sock" -q \
	    -n 'BEGIN { printf("in\n"); exit(0); }' >"$tmp/out" 2>"$tmp/err"
	check "units: a member of group dtrace connects: exit 0" [ $? -eq 0 ]
	same "$tmp/out" "in

" "units: a member of group dtrace connects: BEGIN fires"
	sed 's/^/# /' "$tmp/err"
	setpriv --reuid="$uid" --regid="$gid" --clear-groups \
	    timeout -k 10 60 "$DTRACE" -x socket="$sock" -q \
	    -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
	check "units: a user outside group dtrace cannot connect: exit 1" \
	    [ $? -eq 1 ]
	check "units: a user outside group dtrace: Permission denied" \
	    grep -q "failed to connect to dtraced at $sock: Permission denied" \
	    "$tmp/err"
	stop_daemon TERM
	check "units: daemon exits 0" [ "$dstatus" -eq 0 ]
else
	ok "# SKIP the units' modes: no python3"
fi
[ -n "$made" ] && groupdel dtrace
done_testing
