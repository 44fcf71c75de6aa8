#!/bin/sh
# The pid provider end to end: -c and -p targets, entry/return/offset
# probes with exact counts and arguments, target exit, clean release.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# -c: exact count; the target's own stdout is untouched
dtrace -q -c "$TRIGGERS/loop 1000" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/out" 2>"$tmp/err"
check "-c loop 1000: exit 0" [ $? -eq 0 ]
same "$tmp/out" "sum=1000000

             1000
" "-c loop 1000: f:entry fires 1000 times"

# arguments, return values, return-site offsets; the exit notice
dtrace -c "$TRIGGERS/loop 10 0" -n '
pid$target:a.out:f:entry { @a = sum(arg0); }
pid$target:a.out:f:return { @r[arg0] = sum(arg1); }
END { printa("args %@d\n", @a); printa("ret at %d: %@d\n", @r); }' \
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
# not quiet: the first printa follows the END line's probe columns
check "entry: arg0 sums to 45" grep -q ":END args 45$" "$tmp/out"
check "target exit status 0: pid N has exited" \
    grep -q "^dtrace: pid [0-9]* has exited$" "$tmp/err"

# a non-zero exit status and the illumos wording for it
dtrace -c "$TRIGGERS/loop 3 7" -n 'pid$target:a.out:f:entry {}' \
    >"$tmp/out" 2>"$tmp/err"
check "status 7: dtrace exits 0" [ $? -eq 0 ]
check "status 7: pid N exited with status 7" \
    grep -q "^dtrace: pid [0-9]* exited with status 7$" "$tmp/err"
check "status 7: three firings" [ "$(grep -c ':entry' "$tmp/out")" -eq 3 ]

# eight threads: exact totals per thread
dtrace -q -c "$TRIGGERS/threads 10000" -n '
pid$target:a.out:f:entry { @n[arg0] = count(); }
pid$target:a.out:f:return { @t = sum(arg1); }' >"$tmp/out" 2>"$tmp/err"
check "threads: exit 0" [ $? -eq 0 ]
same "$tmp/out" "total=360000

                1            10000
                2            10000
                3            10000
                4            10000
                5            10000
                6            10000
                7            10000
                8            10000
           360000
" "threads: 8 x 10000 entries, 360000 returned"

# GNU IFUNCs: the function the resolver chose (the trigger's own pick,
# whose resolver chooses pick_fast; glibc's strlen and memcpy, chosen by
# the CPU), every call and return; memcpy is its default version's
dtrace -q -c "$TRIGGERS/ifunc 1000" -s "$srcdir/tests/daemon/ifunc.d" \
    >"$tmp/out" 2>"$tmp/err"
check "ifunc: exit 0" [ $? -eq 0 ]
same "$tmp/out" "pick=1499500 work=15500
memcpy 1000
pick 1000
strlen 1000
pick 499500 1499500, strlen 15500

" \
    "ifunc: pick, strlen, memcpy each fire 1000 times, with their values"
# and they are named so in ufunc() and ustack(), where no symbol of a
# stripped libc names them (__strlen_avx2 is only a debug file's)
dtrace -q -c "$TRIGGERS/ifunc 100" -n '
pid$target:a.out:work:entry { self->in = 1; }
pid$target:a.out:work:return { self->in = 0; }
pid$target:a.out:pick:entry,
pid$target:libc.so.6:strlen:entry, pid$target:libc.so.6:memcpy:entry
/probefunc == "pick" || self->in/
{ @u[ufunc(uregs[R_PC])] = count(); @s[ustack(2)] = count(); }
END { printa("%A %@d\n", @u); printa("%k", @s); }' >"$tmp/out" 2>"$tmp/err"
check "ifunc names: exit 0" [ $? -eq 0 ]
check "ifunc names: ufunc() is libc.so.6\`strlen, memcpy and ifunc\`pick" \
    [ "$(grep '^[a-z]' "$tmp/out" | tr '\n' ' ')" = \
    "pick=14950 work=1558 libc.so.6\`memcpy 100 ifunc\`pick 100 libc.so.6\`strlen 100 " ]
check "ifunc names: ustack() tops are strlen and memcpy under work, pick" \
    [ "$(awk '/^ +[^ ]*`/ { printf "%s ", $1 }' "$tmp/out" |
    sed 's/+0x[0-9a-f]*//g')" = \
    "libc.so.6\`memcpy ifunc\`work ifunc\`pick ifunc\`main libc.so.6\`strlen ifunc\`work " ]
dtrace -l -n 'pid$target:a.out:pick*:entry' -c "$TRIGGERS/ifunc 1" \
    >"$tmp/out" 2>"$tmp/err"
check "ifunc: -l lists pick once, over pick_fast, and the others" \
    [ "$(awk 'NR > 1 { print $4 }' "$tmp/out" | sort | tr '\n' ' ')" = \
    "pick pick_resolve pick_slow " ]

# offset probes: offset 0 shares the entry site; a bad offset is refused
dtrace -q -c "$TRIGGERS/loop 5" -n '
pid$target:a.out:f:0 { @o = count(); }
pid$target:a.out:f:entry { @e = count(); }
END { printa("%@d ", @o); printa("%@d\n", @e); }' >"$tmp/out" 2>"$tmp/err"
check "offset 0 and entry both fire 5 times" grep -q "^5 5$" "$tmp/out"
dtrace -n 'pid$target:a.out:f:3 {}' -c "$TRIGGERS/loop 5" \
    >"$tmp/out" 2>"$tmp/err"
check "offset not on an instruction: exit 1" [ $? -eq 1 ]
check "offset not on an instruction: message" \
    grep -q "offset 0x3 is not aligned on an instruction" "$tmp/err"
# (its arguments are this test's alone: other tests run loop 5 meanwhile)
dtrace -n 'pid$target:a.out:nosuchfunc:entry {}' -c "$TRIGGERS/loop 5 93" \
    >"$tmp/out" 2>"$tmp/err"
check "no such function: exit 1" [ $? -eq 1 ]
check "no such function: does not match any probes" \
    grep -q "pid[0-9]*:a.out:nosuchfunc:entry does not match any probes" \
    "$tmp/err"
# nochild: the -c child is gone (killed as its dtrace ended, and reaped)
nochild()
{
	[ -z "$(ps -eo args | grep "^$TRIGGERS/loop 5 93\$")" ]
}
check "no -c child left behind" waitfor nochild

# args 6 and 7 are on the stack (read only when D asks); cpu is the CPU
# the thread ran on (read only when D asks): each record is in its buffer
dtrace -q -c "$TRIGGERS/shapes 10" -n '
pid$target:a.out:many:entry { @6 = sum(arg6); @7 = sum(arg7); @5 = sum(arg5); }
pid$target:a.out:many:entry { printf("cpu %d\n", cpu); }
END { printa("arg5 %@d arg6 %@d arg7 %@d\n", @5, @6, @7); }' \
    >"$tmp/out" 2>"$tmp/err"
check "stack args: exit 0" [ $? -eq 0 ]
check "stack args: arg5, arg6, arg7 sum to 95, 105, 115" \
    grep -qx "arg5 95 arg6 105 arg7 115" "$tmp/out"
ncpu=$(getconf _NPROCESSORS_CONF)
check "cpu: 10 hits, each on a CPU that exists" [ "$(awk -v n=$ncpu \
    '$1 == "cpu" && $2 >= 0 && $2 < n' "$tmp/out" | wc -l)" -eq 10 ]

# aliases: one function under several names is one probe for a glob,
# named by its preferred name (global or weak over local, fewer leading
# underscores, no compiler-made suffix; a default symbol version over a
# compat one), and ufunc() names it the same way
dtrace -l -c "$TRIGGERS/shapes 1" -n 'pid$target:a.out:*alias*:entry' \
    -n 'pid$target:a.out:__alia*:entry' >"$tmp/out" 2>"$tmp/err"
check "aliases: -l lists aliased once, and __aliased for a glob only it matches" \
    [ "$(awk 'NR > 1 { print $3, $4, $5 }' "$tmp/out" | tr '\n' ,)" = \
    "shapes aliased entry,shapes __aliased entry," ]
dtrace -q -c "$TRIGGERS/shapes 10" -n 'pid$target:a.out:__aliased:entry,
pid$target:a.out:aliased.localalias:entry { @[probefunc, ufunc(uregs[R_PC])] = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "aliases: ufunc() of each name is shapes\`aliased" [ "$(awk \
    'NF == 3 { print $1, $2, $3 }' "$tmp/out" | sort | tr '\n' ,)" = \
    "__aliased shapes\`aliased 10,aliased.localalias shapes\`aliased 10," ]
dtrace -l -c "$TRIGGERS/loop 1" -n 'pid$target:libc.so.6::entry' \
    >"$tmp/out" 2>"$tmp/err"
check "aliases: libc's malloc, free, getpid, puts; not their other names" \
    [ "$(awk '$4 ~ /^(__libc_malloc|malloc|cfree|free|__getpid|getpid|_IO_puts|puts)$/ \
    { print $4 }' "$tmp/out" | sort | tr '\n' ,)" = "free,getpid,malloc,puts," ]
dtrace -q -c "$TRIGGERS/threads 2" -n 'pid$target:libc.so.6:__libc_malloc:entry,
pid$target:libc.so.6:cfree:entry { @[probefunc, ufunc(uregs[R_PC])] = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "aliases: ufunc() at __libc_malloc and cfree is libc's malloc and free" \
    [ "$(awk 'NF == 3 { print $1, $2 }' "$tmp/out" | sort | tr '\n' ,)" = \
    "__libc_malloc libc.so.6\`malloc,cfree libc.so.6\`free," ]

# -p: grab a running process, detach after exit(); it runs on, restored
"$TRIGGERS/loop" spin >"$tmp/spin.out" 2>&1 &
spid=$!
waitfor execd $spid
dtrace -q -p $spid -n 'pid$target:a.out:f:entry { @ = count(); }
pid$target:a.out:f:entry /++n == 500/ { exit(0); }
END { printa("%@d\n", @); }' >"$tmp/out" 2>"$tmp/err"
check "-p: exit 0" [ $? -eq 0 ]
check "-p: counted at least 500" [ "$(head -1 "$tmp/out")" -ge 500 ]
# (dtrace exits only once the daemon has let it go: no wait here)
check "-p: its text is the file's once dtrace has exited" \
    "$TRIGGERS/textcmp" $spid
dtrace -l -p $spid -n 'pid$target:a.out:f:' >"$tmp/out" 2>"$tmp/err"
check "-l -p: lists entry, return and every offset of f" \
    [ "$(awk 'NR > 1 { print $2, $3, $4, $5 }' "$tmp/out" | tr '\n' ,)" = \
    "pid$spid loop f entry,pid$spid loop f return,pid$spid loop f 0,pid$spid loop f 5," ]
sleep 0.1
check "-p: the process still runs after detach" kill -0 $spid
check "-p: its text equals the file's bytes" "$TRIGGERS/textcmp" $spid
kill -TERM $spid
wait $spid
check "-p: the process was never wrong" [ $? -eq 0 ]

# kill -9 of dtrace while tracing: the daemon notices, restores, lets go
"$TRIGGERS/loop" spin >"$tmp/spin.out" 2>&1 &
spid=$!
waitfor execd $spid
"$DTRACE" -x socket="$sock" -q -p $spid \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >/dev/null 2>&1 &
tpid=$!
# (killed once its probes are in the text: 10 s at most)
waitfor sh -c "! '$TRIGGERS/textcmp' $spid >/dev/null 2>&1"
kill -KILL $tpid
wait $tpid 2>/dev/null
check "kill -9 dtrace: its text is restored" \
    waitfor sh -c "'$TRIGGERS/textcmp' $spid >/dev/null 2>&1"
check "kill -9 dtrace: the target still runs" kill -0 $spid
kill -TERM $spid
wait $spid
check "kill -9 dtrace: the target was never wrong" [ $? -eq 0 ]

stop_daemon TERM
check "daemon stops cleanly" [ "$dstatus" -eq 0 ]
done_testing
