#!/bin/sh
# The probe table at scale: every instruction of libc is a probe that
# lists and enables while other clients are served, and the probes of
# processes let go are freed (the daemon that traced 200 short-lived
# targets is as large as after the first 20, and counts as exactly).
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# -- every offset of libc: the listing holds every entry and return
# probe the narrower descriptions list, and more besides
dtrace -l -c "$TRIGGERS/loop 1" -n 'pid$target:libc.so.6::' \
    >"$tmp/all" 2>"$tmp/all.err" &
apid=$!
# consumers that ask meanwhile are served, one after another for as long
# as the listing is being made (a stalled event loop would hold them
# past dtrace()'s bound; the old table took minutes here)
nb=0
bad=0
while :; do
	dtrace -q -n 'BEGIN { printf("served\n"); exit(0); }' \
	    >"$tmp/begin" 2>&1
	grep -qx served "$tmp/begin" || bad=$((bad + 1))
	nb=$((nb + 1))
	kill -0 "$apid" 2>/dev/null || break
done
check "$nb BEGIN consumers served beside a wide listing" [ "$bad" -eq 0 ]
wait "$apid"
check "pid\$target:libc.so.6:: lists" [ $? -eq 0 ]
dtrace -l -c "$TRIGGERS/loop 1" -n 'pid$target:libc.so.6::entry' \
    >"$tmp/entry" 2>&1
dtrace -l -c "$TRIGGERS/loop 1" -n 'pid$target:libc.so.6::return' \
    >"$tmp/return" 2>&1
# id and pid differ from run to run: compare module, function and name
names()
{
	awk 'NR > 1 { print $3, $4, $5 }' "$1" | sort
}
names "$tmp/all" >"$tmp/all.n"
names "$tmp/entry" >"$tmp/entry.n"
names "$tmp/return" >"$tmp/return.n"
nall=$(wc -l <"$tmp/all.n")
nent=$(wc -l <"$tmp/entry.n")
nret=$(wc -l <"$tmp/return.n")
echo "# libc: $nall probes, $nent entry, $nret return"
check "libc has more than 1000 entry probes" [ "$nent" -gt 1000 ]
check "every entry probe is in the wide listing" \
    [ -z "$(comm -23 "$tmp/entry.n" "$tmp/all.n")" ]
check "every return probe is in the wide listing" \
    [ -z "$(comm -23 "$tmp/return.n" "$tmp/all.n")" ]
check "the wide listing has offset probes besides" \
    [ "$nall" -gt $((nent + nret + 10000)) ]
check "each name is listed once" \
    [ "$(uniq -d "$tmp/all.n" | wc -l)" -eq 0 ]

# -- short-lived targets: exact counts, and nothing of them stays
# session N: a consumer of every libc entry of `loop 3' and of its f
session()
{
	dtrace -q -c "$TRIGGERS/loop 3" -n '
pid$target:libc.so.6::entry { @l = count(); }
pid$target:a.out:f:entry { @f = count(); }
END { printa("f=%@d\n", @f); printa("l=%@d\n", @l); }' \
	    >"$tmp/s.out" 2>"$tmp/s.err" &&
	    grep -qx 'f=3' "$tmp/s.out" && grep -qx 'l=[1-9][0-9]*' "$tmp/s.out"
}
rss()
{
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$dpid/status"
}
# sessions N: N sessions; $bad says how many went wrong
sessions()
{
	i=0
	bad=0
	while [ $i -lt "$1" ]; do
		session || bad=$((bad + 1))
		i=$((i + 1))
	done
}
sessions 20
check "20 sessions to warm up: each counts f 3 times" [ "$bad" -eq 0 ] ||
    sed 's/^/# /' "$tmp/s.out" "$tmp/s.err"
rss0=$(rss)
sessions 200
check "200 more sessions: each counts f 3 times" [ "$bad" -eq 0 ] ||
    sed 's/^/# /' "$tmp/s.out" "$tmp/s.err"
rss1=$(rss)
# each session makes about 2,000 probes: kept, they would take some
# 200 kB a session (40 MB here); 1 MB of slack is for malloc's arenas
echo "# daemon RSS: $rss0 kB after the warm-up, $rss1 kB after 200 more"
if grep -q libasan "/proc/$dpid/maps"; then
	ok "# SKIP RSS after 200 sessions (ASan's quarantine holds freed memory)"
else
	check "200 sessions: daemon RSS $rss0 kB before, $rss1 kB after" \
	    [ "$rss1" -le $((rss0 + 1024)) ]
fi

stop_daemon
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
