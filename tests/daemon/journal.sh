#!/bin/sh
# Logging to the systemd journal: when $JOURNAL_STREAM names dtraced's
# stderr (as systemd sets it for the unit's dtraced -d), every line
# starts with its syslog priority, which journald takes as the entry's
# (<2> critical, <4> warning, <6> information); otherwise lines start
# with "dtraced: ".  PID 1 need not be systemd: the test makes the
# stream a file and names it.
. "$(dirname "$0")/lib.sh"

: >"$tmp/err"
js=$(stat -c '%d:%i' "$tmp/err")

# a fatal error: the runtime directory cannot be made
JOURNAL_STREAM=$js "$DTRACED" -d -s "$tmp/no/such/dir/sock" 2>>"$tmp/err"
check "a fatal error: exit 1" [ $? -eq 1 ]
check "a fatal error is priority 2 (critical)" \
    grep -q '^<2>dtd_control_rundir: mkdir .*: No such file or directory$' \
    "$tmp/err" || sed 's/^/# /' "$tmp/err"

# information (-v) and a warning (a client that sends garbage)
: >"$tmp/err"
JOURNAL_STREAM=$js "$DTRACED" -d -v -s "$sock" 2>>"$tmp/err" &
dpid=$!
waitfor [ -S "$sock" ]
check "daemon starts" [ -S "$sock" ]
"$TRIGGERS/sockpoke" "$sock" badversion \
    >/dev/null 2>&1
dtrace -q -n 'BEGIN { exit(0); }' >/dev/null 2>&1
stop_daemon
check "information is priority 6" grep -q '^<6>dtd_control_open: listening on ' \
    "$tmp/err" || sed 's/^/# /' "$tmp/err"
check "a warning is priority 4" grep -q '^<4>' "$tmp/err" ||
    sed 's/^/# /' "$tmp/err"
check "every line has a priority" [ "$(grep -vc '^<[0-7]>' "$tmp/err")" -eq 0 ] ||
    sed 's/^/# /' "$tmp/err"

# not the journal's stream: our name, no priority
: >"$tmp/err2"
JOURNAL_STREAM=$js "$DTRACED" -d -s "$tmp/no/such/dir/sock" 2>>"$tmp/err2"
check "stderr another file: lines start with dtraced:" \
    grep -q '^dtraced: dtd_control_rundir: ' "$tmp/err2"
: >"$tmp/err3"
"$DTRACED" -d -s "$tmp/no/such/dir/sock" 2>>"$tmp/err3"
check "no JOURNAL_STREAM: lines start with dtraced:" \
    grep -q '^dtraced: dtd_control_rundir: ' "$tmp/err3"
done_testing
