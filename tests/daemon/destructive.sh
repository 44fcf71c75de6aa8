#!/bin/sh
# Destructive actions end to end: without -w they are refused at GO in
# illumos's words; with -w, raise() delivers to the thread (counted by
# the trigger's handler), copyout() and copyoutstr() write the target's
# memory, stop() leaves it stopped until SIGCONT, and system() runs in
# the consumer in order with the trace output.  A client that is not
# root is refused them even with -w.
. "$(dirname "$0")/lib.sh"

T=$TRIGGERS/recurse
check "daemon starts" start_daemon

# without -w: refused when tracing would start; the -c child goes
for act in 'stop();' 'raise(10);' 'system("true");' 'chill(1);' \
    'copyoutstr("x", arg0, 2);'; do
	dtrace -q -c "$T poke" -n "pid\$target:a.out:poke:entry { $act }" \
	    >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "no -w, $act: exit 1" [ $rc -eq 1 ]
	check "no -w, $act: Destructive actions not allowed" grep -qx \
	    "dtrace: could not enable tracing: Destructive actions not allowed" \
	    "$tmp/err"
	check "no -w, $act: the target did not run" \
	    [ ! -s "$tmp/out" ]
done

# -w: the notice; copyoutstr() and copyout() change what the target prints
dtrace -w -q -c "$T poke" \
    -n 'pid$target:a.out:poke:entry { copyoutstr("modified", arg0, 32); }' \
    >"$tmp/out" 2>"$tmp/err"
check "copyoutstr: exit 0" [ $? -eq 0 ]
same "$tmp/out" "modified

" "copyoutstr: the target sees the new string"
dtrace -w -q -c "$T poke" \
    -n 'pid$target:a.out:poke:entry { copyoutstr("abcdefgh", arg0, 3); }' \
    >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "abcginal

" "copyoutstr: at most maxlen bytes, no NUL when it does not fit"
dtrace -w -q -c "$T poke" -n 'pid$target:a.out:poke:entry {
	copyout(copyin(arg0 + 4, 4), arg0, 4); }' >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "inalinal

" "copyout: four bytes copied within the target"
dtrace -w -q -c "$T poke" -n 'pid$target:a.out:poke:entry {
	copyout(copyin(arg0, 4), ucaller, 4); }' >"$tmp/out" 2>"$tmp/err"
check "copyout to read-only text: the target runs unharmed" \
    grep -qx original "$tmp/out"
check "copyout to read-only text: invalid address error" \
    grep -q "invalid address" "$tmp/err"

# a client that is not root (this script run by a user): refused with -w
if [ "$(id -u)" -ne 0 ]; then
	dtrace -w -q -c "$T poke" -n 'pid$target:a.out:poke:entry { stop(); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "not root, -w: exit 1" [ $? -eq 1 ]
	check "not root, -w: Destructive actions not allowed" grep -qx \
	    "dtrace: could not enable tracing: Destructive actions not allowed" \
	    "$tmp/err"
	ok "# SKIP not root: destructive actions themselves"
	check "daemon stops cleanly" stop_daemon
	done_testing
fi

# -w without -q: the notice
dtrace -w -c "$T poke" \
    -n 'pid$target:a.out:poke:entry { copyoutstr("new", arg0, 4); }' \
    >"$tmp/out" 2>"$tmp/err"
check "-w: allowing destructive actions" \
    grep -qx "dtrace: allowing destructive actions" "$tmp/err"
check "-w: the target printed what copyoutstr() wrote" grep -qx new "$tmp/out"

# raise(): SIGUSR1 (10) on every other call, counted by the target
dtrace -w -q -c "$T sig 10" \
    -n 'pid$target:a.out:leaf:entry /arg0 % 2/ { raise(10); }' \
    >"$tmp/out" 2>"$tmp/err"
check "raise: exit 0" [ $? -eq 0 ]
same "$tmp/out" "signals 5

" "raise(SIGUSR1) five times: the handler ran five times"
# by its name, as illumos's signal.d gives it
dtrace -w -q -c "$T sig 6" \
    -n 'pid$target:a.out:leaf:entry /arg0 % 3 == 0/ { raise(SIGUSR1); }' \
    >"$tmp/out" 2>"$tmp/err"
check "raise(SIGUSR1) by name: exit 0" [ $? -eq 0 ]
same "$tmp/out" "signals 2

" "raise(SIGUSR1) by name twice: the handler ran twice"
dtrace -w -q -c "$T sig 4" \
    -n 'pid$target:a.out:leaf:entry /arg0 == 2/ { raise(4096); }' \
    >"$tmp/out" 2>"$tmp/err"
check "raise(4096): illegal operation" \
    grep -q "illegal operation in action #1" "$tmp/err"
check "raise(4096): the target is unharmed" grep -qx "signals 0" "$tmp/out"

# chill(): the thread that hit waits that long (so its return comes at
# least that much later), at most 500 ms in a second as illumos bounds it
dtrace -w -q -c "$T sig 3" -n 'pid$target:a.out:leaf:entry { self->in = timestamp; }
    pid$target:a.out:leaf:entry { chill(20000000); }
    pid$target:a.out:leaf:return { @ = sum(timestamp - self->in >= 20000000); }
    END { printa("chilled %@d\n", @); }' >"$tmp/out" 2>"$tmp/err"
check "chill: exit 0" [ $? -eq 0 ]
same "$tmp/out" "signals 0
chilled 3

" "chill(20ms): each of 3 calls returned at least 20 ms after its entry"
dtrace -w -q -c "$T sig 2" \
    -n 'pid$target:a.out:leaf:entry { chill(600000000); }' \
    >"$tmp/out" 2>"$tmp/err"
check "chill(600ms): illegal operation" \
    grep -q "illegal operation in action #1" "$tmp/err"
check "chill(600ms): the target is unharmed" grep -qx "signals 0" "$tmp/out"

# system(): in the consumer, in order with the records around it (one
# thread's buffer: per-CPU buffers print a CPU at a time, and the target
# may move between its calls)
dtrace -w -q -x bufscope=thread -c "$T sig 3" -n 'pid$target:a.out:leaf:entry {
	printf("before %d\n", arg0); system("echo system %d", arg0);
	printf("after %d\n", arg0); }' >"$tmp/out" 2>"$tmp/err"
check "system: exit 0" [ $? -eq 0 ]
grep -v '^signals' "$tmp/out" >"$tmp/sys"
same "$tmp/sys" "before 0
system 0
after 0
before 1
system 1
after 1
before 2
system 2
after 2

" "system(): its output between the records before and after it"

# stop(): the process stays stopped until SIGCONT
dtrace -w -q -c "$T stop" -n 'pid$target:a.out:leaf:entry {
	stop(); printf("stopping %d\n", pid); }' >"$tmp/stop" 2>"$tmp/err" &
dt=$!
i=0
while ! grep -qs '^stopping' "$tmp/stop" && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
tpid=$(sed -n 's/^stopping //p' "$tmp/stop")
stopped() { grep -q '^State:[[:space:]]*[tT]' "/proc/$tpid/status"; }
check "stop: the target is stopped" [ -n "$tpid" ] && stopped
sleep 0.5
check "stop: and stays stopped" stopped
check "stop: it has not resumed" [ "$(grep -c resumed "$tmp/stop")" -eq 0 ]
[ -n "$tpid" ] && kill -CONT "$tpid"
wait $dt
check "stop: SIGCONT resumes it, dtrace exits 0" [ $? -eq 0 ]
check "stop: the target finished" grep -qx resumed "$tmp/stop"

# destructive actions may not follow speculate()
dtrace -w -xerrtags -n 'BEGIN { speculate(1); stop(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "stop() after speculate(): D_ACT_SPEC" grep -q \
    "\[D_ACT_SPEC\].*destructive actions may not follow speculate( )" \
    "$tmp/err"

# a client that is not root: refused even with -w
if find_test_user; then
	chmod 666 "$sock"
	udtrace -w -q -c "$T poke" \
	    -n 'pid$target:a.out:poke:entry { stop(); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "not root, -w: exit 1" [ $? -eq 1 ]
	check "not root, -w: Destructive actions not allowed" grep -qx \
	    "dtrace: could not enable tracing: Destructive actions not allowed" \
	    "$tmp/err"
else
	ok "# SKIP the non-root client: $why"
fi

check "daemon stops cleanly" stop_daemon
check "daemon exit status 0" [ "$dstatus" -eq 0 ]
done_testing
