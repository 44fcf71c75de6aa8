# tests/bench/lib.sh: what the bench scripts share.  Sourced after
# setting BENCH (the script's name, for messages) and builddir.
#
#	bench_need FILE...	each is built, else say so and exit 2
#	bench_tmp		$tmp, a directory removed at exit
#	bench_daemon [FLAG...]	a private dtraced on $tmp/sock ($sock,
#				$dpid), stopped at exit; exit 1 if it
#				does not start

DTRACE=$builddir/client/dtrace
DTRACED=$builddir/daemon/dtraced

bench_need()
{
	for f in "$@"; do
		if [ ! -x "$f" ]; then
			echo "$BENCH: $f is not built (make check builds it)" >&2
			exit 2
		fi
	done
}

bench_tmp()
{
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$BENCH.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
}

bench_daemon()
{
	sock=$tmp/sock
	"$DTRACED" "$@" -s "$sock" 2>"$tmp/dtraced.log" &
	dpid=$!
	trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; rm -rf "$tmp"' EXIT
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -S "$sock" ] || { echo "$BENCH: dtraced did not start" >&2; exit 1; }
}
