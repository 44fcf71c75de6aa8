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

stop_daemon TERM
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
