#!/bin/sh
# The proc provider: processes and threads starting, exec'ing, taking
# signals and ending, fired after the fact from the kernel capture in
# the context of the task each event is of.  Exact counts for a trigger
# that makes each event a known number of times, the arguments (the
# child's psinfo_t, the exec path, the error, the exit reason, the
# signal and its target, the fault), and the trigger's own result
# unchanged.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# BPF programs need root (or CAP_BPF and CAP_PERFMON)
if ! dtrace -q -n 'proc:::exit /pid == $target/ { exit(0); }' \
    -c "$TRIGGERS/procer 1" >/dev/null 2>"$tmp/err"; then
	sed "s/^/# /" "$tmp/err"
	ok "# SKIP no process event capture here"
	check "daemon stops" stop_daemon
	done_testing
	exit 0
fi

cat >"$tmp/proc.d" <<'D'
proc:::create
/pid == $target/
{
	@n["create"] = count();
	@c["create: child's parent is the target"] =
	    sum(args[0]->pr_ppid == $target && args[0]->pr_pid != pid);
}

proc:::start
/ppid == $target/
{
	@n["start"] = count();
}

proc:::lwp-create
/pid == $target/
{
	@n["lwp-create"] = count();
	@c["lwp-create: same process, new thread"] =
	    sum(args[1]->pr_pid == pid && args[0]->pr_lwpid != tid);
}

proc:::lwp-start
/pid == $target/
{
	@n["lwp-start"] = count();
}

proc:::lwp-exit
/pid == $target/
{
	@n["lwp-exit"] = count();
}

proc:::exec
/ppid == $target/
{
	@s["exec", args[0]] = count();
}

proc:::exec-failure
/ppid == $target/
{
	@i["exec-failure", args[0]] = count();
}

proc:::exec-success
/ppid == $target/
{
	@s["exec-success", execname] = count();
	/* copied at the event: the process is gone when it fires */
	@s["exec-success args", curpsinfo->pr_psargs] = count();
}

proc:::exit
/pid == $target || ppid == $target/
{
	@i[pid == $target ? "exit of the target" : "exit of a child",
	    args[0]] = count();
}

proc:::signal-send
/pid == $target/
{
	@i["signal-send", args[2]] = count();
	/* its parent as it was: a killed child is gone when this fires */
	@c["signal-send: to a child"] = sum(args[1]->pr_ppid == pid &&
	    args[1]->pr_pid != pid && args[0]->pr_lwpid == args[1]->pr_pid &&
	    args[1]->pr_fname == "procer");
}

/* not SIGCHLD: the kernel discards those of the target's own threads */
proc:::signal-discard
/pid == $target && args[2] != 17/
{
	@i["signal-discard", args[2]] = count();
}

proc:::signal-handle
/ppid == $target/
{
	@i["signal-handle", args[0]] = count();
}

proc:::signal-clear
/pid == $target/
{
	@i["signal-clear", args[0]] = count();
}

proc:::fault
/ppid == $target/
{
	@i["fault", args[0]] = count();
}

END
{
	printa("%s %@d\n", @n);
	printa("%s %@d\n", @c);
	printa("%s %s %@d\n", @s);
	printa("%s %d %@d\n", @i);
}
D
dtrace -q -s "$tmp/proc.d" -c "$TRIGGERS/procer 5" >"$tmp/out" 2>"$tmp/err"
check "dtrace exits 0" test $? -eq 0
LC_ALL=C sort "$tmp/out" | sed '/^$/d' >"$tmp/got"
cat >"$tmp/want" <<'W'
create 10
create: child's parent is the target 10
exec /bin/true 5
exec /nonexistent/procer 1
exec-failure 2 1
exec-success args true 5
exec-success true 5
exit of a child 1 7
exit of a child 2 3
exit of the target 1 1
fault 6 1
lwp-create 3
lwp-create: same process, new thread 3
lwp-exit 3
lwp-start 3
procer done
signal-discard 12 1
signal-clear 1 1
signal-handle 10 1
signal-send 1 1
signal-send 10 1
signal-send 9 2
signal-send: to a child 3
start 10
W
LC_ALL=C sort -o "$tmp/want" "$tmp/want"
check "each event, exactly" cmp -s "$tmp/want" "$tmp/got"
diff "$tmp/want" "$tmp/got" | sed 's/^/# /'
sed 's/^/# stderr: /' "$tmp/err"

# the user context of the thread an event is of: where it entered the
# kernel (uregs[]), its stack (a shell, alive when its kill(2) fires)
printf '#!/bin/sh\nsleep 5 &\nkill $!\nsleep 1\n' >"$tmp/sender.sh"
chmod +x "$tmp/sender.sh"
dtrace -q -n 'proc:::signal-send /pid == $target && args[2] == 15/ {
	ufunc(uregs[R_PC]); printf("\ndepth>2 %d\n", ustackdepth > 2); }' \
    -c "$tmp/sender.sh" >"$tmp/out" 2>&1
check "signal-send: uregs[] at the sender's kill(2)" \
    grep -q 'libc.so.6`kill *$' "$tmp/out"
check "signal-send: its user stack" grep -q 'depth>2 1' "$tmp/out"

# a signal's target thread as /proc has it when the probe fires: the
# sleep(1) it continues is asleep (SSLEEP), the sender runs it (SONPROC)
printf '#!/bin/sh\nsleep 3 &\np=$!\nsleep 0.3\nkill -CONT $p\nsleep 0.5\nkill $p\n' \
    >"$tmp/cont.sh"
chmod +x "$tmp/cont.sh"
dtrace -q -n 'proc:::signal-discard /pid == $target && args[2] == 18/ {
	printf("%d %c %d %c\n", args[0]->pr_state, args[0]->pr_sname,
	    curlwpsinfo->pr_state, curlwpsinfo->pr_sname); }' \
    -c "$tmp/cont.sh" >"$tmp/out" 2>&1
check "signal-discard (SIGCONT): the target asleep, the sender on its CPU" \
    [ "$(grep -c . "$tmp/out")" -eq 1 ] && grep -qx '1 S 6 O' "$tmp/out" ||
    sed 's/^/# /' "$tmp/out"

# the probes and their argument types
dtrace -l -n 'proc:::' >"$tmp/list" 2>&1
check "fourteen proc probes" test "$(grep -c ' proc ' "$tmp/list")" -eq 14
dtrace -lv -n 'proc:::create' >"$tmp/lv" 2>&1
check "proc's stability" test "$(grep -c 'Dependency Class: ISA' "$tmp/lv")" \
    -eq 2
check "create's argument type" grep -q 'args\[0\]: psinfo_t \*' "$tmp/lv"

# args past a probe's own are refused; a mistyped use too
dtrace -n 'proc:::exit { trace(args[1]); }' >"$tmp/o" 2>&1
check "args[1] of exit is out of range" grep -q 'D_ARGS_IDX\|out of range' \
    "$tmp/o"
dtrace -n 'proc:::exec { x = args[0] + 1; }' >"$tmp/o" 2>&1
check "args[0] of exec is a string" grep -q 'arithmetic type' "$tmp/o"
# a glob's probes type an argument when they agree on its type
dtrace -e -n 'proc:::signal-s* { trace(args[1]->pr_pid + args[2]); }' \
    >"$tmp/o" 2>&1
check "proc:::signal-s*: signal-send's types" test ! -s "$tmp/o"
dtrace -e -n 'proc:::lwp-* { trace(args[0]->pr_lwpid); }' >"$tmp/o" 2>&1
check "proc:::lwp-*: no type its probes agree on" grep -q 'no C type' \
    "$tmp/o"

# a real tool: stress-ng's fork stressor forks as many children as it
# reports bogo ops; progenyof() follows them, though each is gone (and
# its parent soon after) when its events fire
if command -v stress-ng >/dev/null 2>&1; then
	dtrace -q -n 'proc:::create /progenyof($target) && pid != $target/ {
	    @["create"] = count(); }
	proc:::exit /progenyof($target) && pid != $target/ {
	    @[args[0] == 1 ? "exit" : "exit, not CLD_EXITED"] = count(); }
	syscall::exit_group:entry /progenyof($target) && pid != $target/ {
	    @["exit_group"] = count(); }
	END { printa("dtrace %s %@d\n", @); }' \
	    -c 'stress-ng --fork 1 --fork-ops 150 --metrics-brief' \
	    >"$tmp/out" 2>&1
	ops=$(sed -n 's/^.*metrc: .* fork  *\([0-9][0-9]*\) .*$/\1/p' "$tmp/out")
	# the stressor's children; they and the stressor itself end
	check "stress-ng --fork: proc:::create, its bogo ops ($ops)" \
	    grep -qx "dtrace create $ops" "$tmp/out" ||
	    sed 's/^/# /' "$tmp/out"
	check "stress-ng --fork: the children and the stressor exit" \
	    grep -qx "dtrace exit $((ops + 1))" "$tmp/out" &&
	    grep -qx "dtrace exit_group $((ops + 1))" "$tmp/out"
else
	ok "# SKIP stress-ng is not installed"
	ok "# SKIP stress-ng is not installed"
fi

# one capture, two providers: a syscall consumer and a proc consumer
# hold it together; when the syscall one has gone, the proc one still
# sees every event, and the syscall one saw every call while it was on
# (a copy of syscaller by another name: syscall.sh, which may run
# beside this test, counts every process named syscaller)
cp "$TRIGGERS/syscaller" "$tmp/kcapcall"
: >"$tmp/sout"
: >"$tmp/pout"
dtrace -q -n 'BEGIN { printf("ready\n"); }
    syscall::getppid:entry /execname == "kcapcall"/ { @ = count(); }
    syscall::exit_group:entry /execname == "kcapcall"/ { exit(0); }
    END { printa("getppid %@d\n", @); }' >"$tmp/sout" 2>&1 &
sdt=$!
dtrace -q -n 'BEGIN { printf("ready\n"); }
    proc:::exec-success /execname == "kcapcall"/ { @ = count(); }
    proc:::exit /execname == "kcapcall" && ++n == 2/ { exit(0); }
    END { printa("exec-success %@d\n", @); }' >"$tmp/pout" 2>&1 &
pdt=$!
waitready "$tmp/sout" "$tmp/pout"
"$tmp/kcapcall" 50 >/dev/null
wait $sdt
"$tmp/kcapcall" 70 >/dev/null
wait $pdt
same "$tmp/sout" "ready
getppid 100

" "shared capture: the syscall consumer's calls, exact"
same "$tmp/pout" "ready
exec-success 2

" "shared capture: the proc consumer's events, after the other went"

# who sees what: a user's consumer sees its own processes' events, not
# root's (each judged by the credentials the event recorded: the
# processes are gone when their events fire)
if find_test_user; then
	chmod 666 "$sock"	# the test user is not in group dtrace
	cp /bin/true "$tmp/proctrue" && chmod 755 "$tmp/proctrue"
	cat >"$tmp/who.d" <<'D'
BEGIN { printf("ready\n"); }
proc:::exec-success /execname == "proctrue"/
{
	@[uid == 0 ? "root" : "user"] = count();
}
tick-3s { exit(0); }
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
	"$tmp/proctrue"; "$tmp/proctrue"
	as "$tmp/proctrue"; as "$tmp/proctrue"; as "$tmp/proctrue"
	wait $dt
	wait $rdt
	same "$tmp/rout" "ready
root 2
user 3

" "root's consumer: every process's exec"
	same "$tmp/out" "ready
user 3

" "a user's consumer: its own processes' execs, not root's"
else
	ok "# SKIP $why"
	ok "# SKIP $why"
fi

check "daemon stops" stop_daemon
done_testing
