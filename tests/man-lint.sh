#!/bin/sh
# Every manual page must pass mandoc -Tlint (TAP).
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
pages=$(ls "$srcdir"/man/*.[1-8])
if ! command -v mandoc >/dev/null 2>&1; then
	echo "1..0 # SKIP mandoc is not installed (apt-get install mandoc)"
	exit 0
fi
echo "1..$(echo $pages | wc -w)"
n=0
for p in $pages; do
	n=$((n + 1))
	if out=$(mandoc -Tlint -W warning "$p" 2>&1) && [ -z "$out" ]; then
		echo "ok $n - $(basename "$p")"
	else
		echo "not ok $n - $(basename "$p")"
		echo "$out" | sed 's/^/# /'
	fi
done
