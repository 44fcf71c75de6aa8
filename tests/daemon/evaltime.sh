#!/bin/sh
# -x evaltime: where a -c command is held while its probes are enabled.
# evt calls evt_tick() (in its library libevtlib.so) 3 times from the
# library's initialiser, 5 times from its own, then N times from main:
# exec and preinit see all of them, postinit misses the library's
# initialiser, main both initialisers.  The program's output, its exit
# status and its text (checked by the program itself, with textcmp, at
# the end of main) are the same whatever the mode.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# mode, extra dtrace flags, expected count
for t in "exec -Z 19" "preinit '' 19" "postinit '' 16" "main '' 11" \
    "default '' 16"; do
	eval "set -- $t"
	mode=$1 flags=$2 want=$3
	opt="-xevaltime=$mode"
	[ "$mode" = default ] && opt=
	dtrace $flags $opt -q -c "$TRIGGERS/evt 11 $TRIGGERS/textcmp" -n '
	pid$target:libevtlib.so:evt_tick:entry { n++; }
	END { printf("evt_tick %d\n", n); }' >"$tmp/out" 2>"$tmp/err"
	check "$mode: dtrace exits 0" [ $? -eq 0 ]
	same "$tmp/out" "ticks=19
text=same
evt_tick $want

" "$mode: evt_tick fires $want times, output unchanged, text restored"
	same "$tmp/err" "" "$mode: nothing on stderr"
done

# main without a main symbol (a stripped program): held at its entry
# point, so __libc_start_main is seen; main itself misses it
if command -v strip >/dev/null 2>&1 &&
    strip -o "$tmp/loop-s" "$TRIGGERS/loop" 2>/dev/null; then
	for t in "$tmp/loop-s 1" "$TRIGGERS/loop 0"; do
		set -- $t
		dtrace -Z -x evaltime=main -q -c "$1 4" -n '
		pid$target:libc.so.6:__libc_start_main:entry { n++; }
		END { printf("start %d\n", n); }' >"$tmp/out" 2>"$tmp/err"
		check "main, $(basename $1): exit 0" [ $? -eq 0 ]
		same "$tmp/out" "sum=16
start $2

" "main, $(basename $1): __libc_start_main fires $2 times"
	done
else
	ok "# SKIP strip is not installed"
fi

# bad values
dtrace -x evaltime=later -n 'BEGIN { exit(0); }' >"$tmp/out" 2>&1
check "bad evaltime: exit 1" [ $? -eq 1 ]
same "$tmp/out" "dtrace: failed to set -x evaltime: Invalid value for specified option
" "bad evaltime: the illumos message"
dtrace -x evaltime -n 'BEGIN { exit(0); }' >"$tmp/out" 2>&1
check "evaltime without a value: exit 1" [ $? -eq 1 ]
same "$tmp/out" "dtrace: failed to set -x evaltime: Invalid value for specified option
" "evaltime without a value: the illumos message"

stop_daemon TERM
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
