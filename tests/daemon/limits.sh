#!/bin/sh
# limits.sh: per-client and per-uid limits (dtraced -L).  A client over
# its limit of programs or enabled probes is refused at enabling, one
# over its buffer memory has its buffers lowered (bufresize=auto) or is
# refused (manual), each with dtrace's message and exit 1; what a uid's
# retained program holds counts against that uid until it is claimed;
# a refused client leaves nothing charged; root is exempt.  The limited
# client runs as the unprivileged user dtracetest when the test runs as
# root (skipped without useradd and setpriv), as the user otherwise.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

user=dtracetest
if [ "$(id -u)" -eq 0 ]; then
	test_user
else
	uid=$(id -u)
	udtrace()
	{
		dtrace "$@"
	}
fi

# Sizes: a principal buffer of the switch policy takes twice its size on
# each of the N CPUs, and the dynamic-variable space at most a quarter of
# what a client may take.  A client may have M = 8N + 2 megabytes: 1m of
# dynamic variables and 4m of buffer fit, 8m does not; a uid 10N + 2, so
# that after a retained 1m + 4m another client has 2N + 1 left.  dtrace
# sends a program of its own at GO (its ERROR reporter, one probe): a
# client with programs=3,probes=4 may send two programs and three probes.
n=$(getconf _NPROCESSORS_CONF)
mem=$((8 * n + 2))m
umem=$((10 * n + 2))m
held=$(((8 * n + 1) * 1048576))
lim=programs=3,probes=4,memory=$mem,user-programs=4,user-probes=6,user-memory=$umem
start_daemon -v -L "$lim" || { not_ok "daemon starts"; done_testing; }
chmod 666 "$sock"	# the test user is not in group dtrace

# the socket is there before the daemon logs that it is ready
check "daemon logs its limits" \
    waitfor grep -q "limits for users other than root: $lim,user-connections=64; for every client: output=16m,output-timeout=60\$" "$tmp/dtraced.log"

# expect NAME STATUS TEXT: the last run exited STATUS and said TEXT
expect()
{
	check "$1: exit $2" [ "$rc" -eq "$2" ]
	sed -i '/matched [0-9]* probe/d' "$tmp/err"
	if [ -n "$3" ]; then
		same "$tmp/err" "$3
" "$1: message"
	else
		same "$tmp/err" "" "$1: no message"
	fi
}

udtrace -n 'BEGIN{exit(0);}' -n 'BEGIN{}' -n 'END{}' -n 'ERROR{}' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "a fourth program" 1 "dtrace: failed to enable 'ERROR': too many programs: dtraced allows 3 per client"
udtrace -n 'BEGIN{exit(0);}' -n 'BEGIN{}' -n 'END{}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "three programs and dtrace's own" 1 "dtrace: could not enable tracing: too many programs: dtraced allows 3 per client"

udtrace -n 'BEGIN,END,ERROR{} tick-1s,tick-2s{}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "five enabled probes" 1 "dtrace: failed to enable 'BEGIN,END,ERROR': too many enabled probes: dtraced allows 4 per client"

udtrace -q -n 'BEGIN{exit(0);}' -n 'END,ERROR{printf("two programs, three probes\n");}' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "at the limits of programs and probes" 0 ""
same "$tmp/out" "two programs, three probes

" "at the limits of programs and probes: output"

udtrace -q -x bufresize=manual -x bufsize=4m -x dynvarsize=1m \
    -n 'BEGIN{printf("4m fits\n"); exit(0);}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "4m of buffer (manual)" 0 ""
same "$tmp/out" "4m fits

" "4m of buffer (manual): output"
udtrace -q -x bufresize=manual -x bufsize=8m -x dynvarsize=1m \
    -n 'BEGIN{exit(0);}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "8m of buffer (manual)" 1 "dtrace: could not enable tracing: Not enough space: dtraced allows $mem of buffers per client"
udtrace -q -x bufsize=8m -x dynvarsize=1m \
    -n 'BEGIN{printf("lowered\n"); exit(0);}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "8m of buffer (auto) is lowered" 0 "dtrace: buffer size lowered to 4m"
same "$tmp/out" "lowered

" "8m of buffer (auto): output"
udtrace -q -x bufsize=1m -x aggsize=4m -x bufresize=manual \
    -x dynvarsize=1m -n 'BEGIN{@ = count(); exit(0);}' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "1m of buffer and 4m of aggregation (manual)" 1 "dtrace: could not enable tracing: Not enough space: dtraced allows $mem of buffers per client"
udtrace -q -x bufresize=manual -x dynvarsize=$((4 * n + 1))m \
    -n 'BEGIN{exit(0);}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "a dynamic-variable space of half the limit (manual)" 1 "dtrace: could not enable tracing: Not enough space: dtraced allows $mem of buffers per client"

# per uid: a retained program holds 1m + 4m, two programs, four probes
udtrace -q -x bufresize=manual -x bufsize=4m -x dynvarsize=1m \
    -x retain=held -n 'BEGIN,END{} tick-1s{}' >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a retained program: exit 0" [ "$rc" -eq 0 ]
udtrace -q -x bufresize=manual -x bufsize=2m -x dynvarsize=512k \
    -n 'BEGIN{exit(0);}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "2m of buffer for the same uid (manual)" 1 "dtrace: could not enable tracing: Not enough space: dtraced allows $umem of buffers per user (uid $uid), in use by its other consumers: $held bytes"
udtrace -q -x bufsize=2m -x dynvarsize=512k \
    -n 'BEGIN{printf("auto\n"); exit(0);}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "2m of buffer for the same uid (auto) is lowered" 0 "dtrace: buffer size lowered to 1m"
udtrace -q -n 'BEGIN{exit(0);} END,ERROR{}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "three more probes for the same uid" 1 "dtrace: failed to enable 'BEGIN': too many enabled probes: dtraced allows 6 per user (uid $uid)"
udtrace -q -n 'BEGIN{exit(0);}' -n 'BEGIN{}' -n 'END{}' >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "three more programs for the same uid" 1 "dtrace: failed to enable 'END': too many programs: dtraced allows 4 per user (uid $uid)"

# root is exempt from every limit
if [ "$(id -u)" -eq 0 ]; then
	dtrace -q -x bufresize=manual -x bufsize=8m -n 'BEGIN,END{}' \
	    -n 'ERROR{}' -n 'tick-1s{}' \
	    -n 'BEGIN{printf("root\n"); exit(0);}' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect "root is exempt" 0 ""
else
	ok "# SKIP root is exempt: not run as root"
fi

udtrace -a held >"$tmp/out" 2>"$tmp/err"
rc=$?
check "the retained program is claimed" [ "$rc" -eq 0 ]
udtrace -q -x bufresize=manual -x bufsize=4m -x dynvarsize=1m \
    -n 'BEGIN{printf("released\n"); exit(0);}' -n 'END,ERROR{}' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "after the claim the uid has it all again" 0 ""
same "$tmp/out" "released

" "after the claim: output"

stop_daemon TERM
check "daemon exits 0 on SIGTERM" [ "$dstatus" -eq 0 ]
check "no bad message in the log" sh -c \
    "! grep -q 'malformed\|bad .* message' '$tmp/dtraced.log'"
done_testing
