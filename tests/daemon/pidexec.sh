#!/bin/sh
# The pid provider across exec, dlopen and dlclose: probes are resolved
# again in the new image and in libraries as they come and go; counts
# are exact and the targets' output and exit status are unchanged.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# execer 3 -> execer 4 -> loop 5: f is called 3 + 4 + 5 times
dtrace -q -c "$TRIGGERS/execer 3 $TRIGGERS/execer 4 $TRIGGERS/loop 5" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/out" 2>"$tmp/err"
check "exec: exit 0" [ $? -eq 0 ]
same "$tmp/out" "execer sum=15
execer sum=30
sum=25

               12
" "exec: f:entry fires 12 times over two execs"

# return probes too, into a program that exits 7
dtrace -q -c "$TRIGGERS/execer 2 $TRIGGERS/loop 3 7" \
    -n 'pid$target:a.out:f:return { @ = count(); }' >"$tmp/out" 2>"$tmp/err"
check "exec return: exit 0" [ $? -eq 0 ]
same "$tmp/out" "execer sum=5
sum=9

                5
" "exec: f:return fires 2 + 3 times"

# -Z: libm is not loaded at start; dl loads and unloads it twice
dtrace -Z -q -c "$TRIGGERS/dl 7" -n '
pid$target:libm.so.6:cbrt:entry { @e[probemod] = count(); }
pid$target:libm.so.6:cbrt:return { @r[probefunc] = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "dlopen: exit 0" [ $? -eq 0 ]
same "$tmp/out" "sum=28

  libm.so.6                                                        14
  cbrt                                                             14
" "dlopen: cbrt entry and return fire 2 x 7 times"

# -Z, a glob of functions in a library not loaded yet: they become
# probes when it loads, every time it loads
dtrace -Z -q -c "$TRIGGERS/dl 7" \
    -n 'pid$target:libm*:cbr*:entry { @[probemod, probefunc] = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "dlopen, -Z glob: exit 0" [ $? -eq 0 ]
same "$tmp/out" "sum=28

  libm.so.6                                           cbrt                                                             14
" "dlopen, -Z glob: cbrt fires 2 x 7 times"

# -Z, a function only the new image has (threads' run, after exec):
# the statement traces it once it appears; f fires in both images
dtrace -Z -q -c "$TRIGGERS/execer 1 $TRIGGERS/threads 10" -n '
pid$target:a.out:run:entry { @r = count(); }
pid$target:a.out:f:entry { @f = count(); }
END { printa("run %@d\n", @r); printa("f %@d\n", @f); }' \
    >"$tmp/out" 2>"$tmp/err"
check "exec, -Z: exit 0" [ $? -eq 0 ]
same "$tmp/out" "execer sum=0
total=360
run 8
f 81

" "exec, -Z: run of the new image fires 8 times, f 1 + 80"

# without -Z a library not loaded yet is an error, as in illumos
dtrace -q -c "$TRIGGERS/dl 7" \
    -n 'pid$target:libm.so.6:cbrt:entry { @ = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "no -Z: exit 1" [ $? -eq 1 ]
check "no -Z: does not match any probes" \
    grep -q "libm.so.6:cbrt:entry does not match any probes" "$tmp/err"

# Two consumers of one process that execs three times (-p, both): each
# sees the probes of every new image re-resolved, with its own exact
# counts; the site both use (f:entry) is shared, the one only A uses
# (main:entry) goes with A while B's stay; the text is the file's once
# both have gone (ptrace backend: the uprobe backend re-resolves after
# the new image has started).  A consumer stopped by SIGINT prints a
# newline first, as illumos does.  execer -w waits for a file before it calls f N times
# and execs, so the test decides when each image runs.
# waitline FILE LINE: wait (up to 10 s) until FILE holds LINE
waitline()
{
	i=0
	while ! grep -qx "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	grep -qx "$2" "$1"
}
# byteat PID SYMBOL: the first byte of SYMBOL in PID's executable, in hex
byteat()
{
	exe=$(readlink "/proc/$1/exe")
	base=$(awk -v f="$exe" '$6 == f && $3 ~ /^0+$/ { split($1, a, "-");
	    print a[1]; exit }' "/proc/$1/maps")
	off=$(nm "$exe" | awk -v s="$2" '$3 == s { print $1 }')
	dd if="/proc/$1/mem" bs=1 count=1 \
	    skip=$((0x$base + 0x$off)) 2>/dev/null | od -An -tx1 | tr -d ' \n'
}
BK=ptrace
g=$tmp/gate
X=$TRIGGERS/execer
"$X" -w $g.1 3 "$X" -w $g.2 4 "$X" -w $g.3 5 "$X" -w $g.4 0 /bin/true \
    >"$tmp/x.out" 2>&1 &
xpid=$!
waitline "$tmp/x.out" "execer waits for $g.1"
"$DTRACE" -x socket="$sock" -x backend=$BK -q -p $xpid -n 'BEGIN { printf("ready\n"); }
pid$target:a.out:f:entry { @f = count(); }
pid$target:a.out:main:entry { @m = count(); }
END { printa("A f %@d\n", @f); printa("A main %@d\n", @m); }' \
    >"$tmp/a.out" 2>"$tmp/a.err" &
apid=$!
"$DTRACE" -x socket="$sock" -x backend=$BK -q -p $xpid -n 'BEGIN { printf("ready\n"); }
pid$target:a.out:f:entry { @e = count(); }
pid$target:a.out:f:return { @r = count(); @s = sum(arg1); }
END { printa("B entry %@d\n", @e); printa("B return %@d", @r);
printa(" sum %@d\n", @s); }' >"$tmp/b.out" 2>"$tmp/b.err" &
bpid=$!
check "two consumers: both enabled" waitline "$tmp/a.out" ready
waitline "$tmp/b.out" ready
touch $g.1
waitline "$tmp/x.out" "execer waits for $g.2"
touch $g.2
check "two consumers: the third image waits" \
    waitline "$tmp/x.out" "execer waits for $g.3"
check "two consumers: main (A's) and f (both) are patched in it" \
    [ "$(byteat $xpid main)$(byteat $xpid f)" = cccc ]
kill -INT $apid
wait $apid
check "consumer A: exit 0" [ $? -eq 0 ]
same "$tmp/a.out" "ready

A f 7
A main 2

" "consumer A: f 3 + 4 times, main of the two new images"
check "A gone: its main:entry is restored, f:entry stays for B" \
    [ "$(byteat $xpid main)" != cc ] && [ "$(byteat $xpid f)" = cc ]
touch $g.3
check "two consumers: the fourth image waits" \
    waitline "$tmp/x.out" "execer waits for $g.4"
kill -INT $bpid
wait $bpid
check "consumer B: exit 0" [ $? -eq 0 ]
same "$tmp/b.out" "ready

B entry 12
B return 12 sum 95

" "consumer B: f 3 + 4 + 5 entries and returns, their values"
check "both gone: the text of the image equals its file" \
    "$TRIGGERS/textcmp" $xpid
touch $g.4
wait $xpid
check "two consumers: the target exits 0" [ $? -eq 0 ]
same "$tmp/x.out" "execer waits for $g.1
execer sum=15
execer waits for $g.2
execer sum=30
execer waits for $g.3
execer sum=50
execer waits for $g.4
execer sum=0
" "two consumers: the target's output is unchanged"

stop_daemon TERM
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
