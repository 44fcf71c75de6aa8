#!/bin/sh
# profile:::tick-N and profile:::profile-N: each enabled probe fires
# from its own timer threads (one for a tick, one pinned per CPU for a
# profile), started with the first ECB and joined when the last goes.
# Nothing here depends on how fast the machine is: counts are exact or
# "at least once", never a time.
. "$(dirname "$0")/lib.sh"

# The CPUs this shell, and so the daemon it starts, may run on.
cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status |
    tr ',' '\n' | awk -F- '{ e = NF > 1 ? $2 : $1;
	for (i = $1; i <= e; i++) print i }')
ncpu=$(echo "$cpus" | wc -l)

# the daemon's thread count, once it has settled at want (or after ~10s)
tasks()
{
	i=0
	while n=$(ls /proc/"$dpid"/task | wc -l) && [ "$n" -ne "$1" ] &&
	    [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	echo "$n"
}

check "daemon starts" start_daemon
base=$(ls /proc/"$dpid"/task | wc -l)

# profile-N fires on every CPU the daemon may use, and only there.  A
# root daemon samples each CPU with perf (an idle CPU the kernel does not
# tick may give no sample), so a spinner is kept busy on every CPU; a
# daemon perf refuses fires from timers instead, with arg0 = arg1 = 0.
spinners=
for c in $cpus; do
	taskset -c "$c" "$TRIGGERS/loop" spin >/dev/null 2>&1 &
	spinners="$spinners $!"
done
if [ "$(id -u)" -eq 0 ]; then
	perf=1
	pred='arg0 == 0 && arg1 == 0'
	what='a PC in arg0 or arg1 (perf samples)'
else
	perf=0
	pred='arg0 != 0 || arg1 != 0'
	what='arg0 = arg1 = 0 (timers)'
fi
dtrace -q -n "
profile-10ms { @[cpu] = count(); }
profile-10ms /$pred/ { @bad = count(); }
tick-1s { exit(0); }
END { printa(\"%d\\n\", @); printa(\"bad %@d\\n\", @bad); }" >"$tmp/out" 2>"$tmp/err"
check "profile-10ms: exit 0" [ $? -eq 0 ]
sed '/^$/d' "$tmp/out" | sort -n >"$tmp/cpus"
same "$tmp/cpus" "$(echo "$cpus" | sort -n)
" "profile-10ms fired on each of the $ncpu CPUs, with $what"
check "profile-10ms: no error" [ ! -s "$tmp/err" ]

if [ $perf -eq 1 ]; then
	# the sampled thread's context: a spinner's samples name it, and its
	# user PCs are in loop's main and f (symbols from its module map)
	set -- $spinners
	dtrace -q -p "$1" -n '
profile-997 /pid == $target/ { @n = count(); @f[ufunc(arg1)] = count(); }
tick-1s { exit(0); }
END { printa("samples %@d\n", @n); printa("%a\n", @f); }' >"$tmp/out" 2>"$tmp/err"
	check "profile-997, -p spinner: exit 0" [ $? -eq 0 ]
	n=$(sed -n 's/^samples //p' "$tmp/out")
	echo "# $n samples of the spinner in 1 s"
	check "profile-997: the spinner was sampled" [ "${n:-0}" -gt 0 ]
	check "profile-997: its user PCs are in loop's main or f" \
	    grep -q '^loop`\(main\|f\)$' "$tmp/out"
	# a user other than root sees only its own processes' samples
	if find_test_user; then
		chmod 666 "$sock"
		udtrace -q -n '
profile-997 { @[uid] = count(); }
tick-1s { exit(0); }
END { printa("uid %d\n", @); }' >"$tmp/out" 2>"$tmp/err"
		check "profile-997 as another user: exit 0" [ $? -eq 0 ]
		check "profile-997 as another user: no sample of root's" \
		    sh -c "! grep -q '^uid 0\$' '$tmp/out'"
	fi
fi
if [ $perf -eq 1 ]; then
	# ustack() of a sample: spin runs main -> outer -> inner; each user
	# mode sample (arg1 != 0) has exactly those three on top, uregs[]
	# has its registers (R_PC is arg1), ufunc(arg1) names inner
	"$TRIGGERS/spin" & sp=$!
	waitfor execd $sp
	dtrace -q -p $sp -n '
profile-997 /pid == $target && arg1 != 0/ {
	@s[ustack(3)] = count(); @f[ufunc(arg1)] = count();
	@n = count(); @pc[uregs[R_PC] == arg1 && uregs[R_SP] != 0] = count();
	@c[ufunc(ucaller)] = count(); @y[usym(arg1)] = count();
	@d[ustackdepth >= 3] = count();
}
tick-1s { exit(0); }
END { printa(@s); printa("%A\n", @f); printa("samples %@d\n", @n);
	printa("pc %d %@d\n", @pc); printa("caller %A\n", @c);
	printa("usym %A\n", @y); printa("depth %d\n", @d); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "ustack() of samples: exit 0" [ $? -eq 0 ]
	n=$(sed -n 's/^samples //p' "$tmp/out")
	echo "# $n user-mode samples of spin"
	check "ustack() of samples: spin was sampled" [ "${n:-0}" -gt 0 ]
	grep '^              [^ ]*`' "$tmp/out" | sed 's/+0x[0-9a-f]*$//' |
	    sort | uniq -c | awk '{ print $2 }' >"$tmp/frames"
	same "$tmp/frames" "spin\`inner
spin\`main
spin\`outer
" "ustack(3) of every user-mode sample: inner, outer, main, no other frame"
	check "ustack(3): inner on top, then outer, then main, in each stack" \
	    [ "$(grep '^              [^ ]*`' "$tmp/out" | sed 's/+0x[0-9a-f]*$//' |
	    awk '{ s = s $1 " " } NR % 3 == 0 { print s; s = "" }' |
	    sort -u)" = 'spin`inner spin`outer spin`main ' ]
	check "ufunc(arg1) of every user-mode sample is spin\`inner" \
	    [ "$(grep -c '^spin`inner$' "$tmp/out")" -eq 1 ] &&
	    [ "$(grep -c '^[a-z.0-9]*`' "$tmp/out")" -eq 1 ]
	check "uregs[R_PC] is arg1, uregs[R_SP] is set, in every sample" \
	    [ "$(grep '^pc ' "$tmp/out" | awk '{ print $2 }')" = 1 ]
	check "ucaller of every user-mode sample is in spin\`outer" \
	    [ "$(grep '^caller ' "$tmp/out")" = 'caller spin`outer' ]
	check "usym(arg1) of every user-mode sample is spin\`inner" \
	    [ "$(grep '^usym ' "$tmp/out")" = 'usym spin`inner' ]
	check "ustackdepth of every user-mode sample is 3 or more" \
	    [ "$(grep '^depth ' "$tmp/out")" = 'depth 1' ]
	kill $sp; wait $sp 2>/dev/null

	# a sample taken in the kernel (arg0 != 0, arg1 == 0): its ustack()
	# is the user stack at the system call, in libc, called from inner
	"$TRIGGERS/spin" sys & sp=$!
	waitfor execd $sp
	dtrace -q -p $sp -n '
profile-997 /pid == $target && arg0 != 0/ {
	@s[ustack(4)] = count(); @n = count(); @u[arg1] = count();
}
tick-1s { exit(0); }
END { printa(@s); printa("samples %@d\n", @n); printa("arg1 %d\n", @u); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "kernel-mode samples: exit 0" [ $? -eq 0 ]
	n=$(sed -n 's/^samples //p' "$tmp/out")
	echo "# $n kernel-mode samples of spin sys"
	check "kernel-mode samples: spin sys was sampled in the kernel" \
	    [ "${n:-0}" -gt 0 ]
	check "kernel-mode samples: arg1 is 0" [ "$(grep '^arg1 ' "$tmp/out")" = "arg1 0" ]
	# at the system call (libc's getppid), or entered by an interrupt
	# from inner itself or from the PLT stub on the way to getppid:
	# each stack is inner, outer, main, below one such frame or not
	grep '^              [^ ]*`' "$tmp/out" | sed 's/+0x[0-9a-f]*$//' |
	    awk '{ s = s $1 " " } NR % 4 == 0 { print s; s = "" }' |
	    awk '$1 != "spin`inner" { print $2 " " $3 " " $4 " "; next }
	    { print $1 " " $2 " " $3 " " }' | sort -u >"$tmp/stacks"
	same "$tmp/stacks" 'spin`inner spin`outer spin`main 
' "kernel-mode samples: ustack(4) has inner, outer, main from the entry point"
	check "kernel-mode samples: ustack(4) has libc's system call on top" \
	    grep -q '^              libc\.so\.6`getppid' "$tmp/out"
	kill $sp; wait $sp 2>/dev/null

	# symbols of a process that is not a target, and gone before the
	# stacks are printed: only the module map the daemon sends for the
	# sampled process can name them
	"$TRIGGERS/spin" & sp=$!
	waitfor execd $sp
	"$DTRACE" -x socket="$sock" -q -n '
profile-997 /pid == $1 && arg1 != 0/ { @s[ustack(1)] = count(); }
tick-1s /!done++/ { system("kill %d", $1); }
tick-100ms /done && ++ticks == 5/ { exit(0); }' -w $sp \
	    >"$tmp/out" 2>"$tmp/err"
	check "ustack() of a process gone before printing: exit 0" [ $? -eq 0 ]
	wait $sp 2>/dev/null
	# (it may also be sampled on its way out, in its SIGTERM handler or
	# exit: any frame, but named, never a bare address)
	check "ustack() of a process gone before printing: named spin\`inner" \
	    grep -qx '              spin`inner+0x[0-9a-f]*' "$tmp/out"
	check "ustack() of a process gone before printing: every frame named" \
	    [ "$(grep -c '^              0x' "$tmp/out")" -eq 0 ]

	# umod() of a process that is not a target, read from /proc: the
	# module's file name, as for a target (its user PC at the system
	# call of a kernel-mode sample of spin sys is in libc; on a busy
	# machine, some are taken in the kernel on its way back to spin's
	# own code after a preemption)
	"$TRIGGERS/spin" sys & sp=$!
	waitfor execd $sp
	dtrace -q -n '
profile-997 /pid == $1 && arg0 != 0/ { @[umod(uregs[R_PC])] = count(); }
tick-1s { exit(0); }
END { printa(@); }' $sp >"$tmp/out" 2>"$tmp/err"
	check "umod() of a process not traced: exit 0" [ $? -eq 0 ]
	kill $sp; wait $sp 2>/dev/null
	awk 'NF && $1 != "spin" { print $1 }' "$tmp/out" >"$tmp/mods"
	same "$tmp/mods" "libc.so.6
" "umod() of a process not traced: libc.so.6, not its path"

	# an idle CPU fires as illumos's do: pid 0, tid 0, execname sched,
	# uid 0, arg0 a kernel PC, arg1 0, and no user registers (uregs is
	# an invalid address, 0x0); whether a CPU idles in this second on a
	# busy machine cannot be known: how often is only said
	dtrace -q -n '
profile-97 /pid == 0/ { @i = count(); @[execname, tid, uid, arg0 != 0, arg1] = count(); }
profile-97 /pid == 0/ { @r = sum(uregs[R_PC]); }
tick-1s { exit(0); }
END { printa("idle %@d\n", @i); printa("%s %d %d %d %d %@d\n", @); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "idle firings: exit 0" [ $? -eq 0 ]
	echo "# $(sed -n 's/^idle //p' "$tmp/out") idle firings in 1 s"
	check "idle firings: each has execname sched, tid 0, uid 0, a kernel PC, arg1 0" \
	    [ "$(sed '/^idle /d;/^$/d' "$tmp/out" | sed 's/ [0-9]*$//' |
	    grep -vx 'sched 0 0 1 0')" = "" ]
	idle=$(sed -n 's/^idle //p' "$tmp/out")
	check "idle firings: uregs is an invalid address (0x0) in each" \
	    [ "$(grep -c 'profile:::profile-97): invalid address (0x0) in action #1 at DIF offset [0-9]*$' "$tmp/err")" = \
	    "${idle:-0}" ]
fi
kill $spinners 2>/dev/null
wait $spinners 2>/dev/null
check "profile threads joined when the program ends" \
    [ "$(tasks "$base")" -eq "$base" ]

# exit() in samples of several CPUs at once: as illumos's, the first is
# recorded and the others nothing (one run in three of ten printed two
# lines, a CPU's each, before)
twice=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	dtrace -q -n 'profile-4999 { printf("x\n"); exit(0); }' \
	    >"$tmp/out" 2>"$tmp/err"
	[ "$(grep -c '^x$' "$tmp/out")" -eq 1 ] || twice=$((twice + 1))
done
check "exit() on two CPUs at once: one record in each of 10 runs" \
    [ $twice -eq 0 ]

# while enabled: one thread per CPU for profile-N, one for tick-N
# (dtrace itself, not the wrapper, so that the signal reaches it)
"$DTRACE" -x socket="$sock" -q -o "$tmp/run" -n '
profile-5ms {}
tick-5ms /++n == 1/ { printf("started\n"); }' 2>"$tmp/err" &
bg=$!
i=0
while ! grep -q started "$tmp/run" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
check "running: $ncpu + 1 timer threads" \
    [ "$(tasks $((base + ncpu + 1)))" -eq $((base + ncpu + 1)) ]
# a background job ignores SIGINT: TERM stops dtrace the same way
kill -TERM $bg
wait $bg
check "stopped dtrace exits 0" [ $? -eq 0 ]
check "threads joined when the last ECB goes" \
    [ "$(tasks "$base")" -eq "$base" ]

# two consumers on one tick probe share its thread; each counts its own
for k in 1 2; do
	dtrace -q -n 'tick-1ms /++n == 100/ { printf("%d\n", n); exit(0); }' \
	    >"$tmp/two$k" 2>&1 &
	eval bg$k=\$!
done
wait $bg1 $bg2
same "$tmp/two1" "100

" "first consumer: exactly 100 ticks"
same "$tmp/two2" "100

" "second consumer: exactly 100 ticks"

# shorter than 200us: no such probe, as in illumos
dtrace -n 'tick-100us { exit(0); }' >/dev/null 2>"$tmp/err"
check "tick-100us: exit 1" [ $? -eq 1 ]
check "tick-100us: matches no probe" grep -q \
    'probe description :::tick-100us does not match any probes' \
    "$tmp/err"
dtrace -n 'profile-4999hz { exit(0); }' >/dev/null 2>"$tmp/err"
check "profile-4999hz (just over 200us) accepted" [ $? -eq 0 ]

# A -c target of several threads is killed as dtrace exits, while the
# daemon lets it go: its leader, a zombie until the other threads die,
# reports no stop, and the others, stopped by the daemon, die only once
# let go.  The daemon waited for the leader and hung (and every client
# with it); each run must end.
i=0
ended=0
while [ $i -lt 5 ]; do
	dtrace -q -n 'profile-1999 /pid == $target/ { @ = count(); }
	    tick-1s { exit(0); }' -c "$TRIGGERS/threads 1000000000" \
	    >/dev/null 2>"$tmp/err" && ended=$((ended + 1))
	i=$((i + 1))
done
check "-c of 8 threads killed at exit: dtrace ends, 5 runs of 5" \
    [ $ended -eq 5 ] || sed "s/^/# /" "$tmp/err"

check "daemon still running" kill -0 "$dpid"
stop_daemon
check "daemon exits 0" [ "$dstatus" -eq 0 ]

# A private daemon (not root) samples the processes it traces, when
# perf_event_paranoid allows a user to sample its own (2 or less); the
# rest of each interval fires from its timers, in the daemon's context.
# As the test user, with its own daemon and its own processes.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$paranoid" -le 2 ] && find_test_user; then
	# (not `as': "$AS prog &" must leave prog's own pid in $!)
	AS="setpriv --reuid=$uid --regid=$gid --clear-groups"
	psock=$tmp/psock
	chmod 777 "$tmp"
	$AS "$DTRACED" -d -s "$psock" 2>>"$tmp/dtraced.log" &
	ppid_=$!
	i=0
	while [ ! -S "$psock" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	check "private daemon starts" [ -S "$psock" ]
	$AS "$TRIGGERS/spin" & sp=$!
	waitfor execd $sp
	$AS timeout -k 10 60 "$DTRACE" -x socket="$psock" -q -p $sp -n '
profile-997 /pid == $target/ { @s[ustack(3)] = count(); @n = count(); }
profile-997 /pid != $target/ { @o[pid == $1, arg0, arg1] = count(); }
profile-997 { @c[cpu] = count(); }
tick-1s { exit(0); }
END { printa(@s); printa("samples %@d\n", @n); printa("other %d %d %d\n", @o);
	printa("cpu %d\n", @c); }' $ppid_ >"$tmp/out" 2>"$tmp/err"
	check "private daemon, -p: exit 0" [ $? -eq 0 ]
	n=$(sed -n 's/^samples //p' "$tmp/out")
	echo "# $n samples of the target in 1 s (perf_event_paranoid $paranoid)"
	check "private daemon: the target was sampled" [ "${n:-0}" -gt 0 ]
	check "private daemon: ustack(3) of the target is inner, outer, main" \
	    [ "$(grep '^              [^ ]*`' "$tmp/out" |
	    sed 's/+0x[0-9a-f]*$//' | awk '{ s = s $1 " " }
	    NR % 3 == 0 { print s; s = "" }' | sort -u)" = \
	    'spin`inner spin`outer spin`main ' ]
	check "private daemon: every other firing is the daemon's timer" \
	    [ "$(sed -n 's/^other //p' "$tmp/out" | sort -u)" = "1 0 0" ]
	check "private daemon: profile-997 fired on each of the $ncpu CPUs" \
	    [ "$(sed -n 's/^cpu //p' "$tmp/out" | sort -n)" = \
	    "$(echo "$cpus" | sort -n)" ]
	kill $sp; wait $sp 2>/dev/null
	# threads the target creates after sampling began are sampled too
	$AS timeout -k 10 60 "$DTRACE" -x socket="$psock" -q \
	    -c "$TRIGGERS/threads 20000000" -n '
profile-997 /pid == $target && tid != pid/ { @ = count(); }
END { printa("threads %@d\n", @); }' >"$tmp/out" 2>"$tmp/err"
	check "private daemon, -c threads: exit 0" [ $? -eq 0 ]
	n=$(sed -n 's/^threads //p' "$tmp/out")
	echo "# $n samples of threads created after the start"
	check "private daemon: threads created later are sampled" \
	    [ "${n:-0}" -gt 0 ]
	kill "$ppid_"
	wait "$ppid_"
	check "private daemon exits 0" [ $? -eq 0 ]
fi
done_testing
