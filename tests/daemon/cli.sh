#!/bin/sh
# dtrace(1)'s command line: usage and exit codes, compile errors, -S, -e,
# -l, -V, -o, -x, and the private daemon it starts when none answers.
. "$(dirname "$0")/lib.sh"

"$DTRACE" >"$tmp/out" 2>"$tmp/err"
check "no arguments: exit 2" [ $? -eq 2 ]
check "no arguments: usage on stderr" grep -q "^Usage: dtrace" "$tmp/err"
check "no arguments: nothing on stdout" [ ! -s "$tmp/out" ]
check "usage lists no refused flag" \
    sh -c "! grep -Eq -- '-32|-B ' '$tmp/err'"

"$DTRACE" -J >"$tmp/out" 2>"$tmp/err"
check "bad flag: exit 2" [ $? -eq 2 ]
check "bad flag: usage on stderr" grep -q "^Usage: dtrace" "$tmp/err"

printf 'BEGIN\n{\n\tx = ;\n}\n' >"$tmp/syntax.d"
"$DTRACE" -s "$tmp/syntax.d" >"$tmp/out" 2>"$tmp/err"
check "syntax error: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to compile script $tmp/syntax.d: line 3: syntax error near \";\"
" "syntax error: line-numbered message"
"$DTRACE" -xerrtags -s "$tmp/syntax.d" >"$tmp/out" 2>"$tmp/err"
check "syntax error under -xerrtags carries [D_SYNTAX]" \
    grep -q "^dtrace: failed to compile script .*: \[D_SYNTAX\] line 3: " "$tmp/err"
"$DTRACE" -n 'BEGIN { x = ; }' >"$tmp/out" 2>"$tmp/err"
check "bad -n: exit 1" [ $? -eq 1 ]
check "bad -n: invalid probe specifier" \
    grep -q "^dtrace: invalid probe specifier BEGIN { x = ; }: " "$tmp/err"

"$DTRACE" -S -e -n 'BEGIN { x = 1 + 2; }' >"$tmp/out" 2>"$tmp/err"
check "-S -e: exit 0" [ $? -eq 0 ]
check "-S lists a DIFO" grep -q "^DIFO " "$tmp/err"
check "-S lists its instructions" grep -q "setx DT_INTEGER\[" "$tmp/err"
check "-S lists the store to x" grep -q "stgs %r[0-9], DT_VAR(1280)" "$tmp/err"
check "-S lists the variable table" grep -q "^x  *500 " "$tmp/err"

"$DTRACE" -V >"$tmp/out" 2>&1
check "-V: exit 0" [ $? -eq 0 ]
check "-V prints the D version" grep -q "^dtrace: Sun D 1\." "$tmp/out"

# -x core: dtrace dumps core as it exits, on any path, option or pragma
D=$(cd "$(dirname "$DTRACE")" && pwd)/$(basename "$DTRACE")
mkdir "$tmp/core" && (cd "$tmp/core" && ulimit -S -c 0 &&
    "$D" -x core -qn 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err")
check "-x core: killed by SIGABRT at exit" [ $? -eq 134 ]
check "-x core: says so" grep -q "^dtrace: -x core: dumping core$" "$tmp/err"
if [ "$(cat /proc/sys/kernel/core_pattern)" = core ]; then
	check "-x core: a core of dtrace despite a soft limit of 0" \
	    sh -c "file '$tmp/core/core' | grep -q 'core file.*dtrace'"
fi
rm -rf "$tmp/core"
mkdir "$tmp/core" && printf '#pragma D option core\nBEGIN { exit(0); }\n' \
    >"$tmp/core.d" && (cd "$tmp/core" && ulimit -S -c 0 &&
    "$D" -qs "$tmp/core.d" >"$tmp/out" 2>"$tmp/err")
check "#pragma D option core: killed by SIGABRT at exit" [ $? -eq 134 ]
(cd "$tmp/core" && "$D" -x core=1 -n BEGIN >"$tmp/out" 2>"$tmp/err")
check "-x core=1: exit 1, a flag takes no value" [ $? -eq 1 ]
rm -rf "$tmp/core"

# -G's object without -o: NAME.o of NAME.d, else d.out as illumos names it
mkdir "$tmp/g" && printf 'provider gp { probe p(int); };\n' >"$tmp/g/gp.d" &&
    printf 'provider gq { probe q(int); };\n' >"$tmp/g/gq.prov"
(cd "$tmp/g" && "$D" -G -s gp.d && "$D" -G -s gq.prov)
check "-G: exit 0" [ $? -eq 0 ]
check "-G -s gp.d writes gp.o" [ -s "$tmp/g/gp.o" ]
check "-G -s gq.prov writes d.out" [ -s "$tmp/g/d.out" ]
rm -rf "$tmp/g"

# a script that cannot be read (found by fuzz_cli): an error, not flex's
dtrace -e -s / >"$tmp/out" 2>"$tmp/err"
check "-s of a directory: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to compile script /: failed to read the program: Is a directory
" "-s of a directory: why"

# cpp's own messages name the program /dev/stdin, with no column
printf 'BEGIN\n{\n#endif\n}\n' >"$tmp/cpp.d"
"$DTRACE" -C -s "$tmp/cpp.d" >"$tmp/out" 2>"$tmp/err"
check "-C: cpp failure: exit 1" [ $? -eq 1 ]
same "$tmp/err" "/dev/stdin:3: error: #endif without #if
dtrace: failed to compile script $tmp/cpp.d: Preprocessor failed to process input program
" "-C: cpp's message as dtrace(1) shows it"

# -X and the compile-time options of illumos that change nothing here
"$DTRACE" -X q -e -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "-X q: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to set -X q: Invalid value for specified option
" "-X q: refused in dtrace(1)'s words"
"$DTRACE" -x version=1.0.7 -e -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: failed to set -x version: Requested version is not supported by compiler
" "-x version=1.0.7: no such D version"
"$DTRACE" -x linkmode=static -x linktype=dof -x nolibs -x version=1.13 -Xa \
    -e -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "linkmode, linktype, nolibs, version, -Xa: accepted" [ $? -eq 0 ]

check "daemon starts" start_daemon
dtrace -l >"$tmp/all" 2>"$tmp/err"
head -n 17 "$tmp/all" >"$tmp/out"
check "-l: exit 0" [ $? -eq 0 ]
same "$tmp/out" "$(printf '%5s %10s %17s %33s %s\n' ID PROVIDER MODULE FUNCTION NAME
printf '%5d %10s %17s %33s %s\n' 1 dtrace '' '' BEGIN 2 dtrace '' '' END \
    3 dtrace '' '' ERROR
i=4
for n in profile-97 profile-199 profile-499 profile-997 profile-1999 \
    profile-4001 profile-4999 tick-1 tick-10 tick-100 tick-500 tick-1000 \
    tick-5000; do
	printf '%5d %10s %17s %33s %s\n' $i profile '' '' $n
	i=$((i + 1))
done)
" "-l lists the dtrace provider, then profile's defaults in illumos's order"
# then syscall's: an entry and a return of each call <asm/unistd_64.h> has
nsys=$(echo '#include <asm/unistd_64.h>' | ${CC:-cc} -dM -E - |
    grep -c '^#define __NR_[a-z0-9_]* [0-9][0-9]*$')
check "-l lists syscall's probes after them, entry and return of each" \
    [ "$(awk 'NR > 17 { print $2, $3, $4 }' "$tmp/all" | sort -u |
    awk '$1 == "syscall" { n[$3]++ } END { print n["entry"], n["return"] }')" \
    = "$nsys $nsys" -a "$(wc -l <"$tmp/all")" -eq $((17 + 2 * nsys + 14)) ]
check "-l lists proc's fourteen probes last" \
    [ "$(awk -v n=$((17 + 2 * nsys)) 'NR > n { print $2 }' "$tmp/all" |
    sort -u)" = proc ]
check "-l: syscall::read:entry, then syscall::read:return" \
    [ "$(awk 'NR > 17 && NR < 20 { print $2 ":" $3 ":" $4 }' "$tmp/all" |
    tr '\n' ' ')" = "syscall:read:entry syscall:read:return " ]
dtrace -l -n profile-123 >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "$(printf '%5s %10s %17s %33s %s\n' ID PROVIDER MODULE FUNCTION NAME
printf '%5d %10s %17s %33s %s\n' $((17 + 2 * nsys + 14)) profile '' '' profile-123)
" "-l -n profile-123 creates the probe on demand, with the next id"
dtrace -l -P profile >"$tmp/out" 2>"$tmp/err"
check "-l -P profile: the 13 defaults and profile-123" \
    [ "$(awk 'NR > 1 { print $1 ":" $3 }' "$tmp/out" | tr '\n' ' ')" = \
    "4:profile-97 5:profile-199 6:profile-499 7:profile-997 8:profile-1999 9:profile-4001 10:profile-4999 11:tick-1 12:tick-10 13:tick-100 14:tick-500 15:tick-1000 16:tick-5000 $((17 + 2 * nsys + 14)):profile-123 " ]
dtrace -l -n 'dtrace:::E*' >"$tmp/out" 2>"$tmp/err"
check "-l -n with a glob lists END and ERROR" \
    [ "$(awk 'NR > 1 { print $3 }' "$tmp/out" | tr '\n' ' ')" = "END ERROR " ]
# a probe id where a description goes, as illumos's grammar takes one
dtrace -l -n '2,ERROR' >"$tmp/out" 2>"$tmp/err"
check "-l -n with an id and a name lists END and ERROR" \
    [ "$(awk 'NR > 1 { print $3 }' "$tmp/out" | tr '\n' ' ')" = "END ERROR " ]
dtrace -q -n '1 { printf("%s\n", probename); exit(0); }' >"$tmp/out" \
    2>"$tmp/err"
same "$tmp/out" "BEGIN

" "-n 1: the BEGIN probe by its id"
dtrace -f 4.56 >"$tmp/out" 2>"$tmp/err"
check "-f 4.56: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: invalid probe specifier 4.56: probe identifier 4 not permitted when specifying functions
" "-f 4.56: an id is no function"
dtrace -l -P 7 >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: invalid probe specifier 7: probe identifier 7 not permitted when specifying providers
" "-l -P 7: an id is no provider"

dtrace -n 'nosuch:::probe' >"$tmp/out" 2>"$tmp/err"
check "description matching nothing: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: invalid probe specifier nosuch:::probe: probe description nosuch:::probe does not match any probes
" "description matching nothing: message"
printf 'BEGIN\n{\n}\n\nfoo:::bar\n{\n}\n' >"$tmp/zero.d"
dtrace -xerrtags -s "$tmp/zero.d" >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: failed to compile script $tmp/zero.d: [D_PDESC_ZERO] line 5: probe description foo:::bar does not match any probes
" "description matching nothing in a script: tag and line"
dtrace -Z -n 'nosuch:::probe, BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "-Z: a description may match nothing" [ $? -eq 0 ]
same "$tmp/err" "dtrace: description 'nosuch:::probe, BEGIN ' matched 1 probe
" "-Z: only the matching probe counts"

dtrace -x nosuchoption -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "unknown -x option: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to set -x nosuchoption: Invalid option name
" "unknown -x option: message"

dtrace -x dynvarsize=2m -x specsize=64k -x nspec=4 -n 'BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "dynvarsize, specsize and nspec are accepted" [ $? -eq 0 ]
dtrace -x bufpolicy=ring -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "bufpolicy=ring: accepted, exit 0" [ $? -eq 0 ]
same "$tmp/err" "dtrace: description 'BEGIN ' matched 1 probe
" "bufpolicy=ring: no complaint"

rm -f "$tmp/o"
dtrace -q -o "$tmp/o" -n 'BEGIN { printf("one\n"); exit(0); }' >"$tmp/out" 2>&1
dtrace -q -o "$tmp/o" -n 'BEGIN { printf("two\n"); exit(0); }' >"$tmp/out" 2>&1
same "$tmp/o" "one

two

" "-o appends to the file"
check "-o: nothing on stdout" [ ! -s "$tmp/out" ]
# -b: a buffer too small for the enabling fails at go, in illumos's
# words; one larger than can be had is lowered under bufresize=auto
# no daemon to reach: dtrace could not initialize, whatever it was doing
timeout -k 10 60 "$DTRACE" -x socket="$tmp/none" -n 'BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "no daemon: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to initialize dtrace: failed to connect to dtraced at $tmp/none: No such file or directory
" "no daemon: failed to initialize dtrace"
DTRACED=$tmp/no/dtraced timeout -k 10 60 "$DTRACE" -l -n 'BEGIN' \
    >"$tmp/out" 2>"$tmp/err"
check "no daemon to start, -l: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to initialize dtrace: failed to start $tmp/no/dtraced: No such file or directory
" "no daemon to start, -l: failed to initialize dtrace"
dtrace -b 16 -n 'BEGIN { trace(1); trace(2); exit(0); }' >"$tmp/out" \
    2>"$tmp/err"
check "-b 16: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: description 'BEGIN ' matched 1 probe
dtrace: could not enable tracing: Enabling exceeds size of buffer
" "-b 16: Enabling exceeds size of buffer, after the match"
dtrace -q -b 64t -n 'BEGIN { printf("ran\n"); exit(0); }' >"$tmp/out" \
    2>"$tmp/err"
check "-b 64t: exit 0" [ $? -eq 0 ]
check "-b 64t: lowered" grep -q "^dtrace: buffer size lowered to " "$tmp/err"
dtrace -q -b 64t -x bufresize=manual -n 'BEGIN { exit(0); }' >"$tmp/out" \
    2>"$tmp/err"
check "-b 64t, bufresize=manual: refused" [ $? -eq 1 ]
# strsize: two bytes at least (a string's record holds strsize bytes)
dtrace -q -x strsize=2 -n 'BEGIN { printf("%s|\n", "xyz"); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "xy|

" "strsize=2: a string traced in two bytes"
"$DTRACE" -x strsize=1 -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: failed to set -x strsize: Invalid value for specified option
" "strsize=1 is refused"

# -l -s: the probes each clause of the script matches, in order
printf 'END, BEGIN { x = 1; }\nBEGIN /x/ { exit(0); }\n' >"$tmp/list.d"
dtrace -l -s "$tmp/list.d" >"$tmp/out" 2>"$tmp/err"
check "-l -s: exit 0" [ $? -eq 0 ]
same "$tmp/out" "$(printf '%5s %10s %17s %33s %s\n' ID PROVIDER MODULE FUNCTION NAME
printf '%5d %10s %17s %33s %s\n' 2 dtrace '' '' END 1 dtrace '' '' BEGIN \
    1 dtrace '' '' BEGIN)
" "-l -s lists each clause's probes"
printf 'BEGIN { x = ; }\n' >"$tmp/listbad.d"
dtrace -l -s "$tmp/listbad.d" >"$tmp/out" 2>"$tmp/err"
check "-l -s with a compile error: exit 1, no heading" \
    sh -c "[ $? -eq 1 ] && [ ! -s '$tmp/out' ]"
# -v with a program: the stability report, on stdout, after the match
printf 'BEGIN\n{\n\texit(0);\n}\n' >"$tmp/stab.d"
dtrace -v -s "$tmp/stab.d" >"$tmp/out" 2>"$tmp/err"
check "-v -s: exit 0" [ $? -eq 0 ]
same "$tmp/out" "
Stability attributes for script $tmp/stab.d:

	Minimum Probe Description Attributes
		Identifier Names: Unstable
		Data Semantics:   Unstable
		Dependency Class: Common

	Minimum Statement Attributes
		Identifier Names: Stable
		Data Semantics:   Stable
		Dependency Class: Common

$(printf '%32s' FUNCTION:NAME)
$(printf '%32s ' :BEGIN)

" "-v: illumos's stability report of a script"

# -v: a statement is as stable as the least of what it uses: each
# built-in's own attributes, and for probeprov, probemod, probefunc,
# probename and args[] those of the part its probe's provider names
stab()	# stab WHAT NAME DATA CLASS: one block of the report
{
	printf '\n\t%s\n\t\tIdentifier Names: %s\n' "$1" "$2"
	printf '\t\tData Semantics:   %s\n\t\tDependency Class: %s\n' "$3" "$4"
}
stabcase()	# stabcase DESC PROGRAM DESC-ATTRS STMT-ATTRS [dtrace args]
{
	d=$1 p=$2 da=$3 sa=$4
	shift 4
	dtrace -v -e "$@" -n "$p" >"$tmp/out" 2>"$tmp/err"
	# shellcheck disable=SC2086
	# the description is named by the text before its clause
	same "$tmp/out" "
Stability attributes for description ${p%%[/{]*}:
$(stab 'Minimum Probe Description Attributes' $da)
$(stab 'Minimum Statement Attributes' $sa)

" "-v: $d"
}
stabcase "htons() is Evolving" 'dtrace:::BEGIN { trace(htons(arg0)); }' \
    'Stable Stable Common' 'Evolving Evolving Common'
# a description is as stable as the fields it names: an empty or glob
# module, function or name depends on no name and lowers nothing; an
# empty or glob provider is Unstable
stabcase "dtrace:::BEGIN: the dtrace provider's and its names', Stable" \
    'dtrace:::BEGIN { }' 'Stable Stable Common' 'Stable Stable Common'
stabcase "profile:::tick-1s: the profile provider's, Evolving" \
    'profile:::tick-1s { exit(0); }' 'Evolving Evolving Common' \
    'Stable Stable Common'
stabcase "a named module lowers to the provider's module attributes" \
    'profile:a::tick-1s { }' 'Unstable Unstable Unknown' \
    'Stable Stable Common' -Z
stabcase "a glob name lowers nothing" 'dtrace:::B* { }' \
    'Stable Stable Common' 'Stable Stable Common'
stabcase "the least of the descriptions" \
    'dtrace:::BEGIN { } profile:::tick-1s { exit(0); }' \
    'Evolving Evolving Common' 'Stable Stable Common'
stabcase "a glob provider is Unstable" 'dtrac*:::BEGIN { }' \
    'Unstable Unstable Common' 'Stable Stable Common'
stabcase "probefunc has the profile provider's function attributes" \
    'profile-97 { trace(probefunc); }' \
    'Unstable Unstable Common' 'Private Private Unknown'
stabcase "probename of a dtrace probe is Stable, arg0 whatever the probe" \
    'profile-97 { trace(arg0); } BEGIN { trace(probename); }' \
    'Unstable Unstable Common' 'Stable Stable Common'
stabcase "a predicate counts, a clause without actions is Stable" \
    'profile-97 /probemod == ""/ { x = 1; } tick-1s { }' \
    'Unstable Unstable Common' 'Unstable Unstable Unknown'
stabcase "a constant alone is Standard" 'BEGIN { 1; }' \
    'Unstable Unstable Common' 'Standard Standard Common'
stabcase "args[] of a pid probe: the pid provider's argument attributes" \
    'pid$target::main:entry { trace(args[0]); }' \
    'Private Private Unknown' 'Private Private Unknown' -c "$TRIGGERS/loop"

# -l: a description with too many fields for its flag, before the heading
dtrace -l -m prov:mod:func >"$tmp/out" 2>"$tmp/err"
check "-l -m p:m:f: exit 1, no heading" \
    sh -c "[ $? -eq 1 ] && [ ! -s '$tmp/out' ]"
same "$tmp/err" "dtrace: invalid probe specifier prov:mod:func: invalid probe description \"prov:mod:func\": Overspecified probe description
" "-l -m p:m:f: illumos's message"

# -i enables probes by their IDs (BEGIN is 1, END 2)
dtrace -q -i '2 { printf("%s\n", probename); }' -i 1,2 -n 'BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "-i 2 { ... }: exit 0" [ $? -eq 0 ]
same "$tmp/out" "END

" "-i ID with an action enables that probe"
dtrace -i 1,2 -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "-i 1,2: both probes" grep -q "^dtrace: description '1,2' matched 2 probes" "$tmp/err"
dtrace -i 4000 >"$tmp/out" 2>"$tmp/err"
check "-i of no probe: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: invalid probe specifier 4000: invalid probe identifier 4000: Unknown probe identifier
" "-i of no probe: message"

# Macro arguments: after "--" every word is one, "-e" included; one
# that is neither a number nor an identifier is a string, $0 the script
printf 'BEGIN { printf("%%s|%%s|%%s|%%d\\n", $0, $1, $2, $3); exit(0); }\n' \
    >"$tmp/args.d"
dtrace -q -s "$tmp/args.d" -- -e '"two words"' 12 >"$tmp/out" 2>"$tmp/err"
check "-s prog -- -e ...: exit 0" [ $? -eq 0 ]
same "$tmp/out" "$tmp/args.d|-e|two words|12

" "-- operands are \$1 \$2 \$3; \$0 is the script's path"
"$DTRACE" -q -e -s "$tmp/args.d" -- -e -e 3 4 >"$tmp/out" 2>"$tmp/err"
check "an unreferenced operand: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: failed to compile script $tmp/args.d: extraneous argument '4' (\$4 is not referenced)
" "an unreferenced operand: illumos's message"
"$DTRACE" -e -n nosuchfunc '{ exit(0); }' >"$tmp/out" 2>"$tmp/err"
same "$tmp/err" "dtrace: invalid probe specifier nosuchfunc: extraneous argument '{ exit(0); }' (\$1 is not referenced)
" "an operand that should have been -n: refused before matching"

stop_daemon TERM

# No daemon answers: dtrace starts a private one and stops it after.
# DTRACED names the daemon to start; a wrapper records the pid.
printf '#!/bin/sh\necho $$ >"%s"\nexec "%s" "$@"\n' "$tmp/dpid" "$DTRACED" \
    >"$tmp/wrap"
chmod +x "$tmp/wrap"
DTRACED=$tmp/wrap "$DTRACE" -q -n 'BEGIN { printf("%s\n", execname); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "private daemon: exit 0" [ $? -eq 0 ]
check "private daemon: started through \$DTRACED" [ -s "$tmp/dpid" ]
same "$tmp/out" "dtrace

" "BEGIN fires in the consumer's context (execname is dtrace)"
check "private daemon is gone when dtrace exits" \
    sh -c "! kill -0 $(cat "$tmp/dpid" 2>/dev/null || echo 1) 2>/dev/null"

DTRACED_SOCKET=$tmp/nothing-here "$DTRACE" -n 'BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "unreachable named daemon: exit 1" [ $? -eq 1 ]
check "unreachable named daemon: the path is named" \
    grep -q "$tmp/nothing-here" "$tmp/err"

# a script of NUL bytes without end ends at the first, under cpp as
# without it (fuzz_cli: -C -s /dev/full copied it for cpp forever)
for f in /dev/zero /dev/full; do
	timeout -k 10 60 "$DTRACE" -C -s $f >"$tmp/out" 2>"$tmp/err"
	check "-C -s $f: exit 1" [ $? -eq 1 ]
	check "-C -s $f: an empty program" \
	    grep -q "failed to compile script $f: line 1: empty D program" \
	    "$tmp/err"
done
# and so does -h's and -G's (fuzz_cli: -G -s /dev/full read it forever)
for m in h G; do
	timeout -k 10 60 "$DTRACE" -$m -o "$tmp/sdt.$m" -s /dev/zero \
	    >"$tmp/out" 2>"$tmp/err"
	check "-$m -s /dev/zero: exit 0, no providers" [ $? -eq 0 ]
done
check "-h -s /dev/zero: the header has no probe" \
    sh -c "! grep -q '_ENABLED\|DTRACE_PROBE' '$tmp/sdt.h'"
done_testing
