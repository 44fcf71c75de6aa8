#!/bin/sh
# tests/soak/redis.sh: a soak, run by hand (make soak), not by make check.
#
# A real server, Debian's redis-server on 127.0.0.1, serves
# redis-benchmark without pause for SOAK_SECONDS (default 600) under
# each backend in turn (SOAK_BACKENDS, default "ptrace uprobe"), traced
# by one consumer with aggregations, a latency quantize(), ustack() and
# printf.  It checks that every request is served, that the consumer's
# count of processCommand() equals redis's own count of the commands it
# processed, that the daemon's RSS and file descriptors stay flat after
# the warm-up (the first sixth of the run), and that redis is unharmed
# at the end (its text is its file's, it answers, it shuts down
# cleanly).  It prints TAP and the figures.
#
# Needs redis-server and redis-benchmark (Debian: redis-server,
# redis-tools; ./build.sh soak installs them).
. "$(dirname "$0")/../daemon/lib.sh"

seconds=${SOAK_SECONDS:-600}
backends=${SOAK_BACKENDS:-ptrace uprobe}
warm=$((seconds / 6))
for p in redis-server redis-benchmark redis-cli; do
	if ! command -v "$p" >/dev/null 2>&1; then
		echo "1..0 # SKIP $p not found (apt-get install redis-server redis-tools)"
		exit 0
	fi
done

rss()
{
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$dpid/status"
}
# the daemon's descriptors, the least of five looks 0.1 s apart: a
# thread may hold one for an instant (a /proc file, a link being closed)
nfds()
{
	least=
	for _ in 1 2 3 4 5; do
		n=$(ls "/proc/$dpid/fd" | wc -l)
		{ [ -z "$least" ] || [ "$n" -lt "$least" ]; } && least=$n
		sleep 0.1
	done
	echo "$least"
}
nodrops()
{
	! grep -q drop "$1"
}
rcli()
{
	redis-cli -h 127.0.0.1 -p "$port" "$@"
}

check "daemon starts" start_daemon
port=$((20000 + $$ % 20000))
for b in $backends; do
	mkdir -p "$tmp/redis-$b"
	redis-server --port "$port" --bind 127.0.0.1 --save '' \
	    --appendonly no --daemonize no --dir "$tmp/redis-$b" \
	    --logfile "$tmp/redis-$b/log" &
	rpid=$!
	i=0
	until [ "$(rcli ping 2>/dev/null)" = PONG ] || [ $i -ge 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	check "$b: redis-server answers" [ "$(rcli ping)" = PONG ]

	# every processCommand() counted; call()'s latency; a stack and a
	# line now and then (the 20,000th command, and so on)
	rm -f "$tmp/$b.out" "$tmp/$b.err"
	"$DTRACE" -x socket="$sock" -x backend="$b" -q -p "$rpid" -n '
uint64_t n;
pid$target:a.out:processCommand:entry { @cmds = count(); n++; }
pid$target:a.out:processCommand:entry /n % 20000 == 0/
{
	@stacks[ustack(6)] = count();
	printf("%d commands\n", n);
}
pid$target:a.out:call:entry { self->t = timestamp; }
pid$target:a.out:call:return /self->t/
{
	@lat = quantize(timestamp - self->t);
	self->t = 0;
}
BEGIN { printf("tracing\n"); }
END { printa("total %@d\n", @cmds); }' >"$tmp/$b.out" 2>"$tmp/$b.err" &
	cpid=$!
	i=0
	until grep -q '^tracing$' "$tmp/$b.out" 2>/dev/null || [ $i -ge 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	check "$b: the consumer traces" grep -q '^tracing$' "$tmp/$b.out" ||
	    sed 's/^/# /' "$tmp/$b.err"
	# the commands redis has processed before this one (which we count)
	total0=$(rcli info stats | tr -d '\r' |
	    sed -n 's/^total_commands_processed://p')

	t0=$(date +%s)
	runs=0
	bad=0
	rss0=
	rssmax=0
	fds0=
	fdsmax=0
	while [ $(($(date +%s) - t0)) -lt "$seconds" ]; do
		if ! redis-benchmark -h 127.0.0.1 -p "$port" -q -c 20 \
		    -n 50000 -t set,get,incr,lpush,lpop >"$tmp/bench" 2>&1 ||
		    ! grep -q 'LPOP' "$tmp/bench"; then
			bad=$((bad + 1))
			sed 's/^/# /' "$tmp/bench" | tail -5
		fi
		runs=$((runs + 1))
		el=$(($(date +%s) - t0))
		r=$(rss)
		f=$(nfds)
		if [ "$el" -ge "$warm" ]; then
			[ -z "$rss0" ] && rss0=$r && fds0=$f
			[ "$r" -gt "$rssmax" ] && rssmax=$r
			[ "$f" -gt "$fdsmax" ] && fdsmax=$f
		fi
	done
	echo "# $b: $runs benchmark runs in $seconds s;" \
	    "daemon RSS $rss0 kB after the warm-up, at most $rssmax kB;" \
	    "fds $fds0, at most $fdsmax"
	tr '\r' '\n' <"$tmp/bench" | grep 'requests per second' |
	    sed 's/^/# last run: /'
	check "$b: every benchmark run served every request" [ "$bad" -eq 0 ]
	check "$b: daemon RSS flat after the warm-up ($rss0 -> $rssmax kB)" \
	    [ "$rssmax" -le $((rss0 + 2048)) ]
	check "$b: daemon fds flat after the warm-up ($fds0 -> $fdsmax)" \
	    [ "$fdsmax" -le "$fds0" ]

	kill -INT "$cpid"
	wait "$cpid"
	check "$b: the consumer exits 0" [ $? -eq 0 ] ||
	    sed 's/^/# /' "$tmp/$b.err"
	ours=$(sed -n 's/^total //p' "$tmp/$b.out")
	# the commands since the first INFO, that one included
	total1=$(rcli info stats | tr -d '\r' |
	    sed -n 's/^total_commands_processed://p')
	theirs=$((total1 - total0))
	echo "# $b: processCommand counted $ours, redis processed $theirs"
	check "$b: the count is redis's own" [ "$ours" = "$theirs" ]
	check "$b: a stack was aggregated" grep -q 'processCommand' "$tmp/$b.out"
	check "$b: drops reported: none" nodrops "$tmp/$b.err"
	i=0
	until "$TRIGGERS/textcmp" "$rpid" >/dev/null 2>&1 || [ $i -ge 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	check "$b: redis's text is its file's" "$TRIGGERS/textcmp" "$rpid"
	check "$b: redis still answers" [ "$(rcli ping)" = PONG ]
	rcli shutdown nosave >/dev/null 2>&1
	wait "$rpid"
	check "$b: redis shuts down cleanly" [ $? -eq 0 ]
done
stop_daemon
check "daemon exits 0" [ "$dstatus" -eq 0 ]
done_testing
