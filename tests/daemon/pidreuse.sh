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

# consumer 1 traces A under the uprobe backend, whose exec watch knows A
# by its pid; A never calls getppid()
"$DTRACE" -x socket="$sock" -x backend=uprobe -q -p "$apid" -p "$bpid" \
    -n "BEGIN { printf(\"ready\n\"); }
pid$apid:a.out:f:entry { @f[pid, tid] = count(); }
pid$apid:libc.so.6:getppid:entry { @g = count(); }
END { printa(\"f %d %d %@d\n\", @f); printa(\"getppid %@d\n\", @g); }" \
    >"$tmp/c1.out" 2>"$tmp/c1.err" &
c1=$!
waitfor grep -q ready "$tmp/c1.out"
check "consumer 1 is tracing" grep -q ready "$tmp/c1.out"
kill -TERM "$apid"
wait "$apid"
check "A exits 0" [ $? -eq 0 ]

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

# consumer 1 traced A alone: C's exec and getppid() calls were not A's
kill -TERM "$bpid"
wait "$bpid"
wait "$c1"
check "consumer 1 exits 0" [ $? -eq 0 ] || sed "s/^/# /" "$tmp/c1.err"
# as the daemon's namespace numbers A (one thread: its tid is its pid)
check "consumer 1 counted A's f" grep -q "^f $apid $apid [1-9]" "$tmp/c1.out"
n=$(grep -c getppid "$tmp/c1.out")
check "consumer 1 counted nothing of C ($n)" [ "$n" -eq 0 ]
lost=0
grep -q "exec of set-id" "$tmp/c1.err" && lost=1
check "consumer 1 was not told of an exec" [ $lost -eq 0 ]

stop_daemon TERM
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
