#!/bin/sh
# anon.sh: dtrace -A, anonymous tracing mapped onto retained programs.
# -A compiles the programs and saves them, with the options of the
# command line as pragmas and -P/-i descriptions in full, as a D file in
# dtraced's configuration directory (-o here); a daemon started on that
# directory retains it as "anonymous", and dtrace -a claims it.  -A
# without a program removes the file; -A with -c, or with -l, is refused;
# a program that does not compile saves nothing.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

mkdir "$tmp/conf"
out=$tmp/conf/anonymous.d

"$DTRACE" -A -o "$out" -x bufpolicy=ring -b 64k -n 'BEGIN { n = 41; }' \
    -P dtrace -i '2 { m = 1; }' -n 'tick-10ms /++i == 3/ {
	printf("n %d ticks %d\n", n + 1, i); exit(0); }' >"$tmp/stdout" \
    2>"$tmp/err"
check "-A: exit 0" [ $? -eq 0 ]
same "$tmp/stdout" "" "-A: nothing on stdout"
same "$tmp/err" "dtrace: saved anonymous enabling in $out
dtrace: restart dtraced(8) or reboot to enable changes
" "-A: illumos's messages, with the file"
same "$out" "/* saved by dtrace -A: dtraced retains it at start */
#pragma D option bufpolicy=ring
#pragma D option bufsize=64k
BEGIN { n = 41; }
dtrace::: {}
dtrace:::END  { m = 1; }
tick-10ms /++i == 3/ {
	printf(\"n %d ticks %d\\n\", n + 1, i); exit(0); }
" "-A: the saved program"
chmod 644 "$out"

check "daemon starts on the directory" start_daemon -D "$tmp/conf"
stopped()
{
	dtrace -a -l 2>/dev/null | awk '$1 == "anonymous" &&
	    $3 == "stopped" && $4 == "ring" { f = 1 } END { exit !f }'
}
check "anonymous is retained, with its ring, and stopped by exit()" \
    waitfor stopped
dtrace -q -a anonymous >"$tmp/stdout" 2>"$tmp/err"
check "-a anonymous: exit 0" [ $? -eq 0 ]
same "$tmp/stdout" "n 42 ticks 3

" "-a anonymous: the record"
stop_daemon
check "daemon exits 0" [ "$dstatus" -eq 0 ]

"$DTRACE" -A -o "$out" >"$tmp/stdout" 2>"$tmp/err"
check "-A alone: exit 0" [ $? -eq 0 ]
same "$tmp/err" "dtrace: cleaned up old anonymous enabling in $out
" "-A alone: the file removed"
check "-A alone: no file" [ ! -e "$out" ]

"$DTRACE" -A -o "$out" -n 'BEGIN { x = ; }' >"$tmp/stdout" 2>"$tmp/err"
check "-A of a program that does not compile: exit 1" [ $? -eq 1 ]
check "-A of a program that does not compile: no file" [ ! -e "$out" ]
"$DTRACE" -A -o "$out" -c true -n BEGIN >"$tmp/stdout" 2>"$tmp/err"
check "-A -c: refused" [ $? -eq 2 ]
same "$tmp/err" "dtrace: -A cannot be combined with -a, -c or -p
" "-A -c: the reason"
"$DTRACE" -A -l -n BEGIN >"$tmp/stdout" 2>"$tmp/err"
check "-A -l: refused" [ $? -eq 2 ]
check "-A -l: nothing saved" [ ! -e "$out" ]

done_testing
