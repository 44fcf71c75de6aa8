#!/bin/sh
# The USDT provider over <sys/sdt.h> notes (tests/triggers/sdt.c, provider
# trig): listing (names with dashes, both spellings, -P glob with -p),
# exact counts and argument values of several operand kinds (32-bit and
# 8-bit registers, a constant, a string pointer, a signed short on the
# stack) as argN and args[N], under the ptrace and the uprobe backends,
# args[N] past a probe's arguments refused when compiled;
# the is-enabled semaphore set while enabled (the guarded probe's code
# runs) and back to 0, with the text intact, once dtrace is gone, by
# exit() or by a signal, or the daemon stopping; probes of an image
# exec'd later (-Z), and enabled probes across an exec; a program
# built with dtrace -h and -G from a provider definition; libstdc++'s
# probes; and, where Debian's python3 is there, its
# gc__start probe with its argument.
. "$(dirname "$0")/lib.sh"

T=$TRIGGERS/sdt
LC_ALL=C	# sort
export LC_ALL

check "daemon starts" start_daemon

# listing: module is the file's name, function the one holding the probe
dtrace -l -n 'trig$target:::' -c "$T 1" >"$tmp/out" 2>"$tmp/err"
check "-l: exit 0" [ $? -eq 0 ]
sed 's/^ *[0-9]* *trig[0-9]* */trigN /' "$tmp/out" | sort >"$tmp/list"
same "$tmp/list" "   ID   PROVIDER            MODULE                          FUNCTION NAME
trigN sdt                          sdt_done loop-done
trigN sdt                         sdt_round guarded
trigN sdt                         sdt_round mixed
trigN sdt                         sdt_round round
" "-l: the four probes, loop__done shown as loop-done"
for n in loop__done loop-done 'loop*'; do
	dtrace -l -n "trig\$target:::$n" -c "$T 1" >"$tmp/out" 2>"$tmp/err"
	check "-l -n trig\$target:::$n: one probe, loop-done" \
	    sh -c "[ \$(grep -c ' loop-done\$' '$tmp/out') -eq 1 ] &&
	    [ \$(wc -l <'$tmp/out') -eq 2 ]" || cat "$tmp/err" | sed 's/^/# /'
done

# -P with -p: a running program's probes
"$T" 0 watch >"$tmp/w.out" &
wpid=$!
waitfor grep -q watching "$tmp/w.out"
dtrace -l -P 'trig*' -p "$wpid" >"$tmp/out" 2>"$tmp/err"
check "-l -P 'trig*' -p: exit 0" [ $? -eq 0 ]
check "-l -P 'trig*' -p: the four probes of trig\$wpid" \
    [ "$(grep -c "^ *[0-9]* *trig$wpid " "$tmp/out")" -eq 4 ]
kill -USR1 "$wpid"
wait "$wpid"

prog='
trig$target:::round { @r = count(); @rs = sum(arg0); }
trig$target:::mixed
{ printf("%d %u %x %d %d\n", args[0], arg1, arg2, args[4], (short)arg4); }
trig$target:::guarded { @g = sum(arg0); }
trig$target:::loop-done { printf("done %d %s\n", arg0, probename); }
END { printa("rounds %@d sum %@d guarded %@d\n", @r, @rs, @g); }'

# -c: ptrace (auto with -c)
# the trigger's output and dtrace's share the file: in line order
dtrace -q -c "$T 4" -n "$prog" >"$tmp/raw" 2>"$tmp/err"
check "ptrace: exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/err"
sort "$tmp/raw" >"$tmp/out"
same "$tmp/out" "
-1 200 123456789a -1000 -1000
-2 201 123456789a -1001 -1001
-3 202 123456789a -1002 -1002
-4 203 123456789a -1003 -1003
done 4 loop-done
guarded ran 4, semaphore 1
rounds 4 sum 6 guarded 60
" "ptrace: counts, arguments, the guarded probe runs with its semaphore"

# args[N] past a probe's arguments (its note's count): illumos's
# D_ARGS_IDX when compiled, for the description as written; the last
# argument is fine (a glob with no name before its wildcard: trig*
# would also grab the trig processes of tests running beside this one)
for c in 'trig$target:::mixed 5 trig[0-9]*:::mixed' \
    'trig$target:::loop-done 1 trig[0-9]*:::loop-done' \
    '[t]rig*:::round 1 \[t\]rig\*:::round'; do
	set -- $c
	dtrace -xerrtags -q -c "$T 1" -n "$1 { trace(args[$2]); }" \
	    >"$tmp/out" 2>"$tmp/err"
	check "$1 args[$2]: exit 1" [ $? -eq 1 ]
	check "$1 args[$2]: D_ARGS_IDX" grep -q \
	    "\[D_ARGS_IDX\] index $2 is out of range for $3 args\[ \]\$" \
	    "$tmp/err" || sed 's/^/# /' "$tmp/err"
done
dtrace -xerrtags -q -c "$T 1" -n 'trig$target:::mixed { trace(args[4]); }' \
    >"$tmp/out" 2>"$tmp/err"
check "mixed args[4], its last: exit 0" [ $? -eq 0 ]

# strings, from the hit (ptrace)
dtrace -q -c "$T 3" -n 'trig$target:::mixed { printf("%s\n", copyinstr(arg3)); }' \
    >"$tmp/raw" 2>"$tmp/err"
sort "$tmp/raw" >"$tmp/out"
same "$tmp/out" "
even
even
guarded ran 0, semaphore 0
odd
" "copyinstr of a string argument; a probe not enabled keeps its semaphore 0"

uprobe=yes
dtrace -x backend=uprobe -q -c "$T 1" -n 'trig$target:::round {}' \
    >"$tmp/out" 2>"$tmp/err" || uprobe=
if [ -n "$uprobe" ]; then
	dtrace -x backend=uprobe -q -c "$T 4" -n "$prog" >"$tmp/raw" \
	    2>"$tmp/err"
	check "uprobe: exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/err"
	sort "$tmp/raw" >"$tmp/out"
	same "$tmp/out" "
-1 200 123456789a -1000 -1000
-2 201 123456789a -1001 -1001
-3 202 123456789a -1002 -1002
-4 203 123456789a -1003 -1003
done 4 loop-done
guarded ran 4, semaphore 1
rounds 4 sum 6 guarded 60
" "uprobe: counts, arguments, the guarded probe runs with its semaphore"
else
	ok "# SKIP uprobe: no uprobe backend here"
	ok "# SKIP uprobe: no uprobe backend here"
fi

# exec: the probes of the new image, with -Z before it is there; its
# semaphore raised in the new image
dtrace -Z -q -c "$TRIGGERS/execer 2 $T 3" -n '
trig$target:::round { @[arg0] = count(); }
trig$target:::guarded { @g = sum(arg0); }' >"$tmp/raw" 2>"$tmp/err"
check "exec: exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/err"
sort "$tmp/raw" >"$tmp/out"
same "$tmp/out" "
                0                1
                1                1
                2                1
               30
execer sum=5
guarded ran 3, semaphore 1
" "exec: the new image's probes fire, its semaphore raised"

# exec of the same program, its probes enabled: they are armed again in
# the new image (ptrace: nothing of the new image runs before)
dtrace -x backend=ptrace -q -c "$T 3 exec" -n '
trig$target:::round { @[arg0] = count(); }
trig$target:::guarded { @g = sum(arg0); }' >"$tmp/raw" 2>"$tmp/err"
check "re-exec: exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/err"
sort "$tmp/raw" >"$tmp/out"
same "$tmp/out" "
                0                2
                1                2
                2                2
               60
guarded ran 3, semaphore 1
guarded ran 3, semaphore 1
" "re-exec: enabled probes fire in both images, semaphores raised in both"

# -p: a running program; dtrace ends by exit() or by SIGTERM; the
# semaphore is back to 0 and the text as it was
watch()	# BACKEND HOW
{
	rm -f "$tmp/w.out"	# the last one's would look ready
	"$T" 2 watch >"$tmp/w.out" &
	wpid=$!
	waitfor grep -q watching "$tmp/w.out"
	if [ "$2" = exit ]; then
		dtrace -x backend="$1" -q -p "$wpid" -n '
		trig$target:::guarded { @ = count(); @s = sum(arg0 % 10); }
		trig$target:::guarded /++n == 25/ { exit(0); }' \
		    >"$tmp/d.out" 2>"$tmp/d.err"
		check "$1 -p: exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/d.err"
		same "$tmp/d.out" "
               25
                0
" "$1 -p: 25 hits of the guarded probe, exactly"
	else
		# not the function: $! must be timeout's, which passes the
		# signal on to dtrace
		timeout -k 10 60 "$DTRACE" -x socket="$sock" \
		    -x backend="$1" -q -p "$wpid" -n '
		trig$target:::guarded { trace(arg0); }' \
		    >"$tmp/d.out" 2>"$tmp/d.err" &
		dtpid=$!
		waitfor test -s "$tmp/d.out"
		check "$1 -p: the guarded probe fires" test -s "$tmp/d.out"
		kill -TERM "$dtpid"
		wait "$dtpid"
	fi
	# dtrace exits once the daemon has let the process go (uprobes:
	# its links closed): no wait for the text
	check "$1 -p ($2): its text is the file's once dtrace has exited" \
	    "$TRIGGERS/textcmp" "$wpid"
	kill -USR1 "$wpid"
	wait "$wpid"
	check "$1 -p ($2): the program ends well" [ $? -eq 0 ]
	same "$tmp/w.out" "guarded ran 0, semaphore 0
watching
semaphore 0, text intact
" "$1 -p ($2): semaphore back to 0, text intact"
}
watch ptrace exit
watch ptrace signal
if [ -n "$uprobe" ]; then
	watch uprobe exit
	watch uprobe signal
fi

# Debian's python3 carries <sys/sdt.h> probes: gc__start's argument is
# the generation collected
py=/usr/bin/python3
if [ -x "$py" ] && readelf -n "$(readlink -f "$py")" 2>/dev/null |
    grep -q gc__start; then
	printf 'import gc\ngc.disable()\nfor i in range(3):\n    gc.collect(1)\n' \
	    >"$tmp/gc.py"
	dtrace -q -c "$py $tmp/gc.py" -n '
	python$target:::gc-start /arg0 == 1/ { @ = count(); }' \
	    >"$tmp/out" 2>"$tmp/err"
	same "$tmp/out" "
                3
" "python3: gc-start fires 3 times with generation 1"
	dtrace -l -P 'python*' -c "$py $tmp/gc.py" >"$tmp/out" 2>"$tmp/err"
	check "python3: -l -P python* lists function-entry" \
	    grep -q ' function-entry$' "$tmp/out"
else
	ok "# SKIP no python3 with <sys/sdt.h> probes"
	ok "# SKIP no python3 with <sys/sdt.h> probes"
fi

# Debian's libstdc++ too: a library's probes, without semaphores
if command -v c++ >/dev/null 2>&1 && printf '%s\n' \
    '#include <stdexcept>' 'int main() { int n = 0;' \
    'for (int i = 0; i < 4; i++) try { throw std::runtime_error("x"); }' \
    'catch (const std::exception &) { n++; } return n == 4 ? 0 : 1; }' \
    >"$tmp/thr.cc" && c++ -o "$tmp/thr" "$tmp/thr.cc" 2>/dev/null &&
    readelf -n "$(ldd "$tmp/thr" | awk '/libstdc/ { print $3 }')" \
    2>/dev/null | grep -q 'Name: throw'; then
	dtrace -q -c "$tmp/thr" -n '
	libstdcxx$target:::throw { @t[probefunc] = count(); }
	libstdcxx$target:::catch { @c = count(); }' >"$tmp/out" 2>"$tmp/err"
	same "$tmp/out" "
  __cxa_throw                                                       4
                4
" "libstdc++: throw and catch fire 4 times each"
else
	ok "# SKIP no c++ or libstdc++ with <sys/sdt.h> probes"
fi

# -h and -G: a program whose probes a D provider definition declares
if command -v cc >/dev/null 2>&1; then
	D=$(cd "$(dirname "$DTRACE")" && pwd)/dtrace
	mkdir "$tmp/hg"
	cat >"$tmp/hg/shop.d" <<'EOF'
/* a provider of our own */
#pragma D option quiet
provider shop {
	probe sale(int, char *);	/* item, name */
	probe price__change(long, long);
	probe idle();
};
EOF
	cat >"$tmp/hg/shop.c" <<'EOF'
#include <stdio.h>
#include "shop.h"

int
main(void)
{
	int i, sold = 0;

	for (i = 1; i <= 3; i++) {
		SHOP_SALE(i, i == 2 ? "pear" : "fig");
		SHOP_PRICE_CHANGE(-i, 100L * i);
		if (SHOP_IDLE_ENABLED()) {
			sold++;
			SHOP_IDLE();
		}
	}
	printf("idle enabled %d times\n", sold);
	return 0;
}
EOF
	(cd "$tmp/hg" && "$D" -h -s shop.d) 2>"$tmp/err"
	check "-h: exit 0, shop.h made" test -s "$tmp/hg/shop.h" ||
	    sed 's/^/# /' "$tmp/err"
	(cd "$tmp/hg" && cc -c shop.c && "$D" -G -o sem.o -s shop.d \
	    shop.o && cc -o shop shop.o sem.o) >"$tmp/err" 2>&1
	check "-G: exit 0, the program links" test -x "$tmp/hg/shop" ||
	    sed 's/^/# /' "$tmp/err"
	dtrace -q -c "$tmp/hg/shop" -n '
	shop$target:::sale { printf("sale %d %s\n", arg0, copyinstr(arg1)); }
	shop$target:::price-change { printf("price %d %d\n", arg0, arg1); }
	shop$target:::idle { @ = count(); }' >"$tmp/raw" 2>"$tmp/err"
	check "-h/-G program traced: exit 0" [ $? -eq 0 ] ||
	    sed 's/^/# /' "$tmp/err"
	sort "$tmp/raw" >"$tmp/out"
	same "$tmp/out" "
                3
idle enabled 3 times
price -1 100
price -2 200
price -3 300
sale 1 fig
sale 2 pear
sale 3 fig
" "-h/-G program: arguments, and the is-enabled test true while enabled"
	"$tmp/hg/shop" >"$tmp/out"
	same "$tmp/out" "idle enabled 0 times
" "-h/-G program untraced: the is-enabled test false"
else
	for i in 1 2 3 4 5; do ok "# SKIP no C compiler"; done
fi

# a provider glob finds the running processes whose USDT providers it
# matches, though nobody named them (illumos: every process that
# registered its probes); the processes run on unharmed once let go
"$TRIGGERS/sdtglob" >"$tmp/g1.out" &
g1=$!
"$TRIGGERS/sdtglob" >"$tmp/g2.out" &
g2=$!
waitfor grep -q ticking "$tmp/g1.out"
waitfor grep -q ticking "$tmp/g2.out"
dtrace -l -n 'tglob*:::tick' >"$tmp/out" 2>&1
check "tglob*:::tick lists both processes' probes" \
    [ "$(grep -c "tglob$g1 .* tick\$\|tglob$g2 .* tick\$" "$tmp/out")" -eq 2 ] ||
    sed 's/^/# /' "$tmp/out"
dtrace -q -n 'tglob*:::tick { @[pid] = count(); }
    tick-500ms { exit(0); }
    END { printa("%d %@d\n", @); }' >"$tmp/out" 2>&1
check "tglob*:::tick fires in both" \
    [ "$(awk -v a=$g1 -v b=$g2 '($1 == a || $1 == b) && $2 > 10' \
    "$tmp/out" | wc -l)" -eq 2 ] || sed 's/^/# /' "$tmp/out"
dtrace -l -n '*glob*:::tick' >"$tmp/out" 2>&1
check "a glob with no name before its wildcard grabs nothing" \
    grep -q 'No probe matches description' "$tmp/out"
kill -USR1 "$g1" "$g2"
wait "$g1"
r1=$?
wait "$g2"
r2=$?
check "the glob's processes ran on and exited 0" [ $r1 -eq 0 -a $r2 -eq 0 ] &&
    grep -q ' ticks$' "$tmp/g1.out" && grep -q ' ticks$' "$tmp/g2.out"

# the daemon stopped (SIGTERM) while a probe is enabled: the same
rm -f "$tmp/w.out"
"$T" 0 watch >"$tmp/w.out" &
wpid=$!
waitfor grep -q watching "$tmp/w.out"
timeout -k 10 60 "$DTRACE" -x socket="$sock" -q -p "$wpid" -n '
trig$target:::guarded { trace(arg0); }' >"$tmp/d.out" 2>"$tmp/d.err" &
dtpid=$!
waitfor test -s "$tmp/d.out"
check "before the daemon stops: the guarded probe fires" test -s "$tmp/d.out" ||
    { sed 's/^/# dtrace: /' "$tmp/d.err"; cat "/proc/$wpid/status" |
    grep -E '^(State|TracerPid)' | sed 's/^/# target: /';
    tail -20 "$tmp/dtraced.log" | sed 's/^/# dtraced: /'; }
stop_daemon
check "daemon exits 0" [ "$dstatus" -eq 0 ]
wait "$dtpid"
waitfor "$TRIGGERS/textcmp" "$wpid" >/dev/null 2>&1
kill -USR1 "$wpid"
wait "$wpid"
same "$tmp/w.out" "guarded ran 0, semaphore 0
watching
semaphore 0, text intact
" "daemon stopped: semaphore back to 0, text intact"
done_testing
