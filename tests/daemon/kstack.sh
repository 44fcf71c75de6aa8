#!/bin/sh
# stack(): the kernel stack of profile samples taken in the kernel (the
# kernel's call chain), empty where a hit has none (a sample in user
# mode, a pid probe, BEGIN, tick); named from /proc/kallsyms, in hex
# under -x noresolve; stack(n) at most n frames; as aggregation keys,
# one a stack; ustack() beside it unchanged.  spin sys calls getppid()
# in a loop, so that its samples are in that system call or in user
# mode.  The daemon asks for call chains only where a clause records
# stack(), and again when a consumer's stack() joins a probe another
# consumer's enabling samples without.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon -vv

# BEGIN, tick (the daemon's own thread) and a pid probe: no kernel stack
dtrace -q -c "$TRIGGERS/spin 0.2" -n '
BEGIN { printf("begin["); stack(); printf("]\n"); }
tick-10ms /t++ == 0/ { printf("tick["); stack(); printf("]\n"); }
pid$target:a.out:outer:entry { printf("pid["); stack(); printf("]\n"); }' \
    >"$tmp/out" 2>"$tmp/err"
check "no kernel context: exit 0" [ $? -eq 0 ]
sort "$tmp/out" >"$tmp/sorted"
# (and the newline dtrace ends with when the command exits)
same "$tmp/sorted" "
]
]
]
begin[
pid[
tick[
" "BEGIN, tick, pid: an empty stack, a newline alone"

if ! awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' \
    /proc/kallsyms 2>/dev/null; then
	ok "# SKIP kernel stacks: /proc/kallsyms hides its addresses"
	stop_daemon
	done_testing
	exit 0
fi

# A profile clause without stack(): samples carry no call chain.
"$TRIGGERS/spin" sys & sp=$!
waitfor execd $sp
dtrace -q -p $sp -n 'profile-997 /pid == $target/ { @ = count(); }
tick-200ms { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "no stack(): exit 0" [ $? -eq 0 ]
check "no stack(): the samples carry no kernel frames" \
    grep -q 'profile:::profile-997 armed.*, 0 kernel frames$' \
    "$tmp/dtraced.log"
# perf may sample user mode alone here (a daemon without the rights, at
# perf_event_paranoid 2), or not at all
if ! grep -q 'profile-997 armed.*sampling \(each CPU\|the targets\), ' \
    "$tmp/dtraced.log"; then
	ok "# SKIP kernel stacks: perf does not sample the kernel here"
	kill $sp
	wait $sp
	stop_daemon
	done_testing
	exit 0
fi

# Each sample: its kernel PC (arg0, 0 in user mode), then stack(3) in
# hex.  A sample in the kernel has 1 to 3 frames, the first its PC; one
# in user mode none.
dtrace -q -x noresolve -p $sp -n '
profile-997 /pid == $target/ { printf("pc %x", arg0); stack(3); }
tick-1s { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "stack(3): exit 0" [ $? -eq 0 ]
check "stack(3): the samples carry 3 kernel frames" \
    grep -q 'profile:::profile-997 armed.*, 3 kernel frames$' \
    "$tmp/dtraced.log"
awk '
function done() {
	if (pc == "")
		return
	if (pc == "0") {
		nuser++
		if (n != 0)
			bad++
	} else {
		nkern++
		if (n < 1 || n > 3 || first != "0x" pc)
			bad++
	}
}
/^pc / { done(); pc = $2; n = 0; first = ""; next }
/^$/ { next }
/^              0x[0-9a-f]+$/ { n++; if (n == 1) first = $1; next }
{ bad++ }
END { done(); printf("%d %d %d\n", nkern, nuser, bad) }' "$tmp/out" \
    >"$tmp/counts"
read -r nkern nuser bad <"$tmp/counts"
echo "# $nkern samples in the kernel, $nuser in user mode"
check "stack(3): samples in the kernel were taken" [ "$nkern" -gt 0 ]
check "stack(3): samples in user mode were taken" [ "$nuser" -gt 0 ]
check "stack(3): 1 to 3 frames, the PC first; none in user mode" \
    [ "$bad" -eq 0 ] || sed 's/^/# /' "$tmp/out" | head -40

# By name, as aggregation keys: the system call's path, every frame a
# kernel text symbol, each stack one key.
dtrace -q -p $sp -n 'profile-997 /pid == $target/ { @[stack()] = count(); }
tick-1s { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "@[stack()]: exit 0" [ $? -eq 0 ]
check "@[stack()]: the samples carry 20 kernel frames" \
    grep -q 'profile:::profile-997 armed.*, 20 kernel frames$' \
    "$tmp/dtraced.log"
# the function of getppid's system call, by the name the kernel gives it
sysfn=$(awk '$2 ~ /^[Tt]$/ && $4 == "" && ($3 == "__do_sys_getppid" ||
    $3 == "__x64_sys_getppid" || $3 == "sys_getppid") { print $3; exit }' \
    /proc/kallsyms)
echo "# getppid's function: $sysfn"
awk -v fn="vmlinux\`$sysfn" '
/^ +[0-9]+$/ { if (sys && entry) both++; sys = entry = 0; next }
/^              [^ ]/ {
	if (index($1, fn "+") == 1 || $1 == fn)
		sys = 1
	if (index($1, "vmlinux`entry_SYSCALL_64") == 1)
		entry = 1
}
END { exit !(both > 0) }' "$tmp/out"
check "@[stack()]: a stack from entry_SYSCALL_64 into $sysfn" [ $? -eq 0 ]
# text symbols as dtrace names them (dt_ksym.c): T, t and the weak W, w
awk '$2 ~ /^[TtWw]$/ { print ($4 == "" ? "vmlinux" : \
    substr($4, 2, length($4) - 2)) "`" $3 }' /proc/kallsyms | sort -u \
    >"$tmp/ktext"
# frame lines: 14 spaces and a name; a count is right-aligned digits
grep -v '^ *[0-9]*$' "$tmp/out" >"$tmp/frames"
sed -n 's/^              \([^+]*\).*/\1/p' "$tmp/frames" | sort -u \
    >"$tmp/named"
check "@[stack()]: every frame is mod\`func+0xoff of a kernel function" \
    [ -z "$(comm -23 "$tmp/named" "$tmp/ktext")" ] ||
    comm -23 "$tmp/named" "$tmp/ktext" | sed 's/^/# /'
frame='^              [A-Za-z0-9_.-]*`[A-Za-z0-9_.$]*\(+0x[0-9a-f]*\)\{0,1\}$'
check "@[stack()]: every frame line is mod\`func or mod\`func+0xoff" \
    [ -z "$(grep '^              [^ ]' "$tmp/frames" | grep -v "$frame")" ]
# keys: the frames of each, joined; an empty one is "-"
awk '/^$/ { next } /^ +[0-9]+$/ { print (k == "" ? "-" : k); k = ""; next }
/^              [^ ]/ { k = k "," $1 }' "$tmp/out" >"$tmp/keys"
check "@[stack()]: a sample in user mode is the empty key" \
    grep -qx -- - "$tmp/keys"
check "@[stack()]: one key a stack" \
    [ -z "$(sort "$tmp/keys" | uniq -d)" ]

# stack() and ustack() in one key: the user stack is unwound as before,
# from the system call's libc wrapper (or inner itself) to main.
dtrace -q -p $sp -n 'profile-997 /pid == $target/ {
	@[stack(), ustack()] = count(); }
tick-1s { exit(0); }
END { printa("%k%k=%@d\n", @); }' >"$tmp/out" 2>"$tmp/err"
check "@[stack(), ustack()]: exit 0" [ $? -eq 0 ]
awk '/^              spin`inner/ { inner = 1 }
/^              spin`outer\+/ { outer = 1 }
/^              spin`main\+/ { main = 1 }
/^              vmlinux`/ { k = 1 }
/^=[0-9]+$/ { n++; if (!(inner && outer && main)) bad++; nk += k
	inner = outer = main = k = 0 }
END { printf("%d %d %d\n", n, nk, bad) }' "$tmp/out" >"$tmp/counts"
read -r nkeys nk bad <"$tmp/counts"
echo "# $nkeys keys, $nk with kernel frames"
check "@[stack(), ustack()]: keys with kernel frames" [ "$nk" -gt 0 ]
check "@[stack(), ustack()]: each key's user stack is inner, outer, main" \
    [ "$nkeys" -gt 0 -a "$bad" -eq 0 ] || sed 's/^/# /' "$tmp/out" |
    head -40

# Two consumers on one probe: the first samples without call chains; the
# second's stack() makes the probe sample again with them, and the
# first goes on counting.
# (dtrace itself, not the wrapper: SIGINT ends it as it would a user's)
"$DTRACE" -x socket="$sock" -q -p $sp -n 'BEGIN { printf("go\n"); }
profile-997 /pid == $target/ { @ = count(); }' >"$tmp/first" 2>&1 & fp=$!
waitfor grep -q go "$tmp/first"
dtrace -q -p $sp -n 'profile-997 /pid == $target && arg0 != 0/ {
	@[stack()] = count(); }
tick-1s { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "second consumer's stack(): exit 0" [ $? -eq 0 ]
check "second consumer's stack(): the probe samples again with frames" \
    grep -q 'profile:::profile-997 sampled again, 20 kernel frames$' \
    "$tmp/dtraced.log"
check "second consumer's stack(): kernel frames" \
    grep -q '^              vmlinux`' "$tmp/out"
check "second consumer's stack(): no empty stack (arg0 != 0)" \
    [ "$(awk '/^ +[0-9]+$/ && prev == "" { b++ } { prev = $0 }
    END { print b + 0 }' "$tmp/out")" -eq 0 ]
kill -INT $fp
wait $fp
check "first consumer: exit 0 on SIGINT" [ $? -eq 0 ]
check "first consumer: its samples counted" \
    grep -q '^ *[1-9][0-9]*$' "$tmp/first"

# A second consumer's stack() whose sampling the kernel refuses: the
# first goes on sampling as it did, the second is told why.  The
# daemon reads the kernel's perf_event_max_stack (127) through a file
# bound over it in its own mount namespace that says 4096, so that it
# asks for the 200 frames of stack(200) and perf_event_open refuses
# them (EOVERFLOW); nothing outside the daemon sees the file.
stop_daemon
echo 4096 >"$tmp/maxstack"
if unshare -m sh -c 'mount --bind "$1" /proc/sys/kernel/perf_event_max_stack' \
    sh "$tmp/maxstack" 2>/dev/null; then
	rm -f "$sock"
	: >"$tmp/dtraced.log"
	unshare -m sh -c 'mount --bind "$1" \
	    /proc/sys/kernel/perf_event_max_stack && exec "$2" -d -s "$3" -vv' \
	    sh "$tmp/maxstack" "$DTRACED" "$sock" 2>>"$tmp/dtraced.log" &
	dpid=$!
	waitfor [ -S "$sock" ]
	check "refused reopen: daemon starts" [ -S "$sock" ]
	# (emptied first: the earlier consumer's "go" is in it, and the
	# background job's redirection may come after the loop's grep)
	: >"$tmp/first"
	"$DTRACE" -x socket="$sock" -q -p $sp -n 'BEGIN { printf("go\n"); }
	profile-997 /pid == $target/ { printf("s\n"); }' >"$tmp/first" 2>&1 &
	fp=$!
	# (a bound on a hang: a run beside a busy machine's other work
	# took more than waitfor's 10 s, and the second came first)
	i=0
	while ! grep -q go "$tmp/first" && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	check "refused reopen: the first consumer traces" grep -q go "$tmp/first"
	dtrace -q -p $sp -n 'profile-997 /pid == $target/ {
		@[stack(200)] = count(); }
	tick-1s { exit(0); }' >"$tmp/out" 2>"$tmp/err"
	check "refused reopen: the second consumer exits 1" [ $? -eq 1 ]
	same "$tmp/err" "dtrace: could not enable tracing: cannot enable \
profile:::profile-997: Value too large for defined data type
" "refused reopen: the second consumer is told why"
	check "refused reopen: the daemon says it samples on as it did" \
	    grep -q "profile:::profile-997: 200 kernel frames refused, \
sampling on with 0: Value too large for defined data type\$" \
	    "$tmp/dtraced.log"
	# the first consumer's samples of spin go on coming (a timer's
	# firing would be the daemon's, not spin's)
	atleast()	# atleast N: the first consumer printed N samples
	{
		[ "$(grep -c '^s$' "$tmp/first")" -ge "$1" ]
	}
	n0=$(grep -c '^s$' "$tmp/first")
	check "refused reopen: the first consumer is still sampled" \
	    waitfor atleast $((n0 + 50))
	kill -INT $fp
	wait $fp
	check "refused reopen: the first consumer exits 0 on SIGINT" [ $? -eq 0 ]
else
	ok "# SKIP refused reopen: no private mount namespace here"
	start_daemon
fi

kill $sp
wait $sp
check "spin sys: not harmed (exit 0 on SIGTERM)" [ $? -eq 0 ]

stop_daemon
done_testing
