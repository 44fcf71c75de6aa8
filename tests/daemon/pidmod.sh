#!/bin/sh
# The pid provider's module names, as illumos has them: the executable
# is "a.out" and its own name (the name it was run by, here a link
# "lp" to the loop trigger, and the file's, "loop"), printed as it was
# run in probemod, umod(), usym(), ustack() and -l; a library by its
# name, or a prefix of it up to a '.' ("libc.so" for libc.so.6).  A
# provider that names a pid (pid1234, or a USDT provider's trig1234)
# grabs that process.  Offsets are checked with illumos's tags.  A
# target that dies before its probes are enabled leaves dtrace running,
# as one that dies later.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

ln -s "$(cd "$TRIGGERS" && pwd)/loop" "$tmp/lp"

# the executable by three names, printed as it was run
for mod in a.out lp loop; do
	dtrace -q -c "$tmp/lp 5 0" -n "pid\$target:$mod:f:entry {
	    @[probemod] = count(); }" >"$tmp/out" 2>"$tmp/err"
	check "module $mod: exit 0" [ $? -eq 0 ]
	same "$tmp/out" "sum=25

  lp                                                                5
" "module $mod: f:entry 5 times, probemod lp"
done
dtrace -q -c "$tmp/lp 3 0" -n 'pid$target:lp:f:entry {
    umod(uregs[R_PC]); usym(uregs[R_PC]); printf("\n"); ustack(2); }' \
    >"$tmp/out" 2>"$tmp/err"
check "umod, usym, ustack: exit 0" [ $? -eq 0 ]
check "umod, usym, ustack: lp and lp\`f, three times" [ "$(grep -c \
    '^  lp  *lp`f  *$' "$tmp/out")" -eq 3 ]
check "ustack: lp\`f, three times" [ "$(grep -c '^  *lp`f$' "$tmp/out")" \
    -eq 3 ]
check "ustack: called from lp\`main, three times" [ "$(grep -c \
    '^  *lp`main+0x[0-9a-f]*$' "$tmp/out")" -eq 3 ]
dtrace -l -c "$tmp/lp 1" -n 'pid$target:a.out:f:entry' >"$tmp/out" \
    2>"$tmp/err"
check "-l: the module column says lp" \
    [ "$(awk 'NR > 1 { print $3, $4, $5 }' "$tmp/out")" = "lp f entry" ]

# libraries: the name, or a prefix of it up to a '.'; globs whole
for mod in libc libc.so libc.so.6 'libc.so.*' 'lib?.so*'; do
	dtrace -q -c "$tmp/lp 1 0" -n "pid\$target:$mod:printf:entry {
	    @[probemod] = count(); }" >"$tmp/out" 2>"$tmp/err"
	check "module $mod: exit 0" [ $? -eq 0 ]
	same "$tmp/out" "sum=1

  libc.so.6                                                         1
" "module $mod: printf:entry once, in libc.so.6"
done
for mod in lib libc.s 'libc.s?'; do
	dtrace -q -c "$tmp/lp 1 0" -n "pid\$target:$mod:printf:entry {}" \
	    >"$tmp/out" 2>"$tmp/err"
	check "module $mod: exit 1" [ $? -eq 1 ]
	check "module $mod: does not match any probes" grep -q \
	    "pid[0-9]*:$mod:printf:entry does not match any probes" "$tmp/err"
done

# offsets: outside of the function, inside an instruction (f is
# lea 1(%rdi,%rdi), %rax; ret or the like: offset 1 is inside the lea)
dtrace -xerrtags -c "$tmp/lp 1" -n 'pid$target:a.out:f:1000 {}' \
    >"$tmp/out" 2>"$tmp/err"
check "offset outside: exit 1" [ $? -eq 1 ]
check "offset outside: [D_PROC_OFF] and illumos's words" grep -q \
    "\[D_PROC_OFF\] offset 0x1000 outside of function 'f'$" "$tmp/err"
dtrace -xerrtags -c "$tmp/lp 1" -n 'pid$target:a.out:f:1 {}' \
    >"$tmp/out" 2>"$tmp/err"
check "offset inside an instruction: exit 1" [ $? -eq 1 ]
check "offset inside an instruction: [D_PROC_ALIGN]" grep -q \
    "\[D_PROC_ALIGN\] offset 0x1 is not aligned on an instruction$" \
    "$tmp/err"

# a provider naming a pid grabs it (no -p); it is not $target, and its
# exit is not reported and does not end tracing
"$tmp/lp" spin >"$tmp/spin.out" 2>&1 &
spid=$!
waitfor spinning $spid
dtrace -q -n "pid$spid:lp:f:entry /++n == 200/ { printf(\"%s %d\\n\",
    probemod, n); exit(0); }" >"$tmp/out" 2>"$tmp/err"
check "pid$spid, no -p: exit 0" [ $? -eq 0 ]
check "pid$spid, no -p: f fired, probemod lp" \
    [ "$(head -1 "$tmp/out")" = "lp 200" ]
# (dtrace exits once the daemon has let it go: no wait)
check "pid$spid, no -p: its text restored" "$TRIGGERS/textcmp" $spid
check "pid$spid, no -p: it still runs" kill -0 $spid
dtrace -n "pid$spid:lp:f:entry { trace(\$target); }" >"$tmp/out" \
    2>"$tmp/err"
check "pid$spid, no -p: \$target is not defined" \
    grep -q 'macro variable \$target is not defined' "$tmp/err"
# (ended 100 ticks after: time for a notice to come, were there one)
dtrace -qw -n "pid$spid:lp:f:entry /++n == 100/ { raise(15); }
    tick-10ms /n >= 100 && ++t == 100/ { printf(\"%d\\n\", n); exit(0); }" \
    >"$tmp/out" 2>"$tmp/err"
check "pid$spid killed while traced: dtrace exits 0" [ $? -eq 0 ]
check "pid$spid killed while traced: dtrace ran on after it" \
    [ "$(cat "$tmp/out")" -ge 100 ]
kill -TERM $spid 2>/dev/null	# (if raise() failed)
wait $spid
check "pid$spid killed while traced: it was never wrong" [ $? -eq 0 ]
check "pid$spid killed while traced: no notice of its exit" \
    [ ! -s "$tmp/err" ]
dtrace -l -n "pid$spid:lp:f:entry" >"$tmp/out" 2>"$tmp/err"
check "pid$spid gone: -l cannot grab it" grep -q \
    "failed to grab process $spid$" "$tmp/err"
dtrace -xerrtags -n "pid$spid:lp:f:entry {}" >"$tmp/out" 2>"$tmp/err"
check "pid$spid gone: exit 1" [ $? -eq 1 ]
check "pid$spid gone: [D_PROC_GRAB] failed to grab process" grep -q \
    "\[D_PROC_GRAB\] failed to grab process $spid$" "$tmp/err"

# a USDT provider naming a pid grabs it too; the semaphore and the text
# are as they were once dtrace is done
"$TRIGGERS/sdt" 1 watch >"$tmp/sdt.out" 2>&1 &
spid=$!
waitfor execd $spid
waitfor grep -q '^watching$' "$tmp/sdt.out"
dtrace -q -n "trig$spid:::round /++n == 3/ { printf(\"%s %s %d\\n\",
    probeprov, probemod, n); exit(0); }" >"$tmp/out" 2>"$tmp/err"
check "trig$spid, no -p: exit 0" [ $? -eq 0 ]
check "trig$spid, no -p: round fired 3 times in sdt" \
    [ "$(head -1 "$tmp/out")" = "trig$spid sdt 3" ]
kill -USR1 $spid
wait $spid
check "trig$spid, no -p: semaphore 0 and its text intact after" \
    grep -q '^semaphore 0, text intact$' "$tmp/sdt.out"

# a -p target killed between its grab and the enabling (by the
# preprocessor of the second -n, -x cpppath): dtrace runs BEGIN, tells
# of the exit and ends, as when the target dies while traced
"$tmp/lp" spin >"$tmp/spin.out" 2>&1 &
spid=$!
waitfor spinning $spid
cat >"$tmp/cpp" <<EOF
#!/bin/sh
if [ -e "$tmp/cpp.once" ]; then
	kill -KILL $spid 2>/dev/null
	while [ -d /proc/$spid ] &&
	    [ "\$(cut -d' ' -f3 /proc/$spid/stat 2>/dev/null)" != Z ]; do
		sleep 0.05
	done
fi
: >"$tmp/cpp.once"
exec cpp "\$@"
EOF
chmod +x "$tmp/cpp"
dtrace -q -C -x cpppath="$tmp/cpp" -p $spid -n 'pid$target:lp:f:entry {}' \
    -n 'BEGIN { printf("begun\n"); }' >"$tmp/out" 2>"$tmp/err"
check "killed before enabling: exit 0" [ $? -eq 0 ]
check "killed before enabling: BEGIN fired" grep -q "^begun$" "$tmp/out"
check "killed before enabling: pid N terminated by SIGKILL" \
    grep -q "^dtrace: pid $spid terminated by SIGKILL$" "$tmp/err"
check "killed before enabling: no enabling error" \
    [ -z "$(grep 'could not enable' "$tmp/err")" ]
wait $spid 2>/dev/null

stop_daemon TERM
check "daemon stops cleanly" [ "$dstatus" -eq 0 ]
done_testing
