#!/bin/sh
# The syscall provider: syscall::NAME:entry and :return of every process,
# captured by BPF programs on the system call tracepoints and fired after
# the call in the calling thread's context.  Exact counts per thread,
# arguments at entry, the C library's return value and errno at return,
# the memory a call names (copied at the call: the trigger is gone when
# most of its hits fire), the user stack, the process's name for a thread
# that renamed itself, and nothing of the daemon's own calls.  The traced program runs as it would untraced.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# BPF programs need root (or CAP_BPF and CAP_PERFMON)
if ! dtrace -q -n 'syscall::getppid:entry { exit(0); }' \
    -c "$TRIGGERS/syscaller 1" >/dev/null 2>"$tmp/err"; then
	sed "s/^/# /" "$tmp/err"
	ok "# SKIP no system call capture here"
	check "daemon stops" stop_daemon
	done_testing
	exit 0
fi

cat >"$tmp/sys.d" <<'D'
syscall::getppid:entry
/pid == $target/
{
	/* the worker named itself syscaller-w: execname is the process's */
	@n[strjoin(tid == pid ? "getppid main " : "getppid thread ",
	    execname)] = count();
}

syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/nonexistent/syscaller"/
{
	self->missing = 1;
	@n[(int)arg0 == -100 ? "openat AT_FDCWD" : "openat other"] = count();
}

syscall::openat:return
/self->missing/
{
	@r["openat", (int64_t)arg0, (int64_t)arg1, errno] = count();
	self->missing = 0;
}

syscall::write:entry
/pid == $target && arg0 > 2/
{
	@w[execname, copyinstr(arg1, arg2), arg2] = count();
}

syscall::write:return
/pid == $target && arg0 == 9/
{
	@r["write", (int64_t)arg0, (int64_t)arg1, errno] = count();
}

END
{
	printa("%s %@d\n", @n);
	printa("%s %d %d %d %@d\n", @r);
	printa("%s %s %d %@d\n", @w);
}
D
dtrace -q -o "$tmp/out" -c "$TRIGGERS/syscaller 1000" -s "$tmp/sys.d" \
    >"$tmp/tout" 2>"$tmp/err"
check "exit 0" [ $? -eq 0 ]
same "$tmp/tout" "1000
" "the target ran as untraced"
same "$tmp/out" "getppid main syscaller 1000
getppid thread syscaller 1000
openat AT_FDCWD 1000
openat -1 -1 2 1000
write 9 9 0 1000
syscaller syscaller 9 1000

" "counts per thread, arguments, return values and errno, exact"
check "no error reported" [ ! -s "$tmp/err" ] || sed "s/^/# /" "$tmp/err"

# the user stack at the call: main() called getppid() through syscall();
# the trigger lingers, for its hits to be fired while it lives
dtrace -q -c "$TRIGGERS/syscaller 100 -1 500" -n '
syscall::getppid:entry /pid == $target && tid == pid/ { @[ustack()] = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "ustack(): exit 0" [ $? -eq 0 ]
frame='syscaller`main+0x'
check "ustack(): one stack, through main, 100 times" \
    [ "$(grep -cF "$frame" "$tmp/out")" -eq 1 -a \
    "$(grep -c '^  *100$' "$tmp/out")" -eq 1 ] || sed "s/^/# /" "$tmp/out"

# the daemon's own calls are not shown (it reads the ring with them)
dtrace -q -n "syscall:::entry /pid == $dpid/ { @ = count(); }
    tick-200ms { exit(0); } END { printa(\"%@d\\n\", @); }" \
    >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "
" "no call of the daemon's own"

# every process: without -p or -c, the calls of a process nobody named
# (it waits on a FIFO until tracing is on)
mkfifo "$tmp/go"
"$TRIGGERS/syscaller" 50 3 3<"$tmp/go" >/dev/null &
spid=$!
: >"$tmp/out"
dtrace -q -n "BEGIN { printf(\"ready\n\"); }
    syscall::getppid:entry /pid == $spid/ { @ = count(); }
    tick-5s { exit(0); } END { printa(\"%@d\n\", @); }" \
    >"$tmp/out" 2>"$tmp/err" &
dt=$!
waitready "$tmp/out"
echo go >"$tmp/go"
wait $spid
wait $dt
same "$tmp/out" "ready
100

" "a process nobody named: both threads' calls, exact"

# a path in a page the program has not touched yet is not in memory at
# the call's entry: the entry fires with the copy its return made (the
# program is gone when the probes fire: read live, it would fault)
printf '/nonexistent/first-touch' >"$tmp/pathfile"
dtrace -q -n 'syscall::openat:entry /pid == $target/ {
	printf("[%s]\n", copyinstr(arg1)); }' \
    -c "$TRIGGERS/firsttouch $tmp/pathfile" >"$tmp/out" 2>"$tmp/err"
check "openat:entry: a path first touched by the call" \
    grep -qx '\[/nonexistent/first-touch\]' "$tmp/out"
check "openat:entry: no fault" [ ! -s "$tmp/err" ] ||
    sed 's/^/# /' "$tmp/err"

# who sees what: a user's consumer sees the calls of its own processes,
# not root's, nor those of a set-uid root program the user runs (all
# wait on a FIFO until tracing is on, and are gone when most of their
# calls fire: judged by their credentials at the call)
if find_test_user; then
	chmod 666 "$sock"	# the test user is not in group dtrace
	mkfifo -m 666 "$tmp/go2"
	cp "$TRIGGERS/syscaller" "$tmp/suid" && chown root:root "$tmp/suid" &&
	    chmod 4755 "$tmp/suid"
	"$TRIGGERS/syscaller" 30 3 3<"$tmp/go2" >/dev/null &
	rp=$!
	as "$TRIGGERS/syscaller" 40 3 3<"$tmp/go2" >/dev/null &
	up=$!
	as "$tmp/suid" 25 3 3<"$tmp/go2" >/dev/null &
	sp=$!
	cat >"$tmp/who.d" <<'D'
BEGIN { printf("ready\n"); }
syscall::getppid:entry /execname == "syscaller" || execname == "suid"/
{
	@[uid == 0 ? "root" : "user"] = count();
}
tick-5s { exit(0); }
END { printa("%s %@d\n", @); }
D
	chmod 644 "$tmp/who.d"
	: >"$tmp/out"
	: >"$tmp/rout"
	udtrace -q -s "$tmp/who.d" >"$tmp/out" 2>"$tmp/err" &
	dt=$!
	dtrace -q -s "$tmp/who.d" >"$tmp/rout" 2>"$tmp/rerr" &
	rdt=$!
	waitready "$tmp/out" "$tmp/rout"
	echo go >"$tmp/go2"
	wait $rp
	wait $up
	wait $sp
	wait $dt
	wait $rdt
	same "$tmp/rout" "ready
root 60
user 130

" "root's consumer: every process's calls, the set-uid one's too"
	same "$tmp/out" "ready
user 80

" "a user's consumer: its own process's calls, not root's nor set-uid's"
	check "a user's consumer: no error" [ ! -s "$tmp/err" ] ||
	    sed "s/^/# /" "$tmp/err"
else
	ok "# SKIP $why"
	ok "# SKIP $why"
	ok "# SKIP $why"
fi

check "daemon stops" stop_daemon
done_testing
