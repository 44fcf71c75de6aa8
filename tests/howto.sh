#!/bin/sh
# README's how-tos (adding a provider, adding a backend) show each as a
# diff against the tree: each must still apply to it (TAP).  patch(1)
# checks, changing nothing (a tarball has no .git for git apply).
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
if ! command -v patch >/dev/null 2>&1; then
	echo "1..0 # SKIP patch is not installed"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/howto.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# each ```diff ... ``` block of README.md into $tmp/N.diff
awk -v dir="$tmp" '
/^```diff$/ { n++; f = dir "/" n ".diff"; next }
/^```$/ { f = ""; next }
f != "" { print > f }' "$srcdir/README.md"
n=$(ls "$tmp"/*.diff 2>/dev/null | wc -l)
echo "1..$((n + 1))"
i=1
if [ "$n" -ge 2 ]; then
	echo "ok $i - README has its how-tos' diffs ($n)"
else
	echo "not ok $i - README has its how-tos' diffs ($n)"
fi
for d in "$tmp"/*.diff; do
	[ -f "$d" ] || continue
	i=$((i + 1))
	what=$(sed -n 's/^+++ b\///p' "$d" | tr '\n' ' ')
	if out=$(patch -p1 --dry-run -s -d "$srcdir" <"$d" 2>&1); then
		echo "ok $i - applies: $what"
	else
		echo "not ok $i - applies: $what"
		echo "$out" | sed 's/^/# /'
	fi
done
