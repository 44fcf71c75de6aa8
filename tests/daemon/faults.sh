#!/bin/sh
# Fault injection: no traced process harmed.  One target spins through
# f in 8 threads (busy8) for the whole run while its tracers and the
# daemon are killed, crashed, told to hang up or to shut down.  After
# each fault the target is alive and its text equals its file's; at the
# end it exits 0 on SIGTERM, having seen every call of f return the right
# value.  The daemon leaks no fds, threads or memory over 1000 consumer
# sessions.
. "$(dirname "$0")/lib.sh"

# A consumer of the target's f:entry firings.  It prints the running
# count every 100ms, so a file whose last line keeps growing shows a
# consumer that keeps tracing.  Run without lib.sh's timeout wrapper so
# that $! is dtrace itself: a signal must reach it, not the wrapper.
consumer()
{
	"$DTRACE" -x socket="$sock" -x aggrate=50ms -q -p "$tpid" -n '
pid$target:a.out:f:entry { @ = count(); }
tick-100ms { printa("%@d\n", @); }' >"$tmp/$1.out" 2>"$tmp/$1.err" &
	cpid=$!
}

# last FILE: the last count a consumer printed (0 before the first)
last()
{
	n=$(tail -n 1 "$1" 2>/dev/null)
	echo "${n:-0}"
}

# grows FILE: the consumer writing FILE counts more firings within 10s
grows()
{
	g0=$(last "$1")
	i=0
	while [ $i -lt 200 ]; do
		sleep 0.05
		[ "$(last "$1")" -gt "$g0" ] && return 0
		i=$((i + 1))
	done
	return 1
}

# counting FILE: the consumer has started counting, then counts more
counting()
{
	i=0
	while [ "$(last "$1")" -eq 0 ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	grows "$1"
}

# nfds: the daemon's open fds
nfds()
{
	ls "/proc/$dpid/fd" | wc -l
}

# reaped PID: the process PID exits within 10s; its status in $rstatus
reaped()
{
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -0 "$1" 2>/dev/null && return 1
	wait "$1"
	rstatus=$?
	return 0
}

check "daemon starts" start_daemon
"$TRIGGERS/busy8" >"$tmp/target.out" 2>&1 &
tpid=$!

# -- the consumer killed with SIGKILL
consumer a
check "consumer a counts" counting "$tmp/a.out"
check "consumer a: the target's text is patched" patched "$tpid"
kill -KILL "$cpid"
check "consumer a SIGKILL: dies" reaped "$cpid"
check "consumer a SIGKILL: target alive, text restored" restored "$tpid"

# -- SIGHUP: the daemon keeps running, its consumer keeps tracing
consumer b
bpid=$cpid
check "consumer b counts" counting "$tmp/b.out"
kill -HUP "$dpid"
sleep 0.2
check "SIGHUP: daemon still runs" kill -0 "$dpid"
check "SIGHUP: consumer b keeps counting" grows "$tmp/b.out"

# -- two consumers of the same process, one of them killed
consumer c
check "consumer c counts beside b" counting "$tmp/c.out"
kill -KILL "$cpid"
check "consumer c SIGKILL: dies" reaped "$cpid"
check "consumer c SIGKILL: consumer b keeps counting" grows "$tmp/b.out"
check "consumer c SIGKILL: b's probes stay in" patched "$tpid"
kill -INT "$bpid"
check "consumer b SIGINT: exits" reaped "$bpid"
check "consumer b SIGINT: exit status 0" [ "$rstatus" -eq 0 ]
check "consumer b SIGINT: target alive, text restored" restored "$tpid"

# -- SIGTERM, SIGINT: the daemon shuts down cleanly, releasing the target
for sig in TERM INT; do
	consumer "d$sig"
	check "SIG$sig: consumer counts" counting "$tmp/d$sig.out"
	stop_daemon "$sig"
	check "SIG$sig: daemon exits 0" [ "$dstatus" -eq 0 ]
	check "SIG$sig: target alive, text restored" restored "$tpid"
	# the consumer loses its daemon: it must end, not hang
	check "SIG$sig: consumer ends" reaped "$cpid"
	check "SIG$sig: consumer exits 1" [ "$rstatus" -eq 1 ]
	check "SIG$sig: daemon restarts" start_daemon
done

# -- a fatal signal: the handler puts the text back and has every tracer
# thread let its threads go (a thread that had just hit an int3 is put
# back on the instruction, its SIGTRAP dropped), then the daemon dies.
for sig in SEGV ABRT; do
	# dash's kill -l names no numbers
	case $sig in
	SEGV)	signo=11 ;;
	ABRT)	signo=6 ;;
	esac
	consumer "f$sig"
	check "SIG$sig: consumer counts" counting "$tmp/f$sig.out"
	stop_daemon "$sig"
	check "SIG$sig: daemon dies of it" \
	    [ "$dstatus" -eq $((128 + signo)) ]
	check "SIG$sig: target alive, text restored" restored "$tpid"
	check "SIG$sig: consumer ends" reaped "$cpid"
	check "SIG$sig: consumer exits 1" [ "$rstatus" -eq 1 ]
	check "SIG$sig: daemon restarts" start_daemon
done

# -- SIGKILL: no handler runs; the guardian process (ft_guard.c) puts the
# text back as soon as the daemon is gone.  A thread that hits a probe in
# the moment between the kernel letting it go and the guardian's writes
# dies of the SIGTRAP (dtraced.8 gives the figures), so this target is
# paced: each thread calls f once every 2 s, all at about the same time.
"$TRIGGERS/busy8" 2000000 >"$tmp/paced.out" 2>&1 &
ppid_=$!
"$DTRACE" -x socket="$sock" -q -p "$ppid_" -n '
pid$target:a.out:f:entry { @ = count(); }' >/dev/null 2>&1 &
kpid=$!
waitfor patched "$ppid_"
check "SIGKILL: the paced target's text is patched" patched "$ppid_"
stop_daemon KILL
check "SIGKILL: daemon dies of it" [ "$dstatus" -eq 137 ]
i=0
while ! "$TRIGGERS/textcmp" "$ppid_" >/dev/null 2>&1 && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
check "SIGKILL: the guardian restored the paced target's text" \
    "$TRIGGERS/textcmp" "$ppid_"
sleep 2.5	# every thread has called f again since
check "SIGKILL: the paced target lives on" kill -0 "$ppid_"
kill -TERM "$ppid_"
check "SIGKILL: the paced target exits 0" reaped "$ppid_"
check "SIGKILL: its exit status is 0" [ "$rstatus" -eq 0 ]
check "SIGKILL: its consumer ends" reaped "$kpid"
check "SIGKILL: the other target is unharmed" restored "$tpid"
check "SIGKILL: daemon restarts" start_daemon

# -- 1000 consumer sessions leak nothing: fds, threads, memory.  A pid
# session first, so that whatever the daemon keeps open for good is
# already open; then 100 sessions to warm up (malloc's arenas, the probe
# table), and 1000 measured: every tenth counts 100 hits of f in a
# second target, loop spin (a tracer thread, patched and restored text),
# the others cycle through aggregations, printf, speculations and a tick
# probe (its timer thread).  busy8 is stopped (SIGSTOP) meanwhile: its
# 8 spinning threads would make this phase 10 times slower.
consumer g
check "consumer g counts" counting "$tmp/g.out"
kill -INT "$cpid"
check "consumer g: exits" reaped "$cpid"
check "consumer g: target alive, text restored" restored "$tpid"

# session N: one short consumer session of the kind N selects.  In a
# sanitizer build its dtrace skips LeakSanitizer's check at exit (every
# other test makes it): this phase is about the daemon, and the check
# doubles its time under ASan (measured: 130 s without it, 58 s with).
session()
(
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export ASAN_OPTIONS
	case $(($1 % 10)) in
	0)	dtrace -q -p "$spid" -n 'pid$target:a.out:f:entry /++n == 100/
		    { exit(0); }' ;;
	1|4|7)	dtrace -q -n 'BEGIN { @[probename] = count(); @q = quantize(7);
		    printf("%d %s\n", 1, "x"); exit(0); }' ;;
	2|5|8)	dtrace -q -n 'BEGIN { s = speculation(); speculate(s);
		    printf("%d", 2); } BEGIN { commit(s); } BEGIN { exit(0); }' ;;
	*)	dtrace -q -n 'tick-1ms /++n == 3/ { trace(n); exit(0); }' ;;
	esac >/dev/null 2>"$tmp/session.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "# session $1 exited $rc:"
		sed 's/^/#   /' "$tmp/session.err"
	fi
	return $rc
)

# settled: the daemon's fds and threads are back to $fd0 and $thr0
# within 10s (it closes a socket when it reads its end, and joins a
# tracer thread when its target is released: a leak stays, these go)
threads()
{
	sed -n 's/^Threads:[[:space:]]*//p' "/proc/$dpid/status"
}
rss()
{
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$dpid/status"
}
settled()
{
	i=0
	while fd1=$(nfds) && thr1=$(threads) &&
	    { [ "$fd1" -ne "$fd0" ] || [ "$thr1" -ne "$thr0" ]; } &&
	    [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
kill -STOP "$tpid"
"$TRIGGERS/loop" spin >"$tmp/spin.out" 2>&1 &
spid=$!
i=0
bad=0
while [ $i -lt 100 ]; do
	session $i || bad=$((bad + 1))
	i=$((i + 1))
done
check "100 sessions to warm up: every one exits 0" [ "$bad" -eq 0 ]
# the last sessions' consumers may still be going (their buffers are
# megabytes): measure once fds and threads have kept still for 0.5 s
i=0
k=0
fd0=$(nfds)
thr0=$(threads)
while [ $k -lt 10 ] && [ $i -lt 400 ]; do
	sleep 0.05
	fd1=$(nfds)
	thr1=$(threads)
	if [ "$fd1" -eq "$fd0" ] && [ "$thr1" -eq "$thr0" ]; then
		k=$((k + 1))
	else
		k=0
		fd0=$fd1
		thr0=$thr1
	fi
	i=$((i + 1))
done
rss0=$(rss)
t0=$(date +%s)
i=0
bad=0
while [ $i -lt 1000 ]; do
	session $i || bad=$((bad + 1))
	i=$((i + 1))
done
t1=$(date +%s)
echo "# 1000 sessions took $((t1 - t0)) s"
check "1000 sessions: every one exits 0" [ "$bad" -eq 0 ]
settled
rss1=$(rss)
check "1000 sessions: daemon fds $fd0 before, $fd1 after" [ "$fd0" -eq "$fd1" ]
check "1000 sessions: daemon threads $thr0 before, $thr1 after" \
    [ "$thr0" -eq "$thr1" ]
# RSS: after the warm-up it stays put (0 kB measured over 1000 sessions;
# 16 MB more once in CI, before the daemon mapped every large block on its
# own, dtraced.c: the buffers a session freed stayed in malloc's arenas);
# 512 kB of slack, for malloc keeping a freed chunk in the middle of an
# arena it cannot trim, still catches a leak of 512 bytes per session.
# Under ASan freed memory waits in its quarantine (256 MB) and RSS grows
# without a leak; LeakSanitizer reports leaks at exit there instead.
echo "# daemon RSS: $rss0 kB before, $rss1 kB after"
if grep -q libasan "/proc/$dpid/maps"; then
	ok "# SKIP 1000 sessions: RSS (ASan's quarantine holds freed memory)"
else
	check "1000 sessions: daemon RSS $rss0 kB before, $rss1 kB after" \
	    [ "$rss1" -le $((rss0 + 512)) ]
fi
check "1000 sessions: loop spin's text is its file's" \
    "$TRIGGERS/textcmp" "$spid"
kill -TERM "$spid"
check "1000 sessions: loop spin exits 0 on SIGTERM" reaped "$spid"
check "1000 sessions: its exit status is 0" [ "$rstatus" -eq 0 ]
kill -CONT "$tpid"

# -- the target lived through it all, and f never went wrong
kill -TERM "$tpid"
check "target: exits on SIGTERM" reaped "$tpid"
check "target: exit status 0" [ "$rstatus" -eq 0 ]
same "$tmp/target.out" "spun well
" "target: every call of f returned the right value"

stop_daemon TERM
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
