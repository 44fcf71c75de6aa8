#!/bin/sh
# The inline backend (-x backend=inline): function entries patched with
# a jmp to a stub that records into a ring shared with the daemon, the
# other sites uprobes.  Exact counts on a held command (its entries are
# uprobes until it runs, then jmps) and on a running one; arguments;
# entry (inline) and return (uprobe) of each call in order, by the
# timestamps of two clocks; eight threads; a fork child whose stubs
# record nothing; ustack() from the record's stack copy; the patch in
# the text while traced, the text its file's after, the program
# unharmed; and the daemon killed with SIGKILL mid-trace harming no
# program.  Skipped where the daemon cannot use the backend.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

dtrace -x backend=inline -q -c "$TRIGGERS/loop 1" \
    -n 'pid$target:a.out:f:entry {}' >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 0 ]; then
	# only the backend's refusal skips; anything else is a failure
	why=$(grep -o 'cannot use the inline backend.*' "$tmp/err" | head -1)
	if [ -n "$why" ]; then
		ok "# SKIP no inline backend here: $why"
	else
		not_ok "a inline probe: $(head -1 "$tmp/err")"
	fi
	stop_daemon
	done_testing
	exit 0
fi

# -c: exact counts, entry (a jmp once the command runs) and return
dtrace -x backend=inline -q -c "$TRIGGERS/loop 1000" -n '
pid$target:a.out:f:entry { @e = count(); @a = sum(arg0); }
pid$target:a.out:f:return { @r = sum(arg1); }
END { printa("entries %@d args %@d returns %@d\n", @e, @a, @r); }' \
    >"$tmp/out" 2>"$tmp/err"
check "-c loop 1000: exit 0" [ $? -eq 0 ]
same "$tmp/out" "sum=1000000
entries 1000 args 499500 returns 1000000

" "-c loop 1000: 1000 entries, their args and return values"

dtrace -x backend=inline -v -q -c "$TRIGGERS/loop 1" \
    -n 'pid$target:a.out:f:entry {}' >"$tmp/out" 2>"$tmp/err"
check "-v: the inline backend" \
    grep -q "^dtrace: pid [0-9]*: inline backend$" "$tmp/err"

# each call's entry before its return, though they come by two rings:
# timestamps from rdtscp and from the kernel's clock, in one order
dtrace -x backend=inline -q -c "$TRIGGERS/loop 2000" -n '
pid$target:a.out:f:entry { self->t = timestamp; self->in = 1; }
pid$target:a.out:f:return /self->in && timestamp >= self->t/ { @ok = count(); }
pid$target:a.out:f:return /!self->in || timestamp < self->t/ { @bad = count(); }
pid$target:a.out:f:return { self->in = 0; }
END { printa("ok %@d\n", @ok); printa("bad %@d\n", @bad); }' \
    >"$tmp/out" 2>"$tmp/err"
check "entry, return: exit 0" [ $? -eq 0 ]
same "$tmp/out" "sum=4000000
ok 2000

" "entry, return: every return after its entry, in time too"

# eight threads made after the patch: exact counts per thread
dtrace -x backend=inline -x uprobebufsize=64m -q \
    -c "$TRIGGERS/threads 2000" -n '
pid$target:a.out:f:entry { @n[arg0] = count(); }' >"$tmp/out" 2>"$tmp/err"
check "threads: exit 0" [ $? -eq 0 ]
check "threads: no drops" sh -c "! grep -q drops '$tmp/err'"
same "$tmp/out" "total=72000

                1             2000
                2             2000
                3             2000
                4             2000
                5             2000
                6             2000
                7             2000
                8             2000
" "threads: 2000 entries of each of the 8"

# fork: the child's config page is wiped, its stubs record nothing
dtrace -x backend=inline -q -c "$TRIGGERS/forker 50 30" -n '
pid$target:a.out:f:entry /pid == $target/ { @ = count(); }
pid$target:a.out:f:entry /pid != $target/ { @o = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "fork: exit 0" [ $? -eq 0 ]
same "$tmp/out" "child exited 3

              100
" "fork: the parent's 100 calls only; the child unharmed"

# instructions uprobes cannot take (EVEX, VEX) are relocated: both
# functions patched, counted, and right
"$TRIGGERS/evex" 1 >/dev/null 2>&1
if [ $? -eq 3 ]; then
	ok "# SKIP evex: no AVX-512 here"
else
	dtrace -x backend=inline -q -c "$TRIGGERS/evex 500" -n '
	pid$target:a.out:bcast17:entry, pid$target:a.out:bcast1:entry
	{ @[probefunc] = count(); }' >"$tmp/out" 2>"$tmp/err"
	same "$tmp/out" "bad=0

  bcast1                                                          500
  bcast17                                                         500
" "evex: VEX and EVEX first instructions patched, each call counted"
fi

# every function of libc probed in a real program: glibc's string
# functions jump into each other's first instructions, which must then
# not be patched; ls's output is the same as untraced
ls -R /usr/include/linux >"$tmp/ls.ref" 2>&1
dtrace -x backend=inline -x uprobebufsize=64m -q -o "$tmp/ls.d" \
    -c "ls -R /usr/include/linux" -n '
pid$target:libc.so.6::entry { @ = count(); }' >"$tmp/ls.out" 2>"$tmp/err"
check "ls -R, every libc entry: exit 0" [ $? -eq 0 ]
check "ls -R, every libc entry: its output as untraced" \
    cmp "$tmp/ls.ref" "$tmp/ls.out"
check "ls -R, every libc entry: calls counted" \
    grep -q '^ *[1-9][0-9]*$' "$tmp/ls.d"

# a child that lives on: its copy of the patches (g's) is restored, its
# text its file's again, and it works before and after
dtrace -x backend=inline -q -o "$tmp/stay.d" \
    -c "$TRIGGERS/forker 50 30 stay" -n '
pid$target:a.out:g:entry { @ = count(); }' >"$tmp/stay.out" \
    2>"$tmp/stay.err" &
spid=$!
kid=
i=0
while [ -z "$kid" ] && [ $i -lt 200 ]; do
	kid=$(sed -n 's/^child pid //p' "$tmp/stay.out")
	sleep 0.05
	i=$((i + 1))
done
i=0
while [ -n "$kid" ] && ! "$TRIGGERS/textcmp" "$kid" >/dev/null 2>&1 &&
    [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
check "fork child that stays: its text is its file's" \
    "$TRIGGERS/textcmp" "${kid:-0}"
[ -n "$kid" ] && kill -TERM "$kid"
wait "$spid"
check "fork child that stays: exit 0" [ $? -eq 0 ]
check "fork child that stays: it ran right (exit 3)" \
    grep -q "^child exited 3$" "$tmp/stay.out"

# ustack() at an inline entry: from the record's copy of the stack
dtrace -x backend=inline -q -c "$TRIGGERS/loop 5" \
    -n 'pid$target:a.out:f:entry { @[ustack()] = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
check "ustack: exit 0" [ $? -eq 0 ]
check "ustack: f, called from main" sh -c \
    "grep -q '^ *loop\`f\$' '$tmp/out' && grep -q '^ *loop\`main+0x' '$tmp/out'"
check "ustack: one stack, 5 times" grep -q '^ *5$' "$tmp/out"

# a running program: the jmp is in its text while traced; after, its
# text is its file's again and it ran right throughout
"$TRIGGERS/loop" spin >"$tmp/target.out" 2>&1 &
tpid=$!
waitfor spinning "$tpid"
dtrace -x backend=inline -q -p "$tpid" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/a.out" \
    2>"$tmp/a.err" &
apid=$!
waitfor patched "$tpid"
check "-p: its text has the patch" patched "$tpid"
check "-p: nobody traces it meanwhile" \
    grep -q "^TracerPid:[[:space:]]*0$" "/proc/$tpid/status"
check "-p: the ring is mapped" grep -q "memfd:dtraced" "/proc/$tpid/maps"
sleep 0.3
kill -INT "$apid"
wait "$apid"
check "-p: counted" grep -q '^ *[1-9][0-9]*$' "$tmp/a.out" ||
    sed 's/^/# /' "$tmp/a.out" "$tmp/a.err"

check "consumer gone: target alive, text restored" restored "$tpid"

# traced again (a new area, the same stubs' places are not reused)
dtrace -x backend=inline -q -p "$tpid" \
    -n 'pid$target:a.out:f:entry { @ = count(); }' >"$tmp/b.out" \
    2>"$tmp/b.err" &
apid=$!
waitfor patched "$tpid"
check "traced again: patched again" patched "$tpid"

# the daemon killed with SIGKILL: the patch stays, and works (each hit
# now a drop once the ring is full); the program computes right
stop_daemon KILL
wait "$apid" 2>/dev/null
sleep 0.5
check "daemon SIGKILL: target alive" kill -0 "$tpid"
kill -TERM "$tpid"
wait "$tpid"
check "target computed right all along (exit 0)" [ $? -eq 0 ]
same "$tmp/target.out" "spun well
" "the target's output"

done_testing
