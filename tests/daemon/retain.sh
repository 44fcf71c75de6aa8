#!/bin/sh
# retain.sh: retained programs, a flight recorder in the daemon.  A ring
# recorder left running on a trigger that counts its calls (loop spin:
# f(i), i = 0, 1, 2 ...): a snapshot mid-way shows only the newest
# records and leaves it running, the claim shows the newest records and
# aggregations that lost nothing, stops it and restores the trigger's
# text; a switch recorder on a target that exits keeps its data and the
# exact drop count; a recorder follows its target across exec; programs
# of the configuration directory are retained at start; names clash and
# bad names get clear errors; another user sees nothing of root's and is
# limited in number; SIGTERM takes every retained probe out.  Records land in the buffer of the target's CPU:
# the targets run on CPU 0 (taskset) so one ring holds them all.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

if ! command -v taskset >/dev/null 2>&1; then
	echo "1..0 # SKIP taskset not found"
	exit 0
fi

# the configuration directory: one good program, one that does not
# compile, one whose name is not a valid program name
mkdir "$tmp/conf"
cat >"$tmp/conf/boot.d" <<'EOF'
#pragma D option quiet
BEGIN { booted = 1; }
tick-10ms /++i == 5/ { printf("booted %d, %d ticks\n", booted, i); exit(3); }
EOF
echo 'BEGIN { x = ; }' >"$tmp/conf/broken.d"
echo 'BEGIN { }' >"$tmp/conf/bad name.d"
chmod 644 "$tmp/conf"/*

check "daemon starts with -D" start_daemon -D "$tmp/conf"

# listed NAME: NAME's line of dtrace -a -l
listed()
{
	dtrace -a -l 2>/dev/null | awk -v n="$1" '$1 == n'
}

stopped_boot()
{
	listed boot | grep -q ' stopped '
}

# --- programs of the configuration directory, retained at start
check "boot.d is retained, and stopped itself with exit()" \
    waitfor stopped_boot
dtrace -a boot >"$tmp/out" 2>"$tmp/err"
check "claim boot: exit(3)'s status" [ $? -eq 3 ]
same "$tmp/out" "booted 1, 5 ticks

" "claim boot: the record of the fifth tick, as dtrace prints it"
check "claimed: boot is no longer listed" [ -z "$(listed boot)" ]
check "broken.d: not retained" [ -z "$(listed broken)" ]
check "broken.d: the daemon says dtrace failed" \
    grep -q "broken: dtrace exited with status 1" "$tmp/dtraced.log"
check "broken.d: and logs why" grep -q \
    "broken: dtrace: failed to compile script .*broken.d: line 1: syntax error" \
    "$tmp/dtraced.log"
check "bad name.d: skipped with a reason" \
    grep -q '"bad name" is not a valid program name, skipped' \
    "$tmp/dtraced.log"

# --- a ring recorder on a running trigger
taskset -c 0 "$TRIGGERS/loop" spin >"$tmp/spin.out" &
lpid=$!
waitfor spinning $lpid
dtrace -x retain=rec -x bufpolicy=ring -x bufsize=2400 -q -p $lpid -n '
pid$target:a.out:f:entry { printf("%d\n", arg0); @n = count(); @lo = min(arg0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "retain rec: exit 0" [ $? -eq 0 ]
same "$tmp/err" "" "retain rec: quiet, nothing said"
sleep 1
set -- $(listed rec)
check "-a -l: rec, root's, active, ring of 2400 bytes, no drops, the target" \
    [ "$1 $2 $3 $4 $5 $6 $7 $8" = "rec 0 active ring 2400 4m 0 $lpid" ]
dtrace -x oformat=json -a -l 2>/dev/null | grep -F '"name":"rec"' \
    >"$tmp/jl"
same "$tmp/jl" "{\"type\":\"retained\",\"name\":\"rec\",\"uid\":0,\
\"state\":\"active\",\"policy\":\"ring\",\"bufsize\":2400,\
\"aggsize\":4194304,\"drops\":0,\"errors\":0,\
\"targets\":[{\"pid\":$lpid,\"exited\":0}]}
" "-a -l under oformat=json: rec as one JSON line"
check "rec's probes are in the trigger" \
    sh -c "! '$TRIGGERS/textcmp' $lpid >/dev/null 2>&1"

# ring OUT: the records (20 bytes each, a 12-byte header and arg0: 120
# fit in 2400) are consecutive
# sequence numbers; prints "count first last n lo" (n, lo: the
# aggregations that follow the records)
ring()
{
	awk 'BEGIN { ok = 1; part = 0 }
	/^$/ { part = 1; next }
	part == 0 { if (c > 0 && $1 != last + 1) ok = 0
		if (c == 0) first = $1; last = $1; c++; next }
	part == 1 { agg[na++] = $1 }
	END { print (ok ? c : -1), first, last, agg[0], agg[1] }' "$1"
}

dtrace -a -x grab=snapshot rec >"$tmp/snap1" 2>"$tmp/err"
check "snapshot: exit 0" [ $? -eq 0 ]
set -- $(ring "$tmp/snap1")
check "snapshot: only the newest 120 records, oldest first ($1 records)" \
    [ "$1" = 120 ]
check "snapshot: the ring wrapped, older records are gone ($2 > $5)" \
    [ "$2" -gt "$5" ]
check "snapshot: the aggregations so far ($4 >= $3 - $5 + 1)" \
    [ "$4" -ge $(($3 - $5 + 1)) ]
s1last=$3
sleep 0.5
dtrace -a -x grab=snapshot rec >"$tmp/snap2" 2>"$tmp/err"
set -- $(ring "$tmp/snap2")
check "a snapshot leaves it running: newer records ($3 > $s1last)" \
    [ "$1" = 120 ] && [ "$3" -gt "$s1last" ]
s2last=$3
check "still listed after snapshots" [ -n "$(listed rec)" ]
sleep 0.2

dtrace -a rec >"$tmp/claim" 2>"$tmp/err"
check "claim rec: exit 0" [ $? -eq 0 ]
set -- $(ring "$tmp/claim")
check "claim: the newest 120 records ($1), newer than the snapshots'" \
    [ "$1" = 120 ] && [ "$3" -gt "$s2last" ]
check "claim: snapshots consumed nothing: count = last - first + 1 ($4)" \
    [ "$4" -eq $(($3 - $5 + 1)) ]
check "claimed: rec is no longer listed" [ -z "$(listed rec)" ]
check "claimed: the trigger's text is restored" "$TRIGGERS/textcmp" $lpid
dtrace -a rec >"$tmp/out" 2>"$tmp/err"
check "claim rec again: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to claim retained program rec: no retained program named rec
" "claim rec again: no such program"
kill -TERM $lpid
wait $lpid
check "the trigger was not harmed: exit 0" [ $? -eq 0 ]
same "$tmp/spin.out" "spun well
" "the trigger's every call returned the right value"

# --- a switch recorder on a target that exits: data and exact drops
taskset -c 0 timeout -k 10 60 "$DTRACE" -x socket="$sock" \
    -x retain=sw -x bufsize=1200 -q -c "$TRIGGERS/loop 300" -n '
pid$target:a.out:f:entry { printf("%d\n", arg0); @calls = count(); }' \
    >"$tmp/c.out" 2>"$tmp/err"
check "retain sw with -c: exit 0" [ $? -eq 0 ]
exited_sw()
{
	listed sw | grep -q '(exited)$'
}
check "the target exits; sw stays, with its target marked" waitfor exited_sw
set -- $(listed sw)
check "-a -l: sw: switch, 1200 bytes, 240 drops (60 of 300 records fit)" \
    [ "$1 $3 $4 $5 $7" = "sw active switch 1200 240" ]
dtrace -a >"$tmp/out" 2>"$tmp/err"
check "claim the only one (no name): exit 0" [ $? -eq 0 ]
same "$tmp/out" "$(seq 0 59)

              300
" "claim sw: the first 60 records, all 300 counted"
same "$tmp/err" "dtrace: 240 drops on CPU 0
" "claim sw: the drop count, exactly"
waitfor [ -s "$tmp/c.out" ]
same "$tmp/c.out" "sum=90000
" "the -c target ran to its end untouched"

# --- exec with no client: the probes follow the target into new images
dtrace -x retain=ex -q \
    -c "$TRIGGERS/execer 3 $TRIGGERS/execer 4 $TRIGGERS/loop 5" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/c.out" 2>"$tmp/err"
check "retain ex with -c: exit 0" [ $? -eq 0 ]
exited_ex()
{
	listed ex | grep -q '(exited)$'
}
check "the target execs twice and exits; ex stays" waitfor exited_ex
dtrace -a ex >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "
               12
" "claim ex: f:entry fired 3 + 4 + 5 times over two execs"
same "$tmp/c.out" "execer sum=15
execer sum=30
sum=25
" "the execs' output is untouched"

# --- names
dtrace -x retain=t1 -n 'tick-1s { }' >"$tmp/out" 2>"$tmp/err"
check "retain t1: exit 0" [ $? -eq 0 ]
same "$tmp/err" "dtrace: description 'tick-1s ' matched 1 probe
dtrace: program retained by dtraced as t1; claim it with dtrace -a t1
" "retain t1: says how to claim it"
dtrace -x retain=t1 -n 'tick-1s { }' >"$tmp/out" 2>"$tmp/err"
check "retain t1 twice: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: description 'tick-1s ' matched 1 probe
dtrace: could not enable tracing: a retained program named t1 already exists
" "retain t1 twice: the name is taken"
check "the clash left t1 alone" [ -n "$(listed t1)" ]
dtrace -x retain=t2 -n 'tick-1s { }' >/dev/null 2>&1
dtrace -a >"$tmp/out" 2>"$tmp/err"
check "claim with no name among two: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to claim a retained program: 2 retained programs: name the one to claim (dtrace -a -l lists them)
" "claim with no name among two: name one"
for bad in 'a/b' '.hidden' '-x' '' \
    'a123456789012345678901234567890123456789012345678901234567890123'; do
	dtrace -x retain="$bad" -n 'tick-1s { }' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	same "$tmp/err" "dtrace: failed to set -x retain: Invalid value for specified option
" "retain=\"$bad\": a bad name is refused (exit $rc)"
done
dtrace -a 'a/b' >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: failed to claim retained program a/b: invalid retained program name \"a/b\"
" "-a a/b: a bad name is refused"
dtrace -a -n BEGIN >"$tmp/out" 2>"$tmp/err"
check "-a with a probe description: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: -a: Can't claim anonymous state and enable probes
" "-a with a probe description: refused"
dtrace -a -x grab=bogus >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: failed to set -x grab: Invalid value for specified option
" "-x grab=bogus: refused"
if [ ! -S /run/dtraced/dtraced.sock ]; then
	DTRACED=$DTRACED timeout -k 10 60 "$DTRACE" -x retain=p -n 'tick-1s { }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "a private daemon cannot retain: exit 1" [ $? -eq 1 ]
	check "a private daemon cannot retain: says why" grep -q \
	    "^dtrace: could not enable tracing: retained programs need a shared dtraced" \
	    "$tmp/err"
fi

# --- another user: sees nothing of root's, has its own, and a limit
user=dtracetest
if find_test_user; then
	chmod 666 "$sock"
	udtrace -a -l >"$tmp/out" 2>"$tmp/err"
	same "$tmp/out" "NAME                    UID STATE    POLICY BUFSIZE AGGSIZE      DROPS TARGETS
" "$user lists none of root's programs"
	udtrace -a t1 >"$tmp/out" 2>"$tmp/err"
	same "$tmp/err" "dtrace: failed to claim retained program t1: no retained program named t1
" "$user cannot claim root's t1"
	udtrace -a -x grab=snapshot t1 >"$tmp/out" 2>"$tmp/err"
	check "$user cannot take a snapshot of root's t1" [ $? -eq 1 ]
	n=1
	while [ $n -le 8 ]; do
		udtrace -q -x retain=u$n -n 'tick-1s { }' >/dev/null 2>&1 || break
		n=$((n + 1))
	done
	check "$user retains 8 programs" [ $n -eq 9 ]
	udtrace -q -x retain=u9 -n 'tick-1s { }' >"$tmp/out" 2>"$tmp/err"
	same "$tmp/err" "dtrace: could not enable tracing: too many retained programs for uid $uid (at most 8)
" "$user: the ninth is refused"
	set -- $(listed u1)
	check "root sees $user's u1, owned by uid $uid" [ "$2" = "$uid" ]
	udtrace -a u1 >/dev/null 2>&1
	check "$user claims its own u1" [ $? -eq 0 ]
	dtrace -a u2 >/dev/null 2>&1
	check "root may claim $user's u2" [ $? -eq 0 ]
	check "$user's claimed programs are gone" \
	    [ -z "$(listed u1)" ] && [ -z "$(listed u2)" ]
else
	ok "# SKIP another user: $why"
fi

# --- SIGTERM: every retained probe comes out
taskset -c 0 "$TRIGGERS/loop" spin >"$tmp/spin.out" &
lpid=$!
waitfor spinning $lpid
dtrace -q -x retain=last -x bufpolicy=ring -p $lpid \
    -n 'pid$target:a.out:f:entry { trace(arg0); }' >/dev/null 2>&1
check "retain last: its probes are in" \
    sh -c "! '$TRIGGERS/textcmp' $lpid >/dev/null 2>&1"
stop_daemon TERM
check "daemon exits 0 on SIGTERM with retained programs" [ $dstatus -eq 0 ]
check "after SIGTERM the trigger's text is restored" \
    "$TRIGGERS/textcmp" $lpid
kill -TERM $lpid
wait $lpid
check "the trigger was not harmed" [ $? -eq 0 ]
same "$tmp/spin.out" "spun well
" "the trigger's every call returned the right value"

done_testing
