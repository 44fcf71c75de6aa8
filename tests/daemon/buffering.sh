#!/bin/sh
# Principal buffer policies end to end: ring, fill (and END's
# reservation), switch drops, bufresize, statusrate.  Expected outputs
# are computed from record and buffer sizes: a record is a 12-byte header
# (epid, timestamp) and its values, rounded to 4 bytes, as in illumos; a
# printf("%d\n", n) record is 16 bytes (12 and 4 of int), and so is
# exit()'s.
#
# Per-CPU results depend on which CPU each hit runs on, so these runs pin
# dtrace, and the private daemon it starts, to CPU 0 with taskset.
. "$(dirname "$0")/lib.sh"

if ! command -v taskset >/dev/null 2>&1 ||
    ! taskset -c 0 true 2>/dev/null; then
	echo "1..0 # SKIP taskset cannot pin to CPU 0"
	exit 0
fi

# dtrace with its own private daemon, both on CPU 0
pdtrace()
{
	taskset -c 0 timeout -k 10 60 "$DTRACE" "$@"
}

# ring of 16k: 2000 tick records and exit()'s; 16384 / 16 = 1024
# survive, the newest: 977 .. 1999 (1023 printed) and exit()'s record.
pdtrace -q -x bufpolicy=ring -x bufsize=16k -n '
    tick-1ms { printf("%d\n", i++); }
    tick-1ms /i == 2000/ { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "ring: exit 0" [ $? -eq 0 ]
{ seq 977 1999; echo; } >"$tmp/want"
check "ring 16k: exactly the newest 1024 records, oldest first" \
    cmp -s "$tmp/want" "$tmp/out"
same "$tmp/err" "" "ring: nothing on stderr"

# fill of 2k: END's 16 bytes are kept, 2032 / 16 = 127 records fit; the
# 128th firing (i++ done) fills the buffer and stops tracing; END runs.
pdtrace -q -x bufpolicy=fill -x bufsize=2k -n '
    tick-1ms { printf("%d\n", i++); }
    END { printf("end %d\n", i); }' >"$tmp/out" 2>"$tmp/err"
check "fill: exit 0" [ $? -eq 0 ]
{ seq 0 126; echo "end 128"; echo; } >"$tmp/want"
check "fill 2k: 127 records, then END's" cmp -s "$tmp/want" "$tmp/out"
same "$tmp/err" "" "fill: no drops reported"

# The same with statusrate polling only: a NOTIFY is not needed to stop.
pdtrace -q -x bufpolicy=fill -x bufsize=2k -x statusrate=10ms \
    -x switchrate=10ms -n '
    tick-1ms { printf("%d\n", i++); }
    END { printf("end %d\n", i); }' >"$tmp/out" 2>"$tmp/err"
check "fill with statusrate=10ms: same output" cmp -s "$tmp/want" "$tmp/out"

# The record's size is 12 + its values: a printf() of one 8-byte value
# is 20 bytes, so a fill buffer of 200 keeps exactly 10 (0 .. 9), and
# of three ints 24, so one of 240 keeps 10 as well.
pdtrace -q -x bufpolicy=fill -x bufsize=200 -n '
    tick-1ms { printf("%d\n", (uint64_t)i++); }' >"$tmp/out" 2>"$tmp/err"
check "fill 200, 20-byte records: exit 0" [ $? -eq 0 ]
{ seq 0 9; echo; } >"$tmp/want"
check "fill 200: 200 / (12 + 8) = 10 records" cmp -s "$tmp/want" "$tmp/out"
same "$tmp/err" "" "fill 200: nothing on stderr"
pdtrace -q -x bufpolicy=fill -x bufsize=240 -n '
    tick-1ms { printf("%d %d %d\n", i++, 1, 2); }' \
    >"$tmp/out" 2>"$tmp/err"
{ for i in $(seq 0 9); do echo "$i 1 2"; done; echo; } >"$tmp/want"
check "fill 240: 240 / (12 + 3 * 4) = 10 records" \
    cmp -s "$tmp/want" "$tmp/out"

# A switch buffer of 32 bytes holds one firing's printf() (16) and
# exit() (16), with no drop.
pdtrace -q -x bufsize=32 -n 'BEGIN { printf("%d\n", 1); }
    BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "switch 32: exit 0" [ $? -eq 0 ]
same "$tmp/out" "1

" "switch 32: the printf()'s record"
same "$tmp/err" "" "switch 32: printf() and exit() fit, no drop"

# END's records (48 bytes) cannot fit in a fill buffer: refuse to start.
pdtrace -x bufpolicy=fill -x bufsize=40 -n '
    END { printf("%d\n", 1); } END { printf("%d\n", 2); }
    END { printf("%d\n", 3); }' >"$tmp/out" 2>"$tmp/err"
check "END too big: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: description '
    END ' matched 3 probes
dtrace: could not enable tracing: END enablings exceed size of principal buffer
" "END too big: illumos's message"
pdtrace -q -x bufpolicy=fill -x bufsize=48 -n 'BEGIN { exit(0); }
    END { printf("%d\n", 1); } END { printf("%d\n", 2); }
    END { printf("%d\n", 3); }' >"$tmp/out" 2>"$tmp/err"
check "END of exactly the buffer: exit 0" [ $? -eq 0 ]
same "$tmp/out" "1
2
3

" "END of exactly the buffer: the three END records"

# switch of 1k: 80 printf records and exit()'s in one BEGIN firing;
# 1024 / 16 = 64 fit, 81 - 64 = 17 are dropped and reported.
{
	echo '#pragma D option quiet'
	echo '#pragma D option bufsize=1k'
	for i in $(seq 1 80); do
		printf 'BEGIN { printf("%%d\\n", %d); }\n' "$i"
	done
	echo 'BEGIN { exit(0); }'
} >"$tmp/drops.d"
pdtrace -s "$tmp/drops.d" >"$tmp/out" 2>"$tmp/err"
check "switch drops: exit 0" [ $? -eq 0 ]
{ seq 1 64; echo; } >"$tmp/want"
check "switch 1k: the first 64 records" cmp -s "$tmp/want" "$tmp/out"
same "$tmp/err" "dtrace: 17 drops on CPU 0
" "switch 1k: 64 records + 17 drops = 81 firings"
pdtrace -x droptags -s "$tmp/drops.d" >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: [DTRACEDROP_PRINCIPAL] 17 drops on CPU 0
" "switch drops under -x droptags"

# bufresize: one CPU (-x cpu=0), two halves of 1g exceed the 1g a
# consumer may have: auto lowers to 512m, manual refuses.
pdtrace -x cpu=0 -x bufsize=1g -n 'BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "bufresize=auto: exit 0" [ $? -eq 0 ]
same "$tmp/err" "dtrace: description 'BEGIN ' matched 1 probe
dtrace: buffer size lowered to 512m
" "bufresize=auto: buffer size lowered to 512m"
pdtrace -x cpu=0 -x bufsize=1g -x quietresize -n 'BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: description 'BEGIN ' matched 1 probe
" "quietresize: no message"
pdtrace -x cpu=0 -x bufsize=1g -x bufresize=manual -n 'BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "bufresize=manual: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: description 'BEGIN ' matched 1 probe
dtrace: could not enable tracing: Not enough space
" "bufresize=manual: Not enough space"
pdtrace -q -x cpu=0 -x aggsize=1g -n 'BEGIN { @a = count(); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "aggsize=1g: exit 0" [ $? -eq 0 ]
same "$tmp/err" "dtrace: aggregation size lowered to 256m
" "aggsize: 8m of principal buffers leave room for two halves of 256m"
pdtrace -q -x cpu=0 -x aggsize=1g -x bufresize=manual \
    -n 'BEGIN { @a = count(); exit(0); }' >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: could not enable tracing: Not enough space
" "aggsize with bufresize=manual: Not enough space"
pdtrace -q -x bufsize=1000 -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "bufsize=1000: no resize, exit 0" [ $? -eq 0 ]

# ring across CPUs: oncpu calls f 1000 times on CPU 1, then 1000 on
# CPU 0; each CPU's ring of 16k keeps its newest 819 records of 20 bytes
# (arg0 is 8 bytes wide, and 4-aligned after the 12-byte header), and they
# are printed CPU by CPU, oldest first, the CPU that END ran on (0, as
# the daemon is pinned there) last, as illumos does (-o: into a file,
# appended to).
echo "before" >"$tmp/ring"
pdtrace -q -x bufpolicy=ring -x bufsize=16k -o "$tmp/ring" \
    -c "$TRIGGERS/oncpu 1 1000 0 1000" -n '
    pid$target::f:entry { printf("%d\n", arg0); }' >"$tmp/out" 2>"$tmp/err"
check "ring on two CPUs: exit 0" [ $? -eq 0 ]
{ echo before; seq 181 999; seq 1181 1999; echo; } >"$tmp/want"
check "ring on two CPUs: CPU 1's newest, then END's CPU 0's, oldest first" \
    cmp -s "$tmp/want" "$tmp/ring"
same "$tmp/out" "2000 calls
" "-o: only the target's output on stdout"

# -x cpu=N: only the hits on CPU N are traced; BEGIN and END run as on N.
pdtrace -q -x cpu=1 -c "$TRIGGERS/oncpu 1 300 0 200 1 5" -n '
    BEGIN { printf("begin on %d\n", cpu); }
    pid$target::f:entry { @[cpu] = count(); }
    END { printf("end on %d\n", cpu); }' >"$tmp/out" 2>"$tmp/err"
check "cpu=1: exit 0" [ $? -eq 0 ]
same "$tmp/out" "begin on 1
505 calls
end on 1

        1              305
" "cpu=1: the 305 hits on CPU 1 only"
pdtrace -q -x cpu=0 -c "$TRIGGERS/oncpu 1 300 0 200 1 5" -n '
    pid$target::f:entry { @[cpu] = count(); }' >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "505 calls

        0              200
" "cpu=0: the 200 hits on CPU 0 only"
pdtrace -q -x cpu=1 -n 'BEGIN { exit(3); }' >"$tmp/out" 2>"$tmp/err"
check "cpu=1: exit() in BEGIN is not lost (exit status 3)" [ $? -eq 3 ]

# specsize: lowered like the other buffers (nspec 1 on each CPU), or,
# with bufresize=manual, not at all.
spec='BEGIN { s = speculation(); } BEGIN { speculate(s); printf("x\n"); }
    BEGIN { commit(s); } BEGIN { exit(0); }'
pdtrace -q -x specsize=1g -n "$spec" >"$tmp/out" 2>"$tmp/err"
check "specsize=1g: exit 0" [ $? -eq 0 ]
# (to what depends on the number of CPUs: 128m with 2)
check "specsize=1g: speculation size lowered" \
    grep -qx 'dtrace: speculation size lowered to [0-9]*m' "$tmp/err"
same "$tmp/out" "x

" "specsize=1g: the committed record"
pdtrace -q -x specsize=1g -x bufresize=manual -n "$spec" \
    >"$tmp/out" 2>"$tmp/err"
check "specsize=1g, manual: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: could not enable tracing: Not enough space
" "specsize with bufresize=manual: Not enough space"

# cleanrate and statusrate out of illumos's range are brought into it,
# and dtrace says so in illumos's words.
for r in "cleanrate=10000hz:cleaning rate reduced to 5000 hz" \
    "cleanrate=2m:cleaning rate increased to once every 60 seconds" \
    "statusrate=20s:status rate increased to once every 10 seconds" \
    "cleanrate=50hz:" "statusrate=10s:"; do
	pdtrace -q -x "${r%%:*}" -n 'BEGIN { exit(0); }' >"$tmp/out" \
	    2>"$tmp/err"
	msg=${r#*:}
	same "$tmp/err" "${msg:+dtrace: $msg
}" "${r%%:*}: ${msg:-in range, nothing said}"
done

# switch with a real target: 5000 calls into 16k read rarely (switchrate
# 10s: at the start and at the end), so most are dropped; the records
# printed plus the drops reported are the 5000 calls exactly.
rm -f "$tmp/sw"
pdtrace -q -x bufsize=16k -x switchrate=10s -o "$tmp/sw" \
    -c "$TRIGGERS/loop 5000" -n '
    pid$target::f:entry { printf("%d\n", arg0); }' >"$tmp/out" 2>"$tmp/err"
check "switch, 5000 calls: exit 0" [ $? -eq 0 ]
recs=$(grep -c . "$tmp/sw")
drops=$(sed -n 's/^dtrace: \([0-9]*\) drops on CPU 0$/\1/p' "$tmp/err")
check "switch, 5000 calls: $recs records + ${drops:-no} drops = 5000" \
    [ "${drops:-0}" -gt 0 -a $((recs + ${drops:-0})) -eq 5000 ]

# A record larger than the whole buffer, under every policy and scope:
# tracing does not start, in illumos's words.
for p in "bufpolicy=switch" "bufpolicy=fill" "bufpolicy=ring" \
    "bufscope=thread"; do
	pdtrace -q -x "$p" -x bufsize=128 -n 'BEGIN { trace(execname); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "$p, a record over bufsize: exit 1" [ $? -eq 1 ]
	same "$tmp/err" "dtrace: could not enable tracing: Enabling exceeds size of buffer
" "$p, a record over bufsize: Enabling exceeds size of buffer"
done

done_testing
