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
