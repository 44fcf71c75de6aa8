#!/bin/sh
# ustack(), ustackdepth, ucaller, usym(), ufunc(), umod(), uaddr() and
# printf's %a and %A end to end, on the recurse trigger: main ->
# down(N) -> ... -> down(0) -> leaf().  Function names and their order
# are exact; offsets depend on the compiler and are matched loosely.
# Every stack here is printed after the target has exited: symbols
# must outlive it.
. "$(dirname "$0")/lib.sh"

T=$TRIGGERS/recurse
# frames without their offsets
strip() { sed 's/+0x[0-9a-f]*$//' "$1"; }
# dtrace's output without the trigger's own line ("10N"), which may come
# before or after it
ours() { grep -v '^10[0-9]$' "$1" >"$1.ours"; mv "$1.ours" "$1"; }

check "daemon starts" start_daemon

# ustack() at leaf:entry: the chain, each frame indented by 14 spaces
dtrace -q -c "$T 3" -n 'pid$target:a.out:leaf:entry { ustack(); }' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
check "ustack: exit 0" [ $rc -eq 0 ]
head -6 "$tmp/out" >"$tmp/top"
same "$tmp/top" "
              recurse\`leaf
              recurse\`down+0x$(sed -n 3p "$tmp/out" | sed 's/.*+0x//')
              recurse\`down+0x$(sed -n 4p "$tmp/out" | sed 's/.*+0x//')
              recurse\`down+0x$(sed -n 5p "$tmp/out" | sed 's/.*+0x//')
              recurse\`down+0x$(sed -n 6p "$tmp/out" | sed 's/.*+0x//')
" "ustack: a blank line, then leaf (at its entry: no offset), down x4"
sed -n '2,$p' "$tmp/out" | strip /dev/stdin >"$tmp/names"
check "ustack: main follows the four downs" \
    [ "$(sed -n 6p "$tmp/names")" = "              recurse\`main" ]
check "ustack: main's callers are in libc.so.6" \
    grep -q '^              libc\.so\.6`' "$tmp/out"
check "ustack: the outermost frame is _start" \
    grep -q '^              recurse`_start+0x[0-9a-f]*$' "$tmp/out"
check "ustack: the recursion returns to one place" \
    [ "$(sed -n '4,6p' "$tmp/out" | sed 's/.*+//' | sort -u | wc -l)" -eq 1 ]

# ustack(n) takes n frames; ustackdepth counts them all; ucaller is the
# second; %A and uaddr() name it like the stack does
dtrace -q -c "$T 3" -n 'pid$target:a.out:leaf:entry {
	ustack(3); printf("depth %d\n", ustackdepth); ustack(100);
	printf("caller %A\n", ucaller); uaddr(ucaller); printf("|\n");
	usym(ucaller); printf("|\n"); ufunc(ucaller); printf("|\n");
	umod(ucaller); printf("|\n"); printf("%a\n", ucaller); }' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
check "ustack(3), ustackdepth: exit 0" [ $rc -eq 0 ]
check "ustack(3): three frames" \
    [ "$(sed -n '1,/^depth/p' "$tmp/out" | grep -c '^              ')" -eq 3 ]
depth=$(sed -n 's/^depth //p' "$tmp/out")
n=$(sed -n '/^depth/,/^caller/p' "$tmp/out" | grep -c '^              ')
check "ustackdepth ($depth) is the number of frames ustack(100) shows ($n)" \
    [ "$depth" = "$n" ] && [ "$n" -ge 7 ]
second=$(sed -n '/^depth/,/^caller/p' "$tmp/out" | grep '^              ' |
    sed -n 2p | sed 's/^ *//')
check "%A of ucaller is the second frame ($second)" \
    grep -qx "caller $second" "$tmp/out"
check "uaddr(ucaller) is the second frame, \"  %-50s\"" \
    grep -qx "$(printf '  %-50s|' "$second")" "$tmp/out"
check "usym(ucaller) is recurse\`down, no offset" \
    [ "$(grep -c "^$(printf '  %-50s|' 'recurse`down')\$" "$tmp/out")" -eq 2 ]
check "umod(ucaller) is recurse" \
    grep -qx "$(printf '  %-50s|' 'recurse')" "$tmp/out"
check "%a names a user address too" grep -qx "$second" "$tmp/out"

# @[ustack()]: stack keys printed as illumos prints them, exact counts;
# usym() keys aggregate by function, umod() by module
dtrace -q -c "$T 3" -n 'pid$target:a.out:down:entry {
	@[ustack(2)] = count(); @s[usym(ucaller)] = count();
	@s[usym(ucaller - 1)] = count(); @m[umod(ucaller)] = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
check "@[ustack()]: exit 0" [ $rc -eq 0 ]
strip "$tmp/out" >"$tmp/names"
same "$tmp/names" "

              recurse\`down
              recurse\`main
                1

              recurse\`down
              recurse\`down
                3
  recurse\`main                                                      2
  recurse\`down                                                      6
  recurse                                                           4
" "@[ustack(2)], @[usym()], @[umod()]: keys and counts"

# printa(): %k prints a stack key, %A a usym() key
dtrace -q -c "$T 2" -n 'pid$target:a.out:down:entry {
	@[ustack(2), usym(ucaller)] = count(); }
	END { printa("%k %A count %@d\n", @); }' >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
strip "$tmp/out" | sed 's/+0x[0-9a-f]* / /' >"$tmp/names"
same "$tmp/names" "
              recurse\`down
              recurse\`main
 recurse\`main count 1

              recurse\`down
              recurse\`down
 recurse\`down count 2

" "printa(\"%k %A ...\"): stacks and symbols of the keys"
dtrace -q -n 'BEGIN { @[1] = count(); printa("%k", @); }' \
    >"$tmp/out" 2>"$tmp/err"
check "printa %k of an int key: refused" grep -q "prototype: stack" "$tmp/err"

# not quiet: the stack follows the probe columns after a newline
dtrace -c "$T 0" -n 'pid$target:a.out:leaf:entry { ustack(2); }' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
strip "$tmp/out" >"$tmp/names"
# (_DTRACE_TESTING: no CPU and ID columns; dtrace ends with a newline)
same "$tmp/names" "$(printf '%32s' FUNCTION:NAME)
$(printf '%32s ' leaf:entry)
              recurse\`leaf
              recurse\`down


" "ustack() after the probe columns, then a blank line"

# -x ustackframes and -x stackindent
dtrace -q -x ustackframes=2 -x stackindent=4 -c "$T 3" \
    -n 'pid$target:a.out:leaf:entry { ustack(); }' >"$tmp/out" 2>"$tmp/err"
ours "$tmp/out"
strip "$tmp/out" >"$tmp/names"
same "$tmp/names" "
    recurse\`leaf
    recurse\`down

" "ustackframes=2, stackindent=4"

# -x maxframes (dtrace-utils'): caps ustack()'s frames whatever it asks,
# and ustackdepth; a smaller request stays as it is
dtrace -q -x maxframes=3 -c "$T 5" -n 'pid$target:a.out:leaf:entry {
	ustack(); printf("depth %d\n", ustackdepth); ustack(2); }' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
strip "$tmp/out" >"$tmp/names"
same "$tmp/names" "
              recurse\`leaf
              recurse\`down
              recurse\`down
depth 3

              recurse\`leaf
              recurse\`down

" "maxframes=3: ustack() and ustackdepth at 3, ustack(2) at 2"
check "maxframes=3: exit 0" [ $rc -eq 0 ]
printf '#pragma D option maxframes=2\n%s\n' \
    'pid$target:a.out:leaf:entry { @[ustack(50)] = count(); }' >"$tmp/mf.d"
dtrace -q -c "$T 4" -s "$tmp/mf.d" >"$tmp/out" 2>"$tmp/err"
ours "$tmp/out"
strip "$tmp/out" >"$tmp/names"
same "$tmp/names" "

              recurse\`leaf
              recurse\`down
                1
" "#pragma D option maxframes=2: an aggregation's stack key of 2 frames"
for v in 0 -1 1025 x; do
	dtrace -q -x maxframes=$v -n 'BEGIN { exit(0); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "maxframes=$v: refused" [ $? -eq 1 ] &&
	    grep -q "failed to set option 'maxframes'" "$tmp/err"
done

# jstack(): with no ustack helper (no JVM), ustack()'s frames; its
# default count is jstackframes (50, more than this stack has), then
# its argument, then maxframes
dtrace -q -c "$T 3" -n 'pid$target:a.out:leaf:entry { jstack();
	printf("--\n"); ustack(100); printf("--\n"); jstack(2); }' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
check "jstack(): exit 0" [ $rc -eq 0 ]
sed -n '1,/^--$/p' "$tmp/out" >"$tmp/j"
sed -n '/^--$/,/^--$/p' "$tmp/out" | sed 1d >"$tmp/u"
check "jstack() is ustack(100), all $(grep -c . "$tmp/u") frames" \
    cmp -s "$tmp/j" "$tmp/u"
check "jstack(): down to _start" \
    grep -q '^              recurse`_start+0x[0-9a-f]*$' "$tmp/j"
sed -n '/^--$/,$p' "$tmp/out" | sed 1,/^--$/d | strip /dev/stdin \
    >"$tmp/names"
same "$tmp/names" "
              recurse\`leaf
              recurse\`down

" "jstack(2): two frames"
dtrace -q -x jstackframes=4 -c "$T 3" -n 'pid$target:a.out:leaf:entry {
	@[jstack()] = count(); }' >"$tmp/out" 2>"$tmp/err"
ours "$tmp/out"
strip "$tmp/out" >"$tmp/names"
same "$tmp/names" "

              recurse\`leaf
              recurse\`down
              recurse\`down
              recurse\`down
                1
" "-x jstackframes=4: @[jstack()] of four frames"

# -x noresolve (dtrace-utils'): every user address as module:0xoffset,
# the offset the one in the module's file (objdump's for the trigger);
# umod() still the module; ufunc() keys stay one per address
dtrace -q -x noresolve -c "$T 1" -n 'pid$target:a.out:leaf:entry {
	ustack(3); uaddr(ucaller); printf("|\n"); usym(ucaller);
	printf("|\n"); umod(ucaller); printf("|\n");
	@[ufunc(ucaller)] = count(); @[ufunc(ucaller + 1)] = count(); }' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
check "noresolve: exit 0" [ $rc -eq 0 ]
# objdump's addresses: leaf's, and down's call of leaf and of down
leaf=$(objdump -d "$T" | sed -n 's/^0*\([0-9a-f]*\) <leaf>:$/\1/p')
rets=$(objdump -d "$T" | awk '/^[0-9a-f]* <down>:$/ { in_ = 1; next }
    /^$/ { in_ = 0 } in_ && prev ~ /call/ { sub(":", "", $1); print $1 }
    in_ { prev = $0 }')
r_leaf=$(echo "$rets" | sed -n 2p)
r_down=$(echo "$rets" | sed -n 1p)
same "$tmp/out" "
              recurse:0x$leaf
              recurse:0x$r_leaf
              recurse:0x$r_down
$(printf '  %-50s|\n' recurse:0x$r_leaf recurse:0x$r_leaf recurse)

$(printf '  %-50s %16d\n' recurse:0x$r_leaf 1 \
    recurse:0x$(printf '%x' $((0x$r_leaf + 1))) 1)
" "noresolve: ustack(), uaddr(), usym(), umod() and ufunc() keys"

# oformat=json: a stack is an array of frame names
dtrace -q -x oformat=json -c "$T 0" \
    -n 'pid$target:a.out:leaf:entry { ustack(2); }' >"$tmp/out" 2>"$tmp/err"
check "json: ustack is an array of frames" \
    grep -q '"action":"ustack","value":\["recurse`leaf","recurse`down+0x[0-9a-f]*"\]' \
    "$tmp/out"

# -p: a running target, its stack named while it runs (10^8 calls of
# leaf() take 0.15 s here: 10^12 outlast any grab; it is killed after)
"$T" sig 1000000000000 >/dev/null &
tpid=$!
# grabbed before its exec, it would be the shell, without leaf()
waitfor sh -c "readlink /proc/$tpid/exe | grep -q '/recurse\$'"
dtrace -q -p $tpid -n 'pid$target:a.out:leaf:entry { ustack(2); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
ours "$tmp/out"
kill $tpid 2>/dev/null
wait $tpid 2>/dev/null
strip "$tmp/out" >"$tmp/names"
same "$tmp/names" "
              recurse\`leaf
              recurse\`main

" "-p: ustack() of a grabbed process"

# dtrace -lv: stability as illumos's providers declare it; for a pid
# entry probe the parameter types from the trigger's DWARF
attrs()
{
	printf '\n\tProbe Description Attributes\n'
	printf '\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n' "$1" "$1"
	printf '\t\tDependency Class: %s\n' "$2"
	printf '\n\tArgument Attributes\n'
	printf '\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n' "$3" "$3"
	printf '\t\tDependency Class: %s\n' "$4"
	printf '\n\tArgument Types\n'
}
dtrace -lv -c "$T 0" -n 'pid$target:a.out:poke:entry' \
    -n 'pid$target:a.out:poke:return' -n 'dtrace:::BEGIN' \
    >"$tmp/out" 2>"$tmp/err"
check "-lv: exit 0" [ $? -eq 0 ]
sed 's/^ *[0-9]* *pid[0-9]* /ID PID /; s/^ *[0-9]* *dtrace /ID dtrace /' \
    "$tmp/out" >"$tmp/lv"
{
	printf '%5s %10s %17s %33s %s\n' ID PROVIDER MODULE FUNCTION NAME
	printf 'ID PID %17s %33s %s\n' "$(basename "$T")" poke entry
	attrs Private Unknown Private Unknown
	printf '\t\targs[0]: char *\n\t\targs[1]: long int\n\n'
	printf 'ID PID %17s %33s %s\n' "$(basename "$T")" poke return
	attrs Private Unknown Private Unknown
	printf '\t\tNone\n\n'
	printf 'ID dtrace %17s %33s %s\n' "" "" BEGIN
	attrs Stable Common Stable Common
	printf '\t\tNone\n\n'
} >"$tmp/lvexp"
check "-lv: stability, and the types of poke(char *, long)" \
    cmp -s "$tmp/lvexp" "$tmp/lv"
cmp -s "$tmp/lvexp" "$tmp/lv" || diff -u "$tmp/lvexp" "$tmp/lv" | sed 's/^/# /'

# the compiler's checks, in illumos's words
dtrace -xerrtags -n 'BEGIN { ustack(0); }' >"$tmp/out" 2>"$tmp/err"
check "ustack(0): D_USTACK_FRAMES" grep -q "\[D_USTACK_FRAMES\].*ustack( ) argument #1 must be a non-zero positive integer constant" "$tmp/err"
dtrace -xerrtags -n 'BEGIN { ustack(1, 2, 3); }' >"$tmp/out" 2>"$tmp/err"
check "ustack(1, 2, 3): D_PROTO_LEN" grep -q "\[D_PROTO_LEN\].*ustack( ) prototype mismatch: 3 args passed, at most 2 expected" "$tmp/err"
dtrace -xerrtags -n 'BEGIN { usym("x"); }' >"$tmp/out" 2>"$tmp/err"
check "usym(string): D_PROTO_ARG" grep -q "\[D_PROTO_ARG\].*usym( ) argument #1 is incompatible with prototype" "$tmp/err"
dtrace -xerrtags -n 'BEGIN { x = ustack(); }' >"$tmp/out" 2>"$tmp/err"
check "ustack() in an expression: D_ACT_EXPR" grep -q "\[D_ACT_EXPR\]" "$tmp/err"

# Deep stacks, every frame, under each backend.  deep N: main ->
# down(N) -> ... -> down(0) -> leaf(), each down() frame some 288
# bytes, then main waits in pause() (a later moment's stack holds
# nothing of down()'s).  Built with frame pointers and CFI (deep), frame
# pointers alone (deepfp: probed past leaf's prologue, where %rbp is
# leaf's frame), and CFI alone (deepnofp).  ptrace stops the thread: its
# stack is whole and the reference.  A captured stack (uprobes: up to
# 8 KiB; profile samples: 16 KiB) is that stack, or the same frames
# cut where the copy ends: never a frame of a later moment.
# stk FILE: the frames alone, one a line, without their indentation
stk() { sed -n 's/^              //p' "$1"; }
# downs FILE: the frames from the first down to the last
downs() { stk "$1" | sed -n '/`down+/,$p' | grep '`down+'; }
# last FILE: the last frame of a stack, without its offset
last() { stk "$1" | tail -1 | sed 's/+0x[0-9a-f]*$//'; }
# prefix A B: A's lines are B's first lines, and fewer
prefix() {
	na=$(wc -l <"$1"); nb=$(wc -l <"$2")
	[ "$na" -lt "$nb" ] && head -n "$na" "$2" | cmp -s - "$1"
}
# captured WHAT RC FILE SEL REF HOW [EXTRA]: the checks of a stack that
# WHAT captured (dtrace's exit status RC, its -o file FILE: the stack,
# then ustackdepth) against ptrace's of the same chain (REF).  SEL picks
# the frames compared: stk every one, downs the downs.  HOW is whole
# (the chain fits the copy: the same frames) or cut (ptrace's, cut
# where the copy ends, the last a down(), never a frame of a later
# moment).  EXTRA, a command, is this case's own check, run right after
# the comparison.
captured() {
	what=$1 file=$3 sel=$4 ref=$5 how=$6 extra=$7
	check "$what: exit 0" [ "$2" -eq 0 ]
	$sel "$file" >"$tmp/c"
	$sel "$ref" >"$tmp/r"
	all="every frame" part="frames, cut at the copy's end"
	[ $sel = downs ] && all="the downs" part="downs, cut short"
	if [ $how = whole ]; then
		check "$what: $all as under ptrace" cmp -s "$tmp/c" "$tmp/r"
		[ -z "$extra" ] || $extra
	else
		check "$what: ptrace's $part" \
		    prefix "$tmp/c" "$tmp/r"
		[ -z "$extra" ] || $extra
		check "$what: the stack ends in down(), no later frame" \
		    [ "$(last "$file")" = "$t\`down" ]
	fi
	check "$what: ustackdepth is the frame count" \
	    [ "$(tail -1 "$file")" = "$(stk "$file" | wc -l)" ]
}
# (this case's own: at least some KiB of the stack in the copy)
kib() {
	check "$t $n, uprobe: several KiB copied (14 frames or more)" \
	    [ "$(wc -l <"$tmp/c")" -ge 14 ]
}
# (and its: below the downs, main, then the rest of ptrace's stack)
tomain() {
	stk "$file" | sed -n '/`down+/,$p' | grep -v '`down+' | head -1 \
	    >"$tmp/after"
	check "$t spin $n, profile-997: then main ... $t\`_start" \
	    [ "$(sed 's/+0x[0-9a-f]*$//' "$tmp/after")" = "$t\`main" \
	    -a "$(last "$file")" = "$t\`_start" ]
}
dtrace -x backend=uprobe -q -c "$TRIGGERS/deep 1" \
    -n 'pid$target:a.out:leaf:entry { exit(0); }' >/dev/null 2>"$tmp/err"
haveup=$?
# recurse exits right after its one hit: its sample is mostly drained
# after the process is gone from /proc (fasttrap's module list stands in)
if [ $haveup -eq 0 ]; then
	for be in ptrace uprobe; do
		dtrace -x backend=$be -q -c "$TRIGGERS/recurse 3" \
		    -n 'pid$target:a.out:leaf:entry { ustack(); }' \
		    >"$tmp/gone.$be" 2>"$tmp/err"
		check "recurse 3, $be: exit 0" [ $? -eq 0 ]
		stk "$tmp/gone.$be" >"$tmp/gone.$be.f"
	done
	check "recurse 3, uprobe, target gone: every frame as under ptrace" \
	    cmp -s "$tmp/gone.uprobe.f" "$tmp/gone.ptrace.f"
	check "recurse 3: nine frames, leaf to _start" \
	    [ "$(wc -l <"$tmp/gone.ptrace.f")" = 9 ]
else
	ok "# SKIP recurse 3, uprobe: no uprobe backend here"
fi
for t in deep deepfp deepnofp; do
	at=entry
	[ $t = deepfp ] && at=4
	prog="pid\$target:a.out:leaf:$at {
	    ustack(100); trace(ustackdepth); exit(0); }"
	for n in 5 40; do
		# (-o: the trace alone; the target's stdout is its own, as
		# it may print down()'s result before dtrace's last newline)
		rm -f "$tmp/p.$t.$n"
		dtrace -x backend=ptrace -q -c "$TRIGGERS/$t $n" -n "$prog" \
		    -o "$tmp/p.$t.$n" >"$tmp/tgt" 2>"$tmp/err"
		check "$t $n, ptrace: exit 0" [ $? -eq 0 ]
		stk "$tmp/p.$t.$n" | sed 's/+0x[0-9a-f]*$//' >"$tmp/names"
		{
			echo "$t\`leaf"
			i=0
			while [ $i -le $n ]; do
				echo "$t\`down"; i=$((i + 1))
			done
			echo "$t\`main"
		} >"$tmp/want"
		head -n $((n + 3)) "$tmp/names" >"$tmp/top"
		check "$t $n, ptrace: leaf, $((n + 1)) downs, main" \
		    cmp -s "$tmp/want" "$tmp/top"
		check "$t $n, ptrace: then libc.so.6 and $t\`_start" \
		    [ "$(sed -n "$((n + 4)),\$p" "$tmp/names" |
		    grep -cv '^libc\.so\.6`')" = 1 -a \
		    "$(tail -1 "$tmp/names")" = "$t\`_start" ]
		check "$t $n, ptrace: the downs return to one place" \
		    [ "$(downs "$tmp/p.$t.$n" | sed 1d | sort -u | wc -l)" = 1 ]
		check "$t $n, ptrace: ustackdepth is the frame count" \
		    [ "$(tail -1 "$tmp/p.$t.$n")" = \
		    "$(stk "$tmp/p.$t.$n" | wc -l)" ]
		if [ $haveup -ne 0 ]; then
			ok "# SKIP $t $n, uprobe: no uprobe backend here"
			continue
		fi
		rm -f "$tmp/u.$t.$n"
		dtrace -x backend=uprobe -q -c "$TRIGGERS/$t $n" -n "$prog" \
		    -o "$tmp/u.$t.$n" >"$tmp/tgt" 2>"$tmp/err"
		rc=$?
		how=whole extra=
		[ $n = 5 ] || how=cut extra=kib
		captured "$t $n, uprobe" $rc "$tmp/u.$t.$n" stk \
		    "$tmp/p.$t.$n" $how $extra
	done
	# profile samples of leaf() spinning at the bottom of the chain
	# (not of its start: in ld.so or on the way down, which a loaded
	# machine may sample first; 80's copy holds some 30 frames)
	for n in 40 80; do
		min=$n
		[ $n = 40 ] || min=20
		[ -s "$tmp/p.$t.$n" ] ||
		    dtrace -x backend=ptrace -q -c "$TRIGGERS/$t $n" -n "$prog" \
		    -o "$tmp/p.$t.$n" >"$tmp/tgt" 2>"$tmp/err"
		rm -f "$tmp/s.$t.$n"
		dtrace -q -c "$TRIGGERS/$t spin $n" -n '
		    profile-997 /pid == $target && arg1 != 0 &&
		    ustackdepth >= '$min'/ {
			ustack(200); trace(ustackdepth); exit(0); }' \
		    -o "$tmp/s.$t.$n" >"$tmp/tgt" 2>"$tmp/err"
		rc=$?
		how=whole extra=tomain
		[ $n = 40 ] || how=cut extra=
		captured "$t spin $n, profile-997" $rc "$tmp/s.$t.$n" downs \
		    "$tmp/p.$t.$n" $how $extra
	done
done

# C++ names as the source spells them, in stacks and symbols (the
# probe's own name stays the symbol table's, as -l lists it)
if ${CXX:-c++} -g -O1 -o "$tmp/cxx" "$srcdir/tests/triggers/cxx.cc" \
    2>"$tmp/err"; then
	dtrace -q -n 'pid$target::_ZN2ns5ShapeIiE4areaEi:entry {
	    @[probefunc, ustack(3)] = count(); }
	    pid$target::_ZN2ns5ShapeIiE4areaEi:entry /arg1 == 0/ {
	    usym(uregs[R_PC]); printf("\n%A\n", uregs[R_PC]); }' \
	    -c "$tmp/cxx 7" >"$tmp/out" 2>&1
	check "C++: usym() demangled" grep -q '^ *cxx`ns::Shape<int>::area(int) *$' \
	    "$tmp/out"
	check "C++: %A demangled" grep -qx 'cxx`ns::Shape<int>::area(int)' \
	    "$tmp/out"
	check "C++: ustack() demangled, 7 times" \
	    [ "$(grep -c '^  *cxx`ns::Shape<int>::area(int)$' "$tmp/out")" -eq 1 \
	    -a "$(grep -c '^ *cxx`ns::run(int)+0x' "$tmp/out")" -eq 1 \
	    -a "$(grep -c '^ *7$' "$tmp/out")" -eq 1 ] ||
	    sed 's/^/# /' "$tmp/out"
	check "C++: probefunc as the symbol table has it" \
	    grep -q '^ *_ZN2ns5ShapeIiE4areaEi *$' "$tmp/out"
else
	sed 's/^/# /' "$tmp/err"
	for i in 1 2 3 4; do
		ok "# SKIP no C++ compiler"
	done
fi

check "daemon stops cleanly" stop_daemon
check "daemon exit status 0" [ "$dstatus" -eq 0 ]
done_testing
