#!/bin/sh
# anon.sh: dtrace -A, anonymous tracing mapped onto retained programs.
# -A compiles the programs and saves them as compiled (after cpp, macro
# arguments replaced), with the options of the command line as pragmas
# and -P/-i descriptions in full, as a D file in
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

# a program is saved as compiled: its macro arguments as they stood (a
# number, an identifier, a string; the text in a description), comments
# and strings as written; the file then compiles alone, to the same
printf '%s\n' '/* $1 stays in a comment */' 'int foo;' \
    'tick-$2 /foo == 0 && "$1" != $$3/' '{' \
    '	printf("%s %s %d %d|", $$1, $3, $1 / 2, $4 - $5);' \
    '	foo = $1; exit(0);' '}' >"$tmp/args.d"
"$DTRACE" -A -o "$out" -s "$tmp/args.d" 42 10ms 'a b' foo -- -3 \
    >"$tmp/stdout" 2>"$tmp/err"
check "-A with macro arguments: exit 0" [ $? -eq 0 ]
same "$out" "/* saved by dtrace -A: dtraced retains it at start */
/* \$1 stays in a comment */
int foo;
tick-10ms /foo == 0 && \"\$1\" != \"a b\"/
{
	printf(\"%s %s %d %d|\", \"42\", \"a b\", 42 / 2, foo - (-3));
	foo = 42; exit(0);
}
" "-A: the macro arguments' values saved"
"$DTRACE" -q -s "$out" >"$tmp/stdout" 2>"$tmp/err"
same "$tmp/stdout" "42 a b 21 3|
" "-A: the saved program runs alone"

# -C: saved as cpp made it, the arguments in what it made of them
printf '%s\n' '#define N (2 + $1)' 'BEGIN { printf("%d|", N); exit(0); }' \
    >"$tmp/cpp.d"
"$DTRACE" -C -A -o "$out" -s "$tmp/cpp.d" 5 >"$tmp/stdout" 2>"$tmp/err"
check "-C -A: exit 0" [ $? -eq 0 ]
check "-C -A: no directive left but cpp's line markers" \
    sh -c "! grep -v '^# [0-9]' '$out' | grep -q '^#'"
check "-C -A: N expanded, \$1 replaced" \
    grep -qx 'BEGIN { printf("%d|", (2 + 5)); exit(0); }' "$out"
"$DTRACE" -q -s "$out" >"$tmp/stdout" 2>"$tmp/err"
same "$tmp/stdout" "7|
" "-C -A: the saved program runs alone"

# an argument the program names but the command line lacks: refused
rm -f "$out"
"$DTRACE" -A -o "$out" -n 'BEGIN { trace($3); }' a >"$tmp/stdout" \
    2>"$tmp/err"
check "-A, \$3 not given: exit 1" [ $? -eq 1 ]
check "-A, \$3 not given: not saved" [ ! -e "$out" ]

done_testing
