#!/bin/sh
# D's errno on a traced process: the C errno of the thread that hit,
# read at %fs base + the TLS offset decoded from the target's
# __errno_location (a shared libc: initial-exec through the GOT; a
# static executable: local-exec).  Exact values per thread and a failing
# system call's return probe, with both backends (uprobe: the capture
# program reads %fs base from the task and errno at the hit).
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

cat >"$tmp/errno.d" <<'D'
pid$target:a.out:fail:return,
pid$target:a.out:ok:return
{
	@[probefunc, tid == pid ? "main" : "thread", errno] = count();
}

pid$target::*open*:return
/errno/
{
	@["open", tid == pid ? "main" : "thread", errno] = count();
}

END
{
	printa("%s %s %d %@d\n", @);
}
D
# the uprobe backend where this daemon can use it (root, uprobe_multi)
# and the kernel has BTF (without it, errno under uprobes is a fault)
backends=ptrace
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "# no kernel BTF here: ptrace only"
elif dtrace -x backend=uprobe -q -c "$TRIGGERS/errnoer 1" \
    -n 'pid$target:a.out:ok:entry {}' >/dev/null 2>&1; then
	backends="ptrace uprobe"
else
	echo "# no uprobe backend here: ptrace only"
fi
for b in $backends; do
	for t in errnoer errnoer-static; do
		rm -f "$tmp/out"
		dtrace -q -x backend=$b -o "$tmp/out" -c "$TRIGGERS/$t 5" \
		    -s "$tmp/errno.d" >"$tmp/tout" 2>"$tmp/err"
		check "$b $t: exit 0" [ $? -eq 0 ]
		same "$tmp/tout" "sum=120
" "$b $t: the target ran undisturbed"
		same "$tmp/out" "fail main 13 5
fail thread 9 5
ok thread 0 5
open main 2 5

" "$b $t: errno per thread, exact"
		check "$b $t: no error reported" [ ! -s "$tmp/err" ] ||
		    sed "s/^/# /" "$tmp/err"
	done
done

# in a predicate, with the return value: only the failing calls
rm -f "$tmp/out"
dtrace -q -o "$tmp/out" -c "$TRIGGERS/errnoer 2" -n '
pid$target:a.out:fail:return /errno == 9/ { printf("%d %d\n", (int)arg1, errno); }' \
    >/dev/null 2>"$tmp/err"
same "$tmp/out" "-1 9
-1 9

" "errno in a predicate"

# BEGIN has no traced thread: errno is 0
rm -f "$tmp/out"
dtrace -q -o "$tmp/out" -n 'BEGIN { trace(errno); exit(0); }' 2>"$tmp/err"
same "$tmp/out" "0
" "errno in BEGIN is 0"

check "daemon stops" stop_daemon
done_testing
