#!/bin/sh
# group.sh: the socket's ownership.  dtraced creates its runtime
# directory mode 0750 and the socket mode 0660, both of group dtrace when
# that group exists; a user in group dtrace may connect, a user outside
# it may not (a clear error, exit 1).  Skipped unless root with groupadd,
# useradd and setpriv.  Creates group dtrace and user dtracetest when
# missing; removes the group again if it created it.
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
if ! id -u $user >/dev/null 2>&1 &&
    ! useradd -M -r -s /usr/sbin/nologin $user >/dev/null 2>&1; then
	[ -n "$made" ] && groupdel dtrace
	echo "1..0 # SKIP useradd $user failed"
	exit 0
fi
uid=$(id -u $user)
gid=$(id -g $user)
dgid=$(getent group dtrace | cut -d: -f3)

chmod 711 "$tmp"
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
[ -n "$made" ] && groupdel dtrace
done_testing
