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
	if command -v setpriv >/dev/null 2>&1 &&
	    { id -u dtracetest >/dev/null 2>&1 ||
	    useradd -M -r -s /usr/sbin/nologin dtracetest >/dev/null 2>&1; }; then
		chmod 711 "$tmp"
		chmod 666 "$sock"
		setpriv --reuid="$(id -u dtracetest)" \
		    --regid="$(id -g dtracetest)" --clear-groups \
		    timeout 60 "$DTRACE" -x socket="$sock" -q -n '
profile-997 { @[uid] = count(); }
tick-1s { exit(0); }
END { printa("uid %d\n", @); }' >"$tmp/out" 2>"$tmp/err"
		check "profile-997 as another user: exit 0" [ $? -eq 0 ]
		check "profile-997 as another user: no sample of root's" \
		    sh -c "! grep -q '^uid 0\$' '$tmp/out'"
	fi
fi
kill $spinners 2>/dev/null
wait $spinners 2>/dev/null
check "profile threads joined when the program ends" \
    [ "$(tasks "$base")" -eq "$base" ]

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

# shorter than 200us: refused with a reason
dtrace -n 'tick-100us { exit(0); }' >/dev/null 2>"$tmp/err"
check "tick-100us: exit 1" [ $? -eq 1 ]
check "tick-100us: says why" grep -q \
    'profile:::tick-100us: interval is shorter than the minimum of 200 microseconds' \
    "$tmp/err"
dtrace -n 'profile-4999hz { exit(0); }' >/dev/null 2>"$tmp/err"
check "profile-4999hz (just over 200us) accepted" [ $? -eq 0 ]

check "daemon still running" kill -0 "$dpid"
stop_daemon
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
