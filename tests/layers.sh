#!/bin/sh
# The layers: which folder may include which folder's headers (TAP).
#
#	dif/ fasttrap/		nothing of ours
#	proto/			dif/
#	libdtrace/		proto/, dif/
#	daemon/			proto/, dif/, fasttrap/
#	client/			libdtrace/dtrace.h (the public header) only
#
# Two checks.  Every #include of the product folders, read as text and
# named by the folder that owns the header; and the build's own include
# flags, by preprocessing one header of each other folder with each
# folder's flags from the build's Makefile: an include that runs the
# wrong way must fail to compile, one that is allowed must not.  The
# reader is first run on a made-up tree with wrong includes, which it
# must report, so that it cannot pass by seeing nothing.
. "$(dirname "$0")/daemon/lib.sh"

FOLDERS="dif fasttrap proto libdtrace daemon client"

allowed()
{
	case $1 in
	dif|fasttrap)	echo "" ;;
	proto)		echo "dif" ;;
	libdtrace)	echo "proto dif" ;;
	daemon)		echo "proto dif fasttrap" ;;
	client)		echo "libdtrace:dtrace.h" ;;
	esac
}

# owner ROOT HEADER: the folder of ROOT that has HEADER (the generated
# dt_grammar.h is libdtrace's), or nothing
owner()
{
	[ "$2" = dt_grammar.h ] && { echo libdtrace; return; }
	for f in $FOLDERS; do
		[ -f "$1/$f/$2" ] && { echo "$f"; return; }
	done
}

# the header an #include line names, quoted or bracketed
INCLUDE_RE='s/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p'

# violations ROOT: one line per include of ours that its folder may not
# use, "file: header (folder)"; quoted or bracketed alike
violations()
{
	for f in $FOLDERS; do
		[ -d "$1/$f" ] || continue
		ok_list=$(allowed "$f")
		for src in "$1/$f"/*.[chly]; do
			[ -f "$src" ] || continue
			sed -n "$INCLUDE_RE" "$src" | while read -r h; do
				o=$(owner "$1" "$h")
				[ -n "$o" ] && [ "$o" != "$f" ] || continue
				case " $ok_list " in
				*" $o "*|*" $o:$h "*) ;;
				*) echo "$f/${src##*/}: $h ($o)" ;;
				esac
			done
		done
	done
}

# the reader on a tree that breaks each rule once
mkdir "$tmp/t" && for f in $FOLDERS; do mkdir "$tmp/t/$f"; done
touch "$tmp/t/dif/dif.h" "$tmp/t/fasttrap/ft.h" "$tmp/t/proto/dt_proto.h" \
    "$tmp/t/libdtrace/dt_impl.h" "$tmp/t/libdtrace/dtrace.h" \
    "$tmp/t/daemon/dtd.h"
printf '#include "dif.h"\n#include "dt_proto.h"\n' >"$tmp/t/dif/a.c"
printf '#include <ft.h>\n#include "dif.h"\n' >"$tmp/t/proto/b.c"
printf '#include "dt_proto.h"\n#include "ft.h"\n' >"$tmp/t/libdtrace/c.c"
printf '#include "dtrace.h"\n#include "dt_proto.h"\n' >"$tmp/t/daemon/d.h"
printf '#include "dtrace.h"\n#include "dt_impl.h"\n  # include "dif.h"\n' \
    >"$tmp/t/client/e.c"
printf '#include "dtd.h"\n#include <stdio.h>\n' >"$tmp/t/fasttrap/f.c"
violations "$tmp/t" | sort >"$tmp/v"
same "$tmp/v" "client/e.c: dif.h (dif)
client/e.c: dt_impl.h (libdtrace)
daemon/d.h: dtrace.h (libdtrace)
dif/a.c: dt_proto.h (proto)
fasttrap/f.c: dtd.h (daemon)
libdtrace/c.c: ft.h (fasttrap)
proto/b.c: ft.h (fasttrap)
" "the reader reports each wrong include of a made-up tree"

violations "$srcdir" >"$tmp/v"
check "no include of the tree runs against the layers" [ ! -s "$tmp/v" ] ||
    sed 's/^/# /' "$tmp/v"

# The build's flags.  A folder's own headers are found beside its
# sources, so each folder is tried on the others' headers only.
if [ ! -f "$builddir/Makefile" ]; then
	echo "# no build tree: the include flags are not checked"
	done_testing
	exit
fi
printf 'print-%%:\n\t@echo '"'"'$($*)'"'"'\n' >"$tmp/print.mk"
var()
{
	MAKEFLAGS= make -s --no-print-directory -C "$builddir" -f Makefile \
	    -f "$tmp/print.mk" "print-$1"
}
CC_=$(var CC)
flags_of()
{
	case $1 in
	dif)		var AM_CPPFLAGS ;;
	fasttrap)	var fasttrap_libft_a_CPPFLAGS ;;
	proto)		var proto_libdtproto_a_CPPFLAGS ;;
	libdtrace)	var libdtrace_libdtrace_a_CPPFLAGS ;;
	daemon)		var daemon_libdtd_a_CPPFLAGS ;;
	client)		var client_dtrace_CPPFLAGS ;;
	esac
}
HEADERS="dif:dif.h fasttrap:ft.h proto:dt_proto.h libdtrace:dt_impl.h
libdtrace:dtrace.h daemon:dtd.h"
bad=
for f in $FOLDERS; do
	fl=$(flags_of "$f")
	ok_list=$(allowed "$f")
	for oh in $HEADERS; do
		o=${oh%%:*}
		h=${oh#*:}
		[ "$o" = "$f" ] && continue
		case " $ok_list " in
		*" $o "*|*" $o:$h "*) want=0 ;;
		*) want=1 ;;
		esac
		printf '#include "%s"\n' "$h" >"$tmp/probe.c"
		# shellcheck disable=SC2086
		(cd "$builddir" && $CC_ $fl -E -o /dev/null "$tmp/probe.c") \
		    >"$tmp/cc.log" 2>&1
		got=$([ $? -eq 0 ] && echo 0 || echo 1)
		if [ "$got" != "$want" ]; then
			bad="$bad $f:$h"
			echo "# $f's flags ($fl) on $h: $([ "$got" = 0 ] &&
			    echo found || echo not found)"
			sed 's/^/#   /' "$tmp/cc.log" | head -3
		fi
	done
done
check "each folder's flags reach the layers below it and no others" \
    [ -z "$bad" ]
done_testing
