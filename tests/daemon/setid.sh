#!/bin/sh
# setid.sh: a client traces a process only while it could ptrace it
# itself, at every exec.  A root daemon; the client runs as the
# unprivileged user dtracetest.  A process that execs a set-uid, set-gid
# or file-capability program is let go before the new image runs for
# the tracer: the client is told, nothing of the privileged image is
# read (no hit, no secret), the program runs on with its privilege and
# exits with its own status.  Under both backends.  A set-uid program
# that dropped its effective uid but kept the saved one is refused at
# grab; one that dropped every id and is dumpable again is traced, and
# counts exactly.  A root client of the same programs is unaffected,
# even one that shares the process with the user's client.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/daemon/lib.sh"

test_user
# the programs and secrets live here: the user may create files in it
w=$tmp/w
mkdir "$w" && chmod 1777 "$w"

# set-uid root, set-gid root; each secret only that privilege can read
cp "$TRIGGERS/setid" "$w/suid" && chown root:root "$w/suid" &&
    chmod 4755 "$w/suid"
cp "$TRIGGERS/setid" "$w/sgid" && chown root:root "$w/sgid" &&
    chmod 2755 "$w/sgid"
printf 's3cr3t-uid' >"$w/secret-u" && chmod 600 "$w/secret-u"
printf 's3cr3t-gid' >"$w/secret-g" && chmod 040 "$w/secret-g"
# a file system mounted nosuid would make this test prove nothing
as "$w/suid" -o "$w/probe" 0 "$w/secret-u" 0
if ! grep -q 'euid=0 calls=0 read=yes' "$w/probe" 2>/dev/null; then
	echo "1..0 # SKIP set-uid programs do not run set-uid in $w (nosuid?)"
	exit 0
fi

# file capabilities: setcap comes with Debian's libcap2-bin
if ! command -v setcap >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q libcap2-bin \
	    >/dev/null 2>&1
fi
fcap=
if command -v setcap >/dev/null 2>&1; then
	cp "$TRIGGERS/setid" "$w/fcap" && chmod 755 "$w/fcap" &&
	    setcap cap_dac_read_search+ep "$w/fcap" 2>/dev/null &&
	    fcap=$w/fcap
fi

check "daemon starts" start_daemon -v || done_testing
chmod 666 "$sock"	# the test user is not in group dtrace

# waitline FILE LINE: wait (up to 10 s) until FILE holds LINE
waitline()
{
	i=0
	while ! grep -qx "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	grep -qx "$2" "$1"
}

# what each client runs: every hit prints the string atoi is given
D='BEGIN { printf("ready\n"); }
pid$target::atoi:entry { printf("[%s]\n", copyinstr(arg0)); @n = count(); }
END { printa("atoi %@d\n", @n); }'

# pexec BACKEND PROGRAM SECRET: the user's own execer, grabbed (-p) by
# the user's dtrace, execs PROGRAM, which reads SECRET and calls atoi 5
# times on it, waits for $w/end and exits 7.  Sets $drc (dtrace's exit
# status) and $xrc (the program's); $w/d.out and $w/d.err hold
# dtrace's output, $w/out the program's report; the program's text is
# compared with its file before it ends ($textok).
pexec()
{
	rm -f "$w/go" "$w/end" "$w/out" "$w/x.out" "$w/d.out"
	# not through a function: $! must be the program, not a subshell
	setpriv --reuid="$uid" --regid="$gid" --clear-groups \
	    "$TRIGGERS/execer" -w "$w/go" 3 "$2" -e "$w/end" -o "$w/out" 5 \
	    "$3" 7 >"$w/x.out" 2>&1 &
	xpid=$!
	waitline "$w/x.out" "execer waits for $w/go"
	udtrace -x backend="$1" -q -p $xpid -n "$D" >"$w/d.out" \
	    2>"$w/d.err" &
	tpid=$!
	waitline "$w/d.out" ready
	touch "$w/go"
	wait $tpid
	drc=$?
	textok=0
	"$TRIGGERS/textcmp" $xpid >/dev/null 2>&1 && textok=1
	touch "$w/end"
	wait $xpid
	xrc=$?
}

# lost WHAT: the checks of a process let go at its exec of WHAT
lost()
{
	check "$what: dtrace ends, exit 0" [ $drc -eq 0 ] ||
	    sed 's/^/# /' "$w/d.err"
	check "$what: the client is told" grep -qx \
	    "dtrace: pid $xpid: exec of set-id program; tracing stopped" \
	    "$w/d.err"
	same "$w/d.out" "ready

" "$what: no hit of the new image, nothing of it read"
	check "$what: the program ran with its privilege" \
	    grep -qx "setid euid=$1 calls=5 read=yes done" "$w/out"
	check "$what: it exits with its own status (7)" [ $xrc -eq 7 ]
	check "$what: its text is its file's" [ $textok -eq 1 ]
}

for be in ${SETID_BACKENDS:-ptrace uprobe}; do
	what="$be, -p, exec of set-uid"
	pexec $be "$w/suid" "$w/secret-u"
	lost 0

	what="$be, -p, exec of set-gid"
	pexec $be "$w/sgid" "$w/secret-g"
	lost "$uid"
	if [ -n "$fcap" ]; then
		what="$be, -p, exec of file capabilities"
		pexec $be "$fcap" "$w/secret-u"
		lost "$uid"
	fi
done

# -c of a set-uid program: let go at its first exec, before it is held;
# with -Z the program compiles (its probes were never there) and dtrace
# ends as when its target is gone
for be in ${SETID_BACKENDS:-ptrace uprobe}; do
	what="$be, -c of set-uid"
	rm -f "$w/end" "$w/out"
	udtrace -x backend=$be -Z -q -c "$w/suid -e $w/end -o $w/out 5 \
	    $w/secret-u 7" -n "$D" >"$w/d.out" 2>"$w/d.err"
	check "$what: dtrace ends, exit 0" [ $? -eq 0 ] ||
	    sed 's/^/# /' "$w/d.err"
	check "$what: the client is told" grep -qx "dtrace: pid [0-9]*: exec \
of set-id program; tracing stopped" "$w/d.err"
	same "$w/d.out" "ready

" "$what: no hit, nothing of it read"
	touch "$w/end"
	check "$what: the program ran on with its privilege" \
	    waitline "$w/out" "setid euid=0 calls=5 read=yes done"
done

# A root client of the same programs: nothing changes (its own -c holds
# the program before its first instruction, under either backend; -p
# across the exec under ptrace, which follows exec exactly)
for be in ${SETID_BACKENDS:-ptrace uprobe}; do
	what="root client, $be, -c of set-uid"
	rm -f "$w/end" "$w/out"
	# it waits for $w/end (never made) after its calls: the uprobe
	# backend reads its memory after the fact; dtrace ends it
	dtrace -x backend=$be -q -c "$w/suid -e $w/end -o $w/out 5 \
	    $w/secret-u 7" -n "$D" \
	    -n 'pid$target::atoi:entry /++n == 5/ { exit(0); }' \
	    >"$w/d.out" 2>"$w/d.err"
	check "$what: exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$w/d.err"
	# sorted: the order across CPUs is order.sh's to check; the hits
	# and the secret are what this checks
	LC_ALL=C sort "$w/d.out" >"$w/d.sorted"
	same "$w/d.sorted" "
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
atoi 5
ready
" "$what: every hit, and the secret root may read"
	check "$what: nothing said of set-id" [ ! -s "$w/d.err" ] ||
	    sed 's/^/# /' "$w/d.err"
done
rm -f "$w/go" "$w/end" "$w/out" "$w/x.out" "$w/d.out"
"$TRIGGERS/execer" -w "$w/go" 3 "$w/suid" -e "$w/end" -o "$w/out" 5 \
    "$w/secret-u" 7 >"$w/x.out" 2>&1 &
xpid=$!
waitline "$w/x.out" "execer waits for $w/go"
dtrace -x backend=ptrace -q -p $xpid -n "$D" \
    -n 'pid$target::atoi:entry /++n == 5/ { exit(0); }' >"$w/d.out" \
    2>"$w/d.err" &
tpid=$!
waitline "$w/d.out" ready
touch "$w/go"
wait $tpid
check "root client, ptrace, -p across a set-uid exec: exit 0" [ $? -eq 0 ]
same "$w/d.out" "ready
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
atoi 5

" "root client, ptrace, -p across a set-uid exec: every hit of the new image"
touch "$w/end"
wait $xpid
check "root client: the program exits 7" [ $? -eq 7 ]

# Two clients of one process, the user's and root's (ptrace, which
# follows exec exactly): at the set-uid exec the user's loses it, the
# process stays traced for root's, which sees every hit of the new image
rm -f "$w/go" "$w/end" "$w/out" "$w/x.out" "$w/d.out" "$w/r.out"
setpriv --reuid="$uid" --regid="$gid" --clear-groups "$TRIGGERS/execer" \
    -w "$w/go" 3 "$w/suid" -e "$w/end" -o "$w/out" 5 "$w/secret-u" 7 \
    >"$w/x.out" 2>&1 &
xpid=$!
waitline "$w/x.out" "execer waits for $w/go"
udtrace -x backend=ptrace -q -p $xpid -n "$D" >"$w/d.out" 2>"$w/d.err" &
upid=$!
dtrace -x backend=ptrace -q -p $xpid -n "$D" \
    -n 'pid$target::atoi:entry /++n == 5/ { exit(0); }' >"$w/r.out" \
    2>"$w/r.err" &
rpid=$!
waitline "$w/d.out" ready
waitline "$w/r.out" ready
touch "$w/go"
wait $upid
check "two clients: the user's ends, exit 0" [ $? -eq 0 ]
check "two clients: the user's is told" grep -qx \
    "dtrace: pid $xpid: exec of set-id program; tracing stopped" "$w/d.err"
same "$w/d.out" "ready

" "two clients: the user's sees nothing of the new image"
wait $rpid
check "two clients: root's goes on, exit 0" [ $? -eq 0 ]
same "$w/r.out" "ready
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
[s3cr3t-uid]
atoi 5

" "two clients: root's sees every hit of the new image"
touch "$w/end"
wait $xpid
check "two clients: the program exits 7" [ $? -eq 7 ]

# Credentials that drop.  setid -d saved: the effective uid is the
# user's, the saved one still root: it could take root back, so the
# user may not trace it (the kernel says no: not dumpable, saved uid).
# setid -d full: every id the user's, dumpable again: the user traces it
# and counts exactly (the secret is out of its reach now).
for be in ${SETID_BACKENDS:-ptrace uprobe}; do
	rm -f "$w/go" "$w/end" "$w/out" "$w/x.out"
	setpriv --reuid="$uid" --regid="$gid" --clear-groups "$w/suid" \
	    -d saved -w "$w/go" -o "$w/out" 5 "$w/secret-u" 7 \
	    >"$w/x.out" 2>&1 &
	xpid=$!
	waitline "$w/x.out" "setid waits for $w/go"
	udtrace -x backend=$be -q -p $xpid -n "$D" >"$w/d.out" 2>"$w/d.err"
	check "$be, -p, saved uid root: refused, exit 1" [ $? -eq 1 ]
	check "$be, -p, saved uid root: the error says so" grep -qx \
	    "dtrace: failed to grab pid $xpid: Operation not permitted" \
	    "$w/d.err" || sed 's/^/# /' "$w/d.err"
	touch "$w/go"
	wait $xpid
	check "$be, -p, saved uid root: the program exits 7" [ $? -eq 7 ]
	check "$be, -p, saved uid root: it ran untouched" \
	    grep -qx "setid euid=$uid calls=5 read=no done" "$w/out"

	what="$be, -p, every id dropped"
	rm -f "$w/go" "$w/end" "$w/out" "$w/x.out" "$w/d.out"
	setpriv --reuid="$uid" --regid="$gid" --clear-groups "$w/suid" \
	    -d full -w "$w/go" -e "$w/end" -o "$w/out" 5 "$w/secret-u" 7 \
	    >"$w/x.out" 2>&1 &
	xpid=$!
	waitline "$w/x.out" "setid waits for $w/go"
	udtrace -x backend=$be -q -p $xpid -n "$D" \
	    -n 'pid$target::atoi:entry /++n == 5/ { exit(0); }' \
	    >"$w/d.out" 2>"$w/d.err" &
	tpid=$!
	waitline "$w/d.out" ready
	touch "$w/go"
	wait $tpid
	check "$what: traced, exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$w/d.err"
	same "$w/d.out" "ready
[unreadable]
[unreadable]
[unreadable]
[unreadable]
[unreadable]
atoi 5

" "$what: every hit, read as the user may"
	touch "$w/end"
	wait $xpid
	check "$what: the program exits 7" [ $? -eq 7 ]
done

# -- profile samples: a user sees its own programs, not the set-uid one
# it started (its real uid is the user's, its effective uid root's)
cp "$TRIGGERS/spin" "$w/suid-spin" && chown root:root "$w/suid-spin" &&
    chmod 4755 "$w/suid-spin"
cp "$TRIGGERS/spin" "$w/spin" && chmod 755 "$w/spin"
# not through a function: $! must be the program, not a subshell
setpriv --reuid="$uid" --regid="$gid" --clear-groups "$w/suid-spin" &
spid=$!
setpriv --reuid="$uid" --regid="$gid" --clear-groups "$w/spin" &
ppid_=$!
P='profile-997 /pid == $1/ { @["setuid"] = count(); }
profile-997 /pid == $2/ { @["plain"] = count(); }
tick-2s { printa("%s\n", @); exit(0); }'
# nosamples FILE: FILE names no sample of the set-uid program
nosamples()
{
	! grep -q setuid "$1"
}
udtrace -q -n "$P" $spid $ppid_ >"$w/p.out" 2>"$w/p.err"
check "profile, user: exit 0" [ $? -eq 0 ] || sed 's/^/# /' "$w/p.err"
check "profile, user: samples of its own program" grep -qx plain "$w/p.out" ||
    sed 's/^/# /' "$w/p.out" "$w/p.err"
check "profile, user: none of the set-uid one" nosamples "$w/p.out"
timeout -k 10 60 "$DTRACE" -x socket="$sock" -q -n "$P" $spid $ppid_ \
    >"$w/r.out" 2>"$w/r.err"
check "profile, root: samples of both" \
    [ "$(grep -cx 'setuid\|plain' "$w/r.out")" -eq 2 ] ||
    sed 's/^/# /' "$w/r.out" "$w/r.err"
kill -TERM $spid $ppid_ 2>/dev/null
wait $spid $ppid_ 2>/dev/null
done_testing
