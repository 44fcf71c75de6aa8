#!/bin/sh
# curpsinfo and curlwpsinfo (libdtrace/procfs.d) of a traced program
# started with known arguments: its pid, parent, ids, arguments joined
# and cut as illumos cuts them, and each thread's lwpid; in BEGIN, those
# of dtrace(1) itself.  Each agrees with the built-in variable of the
# same meaning.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

cat >"$tmp/ps.d" <<'D'
BEGIN
{
	printf("begin %d %d %s %c %d\n", curpsinfo->pr_pid == pid,
	    curpsinfo->pr_ppid, curpsinfo->pr_fname, curlwpsinfo->pr_sname,
	    curlwpsinfo->pr_state == SONPROC);
	dt = curpsinfo->pr_pid;
}

pid$target:a.out:f:entry
{
	@p[curpsinfo->pr_pid == $target, curpsinfo->pr_ppid == dt,
	    curpsinfo->pr_ppid == ppid, curpsinfo->pr_uid == uid,
	    curpsinfo->pr_gid == gid] = count();
	@t[curpsinfo->pr_fname == execname, curlwpsinfo->pr_lwpid == tid,
	    tid != pid, curlwpsinfo->pr_onpro == cpu,
	    curpsinfo->pr_nlwp > 1] = count();
}

pid$target:a.out:f:entry
/!done/
{
	done = 1;
	printf("args %s|\n", curpsinfo->pr_psargs);
	printf("argv %d %s %d %d\n", curpsinfo->pr_argc,
	    copyinstr(*(uintptr_t *)copyin(curpsinfo->pr_argv + 8, 8)),
	    strlen(copyinstr(*(uintptr_t *)copyin(curpsinfo->pr_argv + 16,
	    8))), curpsinfo->pr_envp == curpsinfo->pr_argv + 8 * 4);
	printf("ids %d %d %d %d %d %s %d %d %d\n", curpsinfo->pr_uid,
	    curpsinfo->pr_euid, curpsinfo->pr_gid, curpsinfo->pr_egid,
	    curlwpsinfo->pr_pri, curlwpsinfo->pr_clname,
	    curpsinfo->pr_dmodel == PR_MODEL_LP64, curpsinfo->pr_pgid > 0,
	    curpsinfo->pr_sid);
}

END
{
	printa("%d %d %d %d %d %@d\n", @p);
	printa("%d %d %d %d %d %@d\n", @t);
}
D
long=$(printf 'x%.0s' $(seq 1 100))
# dtrace's parent is timeout(1), whose pid the shell that becomes it
# writes down
sh -c 'echo $$ >"$1"; shift; exec timeout -k 10 60 "$@"' sh "$tmp/ppid" \
    "$DTRACE" -x socket="$sock" -q -o "$tmp/out" \
    -c "$TRIGGERS/threads 3 $long" -s "$tmp/ps.d" >"$tmp/tout" 2>"$tmp/err"
check "exit 0" [ $? -eq 0 ]
same "$tmp/tout" "total=108
" "the target ran undisturbed"
# illumos's pr_psargs: the first 79 bytes of the arguments
args=$(printf '%s' "$TRIGGERS/threads 3 $long" | cut -c 1-79)
pri=$((120 + $(nice)))
# the target's session is this shell's; in a PID namespace whose session
# leader is outside it, that is 0
sid=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f4)
same "$tmp/out" "begin 1 $(cat "$tmp/ppid") dtrace O 1
args $args|
argv 3 3 100 1
ids $(id -u) $(id -u) $(id -g) $(id -g) $pri TS 1 1 $sid
1 1 1 1 1 24
1 1 1 1 1 24

" "curpsinfo and curlwpsinfo, exact"
check "no error reported" [ ! -s "$tmp/err" ] || sed "s/^/# /" "$tmp/err"

# pr_psargs is each image's, across exec: execer 3 -> execer 1 -> loop 2
a1="$TRIGGERS/execer 3 $TRIGGERS/execer 1 $TRIGGERS/loop 2"
a2="$TRIGGERS/execer 1 $TRIGGERS/loop 2"
a3="$TRIGGERS/loop 2"
rm -f "$tmp/out"
dtrace -q -o "$tmp/out" -c "$a1" -n 'pid$target:a.out:f:entry {
	@[curpsinfo->pr_psargs, curpsinfo->pr_fname] = count(); }
	END { printa("%s|%s %@d\n", @); }' >"$tmp/tout" 2>"$tmp/err"
check "exec: exit 0" [ $? -eq 0 ]
same "$tmp/out" "$(printf '%s' "$a2" | cut -c 1-79)|execer 1
$(printf '%s' "$a3" | cut -c 1-79)|loop 2
$(printf '%s' "$a1" | cut -c 1-79)|execer 3

" "exec: each image's arguments"
check "exec: no error reported" [ ! -s "$tmp/err" ] ||
    sed "s/^/# /" "$tmp/err"

# pr_size and pr_rssize (Kbytes), pr_start and pr_time (timestruc_t) of a
# target that stop() holds still, against its /proc files read then; at
# leaf's return, after its entry probe has had the daemon map what it
# maps into the target to resume it (its size is then what it stays)
dtrace -w -q -c "$TRIGGERS/recurse stop" -n 'pid$target:a.out:leaf:entry { }
    pid$target:a.out:leaf:return /!done/ {
	done = 1;
	stop();
	printf("ps %d %d %d %d %d %d %d %d %d\n", pid, curpsinfo->pr_size,
	    curpsinfo->pr_rssize, curpsinfo->pr_start.tv_sec,
	    curpsinfo->pr_start.tv_nsec, curlwpsinfo->pr_start.tv_sec,
	    curlwpsinfo->pr_start.tv_nsec, curpsinfo->pr_time.tv_sec * 1000 +
	    curpsinfo->pr_time.tv_nsec / 1000000,
	    curpsinfo->pr_time.tv_nsec % 1000000);
	x = *curpsinfo;
	printf("whole %d %d\n", x.pr_start.tv_sec == curpsinfo->pr_start.tv_sec,
	    x.pr_size == curpsinfo->pr_size); }' >"$tmp/out" 2>"$tmp/err" &
dt=$!
i=0
while ! grep -qs '^whole' "$tmp/out" && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
tpid=$(sed -n 's/^ps \([0-9]*\) .*/\1/p' "$tmp/out")
if [ -n "$tpid" ] && [ -r "/proc/$tpid/statm" ]; then
	hz=$(getconf CLK_TCK)
	kpp=$(($(getconf PAGESIZE) / 1024))
	set -- $(cat "/proc/$tpid/statm")
	size=$(($1 * kpp)) rss=$(($2 * kpp))
	set -- $(sed 's/.*) //' "/proc/$tpid/stat")
	# fields 14, 15 and 22 of proc(5), $1 being field 3
	ticks=$((${12} + ${13})) st=${20}
	bt=$(sed -n 's/^btime //p' /proc/stat)
	start="$((bt + st / hz)) $((st % hz * (1000000000 / hz)))"
	kill -CONT "$tpid"
	wait $dt
	check "stopped target: dtrace exits 0" [ $? -eq 0 ]
	same "$tmp/out" "ps $tpid $size $rss $start $start $((ticks * 1000 / hz)) 0
whole 1 1
resumed

" "pr_size, pr_rssize, pr_start, pr_time: /proc's"
else
	not_ok "pr_size ...: the target did not stop"
	sed "s/^/# /" "$tmp/out" "$tmp/err"
	kill "$dt"
fi

# pr_fname is illumos's char pr_fname[16]: 16 bytes, the name cut to 15,
# printed, compared and keyed as the string it holds, and copied whole
# by a bare xlate; here of a target whose name the kernel cuts to 15
cp "$TRIGGERS/loop" "$tmp/a-long-program-name"
dtrace -q -c "$tmp/a-long-program-name 3 0" -n 'pid$target:a.out:f:entry {
	@[curpsinfo->pr_fname, sizeof (curpsinfo->pr_fname)] = count();
	@c[curpsinfo->pr_fname == execname,
	    curpsinfo->pr_fname == "a-long-program-"] = count();
	x = *curpsinfo; @x[x.pr_fname, sizeof (x.pr_fname)] = count(); }
	END { printa("%s|%d %@d\n", @); printa("%d %d %@d\n", @c);
	printa("%s|%d %@d\n", @x); }' >"$tmp/out" 2>"$tmp/err"
check "pr_fname: exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/err"
same "$tmp/out" "sum=9
a-long-program-|16 3
1 1 3
a-long-program-|16 3

" "pr_fname: char[16], the name cut to 15"

# a member Linux has no value for is refused when compiled
dtrace -xerrtags -n 'BEGIN { trace(curlwpsinfo->pr_nice); }' \
    >"$tmp/out" 2>&1
check "pr_nice: exit 1" [ $? -eq 1 ]
check "pr_nice: D_XLATE_NOCONV" grep -q '\[D_XLATE_NOCONV\].*pr_nice' \
    "$tmp/out"

# -x nolibs: no procfs.d, no curpsinfo
dtrace -x nolibs -xerrtags -n 'BEGIN { trace(curpsinfo->pr_pid); }' \
    >"$tmp/out" 2>&1
check "nolibs: exit 1" [ $? -eq 1 ]
check "nolibs: curpsinfo undefined" grep -q 'D_IDENT_UNDEF' "$tmp/out"

check "daemon stops" stop_daemon
done_testing
