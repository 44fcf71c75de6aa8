#!/bin/sh
# pidreuse.sh: a pid names another process once its own has been reaped
# (pids wrap, at 32768 by default), and a daemon that still holds the
# first one (its consumer traces on) must keep the two apart: the new
# process is grabbed for a record of its own, and its exec is not taken
# for the first one's.  The script runs in a pid namespace of its own,
# where nothing else takes pids and the next one can be chosen
# (ns_last_pid); the daemon runs there as in a container, whose thread
# numbers are not the kernel's (the uprobe backend's BPF programs must
# number them as the daemon does).
if [ -z "$PIDREUSE_NS" ]; then
	if ! unshare -fp --mount-proc true 2>/dev/null; then
		echo "1..0 # SKIP no pid namespace (unshare -p) here"
		exit 0
	fi
	PIDREUSE_NS=1 exec unshare -fp --mount-proc sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# A calls f until SIGTERM; B keeps consumer 1 going once A is gone
"$TRIGGERS/loop" spin >/dev/null &
apid=$!
"$TRIGGERS/loop" spin >/dev/null &
bpid=$!
# D makes a USDT probe fire every 10 ms until SIGUSR1
"$TRIGGERS/sdt" 1 watch >"$tmp/d.out" &
upid=$!
waitfor grep -q watching "$tmp/d.out"

# consumer 1 traces A and D under the uprobe backend, whose exec watch
# knows each by its pid; A never calls getppid()
"$DTRACE" -x socket="$sock" -x backend=uprobe -q -p "$apid" -p "$bpid" \
    -p "$upid" -n "
pid$apid:a.out:f:entry { @f[pid, tid] = count(); }
pid$apid:a.out:f:entry /!seen/ { seen = 1; printf(\"A seen\n\"); }
pid$apid:libc.so.6:getppid:entry { @g = count(); }
trig$upid:::guarded { @d = count(); }
END { printa(\"f %d %d %@d\n\", @f); printa(\"getppid %@d\n\", @g);
    printa(\"guarded %@d\n\", @d); }" \
    >"$tmp/c1.out" 2>"$tmp/c1.err" &
c1=$!
waitfor grep -q "A seen" "$tmp/c1.out"
check "consumer 1 is tracing A" grep -q "A seen" "$tmp/c1.out"
kill -TERM "$apid"
wait "$apid"
check "A exits 0" [ $? -eq 0 ]
# the daemon is done with A (its threads, which take pids too, are gone)
waitfor grep -q "pid $apid has exited" "$tmp/c1.err"

# C takes A's pid (the namespace's next pid is chosen), execs spin and
# calls getppid() until SIGTERM
echo $((apid - 1)) >/proc/sys/kernel/ns_last_pid
"$TRIGGERS/spin" sys &
cpid=$!
check "C has A's pid" [ "$cpid" -eq "$apid" ]
waitfor sh -c "readlink /proc/$cpid/exe | grep -q spin"

# consumer 2 grabs C: not the daemon's record of A, which exited
dtrace -q -p "$cpid" -n 'pid$target:libc.so.6:getppid:entry /++n == 1000/
{ printf("1000 calls\n"); exit(0); }' >"$tmp/c2.out" 2>"$tmp/c2.err"
check "consumer 2 exits 0" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/c2.err"
same "$tmp/c2.out" "1000 calls

" "consumer 2 traces C"
kill -TERM "$cpid"
wait "$cpid"
check "C exits 0" [ $? -eq 0 ]

# the same for USDT probes: D, traced by consumer 1 with its
# semaphore'd probe enabled, ends; E takes its pid, and consumer 1 must
# neither fire in E nor hold E's semaphore
kill -USR1 "$upid"
wait "$upid"
check "D exits 0" [ $? -eq 0 ]
waitfor grep -q "pid $upid has exited" "$tmp/c1.err"
echo $((upid - 1)) >/proc/sys/kernel/ns_last_pid
"$TRIGGERS/sdt" 1 watch >"$tmp/e.out" &
epid=$!
check "E has D's pid ($epid, $upid)" [ "$epid" -eq "$upid" ]
waitfor grep -q watching "$tmp/e.out"
dtrace -q -p "$epid" -n 'trig$target:::round /++n == 20/
{ printf("20 rounds\n"); exit(0); }' >"$tmp/c3.out" 2>"$tmp/c3.err"
check "consumer 3 exits 0" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/c3.err"
same "$tmp/c3.out" "20 rounds

" "consumer 3 traces E's USDT probes"
kill -USR1 "$epid"
wait "$epid"
check "E exits 0" [ $? -eq 0 ]
same "$tmp/e.out" "guarded ran 0, semaphore 0
watching
semaphore 0, text intact
" "E: its semaphore is 0 once consumer 3 is gone, its text intact"

# consumer 1 traced A and D alone: C's exec and getppid() calls were not
# A's
kill -TERM "$bpid"
wait "$bpid"
wait "$c1"
check "consumer 1 exits 0" [ $? -eq 0 ] || sed "s/^/# /" "$tmp/c1.err"
sed "s/^/# c1: /" "$tmp/c1.out" "$tmp/c1.err"
# as the daemon's namespace numbers A (one thread: its tid is its pid)
check "consumer 1 counted A's f" grep -q "^f $apid $apid [1-9]" "$tmp/c1.out"
n=$(grep -c getppid "$tmp/c1.out")
check "consumer 1 counted nothing of C ($n)" [ "$n" -eq 0 ]
lost=0
grep -q "exec of set-id" "$tmp/c1.err" && lost=1
check "consumer 1 was not told of an exec" [ $lost -eq 0 ]

stop_daemon TERM
check "daemon exits 0 ($dstatus)" [ "$dstatus" -eq 0 ]
done_testing
