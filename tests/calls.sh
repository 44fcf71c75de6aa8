#!/bin/sh
# calls.sh: the daemon's call directions, checked in its sources (TAP):
# a provider is one file plus a row in dtd_provider.c's table, and the
# firing path calls nothing above it.  Names are matched as whole
# identifiers in the code with comments stripped, so a comment may still
# say what calls what.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
d=$srcdir/daemon
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# Each file without its comments (/* */ across lines, and // lines).
for f in "$d"/*.c "$d"/*.h; do
	sed -e ':a' -e '/\/\*/{ /\*\//!{ N; ba' -e '}; }' \
	    -e 's|/\*.*\*/||g' -e 's|//.*||' "$f" >"$tmp/$(basename "$f")"
done

n=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
notok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	sed 's/^/# /' "$tmp/out"
}
# check DESCRIPTION: passes when $tmp/out is empty
check() {
	if [ -s "$tmp/out" ]; then notok "$1"; else ok "$1"; fi
}

provs=$(cd "$d" && ls dtd_prov_*.c | sed 's/^dtd_prov_//; s/\.c$//')
fire="dtd_ecb.c dtd_host.c dtd_buf.c dtd_agg.c dtd_spec.c"
lower="$fire dtd_probe.c dtd_target.c dtd_sample.c $(cd "$d" &&
    ls dtd_prov_*.c)"
echo "1..$(($(echo $provs | wc -w) * 3 + 4))"

for p in $provs; do
	# its functions: named in its own file alone (dtd.h: its parser,
	# which the unit tests call)
	(cd "$tmp" && grep -Hnw "dtd_prov_${p}_[a-z0-9_]*" *.c *.h |
	    grep -v "^dtd_prov_$p\.c:" |
	    grep -v '^dtd\.h:.*dtd_prov_profile_parse(') >"$tmp/out"
	check "no daemon file but dtd_prov_$p.c calls dtd_prov_${p}_*"
	# the provider itself: its row in the table, its declaration
	(cd "$tmp" && grep -Hnw "dtd_prov_$p" *.c |
	    grep -v "^dtd_prov_$p\.c:" | grep -v '^dtd_provider\.c:') \
	    >"$tmp/out"
	check "dtd_prov_$p is named by its file and the table alone"
	# the consumer keeps no field of its own for the provider
	awk '/^typedef struct dtd_consumer \{/,/^\} dtd_consumer_t;/' \
	    "$tmp/dtd.h" | grep -n "dc_${p}\(state\|_\)" >"$tmp/out"
	check "dtd_consumer_t has no dc_${p}state field"
done

# The firing path reports through state and dtd_ecb_wakeup: it calls no
# function of the consumer, the client or the retained programs.
(cd "$tmp" && grep -Hnow 'dtd_\(consumer\|client\|retain\)_[a-z_]*' \
    $fire | grep -v ':dtd_consumer_t$') >"$tmp/out"
check "the firing path calls nothing of dtd_consumer, dtd_client, dtd_retain"

# Nothing below the connection wakes a client itself.
(cd "$tmp" && grep -Hnow 'dtd_client_[a-z_]*' $lower) >"$tmp/out"
check "providers, targets, sampling and the firing path call no dtd_client_*"

# Per-provider state is the providers' own: the generic files do not
# look into dc_provstate.
(cd "$tmp" && grep -Hn 'dc_provstate' *.c | grep -v '^dtd_provider\.c:') \
    >"$tmp/out"
check "dc_provstate is read through dtd_provider_state() alone"

# Each .c file's functions carry its prefix (dtd_target_* in
# dtd_target.c), so that a grep lands in the right file; the log's are
# log_*, fatal and fatalx, as in the OpenBSD daemons.
for f in $(cd "$tmp" && ls dtd_*.c | grep -v '^dtd_log\.c$'); do
	pre=${f%.c}_
	awk -v f="$f" -v pre="$pre" '
	    /^[a-z_][a-z0-9_]*\(/ {
		name = $0; sub(/\(.*/, "", name)
		if (index(name, pre) != 1) print f ": " name
	    }' "$tmp/$f"
done >"$tmp/out"
check "every function of daemon/dtd_<x>.c is named dtd_<x>_*"
