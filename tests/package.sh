#!/bin/sh
# tests/package.sh DEB: the Debian package on this machine.  Installs
# DEB (dpkg -i), checks what it put where, starts the installed daemon
# as its units would (the socket unit's ListenStream, the service's
# ExecStart, socket activation through systemd-socket-activate, as PID 1
# need not be systemd), traces with the installed dtrace, has it retain a
# program of /etc/dtraced and serve its aggregation at the metrics
# address of /etc/dtraced/dtraced.conf (scraped with curl), then purges
# the package and checks that nothing of it is left.  Where
# systemtap-sdt-dev is installed (its own /usr/bin/dtrace and dtrace(1)
# page), they are moved aside while ours is installed and put back at
# its removal.  Prints TAP.
# Run by ./build.sh package-check; needs root and a machine where
# dtraced is not installed already.
. "$(dirname "$0")/daemon/lib.sh"

deb=$1
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
if [ ! -f "$deb" ]; then
	echo "1..0 # SKIP no package (./build.sh package-check builds one)"
	exit 0
fi
# (a package dpkg once heard of and removed is "unknown ok not-installed")
st=$(dpkg-query -W -f='${Status}' dtraced 2>/dev/null)
if { [ -n "$st" ] && [ "${st% not-installed}" = "$st" ]; } ||
    [ -S /run/dtraced/dtraced.sock ]; then
	echo "1..0 # SKIP dtraced is installed or running here already"
	exit 0
fi
# hasgroup NAME: there is a group NAME
hasgroup()
{
	getent group "$1" >/dev/null
}
# nogroup NAME: there is no group NAME
nogroup()
{
	! getent group "$1" >/dev/null
}
hadgroup=0
getent group dtrace >/dev/null && hadgroup=1

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\.||' |
    grep -v '/$' >"$tmp/files"
# systemtap-sdt-dev's dtrace, if it is here: its checksum
stap=
if dpkg-query -W -f='${Status}' systemtap-sdt-dev 2>/dev/null |
    grep -q 'ok installed' && [ -f /usr/bin/dtrace ]; then
	stap=$(md5sum </usr/bin/dtrace)
fi
dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1
check "dpkg -i" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/dpkg.log"
if [ -n "$stap" ]; then
	check "systemtap-sdt-dev's dtrace is moved aside, as dtrace.systemtap" \
	    [ "$(md5sum </usr/bin/dtrace.systemtap 2>/dev/null)" = "$stap" ]
	check "systemtap-sdt-dev's dtrace(1) is moved aside" \
	    [ -f /usr/share/man/man1/dtrace.systemtap.1.gz ]
	check "/usr/bin/dtrace is ours" \
	    sh -c "/usr/bin/dtrace -V | grep -q 'Sun D'"
fi
bad=0
while read -r f; do
	[ -e "$f" ] || { echo "# missing: $f"; bad=$((bad + 1)); }
done <"$tmp/files"
check "every file of the package is installed" [ "$bad" -eq 0 ]
for f in /usr/bin/dtrace /usr/sbin/dtraced /lib/systemd/system/dtraced.socket \
    /lib/systemd/system/dtraced.service /usr/share/man/man8/dtraced.8.gz \
    /usr/share/bash-completion/completions/dtrace \
    /etc/dtraced/oncpu.d.example; do
	check "the package has $f" grep -qx "$f" "$tmp/files"
done
check "group dtrace exists" hasgroup dtrace
check "the socket is given to group dtrace" \
    grep -qx 'SocketGroup=dtrace' \
    /lib/systemd/system/dtraced.socket.d/group.conf
check "the socket unit is enabled" \
    [ -L /etc/systemd/system/sockets.target.wants/dtraced.socket ]

# -- the daemon, started as its units say
listen=$(sed -n 's/^ListenStream=//p' /lib/systemd/system/dtraced.socket)
exec=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/dtraced.service)
rdir=$(sed -n 's/^RuntimeDirectory=//p' /lib/systemd/system/dtraced.service)
rmode=$(sed -n 's/^RuntimeDirectoryMode=//p' \
    /lib/systemd/system/dtraced.service)
check "the units name a socket and a command" [ -n "$listen" ] && \
    [ -n "$exec" ]
mkdir -p "/run/$rdir"
chmod "${rmode:-0755}" "/run/$rdir"
# a fleet's set-up: a program to retain and export, a metrics address
mport=$((20000 + $$ % 30000))
while [ -n "$(ss -Hltn "sport = :$mport" 2>/dev/null)" ]; do
	mport=$((mport + 1))
done
printf 'metrics 127.0.0.1:%s\n' "$mport" >/etc/dtraced/dtraced.conf
printf '%s\n' '#pragma D option export' 'tick-10ms { @ticks = count(); }' \
    'tick-10ms /++i == 100/ { exit(0); }' >/etc/dtraced/fleet.d
# shellcheck disable=SC2086
systemd-socket-activate -l "$listen" $exec 2>"$tmp/daemon.log" &
apid=$!
waitfor [ -S "$listen" ]
check "the socket listens at $listen" [ -S "$listen" ]
# the installed dtrace, with no socket named: the system daemon's
env -u DTRACED_SOCKET -u _DTRACE_TESTING timeout -k 10 60 /usr/bin/dtrace \
    -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "dtrace -n 'BEGIN { exit(0); }' exits 0" [ $? -eq 0 ] ||
    sed 's/^/# /' "$tmp/err" "$tmp/daemon.log"
check "it matched BEGIN" grep -q "^dtrace: description 'BEGIN ' matched 1 probe" \
    "$tmp/err"
env -u DTRACED_SOCKET -u _DTRACE_TESTING timeout -k 10 60 /usr/bin/dtrace \
    -q -n 'BEGIN { printf("%d\n", 6 * 7); exit(0); }' >"$tmp/out" 2>&1
same "$tmp/out" "42

" "the installed daemon runs the program"
check "the socket-activated daemon is the installed one" \
    [ "$(readlink "/proc/$apid/exe")" = /usr/sbin/dtraced ]
# fleet.d was retained when the daemon started, and stops at 100 ticks
stopped()
{
	env -u DTRACED_SOCKET -u _DTRACE_TESTING timeout -k 10 60 \
	    /usr/bin/dtrace -a -l 2>/dev/null | grep -q '^fleet .* stopped '
}
i=0
until stopped || [ $i -ge 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "/etc/dtraced/fleet.d is retained, and stopped at 100 ticks" stopped
timeout -k 10 30 curl -sf "http://127.0.0.1:$mport/metrics" >"$tmp/metrics"
check "dtraced.conf's metrics address is served" [ $? -eq 0 ] ||
    sed 's/^/# /' "$tmp/daemon.log"
check "it serves fleet's aggregation: 100 ticks" \
    grep -qx 'dtrace_fleet_ticks_total 100' "$tmp/metrics"
rm -f /etc/dtraced/dtraced.conf /etc/dtraced/fleet.d
kill -TERM "$apid"
wait "$apid"
check "the daemon exits 0 on SIGTERM" [ $? -eq 0 ]
rm -f "$listen"
rmdir "/run/$rdir" 2>/dev/null

# -- purge: nothing left
dpkg --purge dtraced >"$tmp/purge.log" 2>&1
check "dpkg --purge" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/purge.log"
left=0
while read -r f; do
	# (systemtap-sdt-dev's dtrace and page, put back, are not ours)
	[ -e "$f" ] && ! dpkg -S "$f" >/dev/null 2>&1 &&
	    { echo "# left: $f"; left=$((left + 1)); }
done <"$tmp/files"
check "no file of the package is left" [ "$left" -eq 0 ]
if [ -n "$stap" ]; then
	check "systemtap-sdt-dev's dtrace is back where it was" \
	    [ "$(md5sum </usr/bin/dtrace 2>/dev/null)" = "$stap" ]
	check "and nothing is left aside" [ ! -e /usr/bin/dtrace.systemtap ] &&
	    [ ! -e /usr/share/man/man1/dtrace.systemtap.1.gz ]
	check "no diversion is left" \
	    sh -c "! dpkg-divert --list | grep -q dtraced"
fi
check "/etc/dtraced is gone" [ ! -e /etc/dtraced ]
check "/var/lib/dtraced is gone" [ ! -e /var/lib/dtraced ]
check "the socket unit's enabling is gone" \
    [ ! -e /etc/systemd/system/sockets.target.wants/dtraced.socket ]
if [ "$hadgroup" -eq 0 ]; then
	check "the group the package made is gone" nogroup dtrace
else
	check "the group that was here before stays" hasgroup dtrace
fi
check "dpkg knows nothing of dtraced" \
    [ -z "$(dpkg-query -W -f='${Status}' dtraced 2>/dev/null)" ]
done_testing
