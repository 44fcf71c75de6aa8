#!/bin/sh
# mapfiles.sh: the daemon reads a target's files as the target has them
# mapped, never by the path /proc/PID/maps shows.  A program (a copy of
# the loop trigger: f and g) is started, then another ELF object (the
# recurse trigger: leaf and down) is put at its path, by rename (the
# mapping's path then ends in " (deleted)") and by a bind mount over the
# path (the path then names the other file).  The root daemon opens
# /proc/PID/map_files: the probes listed are loop's, f counts exactly,
# and leaf matches nothing, under both backends; the same for a library
# (a copy of libc the program loaded, mounted over).  A private daemon run
# by a user (dtracetest) cannot open map_files; it opens the path and
# keeps the file only if its device and inode are the mapping's: an
# untouched program is traced, a bind-mounted-over one is refused with
# the reason in the daemon's log, and nothing of the other file is read.
# Root only (bind mounts, the test user); in a mount namespace of its own.
if [ "$(id -u)" -eq 0 ] && [ -z "$MAPFILES_NS" ] &&
    command -v unshare >/dev/null 2>&1 &&
    unshare -m --propagation private true 2>/dev/null; then
	MAPFILES_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

if [ "$(id -u)" -ne 0 ] || [ -z "$MAPFILES_NS" ]; then
	echo "1..0 # SKIP needs root and unshare -m (for bind mounts)"
	exit 0
fi
test_user
# (a command, not a function: in the background, $! is then the process)
as="setpriv --reuid=$uid --regid=$gid --clear-groups"

# the functions of a.out that dtrace -l lists for pid $1, one a line
funcs()
{
	"$@" -l -p "$pid" -n 'pid$target:a.out::entry' 2>"$tmp/lerr" |
	    awk 'NR > 1 { print $4 }' | sort
}
count='pid$target:a.out:f:entry /++n <= 1000/ { @ = count(); }
    pid$target:a.out:f:entry /n == 1000/ { exit(0); }
    END { printa("%@d\n", @); }'
depth='pid$target:a.out:f:entry { printf("%d\n", ustackdepth); exit(0); }'

chmod 711 "$tmp"
mkdir "$tmp/d" "$tmp/u"
cp "$TRIGGERS/loop" "$tmp/d/prog"
cp "$TRIGGERS/loop" "$tmp/ref"
cp "$TRIGGERS/recurse" "$tmp/other"

check "daemon starts" start_daemon

# The reference: what an untouched copy of loop lists.
"$tmp/ref" spin >/dev/null &
pid=$!
waitfor spinning $pid
funcs dtrace >"$tmp/ref.funcs"
check "reference: loop's a.out lists f" grep -qx f "$tmp/ref.funcs"
dtrace -q -p $pid -n "$depth" >"$tmp/out" 2>"$tmp/err"
refdepth=$(grep -v '^$' "$tmp/out")
check "reference: ustackdepth at f ($refdepth) is at least 2 (f, main)" \
    [ "${refdepth:-0}" -ge 2 ]
kill -TERM $pid
wait $pid

# 1. Replaced by rename: maps says "prog (deleted)".
"$tmp/d/prog" spin >/dev/null &
pid=$!
waitfor spinning $pid
cp "$TRIGGERS/recurse" "$tmp/d/new"
mv -f "$tmp/d/new" "$tmp/d/prog"
check "renamed over: maps names the deleted file" \
    grep -q "$tmp/d/prog (deleted)" "/proc/$pid/maps"
funcs dtrace >"$tmp/out"
check "renamed over: dtrace -l lists the functions mapped (loop's)" \
    cmp -s "$tmp/ref.funcs" "$tmp/out" ||
    diff "$tmp/ref.funcs" "$tmp/out" | sed 's/^/# /'
check "renamed over: nothing of the new file (leaf)" \
    sh -c "! grep -qx leaf '$tmp/out'"
dtrace -l -p "$pid" -n 'pid$target:a.out:f:entry' 2>/dev/null |
    awk 'NR > 1 { print $3 }' >"$tmp/out"
same "$tmp/out" "prog
" "renamed over: the module is prog, without maps' \"(deleted)\""
for b in ptrace uprobe; do
	dtrace -x backend=$b -q -p $pid -n "$count" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $b = uprobe ] && grep -q 'cannot use the uprobe backend' \
	    "$tmp/err"; then
		ok "renamed over, uprobe # SKIP no uprobe backend here"
		continue
	fi
	check "renamed over, $b: f:entry counts 1000" \
	    [ $rc -eq 0 -a "$(grep -v '^$' "$tmp/out")" = 1000 ] ||
	    sed 's/^/# /' "$tmp/out" "$tmp/err"
done
dtrace -p $pid -n 'pid$target:a.out:leaf:entry' >"$tmp/out" 2>"$tmp/err"
check "renamed over: leaf (only in the new file) matches nothing" \
    [ $? -eq 1 ]
grep -q 'does not match any probes\|No probe matches' "$tmp/err" ||
    sed 's/^/# /' "$tmp/err"
kill -TERM $pid
wait $pid
check "renamed over: the target was not harmed (exit 0)" [ $? -eq 0 ]

# 2. A bind mount over the path: maps names a path that is now the other
# file's, with nothing to tell.
cp "$TRIGGERS/loop" "$tmp/d/prog2"
"$tmp/d/prog2" spin >/dev/null &
pid=$!
waitfor spinning $pid
mount --bind "$tmp/other" "$tmp/d/prog2"
check "mounted over: maps names the path, not deleted" \
    grep -q "$tmp/d/prog2\$" "/proc/$pid/maps"
funcs dtrace >"$tmp/out"
check "mounted over: dtrace -l lists the functions mapped (loop's)" \
    cmp -s "$tmp/ref.funcs" "$tmp/out" ||
    diff "$tmp/ref.funcs" "$tmp/out" | sed 's/^/# /'
dtrace -q -p $pid -n "$count" >"$tmp/out" 2>"$tmp/err"
check "mounted over: f:entry counts 1000" \
    [ "$(grep -v '^$' "$tmp/out")" = 1000 ] || sed 's/^/# /' "$tmp/err"
# the unwinder reads each module's CFI (ft_unwind.c): loop's, so the
# stack is as deep as the untouched copy's
dtrace -q -p $pid -n "$depth" >"$tmp/out" 2>"$tmp/err"
check "mounted over: ustackdepth at f is the untouched copy's ($refdepth)" \
    [ "$(grep -v '^$' "$tmp/out")" = "$refdepth" ] ||
    sed 's/^/# /' "$tmp/out" "$tmp/err"
kill -TERM $pid
wait $pid
check "mounted over: the target was not harmed (exit 0)" [ $? -eq 0 ]
umount "$tmp/d/prog2"

# 3. A library: the program runs on a copy of its libc, and the other
# file is mounted over the copy's path.
libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "/proc/self/maps")
mkdir "$tmp/lib"
cp "$libc" "$tmp/lib/libc.so.6"
LD_LIBRARY_PATH=$tmp/lib "$TRIGGERS/loop" spin >/dev/null &
pid=$!
waitfor spinning $pid
mount --bind "$tmp/other" "$tmp/lib/libc.so.6"
check "library mounted over: maps names the copy" \
    grep -q "$tmp/lib/libc.so.6\$" "/proc/$pid/maps"
dtrace -l -p $pid -n 'pid$target:libc.so.6:getpid:entry' >"$tmp/out" \
    2>"$tmp/err"
check "library mounted over: libc's getpid is listed, from the file mapped" \
    [ "$(awk 'NR > 1 { print $3, $4 }' "$tmp/out")" = "libc.so.6 getpid" ] ||
    sed 's/^/# /' "$tmp/out" "$tmp/err"
dtrace -l -p $pid -n 'pid$target:libc.so.6:leaf:entry' >"$tmp/out" \
    2>"$tmp/err"
check "library mounted over: the other file's leaf is not" [ $? -eq 1 ]
kill -TERM $pid
wait $pid
check "library mounted over: the target was not harmed (exit 0)" [ $? -eq 0 ]
umount "$tmp/lib/libc.so.6"
stop_daemon TERM

# 4. A private daemon run by the user: no CAP_SYS_ADMIN, so the path,
# checked against the mapping's device and inode.
chown "$uid:$gid" "$tmp/u"
cp "$TRIGGERS/loop" "$tmp/u/prog"
cp "$TRIGGERS/loop" "$tmp/u/prog2"
chmod 755 "$tmp/u/prog" "$tmp/u/prog2"
usock=$tmp/u/sock
$as "$DTRACED" -d -s "$usock" 2>>"$tmp/dtraced.log" &
udpid=$!
i=0
while [ ! -S "$usock" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
check "the user's private daemon starts" [ -S "$usock" ]
udtrace()
{
	$as timeout -k 10 60 "$DTRACE" -x socket="$usock" "$@"
}

$as "$tmp/u/prog" spin >/dev/null &
pid=$!
waitfor spinning $pid
udtrace -q -p $pid -n "$count" >"$tmp/out" 2>"$tmp/err"
check "user daemon, untouched file: f:entry counts 1000 (by path)" \
    [ "$(grep -v '^$' "$tmp/out")" = 1000 ] || sed 's/^/# /' "$tmp/err"
kill -TERM $pid
wait $pid
check "user daemon, untouched file: the target was not harmed" [ $? -eq 0 ]

$as "$tmp/u/prog2" spin >/dev/null &
pid=$!
waitfor spinning $pid
mount --bind "$tmp/other" "$tmp/u/prog2"
funcs udtrace >"$tmp/out"
check "user daemon, mounted over: neither loop's f nor the other's leaf" \
    sh -c "! grep -qx 'f\\|leaf' '$tmp/out'" || sed 's/^/# /' "$tmp/out"
udtrace -p $pid -n 'pid$target:a.out:leaf:entry' >/dev/null 2>"$tmp/err"
check "user daemon, mounted over: leaf matches nothing" [ $? -eq 1 ]
why="pid $pid: $tmp/u/prog2 is not the file mapped at [0-9a-f]*"
why="$why (device [0-9]*:[0-9]* inode [0-9]*); not used"
check "user daemon, mounted over: the log says why" \
    grep -q "$why" "$tmp/dtraced.log"
kill -TERM $pid
wait $pid
check "user daemon, mounted over: the target was not harmed" [ $? -eq 0 ]
umount "$tmp/u/prog2"

kill -TERM $udpid
wait $udpid
done_testing
