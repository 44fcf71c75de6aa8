#!/bin/sh
# metrics.sh: dtraced serves the aggregations of retained programs that
# asked for export (-x export) over HTTP, as OpenMetrics to a scraper
# that accepts it and as the Prometheus text format otherwise.  Off
# unless asked (-M, or the metrics line of dtraced.conf), on 127.0.0.1
# unless told.  A whole scrape of a deterministic program is compared
# byte for byte in both formats (names, labels from the key
# expressions, escaping, counters, gauges, histograms), Debian's
# promtool accepts it, a program not exported is not served, a scraper
# that reads slowly holds up neither other scrapes nor dtrace, and a
# real Prometheus on 127.0.0.1, in a temporary directory, scrapes the
# daemon and returns through its query API the exact count of a
# trigger's 1000 calls.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

for c in curl promtool prometheus ss; do
	if ! command -v $c >/dev/null 2>&1; then
		echo "1..0 # SKIP $c not found (./build.sh installs prometheus)"
		exit 0
	fi
done

# waitfor CMD...: until CMD succeeds, at most 20 s (WAIT_TICKS of 50 ms)
waitfor()
{
	i=0
	while [ $i -lt "${WAIT_TICKS:-400}" ]; do
		"$@" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# listening PID PORT: PID has a TCP socket listening on PORT; prints it
listening()
{
	ss -Hltnp "sport = :$2" 2>/dev/null | grep "pid=$1," |
	    awk '{ print $4 }' | grep .
}

# scrape [ACCEPT]: GET /metrics, body to stdout
scrape()
{
	if [ -n "$1" ]; then
		timeout -k 10 30 curl -sf -H "Accept: $1" \
		    "http://127.0.0.1:$port/metrics"
	else
		timeout -k 10 30 curl -sf "http://127.0.0.1:$port/metrics"
	fi
}

# A port nobody listens on, from one derived from our pid.
freeport()
{
	p=$((20000 + ($$ * 7 + $1) % 30000))
	while [ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ]; do
		p=$((p + 1))
	done
	echo $p
}

# --- off unless asked
check "daemon starts without -M" start_daemon
check "no -M, no dtraced.conf: no TCP socket" \
    [ -z "$(ss -Hltnp 2>/dev/null | grep "pid=$dpid,")" ]
stop_daemon

# --- -M PORT: on 127.0.0.1
port=$(freeport 1)
check "daemon starts with -M $port" start_daemon -M "$port"
check "-M PORT listens on 127.0.0.1 only" \
    [ "$(listening "$dpid" "$port")" = "127.0.0.1:$port" ]
scrape >"$tmp/empty"
check "nothing exported: a scrape answers" [ $? -eq 0 ]
same "$tmp/empty" "# HELP dtraced_exported_drops_total aggregation drops (keys that found no room), per exported program
# TYPE dtraced_exported_drops_total counter
# HELP dtraced_exported_errors_total errors (faults in probe clauses), per exported program
# TYPE dtraced_exported_errors_total counter
" "nothing exported: the daemon's two families, no series"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
check "another path: 404 ($code)" [ "$code" = 404 ]
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST \
    "http://127.0.0.1:$port/metrics")
check "POST: refused ($code)" [ "$code" = 501 ] || [ "$code" = 405 ]
stop_daemon

# --- dtraced.conf, and a deterministic program in both formats
port=$(freeport 2)
mkdir "$tmp/conf"
printf '# the scrape endpoint\nmetrics 127.0.0.1:%s\n' "$port" \
    >"$tmp/conf/dtraced.conf"
check "daemon starts with dtraced.conf" start_daemon -D "$tmp/conf"
check "dtraced.conf's address is listened on" \
    [ "$(listening "$dpid" "$port")" = "127.0.0.1:$port" ]

dtrace -x retain=web-1.lat -x export -q -n '
BEGIN
{
	this->method = "GET";
	self->code = 200;
	@req[this->method, self->code] = count();
	@req[this->method, self->code] = count();
	this->method = "POST";
	self->code = 500;
	@req[this->method, self->code] = count();
	@odd["a\"b\\c\nd", "caf\303\251"] = sum(-40);
	@odd["a\"b\\c\nd", "caf\303\251"] = sum(2);
	@lat = quantize(0);
	@lat = quantize(3);
	@lat = quantize(3);
	@lat = quantize(700);
	@lin[1 + 1] = lquantize(15, 0, 100, 10);
	@lin[1 + 1] = lquantize(-3, 0, 100, 10);
	@lin[1 + 1] = lquantize(1000, 0, 100, 10);
	@ll = llquantize(42, 10, 0, 2, 10);
	@ll = llquantize(5, 10, 0, 2, 10);
	@lo = min(-5);
	@lo = min(3);
	@hi = max(7);
	@mean = avg(3);
	@mean = avg(4);
	@dev = stddev(2);
	@dev = stddev(4);
	@ = count();
}' 2>"$tmp/err"
check "retain web-1.lat with -x export: exit 0" [ $? -eq 0 ]
dtrace -x retain=private -q -n 'BEGIN { @secret = count(); }' 2>>"$tmp/err"
check "retain private, not exported: exit 0" [ $? -eq 0 ]

scrape >"$tmp/prom"
check "scrape, no Accept: exit 0" [ $? -eq 0 ]
same "$tmp/prom" '# HELP dtrace_web_1_lat_req_total @req = count(), retained program web-1.lat
# TYPE dtrace_web_1_lat_req_total counter
dtrace_web_1_lat_req_total{method="GET",code="200"} 2
dtrace_web_1_lat_req_total{method="POST",code="500"} 1
# HELP dtrace_web_1_lat_odd_total @odd = sum(), retained program web-1.lat
# TYPE dtrace_web_1_lat_odd_total counter
dtrace_web_1_lat_odd_total{key0="a\"b\\c\nd",key1="café"} -38
# HELP dtrace_web_1_lat_lat @lat = quantize(), retained program web-1.lat
# TYPE dtrace_web_1_lat_lat histogram
dtrace_web_1_lat_lat_bucket{le="0"} 1
dtrace_web_1_lat_lat_bucket{le="1"} 1
dtrace_web_1_lat_lat_bucket{le="3"} 3
dtrace_web_1_lat_lat_bucket{le="7"} 3
dtrace_web_1_lat_lat_bucket{le="15"} 3
dtrace_web_1_lat_lat_bucket{le="31"} 3
dtrace_web_1_lat_lat_bucket{le="63"} 3
dtrace_web_1_lat_lat_bucket{le="127"} 3
dtrace_web_1_lat_lat_bucket{le="255"} 3
dtrace_web_1_lat_lat_bucket{le="511"} 3
dtrace_web_1_lat_lat_bucket{le="1023"} 4
dtrace_web_1_lat_lat_bucket{le="+Inf"} 4
dtrace_web_1_lat_lat_count 4
# HELP dtrace_web_1_lat_lin @lin = lquantize(), retained program web-1.lat
# TYPE dtrace_web_1_lat_lin histogram
dtrace_web_1_lat_lin_bucket{key0="2",le="-1"} 1
dtrace_web_1_lat_lin_bucket{key0="2",le="9"} 1
dtrace_web_1_lat_lin_bucket{key0="2",le="19"} 2
dtrace_web_1_lat_lin_bucket{key0="2",le="+Inf"} 3
dtrace_web_1_lat_lin_count{key0="2"} 3
# HELP dtrace_web_1_lat_ll @ll = llquantize(), retained program web-1.lat
# TYPE dtrace_web_1_lat_ll histogram
dtrace_web_1_lat_ll_bucket{le="5"} 1
dtrace_web_1_lat_ll_bucket{le="6"} 1
dtrace_web_1_lat_ll_bucket{le="7"} 1
dtrace_web_1_lat_ll_bucket{le="8"} 1
dtrace_web_1_lat_ll_bucket{le="9"} 1
dtrace_web_1_lat_ll_bucket{le="19"} 1
dtrace_web_1_lat_ll_bucket{le="29"} 1
dtrace_web_1_lat_ll_bucket{le="39"} 1
dtrace_web_1_lat_ll_bucket{le="49"} 2
dtrace_web_1_lat_ll_bucket{le="+Inf"} 2
dtrace_web_1_lat_ll_count 2
# HELP dtrace_web_1_lat_lo @lo = min(), retained program web-1.lat
# TYPE dtrace_web_1_lat_lo gauge
dtrace_web_1_lat_lo -5
# HELP dtrace_web_1_lat_hi @hi = max(), retained program web-1.lat
# TYPE dtrace_web_1_lat_hi gauge
dtrace_web_1_lat_hi 7
# HELP dtrace_web_1_lat_mean @mean = avg(), retained program web-1.lat
# TYPE dtrace_web_1_lat_mean gauge
dtrace_web_1_lat_mean 3
# HELP dtrace_web_1_lat_dev @dev = stddev(), retained program web-1.lat
# TYPE dtrace_web_1_lat_dev gauge
dtrace_web_1_lat_dev 1
# HELP dtrace_web_1_lat_total @ = count(), retained program web-1.lat
# TYPE dtrace_web_1_lat_total counter
dtrace_web_1_lat_total 1
# HELP dtraced_exported_drops_total aggregation drops (keys that found no room), per exported program
# TYPE dtraced_exported_drops_total counter
dtraced_exported_drops_total{program="web-1.lat"} 0
# HELP dtraced_exported_errors_total errors (faults in probe clauses), per exported program
# TYPE dtraced_exported_errors_total counter
dtraced_exported_errors_total{program="web-1.lat"} 0
' "Prometheus text: the whole scrape, exact"
check "the program not exported is not served" \
    sh -c "! grep -q -e private -e secret '$tmp/prom'"

promtool check metrics <"$tmp/prom" >"$tmp/promtool" 2>&1
check "promtool check metrics accepts it (exit $?)" [ $? -eq 0 ] ||
    sed 's/^/# /' "$tmp/promtool"
same "$tmp/promtool" "" "promtool has nothing to say"

scrape 'application/openmetrics-text;version=1.0.0,text/plain;q=0.5' \
    >"$tmp/om"
check "scrape, Accept: application/openmetrics-text: exit 0" [ $? -eq 0 ]
# the same samples; counter families without _total, '"' escaped in
# HELP, and # EOF
sed -e '/^# \(HELP\|TYPE\) [a-z_0-9]*_total /s/_total / /' \
    -e '$a# EOF' "$tmp/prom" >"$tmp/om.want"
check "OpenMetrics: the same scrape as the Prometheus text's, with OpenMetrics' families and # EOF" \
    cmp -s "$tmp/om.want" "$tmp/om" || diff -u "$tmp/om.want" "$tmp/om" |
    sed 's/^/# /'
ctype=$(curl -s -o /dev/null -w '%{content_type}' -H \
    'Accept: application/openmetrics-text' "http://127.0.0.1:$port/metrics")
check "OpenMetrics: its content type ($ctype)" \
    [ "$ctype" = "application/openmetrics-text; version=1.0.0; charset=utf-8" ]
ctype=$(curl -s -o /dev/null -w '%{content_type}' \
    "http://127.0.0.1:$port/metrics")
check "Prometheus text: its content type ($ctype)" \
    [ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ]

# dtrace prints the same values
dtrace -a -x grab=snapshot web-1.lat >"$tmp/snap" 2>/dev/null
check "snapshot of web-1.lat: min -5, max 7, avg 3, stddev 1, count 1" \
    [ "$(awk 'NF == 1 && $1 ~ /^-?[0-9]+$/' "$tmp/snap" | tail -5 |
    tr -s ' \n' ' ')" = " -5 7 3 1 1 " ]
check "snapshot of web-1.lat: sum -38" grep -q ' -38$' "$tmp/snap"
check "snapshot of web-1.lat: GET 200 counted 2" \
    grep -q '^  GET  *200  *2$' "$tmp/snap"
scrape >"$tmp/prom2"
check "a snapshot consumed nothing: the next scrape is the same" \
    cmp -s "$tmp/prom" "$tmp/prom2"
dtrace -a web-1.lat >/dev/null 2>&1
scrape >"$tmp/prom3"
check "claimed: web-1.lat is served no more" \
    sh -c "! grep -q web_1_lat '$tmp/prom3'"

# label names: a repeated or reserved name becomes keyN
dtrace -x retain=names -x export -q -n 'BEGIN {
	this->key0 = 1; self->le = 3; this->__x = 4;
	@d[this->key0, 2, this->key0, this->__x] = count();
	@h[self->le] = quantize(1);
}' 2>/dev/null
scrape >"$tmp/names"
check "a name repeated, none, a name repeated, a name reserved: key0 .. key3" \
    grep -qx 'dtrace_names_d_total{key0="1",key1="2",key2="1",key3="4"} 1' \
    "$tmp/names"
check "a histogram's key named le is key0" \
    grep -qx 'dtrace_names_h_bucket{key0="3",le="1"} 1' "$tmp/names"
stop_daemon

# --- a trigger's calls, scraped by Prometheus
port=$(freeport 3)
check "daemon starts with -M 127.0.0.1:$port" \
    start_daemon -M "127.0.0.1:$port"
dtrace -x retain=calls -x export -q -c "$TRIGGERS/loop 1000" -n '
pid$target:a.out:f:entry { @calls = count(); @arg[probefunc] = quantize(arg0); }' \
    >/dev/null 2>"$tmp/err"
check "retain calls on loop 1000: exit 0" [ $? -eq 0 ]

exited()
{
	dtrace -a -l 2>/dev/null | awk '$1 == "calls"' | grep -q '(exited)'
}
check "the trigger ran its 1000 calls and exited" waitfor exited
scrape >"$tmp/calls"
check "scraped: dtrace_calls_calls_total is 1000" \
    grep -qx 'dtrace_calls_calls_total 1000' "$tmp/calls"
check "scraped: f's arguments 0 .. 999 in quantize's buckets" \
    grep -qx 'dtrace_calls_arg_bucket{probefunc="f",le="1023"} 1000' \
    "$tmp/calls"

# scrapers that read slowly (a 1 MB scrape at 1 kB/s) hold up neither
# another scraper nor a dtrace client; 16 may scrape at once, the next
# is refused until one goes
dtrace -x retain=wide -x export -q -c "$TRIGGERS/loop 20000" -n '
pid$target:a.out:f:entry { @wide[arg0] = count(); }' >/dev/null 2>&1
wexited()
{
	dtrace -a -l 2>/dev/null | awk '$1 == "wide"' | grep -q '(exited)'
}
check "wide: 20000 keys" waitfor wexited
slow=
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	curl -s --limit-rate 1k -o /dev/null "http://127.0.0.1:$port/metrics" &
	slow="$slow $!"
done
sleep 1
scrape >"$tmp/wide"
check "while a scraper reads slowly, another scrape is whole" \
    grep -qx 'dtraced_exported_errors_total{program="wide"} 0' "$tmp/wide"
check "with 20000 series of wide" \
    [ "$(grep -c '^dtrace_wide_wide_total{arg0="' "$tmp/wide")" = 20000 ]
check "and dtrace is served meanwhile" \
    sh -c "$DTRACE -x socket='$sock' -a -l | grep -q '^calls '"
curl -s --limit-rate 1k -o /dev/null "http://127.0.0.1:$port/metrics" &
slow="$slow $!"
sleep 1
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")
check "a 17th scraper at once: 503 ($code)" [ "$code" = 503 ]
# shellcheck disable=SC2086
kill $slow 2>/dev/null
# shellcheck disable=SC2086
wait $slow 2>/dev/null
served()
{
	scrape >/dev/null
}
check "the slow scrapers gone, a scrape is served again" waitfor served
dtrace -a wide >/dev/null 2>&1

# Prometheus, on 127.0.0.1 only, its data in $tmp
pport=$(freeport 4)
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: dtraced
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
prometheus --config.file="$tmp/prometheus.yml" \
    --storage.tsdb.path="$tmp/prom-data" \
    --web.listen-address="127.0.0.1:$pport" \
    >"$tmp/prometheus.log" 2>&1 &
ppid_=$!
ready()
{
	curl -sf "http://127.0.0.1:$pport/-/ready" >/dev/null 2>&1
}
# a loaded machine may take a while to start it and scrape: 90 s
WAIT_TICKS=1800
check "prometheus starts on 127.0.0.1:$pport" waitfor ready ||
    tail -5 "$tmp/prometheus.log" | sed 's/^/# /'
check "prometheus listens on 127.0.0.1 only" \
    [ "$(listening "$ppid_" "$pport")" = "127.0.0.1:$pport" ]

# query EXPR: the value of the first sample of an instant query
query()
{
	curl -sf -G "http://127.0.0.1:$pport/api/v1/query" \
	    --data-urlencode "query=$1" 2>/dev/null |
	    sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'
}
scraped()
{
	[ -n "$(query dtrace_calls_calls_total)" ]
}
check "prometheus scraped dtraced" waitfor scraped
v=$(query dtrace_calls_calls_total)
check "prometheus: dtrace_calls_calls_total is 1000 ($v)" [ "$v" = 1000 ]
v=$(query 'dtrace_calls_arg_bucket{probefunc="f",le="511"}')
check "prometheus: 512 of f's arguments are at most 511 ($v)" [ "$v" = 512 ]
v=$(query 'histogram_quantile(1, dtrace_calls_arg_bucket)')
check "prometheus: the largest argument's bucket ends at 1023 ($v)" \
    [ "$v" = 1023 ]
curl -sf "http://127.0.0.1:$pport/api/v1/targets" >"$tmp/targets"
check "prometheus: the target is up, with no scrape error" \
    grep -q '"lastError":"","lastScrape' "$tmp/targets"
check "prometheus: the target is up" grep -q '"health":"up"' "$tmp/targets"
kill "$ppid_"
wait "$ppid_" 2>/dev/null

stop_daemon
check "dtraced exits 0 on SIGTERM" [ "$dstatus" -eq 0 ]
done_testing
