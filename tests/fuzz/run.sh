#!/bin/sh
# tests/fuzz/run.sh: runs each libFuzzer target from its seed corpus, with
# a fixed seed, FUZZ_RUNS inputs (default 3000) or FUZZ_SECONDS seconds,
# whichever ends first.  A crash, leak, sanitizer report or timeout fails
# the target.  New inputs go to a temporary directory, never into the
# tree.  Skipped (TAP) when the build has no libFuzzer targets.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
targets="proto dif cc elf procfs cli sdt"

for t in $targets; do
	if [ ! -x "$builddir/tests/fuzz/fuzz_$t" ]; then
		echo "1..0 # SKIP no libFuzzer targets (configure found no clang that links -fsanitize=fuzzer: apt-get install clang libclang-rt-14-dev)"
		exit 0
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtd-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
secs=${FUZZ_SECONDS:-5}
if [ -n "$FUZZ_SECONDS" ]; then
	runs=-1			# a long run: time bounds it
else
	runs=${FUZZ_RUNS:-3000}
fi
n=0
echo "1..7"
for t in $targets; do
	n=$((n + 1))
	mkdir -p "$tmp/$t"
	# the D suite itself seeds the compiler; the others have corpora
	if [ $t = cc ]; then
		seeds=$(ls -d "$srcdir"/tests/d/*/)
	else
		seeds=$srcdir/tests/fuzz/corpus/$t
	fi
	# an ELF object is bigger than a message
	maxlen=16384
	[ $t = elf ] || [ $t = sdt ] && maxlen=65536
	# dtrace(1) prints usage and errors: not into the log; and what
	# its fatal paths hold at exit() is no leak (see fuzz_cli.c)
	fdmask=0
	leaks=1
	[ $t = cli ] && fdmask=3 leaks=0
	# leaks are findings too; a slow input (>10 s) is a hang
	ASAN_OPTIONS=detect_leaks=$leaks:abort_on_error=1:halt_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    "$builddir/tests/fuzz/fuzz_$t" -seed=1 -runs="$runs" \
	    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	    -max_len=$maxlen -detect_leaks=$leaks -close_fd_mask=$fdmask -artifact_prefix="$tmp/$t-" \
	    "$tmp/$t" $seeds >"$tmp/$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/$t.log" | tail -1)
	if [ $rc -eq 0 ]; then
		echo "ok $n - fuzz_$t: ${execs:-?} executions, no crash"
	else
		echo "not ok $n - fuzz_$t: exit $rc"
		grep -v '^#\|^INFO\|NEW \|REDUCE \|pulse \|INITED' "$tmp/$t.log" |
		    head -60 | sed 's/^/# /'
		for a in "$tmp/$t-"*; do
			[ -f "$a" ] || continue
			echo "# input ($a):"
			od -A d -t x1 "$a" | head -20 | sed 's/^/# /'
		done
	fi
done
exit 0
