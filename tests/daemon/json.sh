#!/bin/sh
# -x oformat=json: every probe firing, printa(), aggregation at exit,
# runtime error and drop is one JSON object per line.  The output is
# parsed with python3's json module and each object compared exactly,
# after checking that a probe's "timestamp" and "cpu" are integers and
# removing them (they vary from run to run).
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is needed to parse the JSON output"
	exit 0
fi

# jsonis FILE EXPECTED-JSON-ARRAY: one object per line of FILE, equal
# to the array's elements in order
jsonis()
{
	python3 - "$1" "$2" <<'PYEOF'
import json, sys
got = []
for n, line in enumerate(open(sys.argv[1]), 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        print("# line %d is not JSON (%s): %r" % (n, e, line))
        sys.exit(1)
    for k in ("timestamp", "cpu"):
        if k in o and o.get("type") == "probe":
            if type(o[k]) is not int:
                print("# line %d: %s is not an integer" % (n, k))
                sys.exit(1)
            del o[k]
    got.append(o)
want = json.loads(sys.argv[2])
if got != want:
    print("# got:  " + json.dumps(got, sort_keys=True))
    print("# want: " + json.dumps(want, sort_keys=True))
    sys.exit(1)
PYEOF
}

check "daemon starts" start_daemon

dtrace -x oformat=json -n 'BEGIN
{
	trace(1);
	trace("a\"b\\c");
	printf("x=%d\n", 5);
	@c["k", 7] = count();
	@c["j", 8] = count();
	@c["j", 8] = count();
	@q = quantize(3);
	@q = quantize(-2);
	@q = quantize(0);
	@l = lquantize(5, 0, 10, 2);
	@l = lquantize(-1, 0, 10, 2);
	@l = lquantize(12, 0, 10, 2);
	@ll = llquantize(150, 10, 0, 3, 10);
	@a[1, "z"] = avg(4);
	@a[1, "z"] = avg(8);
	@s = sum(-3);
}' -n 'BEGIN { printa("%s %d %@d\n", @c); }
BEGIN { this->z = 0; trace(1 / this->z); }
BEGIN { exit(3); }' >"$tmp/out" 2>"$tmp/err"
check "json: exit status of exit(3)" [ $? -eq 3 ]
check "json: the records" jsonis "$tmp/out" '[
{"type": "probe", "epid": 1, "id": 1, "provider": "dtrace", "module": "",
 "function": "", "name": "BEGIN", "records": [
  {"action": "trace", "value": 1},
  {"action": "trace", "value": "a\"b\\c"},
  {"action": "printf", "value": "x=5\n"}]},
{"type": "probe", "epid": 2, "id": 1, "provider": "dtrace", "module": "",
 "function": "", "name": "BEGIN", "records": [
  {"action": "printa", "aggregations": [{"name": "c", "function": "count",
   "data": [{"keys": ["k", 7], "value": 1}, {"keys": ["j", 8], "value": 2}]}],
   "value": "k 7 1\nj 8 2\n"}]},
{"type": "error", "epid": 3, "id": 1, "provider": "dtrace", "module": "",
 "function": "", "name": "BEGIN", "fault": "divide-by-zero", "action": 2,
 "offset": 8, "address": 0, "message": "error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): divide-by-zero in action #2 at DIF offset 8"},
{"type": "probe", "epid": 4, "id": 1, "provider": "dtrace", "module": "",
 "function": "", "name": "BEGIN", "records": []},
{"type": "aggregation", "name": "q", "function": "quantize", "data": [
  {"keys": [], "buckets": [{"min": -3, "max": -2, "count": 1},
   {"min": 0, "max": 0, "count": 1}, {"min": 2, "max": 3, "count": 1}]}]},
{"type": "aggregation", "name": "l", "function": "lquantize", "data": [
  {"keys": [], "buckets": [
   {"min": -9223372036854775808, "max": -1, "count": 1},
   {"min": 4, "max": 5, "count": 1},
   {"min": 10, "max": 9223372036854775807, "count": 1}]}]},
{"type": "aggregation", "name": "ll", "function": "llquantize", "data": [
  {"keys": [], "buckets": [{"min": 100, "max": 199, "count": 1}]}]},
{"type": "aggregation", "name": "a", "function": "avg", "data": [
  {"keys": [1, "z"], "value": 6}]},
{"type": "aggregation", "name": "s", "function": "sum", "data": [
  {"keys": [], "value": -3}]}
]'
same "$tmp/err" "dtrace: description 'BEGIN
' matched 1 probe
dtrace: description 'BEGIN ' matched 3 probes
" "json: notices still on stderr, the error is not"

# quiet changes nothing in JSON; -o gets the lines; text is the default
dtrace -q -x oformat=json -o "$tmp/o" -n 'BEGIN { trace(-1); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "json -q -o: exit 0" [ $? -eq 0 ]
same "$tmp/out" "" "json -o: nothing on stdout"
check "json -o: the record in the file" jsonis "$tmp/o" '[
{"type": "probe", "epid": 1, "id": 1, "provider": "dtrace", "module": "",
 "function": "", "name": "BEGIN", "records": [
  {"action": "trace", "value": -1}]}]'
dtrace -x oformat=text -q -n 'BEGIN { trace(2); exit(0); }' >"$tmp/out" \
    2>"$tmp/err"
same "$tmp/out" "2
" "oformat=text: dtrace's own output"
# strings: well-formed UTF-8 as it is, a byte that is not UTF-8 (and
# control characters) as \u00XX
dtrace -x oformat=json -q -n 'BEGIN {
	printf("%s|%s|%s|%s", "caf\303\251", "a\377b", "\346\227\245", "\300\257");
	exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "json strings: exit 0" [ $? -eq 0 ]
check "json strings: UTF-8 as it is, other bytes escaped" \
    grep -qF '"value":"café|a\u00ffb|日|\u00c0\u00af"' "$tmp/out" ||
    sed 's/^/# /' "$tmp/out" "$tmp/err"
dtrace -x oformat=xml -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "oformat=xml: refused" [ $? -ne 0 ]
same "$tmp/err" "dtrace: failed to set -x oformat: Invalid value for specified option
" "oformat=xml: the reason"

# -l: a probe a line, no heading; -lv adds the stability and argument
# types; a script's pragma sets it as -x does; text stays the table
dtrace -l -x oformat=json -n 'BEGIN,END' >"$tmp/out" 2>"$tmp/err"
check "json -l: exit 0" [ $? -eq 0 ]
check "json -l: the probes" jsonis "$tmp/out" '[
{"type": "probe-description", "id": 1, "provider": "dtrace", "module": "",
 "function": "", "name": "BEGIN"},
{"type": "probe-description", "id": 2, "provider": "dtrace", "module": "",
 "function": "", "name": "END"}]'
dtrace -lv -x oformat=json -i 3 >"$tmp/out" 2>"$tmp/err"
check "json -lv: exit 0" [ $? -eq 0 ]
check "json -lv: with attributes and argument types" jsonis "$tmp/out" '[
{"type": "probe-description", "id": 3, "provider": "dtrace", "module": "",
 "function": "", "name": "ERROR",
 "probe-description-attributes": {"identifier-names": "Stable",
  "data-semantics": "Stable", "dependency-class": "Common"},
 "argument-attributes": {"identifier-names": "Stable",
  "data-semantics": "Stable", "dependency-class": "Common"},
 "argument-types": []}]'
printf '#pragma D option oformat=json\nEND {}\n' >"$tmp/l.d"
dtrace -l -s "$tmp/l.d" >"$tmp/out" 2>"$tmp/err"
check "json -l -s: the pragma's format" jsonis "$tmp/out" '[
{"type": "probe-description", "id": 2, "provider": "dtrace", "module": "",
 "function": "", "name": "END"}]'
dtrace -l -x oformat=json -n 'nosuch:::' >"$tmp/out" 2>"$tmp/err"
check "json -l: no match is exit 1" [ $? -eq 1 ]
same "$tmp/out" "" "json -l: no match prints nothing"
dtrace -l -n 'END' >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "   ID   PROVIDER            MODULE                          FUNCTION NAME
    2     dtrace                                                     END
" "oformat=text -l: the table"

stop_daemon
check "daemon exits 0" [ "$dstatus" -eq 0 ]

# drops: a 1k switch buffer holds 64 16-byte printf records of 81 (see
# buffering.sh); pinned to CPU 0 so that all of them land on one CPU
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	{
		echo '#pragma D option bufsize=1k'
		echo '#pragma D option oformat=json'
		for i in $(seq 1 80); do
			printf 'BEGIN { printf("%%d\\n", %d); }\n' "$i"
		done
		echo 'BEGIN { exit(0); }'
	} >"$tmp/drops.d"
	taskset -c 0 timeout -k 10 60 "$DTRACE" -s "$tmp/drops.d" >"$tmp/out" \
	    2>"$tmp/err"
	check "json drops: exit 0" [ $? -eq 0 ]
	head -n 1 "$tmp/out" >"$tmp/drop"
	check "json drops: the drop line comes first" jsonis "$tmp/drop" '[
{"type": "drop", "kind": "principal", "tag": "DTRACEDROP_PRINCIPAL",
 "cpu": 0, "count": 17, "message": "17 drops on CPU 0"}]'
	check "json drops: then 64 probe lines" [ "$(grep -c \
	    '^{"type":"probe",' "$tmp/out")" -eq 64 ]
	check "json drops: 65 lines in all" [ "$(wc -l <"$tmp/out")" -eq 65 ]
else
	ok "# SKIP taskset cannot pin to CPU 0"
fi

# aggregation drops and failed speculations as JSON objects: 128 bytes
# of aggregation hold 3 entries of 40 (-x cpu=0: BEGIN runs as on CPU 0)
timeout -k 10 60 "$DTRACE" -q -x oformat=json -x cpu=0 -x aggsize=128 -x nspec=1 \
    -n 'BEGIN { @[1] = count(); @[2] = count(); @[3] = count();
    @[4] = count(); a = speculation(); b = speculation(); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "json aggregation and speculation drops: exit 0" [ $? -eq 0 ]
check "json aggregation and speculation drops" jsonis "$tmp/out" '[
{"type": "drop", "kind": "aggregation", "tag": "DTRACEDROP_AGGREGATION",
 "cpu": 0, "count": 1, "message": "1 aggregation drop on CPU 0"},
{"type": "drop", "kind": "speculation", "tag": "DTRACEDROP_SPECUNAVAIL",
 "count": 1, "message":
 "1 failed speculation (no speculative buffer available)"},
{"type": "probe", "epid": 1, "id": 1, "provider": "dtrace", "module": "",
 "function": "", "name": "BEGIN", "records": []},
{"type": "aggregation", "name": "", "function": "count", "data": [
  {"keys": [1], "value": 1}, {"keys": [2], "value": 1},
  {"keys": [3], "value": 1}]}]'

# llquantize up to 10^19: the magnitude past INT64_MAX ends there, and
# INT64_MAX alone is the top bucket
timeout -k 10 60 "$DTRACE" -q -x oformat=json -n 'BEGIN {
    @ll = llquantize(9223372036854775806, 10, 0, 19, 10);
    @ll = llquantize(9223372036854775807, 10, 0, 19, 10);
    @ll = llquantize(1000000000000000000, 10, 0, 19, 10); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
grep -v '"type":"probe"' "$tmp/out" >"$tmp/ll"
check "json llquantize past INT64_MAX" jsonis "$tmp/ll" '[
{"type": "aggregation", "name": "ll", "function": "llquantize", "data": [
  {"keys": [], "buckets": [
   {"min": 1000000000000000000, "max": 1922337203685477579, "count": 1},
   {"min": 8378697629483820640, "max": 9223372036854775806, "count": 1},
   {"min": 9223372036854775807, "max": 9223372036854775807, "count": 1}]}]}]'

done_testing
