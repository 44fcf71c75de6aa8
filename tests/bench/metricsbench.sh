#!/bin/sh
# metricsbench.sh: what the metrics endpoint (dtraced -M) costs, in
# figures and ratios, not pass/fail.  Run it from a build directory:
#
#	top_srcdir=/work/main top_builddir=. sh /work/main/tests/bench/metricsbench.sh [ROUNDS]
#
# A retained, exported program counts the calls of tests/triggers/loop
# spin (f(i), i = 0, 1, 2 ... until SIGTERM) by arg0 % 10000: 10,000
# series, and @n, the calls.
#
# 1. A scrape of the 10,000 series: the time curl takes for the whole
#    response (connect, the daemon's copy and text, the transfer), the
#    median and the range over 20 scrapes, and the CPU time the daemon
#    spent on each (its -vv log), against a reference taken in
#    the same run: dtrace -a -x grab=snapshot of the same program (what
#    reading it cost before), the median of 5.  Goal: under 50 ms.
# 2. The hit path while scraping: the calls per second the program
#    counts (as @n grows over a 2 s window) with nothing scraping, with
#    curl scraping it in a loop, and, the reference, with curl scraping
#    in a loop a second daemon that serves 10,000 series of a program of
#    its own: the same work for the machine's CPUs, nothing shared with
#    the traced program.  ROUNDS interleaved rounds (default 3); the
#    per-hit time of each, and the ratios, median and range.  What
#    scraping the traced program costs beyond the reference is what its
#    hits wait for the copy of their arenas (under every CPU's lock).
# Needs root (or ptrace rights) as any pid-provider run does, and curl.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
ROUNDS=${1:-3}
BENCH=metricsbench
. "$srcdir/tests/bench/lib.sh"
T=$(cd "$builddir/tests/triggers" && pwd)/loop

command -v curl >/dev/null 2>&1 || { echo "$BENCH: needs curl" >&2; exit 2; }
bench_need "$DTRACE" "$DTRACED" "$T"
bench_tmp
port=$((20000 + $$ % 30000))
while [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; do
	port=$((port + 1))
done
# -vv: the daemon logs each scrape's wall and CPU time
bench_daemon -d -vv -M "127.0.0.1:$port"
url=http://127.0.0.1:$port/metrics
port2=$((port + 1))
while [ -n "$(ss -Hltn "sport = :$port2" 2>/dev/null)" ]; do
	port2=$((port2 + 1))
done
"$DTRACED" -d -M "127.0.0.1:$port2" -s "$tmp/sock2" 2>"$tmp/dtraced2.log" &
dpid2=$!
url2=http://127.0.0.1:$port2/metrics

"$T" spin >/dev/null &
lpid=$!
trap 'kill $lpid $dpid $dpid2 2>/dev/null; wait $lpid $dpid $dpid2 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.3
# the reference daemon's program: 10,000 series, still
"$DTRACE" -x socket="$tmp/sock2" -x retain=ref -x export -q \
    -c "$T 10000" -n 'pid$target:a.out:f:entry { @k[arg0] = count(); }' \
    >"$tmp/out" 2>&1 || { echo "$BENCH: dtrace failed:" >&2;
    cat "$tmp/out" >&2; exit 1; }
"$DTRACE" -x socket="$sock" -x retain=bench -x export -q -p $lpid -n '
pid$target:a.out:f:entry { @n = count(); @k[arg0 % 10000] = count(); }' \
    >"$tmp/out" 2>&1 || { echo "$BENCH: dtrace failed:" >&2;
    cat "$tmp/out" >&2; exit 1; }

# calls: @n now
calls()
{
	curl -sf "$url" | sed -n 's/^dtrace_bench_n_total //p'
}
series()
{
	curl -sf "$url" | grep -c '^dtrace_bench_k_total{'
	curl -sf "$url2" | grep -c '^dtrace_ref_k_total{'
}
i=0
while [ "$(series | tr '\n' ' ')" != "10000 10000 " ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(series | tr '\n' ' ')" = "10000 10000 " ] ||
    { echo "$BENCH: 10,000 series not reached" >&2; exit 1; }

# median of the numbers on stdin, then min and max
stats()
{
	sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR] }'
}

# 1. scrape of 10,000 series, against dtrace -a -x grab=snapshot
bytes=$(curl -sf "$url" | wc -c)
: >"$tmp/dtraced.log"
for r in $(seq 20); do
	curl -sf -o /dev/null -w '%{time_total}\n' "$url"
done | stats >"$tmp/scrape"
sed -n 's/.*dtd_metrics_serve: .* (\([0-9]*\) us of CPU)$/\1/p' \
    "$tmp/dtraced.log" | tail -20 | stats >"$tmp/cpu"
for r in 1 2 3 4 5; do
	t0=$(date +%s%N)
	"$DTRACE" -x socket="$sock" -a -x grab=snapshot bench >/dev/null 2>&1
	echo $((($(date +%s%N) - t0) / 1000))
done | stats >"$tmp/snap"
read -r sm slo shi <"$tmp/scrape"
read -r cm clo chi <"$tmp/cpu"
read -r nm nlo nhi <"$tmp/snap"
awk -v sm="$sm" -v slo="$slo" -v shi="$shi" -v nm="$nm" -v nlo="$nlo" \
    -v nhi="$nhi" -v b="$bytes" -v cm="$cm" -v clo="$clo" -v chi="$chi" 'BEGIN {
	printf "scrape of 10,000 series (%d bytes), 20 scrapes: %.1f ms " \
	    "(%.1f - %.1f)\n", b, sm * 1000, slo * 1000, shi * 1000
	printf "  of which CPU in the daemon (copy, sort, text): %.1f ms " \
	    "(%.1f - %.1f)\n", cm / 1000, clo / 1000, chi / 1000
	printf "dtrace -a -x grab=snapshot, the same program, 5 runs: " \
	    "%.1f ms (%.1f - %.1f)\n", nm / 1000, nlo / 1000, nhi / 1000
	printf "scrape / snapshot: %.2fx; goal under 50 ms: %s\n",
	    sm * 1e6 / nm, sm < 0.050 ? "met" : "NOT met"
}'

# 2. calls per second over 2 s, quiet or while curl scrapes in a loop
rate()
{
	c0=$(calls)
	t0=$(date +%s%N)
	sleep 2
	c1=$(calls)
	t1=$(date +%s%N)
	# ns per call
	echo $(((t1 - t0) / (c1 - c0)))
}
for f in quiet busy ref rbusy rref rbr; do
	: >"$tmp/$f"
done
# loop URL: scrape URL until killed
loop()
{
	while :; do
		curl -sf -o /dev/null "$1"
	done
}
for r in $(seq "$ROUNDS"); do
	q=$(rate)
	loop "$url" &
	spid=$!
	sleep 0.2
	b=$(rate)
	kill $spid
	wait $spid 2>/dev/null
	loop "$url2" &
	spid=$!
	sleep 0.2
	f=$(rate)
	kill $spid
	wait $spid 2>/dev/null
	echo "$q" >>"$tmp/quiet"
	echo "$b" >>"$tmp/busy"
	echo "$f" >>"$tmp/ref"
	awk -v q="$q" -v b="$b" -v f="$f" -v t="$tmp" 'BEGIN {
		print b / q >>(t "/rbusy"); print f / q >>(t "/rref")
		print b / f >>(t "/rbr") }'
done
for f in quiet busy ref rbusy rref rbr; do
	stats <"$tmp/$f" >"$tmp/$f.s"
done
awk -v r="$ROUNDS" -v t="$tmp" 'function get(f,   l) {
		getline l <(t "/" f ".s"); split(l, v, " "); return l }
	function us(f,   l) { l = get(f)
		return sprintf("%.1f us per hit (%.1f - %.1f)", v[1] / 1000,
		    v[2] / 1000, v[3] / 1000) }
	function x(f,   l) { l = get(f)
		return sprintf("%.2fx (%.2fx - %.2fx)", v[1], v[2], v[3]) }
	BEGIN {
	printf "hit path, %d rounds of 2 s each (ptrace, pid provider):\n", r
	printf "  nothing scraping:                    %s\n", us("quiet")
	printf "  scraping this program in a loop:     %s\n", us("busy")
	printf "  scraping another daemon (reference): %s\n", us("ref")
	printf "  scraping this / nothing:             %s\n", x("rbusy")
	printf "  scraping another / nothing:          %s\n", x("rref")
	printf "  scraping this / scraping another:    %s\n", x("rbr")
}'
