#!/bin/sh
# aggrate: dtrace reads the aggregations at aggrate, as illumos's
# dtrace_aggregate_snap does, and printa(), clear() and trunc() in a
# record act on the data as of the last read; what was aggregated since
# is added at the next one.  When tracing stops everything is read, so
# END's printa() and the print at exit show all of it.
. "$(dirname "$0")/lib.sh"

# aggrate=1h: one read when tracing starts (BEGIN's data), none after
# until the end.  At the 5th tick printa() shows BEGIN's data only
# (more only if a tick came before that first read: b counts them);
# clear() zeroes what was read, so the 5 - (b - 1) increments not yet
# read survive it; trunc(@k, 1) keeps @k[2] (10 from BEGIN) and drops
# @k[1], which comes back with the increments read at the end.
cat >"$tmp/stale.d" <<'DEOF'
#pragma D option quiet
BEGIN
{
	n = 0;
	@ = count();
	@k[1] = sum(1);
	@k[2] = sum(10);
}
tick-100ms /n < 5/ { @ = count(); @k[1] = sum(1); @t = count(); }
tick-100ms { n++; }
tick-100ms /n == 5/
{
	printa("before %@d\n", @); clear(@); printa("after %@d\n", @);
	printa("k %d %@d\n", @k); trunc(@k, 1); printa("t %d %@d\n", @k);
}
tick-100ms /n == 8/ { exit(0); }
END { printa("end %@d\n", @); printa("kend %d %@d\n", @k); }
DEOF
timeout -k 10 60 "$DTRACE" -x aggrate=1h -x switchrate=10ms -s "$tmp/stale.d" \
    >"$tmp/out" 2>"$tmp/err"
check "aggrate=1h: exit 0" [ $? -eq 0 ]
b=$(sed -n 's/^before //p' "$tmp/out")
case $b in
[1-6])	ok "aggrate=1h: printa() shows the data of the last read ($b of 6)" ;;
*)	not_ok "aggrate=1h: printa() shows the data of the last read ($b)"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	b=1 ;;
esac
# (a first read after all five ticks, on a slow machine, read all: then
# nothing of @k[1] comes back after trunc())
kend1="kend 1 $((6 - b))
"
[ "$b" -eq 6 ] && kend1=
same "$tmp/out" "before $b
after 0
k 1 $b
k 2 10
t 2 10
end $((6 - b))
${kend1}kend 2 10

                5
" "aggrate=1h: clear() and trunc() act on what was read; the rest comes at the end"

# Whatever the rates, clear() and trunc() lose nothing: every printa()
# before them shows what they remove, so the values printed add up to
# the number of calls exactly.
for rates in "1ms 1ms" "50ms 5ms" "5ms 50ms"; do
	set -- $rates
	timeout -k 10 60 "$DTRACE" -q -x aggrate=$1 -x switchrate=$2 \
	    -c "$TRIGGERS/loop 20000" -n '
	    pid$target::f:entry { @c = count(); @k[arg0 % 3] = count(); }
	    tick-5ms {
		printa("c %@d\n", @c); clear(@c);
		printa("k %@d\n", @k); trunc(@k);
	    }
	    END { printa("c %@d\n", @c); printa("k %@d\n", @k); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "aggrate=$1 switchrate=$2: exit 0" [ $? -eq 0 ]
	same "$tmp/err" "" "aggrate=$1 switchrate=$2: nothing on stderr"
	awk '$1 == "c" { c += $2 } $1 == "k" { k += $2 }
	    END { print c + 0, k + 0 }' "$tmp/out" >"$tmp/sums"
	same "$tmp/sums" "20000 20000
" \
	    "aggrate=$1 switchrate=$2: clear() and trunc() lose no count"
done

done_testing
