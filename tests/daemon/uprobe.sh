#!/bin/sh
# The uprobe backend end to end (-x backend=uprobe): exact counts of
# entry, return and offset probes with their arguments and return values,
# 8 threads made after the attach, fork, the target's exit status, exec
# and dlopen followed after the fact; auto
# picking uprobe or ptrace (dtrace -v says which); records + drops ==
# hits with a tiny ring; one backend per process; a grabbed program let
# go with its text intact; and the daemon killed with SIGKILL harming no
# uprobe-traced program.  Skipped where the daemon cannot use uprobes.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# Can this daemon use uprobes here (root, a kernel with uprobe_multi)?
dtrace -x backend=uprobe -q -c "$TRIGGERS/loop 1" \
    -n 'pid$target:a.out:f:entry {}' >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 0 ]; then
	# only the backend's refusal skips; anything else is a failure
	why=$(grep -o 'cannot use the uprobe backend.*' "$tmp/err" | head -1)
	if [ -n "$why" ]; then
		ok "# SKIP no uprobe backend here: $why"
	else
		not_ok "a uprobe probe: $(head -1 "$tmp/err")"
	fi
	stop_daemon
	done_testing
	exit 0
fi

# -c: exact count; the target's own stdout is untouched
dtrace -x backend=uprobe -q -c "$TRIGGERS/loop 1000" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/out" 2>"$tmp/err"
check "-c loop 1000: exit 0" [ $? -eq 0 ]
same "$tmp/out" "sum=1000000

             1000
" "-c loop 1000: f:entry fires 1000 times"

# arguments, return values, return-site offsets, cpu, timestamp
dtrace -x backend=uprobe -c "$TRIGGERS/loop 10 0" -n '
pid$target:a.out:f:entry { @a = sum(arg0); }
pid$target:a.out:f:entry /cpu < 0 || timestamp == 0 || tid == 0/
{ @bad = count(); }
pid$target:a.out:f:return { @r[arg0] = sum(arg1); }
END { printa("args %@d\n", @a); printa("ret at %d: %@d\n", @r);
    printa("bad %@d\n", @bad); }' \
    >"$tmp/out" 2>"$tmp/err"
check "args: exit 0" [ $? -eq 0 ]
retoff=$(objdump -d "$TRIGGERS/loop" 2>/dev/null | awk '
/<f>:/ { inf = 1; next } inf && /^$/ { exit }
inf && /\tret/ { sub(":", "", $1); print $1 }' | head -1)
start=$(objdump -d "$TRIGGERS/loop" 2>/dev/null | awk '/<f>:/ { print $1 }')
if [ -n "$retoff" ] && [ -n "$start" ]; then
	off=$(( 0x$retoff - 0x$start ))
	check "return: arg0 is the ret's offset ($off), arg1 sums to 100" \
	    grep -q "^ret at $off: 100$" "$tmp/out"
else
	check "return: arg1 sums to 100" grep -q "^ret at [0-9]*: 100$" \
	    "$tmp/out"
fi
check "entry: arg0 sums to 45" grep -q ":END args 45$" "$tmp/out"
check "cpu, timestamp and tid of every hit make sense" \
    sh -c "! grep -q '^bad' '$tmp/out'"
check "exit notice: pid N has exited" \
    grep -q "^dtrace: pid [0-9]* has exited$" "$tmp/err"

dtrace -x backend=uprobe -c "$TRIGGERS/loop 3 7" \
    -n 'pid$target:a.out:f:entry {}' >"$tmp/out" 2>"$tmp/err"
check "status 7: pid N exited with status 7" \
    grep -q "^dtrace: pid [0-9]* exited with status 7$" "$tmp/err"
check "status 7: three firings" [ "$(grep -c ':entry' "$tmp/out")" -eq 3 ]

# eight threads, all made after the uprobes were in: exact totals (a
# ring that holds every sample, so that a slow daemon, e.g. a sanitizer
# build, drops none: 32000 records of some 4.6 KiB, each with its
# thread's stack up to the top)
dtrace -x backend=uprobe -x uprobebufsize=256m -q -c "$TRIGGERS/threads 2000" -n '
pid$target:a.out:f:entry { @n[arg0] = count(); }
pid$target:a.out:f:return { @t = sum(arg1); }' >"$tmp/out" 2>"$tmp/err"
check "threads: exit 0" [ $? -eq 0 ]
same "$tmp/out" "total=72000

                1             2000
                2             2000
                3             2000
                4             2000
                5             2000
                6             2000
                7             2000
                8             2000
            72000
" "threads: 8 x 2000 entries, 72000 returned"

# the same in the default ring (8 MiB): clauses that read no stack get
# records without a stack copy (some 220 bytes: 32000 fit however late
# the daemon drains them; with the whole copy, some 1,800 did)
dtrace -x backend=uprobe -q -c "$TRIGGERS/threads 2000" -n '
pid$target:a.out:f:entry { @n = count(); }
pid$target:a.out:f:return { @t = sum(arg1); }' >"$tmp/out" 2>"$tmp/err"
check "threads, default ring: exit 0" [ $? -eq 0 ]
check "threads, default ring: no drops" sh -c "! grep -q drops '$tmp/err'"
same "$tmp/out" "total=72000

            16000
            72000
" "threads, default ring: 16000 entries, 72000 returned"

# arg6 and arg7 are on the stack: the record's 64-byte copy holds them
# as they were at the hit, whenever the daemon drains it
dtrace -x backend=uprobe -q -c "$TRIGGERS/shapes 10" -n '
pid$target:a.out:many:entry { @6 = sum(arg6); @7 = sum(arg7); @5 = sum(arg5); }
END { printa("arg5 %@d arg6 %@d arg7 %@d\n", @5, @6, @7); }' \
    >"$tmp/out" 2>"$tmp/err"
check "stack args: exit 0" [ $? -eq 0 ]
check "stack args: arg5, arg6, arg7 sum to 95, 105, 115" \
    grep -qx "arg5 95 arg6 105 arg7 115" "$tmp/out"

# GNU IFUNCs (as in pid.sh): the chosen functions' entries and returns
dtrace -x backend=uprobe -q -c "$TRIGGERS/ifunc 1000" \
    -s "$srcdir/tests/daemon/ifunc.d" >"$tmp/out" 2>"$tmp/err"
check "ifunc: exit 0" [ $? -eq 0 ]
same "$tmp/out" "pick=1499500 work=15500
memcpy 1000
pick 1000
strlen 1000
pick 499500 1499500, strlen 15500

" "ifunc: pick, strlen, memcpy each fire 1000 times, with their values"
dtrace -x backend=uprobe -q -c "$TRIGGERS/ifunc 100" -n '
pid$target:a.out:work:entry { self->in = 1; }
pid$target:a.out:work:return { self->in = 0; }
pid$target:libc.so.6:strlen:entry /self->in/
{ @u[ufunc(uregs[R_PC])] = count(); @s[ustack(2)] = count(); }
END { printa("%A %@d\n", @u); printa("%k", @s); }' >"$tmp/out" 2>"$tmp/err"
check "ifunc names: ufunc() and ustack() say libc.so.6\`strlen, under work" \
    [ "$(awk '/`/ { printf "%s ", $1 }' "$tmp/out" |
    sed 's/+0x[0-9a-f]*//g')" = \
    "libc.so.6\`strlen libc.so.6\`strlen ifunc\`work " ]

# offset probes: offset 0 shares the entry site
dtrace -x backend=uprobe -q -c "$TRIGGERS/loop 5" -n '
pid$target:a.out:f:0 { @o = count(); }
pid$target:a.out:f:entry { @e = count(); }
END { printa("%@d ", @o); printa("%@d\n", @e); }' >"$tmp/out" 2>"$tmp/err"
check "offset 0 and entry both fire 5 times" grep -q "^5 5$" "$tmp/out"

# an EVEX-encoded first instruction: the kernel takes such a uprobe and
# runs the instruction wrong (%ymm17 lost, two hits a call), so it is
# refused (never linked, said at the sync); the program is unharmed
"$TRIGGERS/evex" 1 >/dev/null 2>&1
if [ $? -eq 3 ]; then
	ok "# SKIP evex: no AVX-512 here"
	ok "# SKIP evex: no AVX-512 here"
	ok "# SKIP evex: no AVX-512 here"
else
	dtrace -x backend=uprobe -q -c "$TRIGGERS/evex 500" -n '
	pid$target:a.out:bcast17:entry, pid$target:a.out:bcast1:entry
	{ @[probefunc] = count(); }' >"$tmp/out" 2>"$tmp/err"
	check "evex: exit 0, every result right" grep -q "^bad=0$" "$tmp/out"
	check "evex: its uprobes refused, said in the log" \
	    grep -q "sites the kernel cannot probe" "$tmp/dtraced.log"
	check "evex: nothing counted" sh -c "! grep -q bcast '$tmp/out'"
fi

# a second consumer's probes in the same file: the file's link is made
# again with them, and again without them when it goes; while an old
# link closes, both are in place, and each hit must still be recorded
# once (the link's generation in its cookies; f's argument grows by one
# each call, so a hit recorded twice shows as the same argument again)
"$TRIGGERS/loop" spin >/dev/null 2>&1 &
lpid=$!
waitfor spinning "$lpid"
dtrace -x backend=uprobe -q -p "$lpid" -n '
pid$target:a.out:f:entry /arg0 == self->prev/ { @dup = count(); }
pid$target:a.out:f:entry { @n = count(); self->prev = arg0; }
tick-3s { printa("dup %@d\n", @dup); printa("n %@d\n", @n); exit(0); }' \
    >"$tmp/dup.out" 2>"$tmp/dup.err" &
cpid=$!
sleep 1
dtrace -x backend=uprobe -q -p "$lpid" -n '
pid$target:a.out:main:entry, pid$target:a.out:g:entry {}
tick-500ms { exit(0); }' >/dev/null 2>"$tmp/dup2.err"
wait "$cpid"
kill -TERM "$lpid"
wait "$lpid"
check "relinked under a consumer: its hits counted" \
    grep -q '^n [1-9][0-9]*$' "$tmp/dup.out" || sed 's/^/# /' "$tmp/dup.err"
check "relinked under a consumer: no hit recorded twice" \
    sh -c "! grep -q '^dup' '$tmp/dup.out'"

# fork: the child's copy of the text traps once per site, unseen
dtrace -x backend=uprobe -q -c "$TRIGGERS/forker 50 30" -n '
pid$target:a.out:f:entry /pid == $target/ { @ = count(); }
pid$target:a.out:f:entry /pid != $target/ { @o = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "fork: exit 0" [ $? -eq 0 ]
same "$tmp/out" "child exited 3

              100
" "fork: the parent's 100 calls only; the child unharmed"

# exec and dlopen are followed after the fact (the process runs on): the
# calls of the new image and library made once the probes are resolved
# again fire (the first ones are missed); exit() at the first of them
# (the exec comes within microseconds of the process's start: the exec
# watch must be in place before ptrace lets the held command go)
timeout -k 10 20 "$DTRACE" -x socket="$sock" -x backend=uprobe -q \
    -c "$TRIGGERS/execer 3 $TRIGGERS/loop spin" \
    -n 'pid$target:a.out:f:entry /arg0 > 2/ { printf("f %d\n", arg0); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "exec: the new image's f fires" grep -q '^f [0-9]' "$tmp/out"
dtrace -x backend=uprobe -Z -q -c "$TRIGGERS/dl 50000000" \
    -n 'pid$target:libm.so.6:cbrt:entry { printf("cbrt\n"); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "dlopen: libm's cbrt fires once libm is in" grep -q '^cbrt$' "$tmp/out"
# the linker's hook of an image that replaced the first by exec: a
# library it loads later is still seen
timeout -k 10 30 "$DTRACE" -x socket="$sock" -x backend=uprobe -Z -q \
    -c "$TRIGGERS/execer 3 $TRIGGERS/dl 50000000" \
    -n 'pid$target:libm.so.6:cbrt:entry { printf("cbrt\n"); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "exec, then dlopen: libm's cbrt fires" grep -q '^cbrt$' "$tmp/out"

# auto: uprobes for a running program, unless a clause needs the thread
# stopped or exec and dlopen must be followed exactly (-c, -Z); -v says
"$TRIGGERS/loop" spin >/dev/null 2>&1 &
spid=$!
waitfor execd $spid
dtrace -v -q -p "$spid" -n 'pid$target:a.out:f:entry { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "auto, -p: uprobe backend" \
    grep -q "^dtrace: pid $spid: uprobe backend$" "$tmp/err"
dtrace -v -q -p "$spid" -n 'pid$target:a.out:f:entry { exit(0); }
pid$target:a.out:f:entry /arg0 == -1/ { trace(copyin(arg0, 8)); }' \
    >"$tmp/out" 2>"$tmp/err"
check "auto, -p, copyin: ptrace backend" \
    grep -q "^dtrace: pid $spid: ptrace backend$" "$tmp/err"
dtrace -v -q -Z -p "$spid" -n 'pid$target:a.out:f:entry { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "auto, -p, -Z: ptrace backend" \
    grep -q "^dtrace: pid $spid: ptrace backend$" "$tmp/err"
dtrace -v -q -p "$spid" -n 'pid$target:a.out:f:entry { @[ustack()] = count(); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "auto, -p, ustack(): ptrace backend" \
    grep -q "^dtrace: pid $spid: ptrace backend$" "$tmp/err"
dtrace -x backend=uprobe -q -p "$spid" \
    -n 'pid$target:a.out:f:entry { ustack(); exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "backend=uprobe: ustack() from the sample starts in f, called by main" \
    sh -c "grep -q 'loop\`f\$' '$tmp/out' && grep -q 'loop\`main+0x' '$tmp/out'"
grep -q 'loop`main+0x' "$tmp/out" || sed 's/^/# /' "$tmp/out" "$tmp/err"
if [ "$(id -u)" -eq 0 ]; then
	dtrace -w -x backend=uprobe -q -p "$spid" \
	    -n 'pid$target:a.out:f:entry { raise(0); }' >"$tmp/out" 2>"$tmp/err"
	check "backend=uprobe: destructive actions refused" \
	    grep -q "destructive actions need the ptrace backend" "$tmp/err"
fi
kill -TERM "$spid"
wait "$spid"
check "loop spin computed right under both backends" [ $? -eq 0 ]
dtrace -v -q -c "$TRIGGERS/loop 3" -n 'pid$target:a.out:f:entry {}' \
    >"$tmp/out" 2>"$tmp/err"
check "auto, -c: ptrace backend" \
    grep -q "^dtrace: pid [0-9]*: ptrace backend$" "$tmp/err"
dtrace -v -x backend=uprobe -q -c "$TRIGGERS/loop 3" \
    -n 'pid$target:a.out:f:entry {}' >"$tmp/out" 2>"$tmp/err"
check "backend=uprobe, -c: uprobe backend" \
    grep -q "^dtrace: pid [0-9]*: uprobe backend$" "$tmp/err"
dtrace -x backend=bogus -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "backend=bogus: refused" [ $? -ne 0 ]

# a one-page ring: samples are lost, and each is a drop
dtrace -x backend=uprobe -x uprobebufsize=4k -q -c "$TRIGGERS/loop 20000" \
    -n 'pid$target:a.out:f:entry { @ = count(); }
END { printa("records %@d\n", @); }' >"$tmp/out" 2>"$tmp/err"
recs=$(sed -n 's/^records //p' "$tmp/out")
drops=$(awk '/^dtrace: [0-9]* drops? on CPU [0-9]*$/ { n += $2 }
END { print n + 0 }' "$tmp/err")
echo "# $recs records, $drops drops"
check "tiny ring: drops reported" [ "${drops:-0}" -gt 0 ]
check "tiny ring: records + drops == 20000" \
    [ $(( ${recs:-0} + ${drops:-0} )) -eq 20000 ]

# a running program: one backend for all its consumers
"$TRIGGERS/busy8" >"$tmp/target.out" 2>&1 &
tpid=$!
waitfor execd $tpid
"$DTRACE" -x socket="$sock" -x backend=uprobe -q -p "$tpid" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/a.out" \
    2>"$tmp/a.err" &
apid=$!
waitfor patched "$tpid"
check "-p busy8 under uprobes: its text has the probes" patched "$tpid"
dtrace -q -p "$tpid" \
    -n 'pid$target:a.out:f:entry /arg0 == -1/ { trace(copyin(arg0, 8)); }' \
    >"$tmp/out" 2>"$tmp/err"
check "a consumer that needs ptrace is refused" \
    grep -q "is traced with the uprobe backend" "$tmp/err"
kill -INT "$apid"
wait "$apid"
check "the uprobe consumer counted" grep -q '[0-9]' "$tmp/a.out"

check "consumer gone: target alive, text restored" restored "$tpid"

# the daemon killed with SIGKILL: the kernel takes the uprobes away
"$DTRACE" -x socket="$sock" -x backend=uprobe -q -p "$tpid" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >/dev/null \
    2>"$tmp/again.err" &
apid=$!
waitfor patched "$tpid"
check "traced again: its text has the probes" patched "$tpid" || {
	sed 's/^/# consumer: /' "$tmp/again.err"
	"$TRIGGERS/textcmp" "$tpid" 2>&1 | sed 's/^/# textcmp: /'
}
stop_daemon KILL
check "daemon SIGKILL: target alive, text restored" restored "$tpid"
wait "$apid" 2>/dev/null
sleep 0.2
kill -TERM "$tpid"
wait "$tpid"
check "busy8 computed right all along (exit 0)" [ $? -eq 0 ]
same "$tmp/target.out" "spun well
" "busy8's output"

done_testing
