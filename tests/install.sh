#!/bin/sh
# make install and make uninstall into a DESTDIR: the programs, the man
# pages, the systemd units (the service names dtraced where it was
# installed), the bash completion (which completes -x options, their
# values and probe descriptions), the example program for /etc/dtraced
# (which compiles); uninstall leaves no file behind.
. "$(dirname "$0")/daemon/lib.sh"

dest=$tmp/dest
make -s -C "$builddir" install DESTDIR="$dest" >"$tmp/install.log" 2>&1
check "make install DESTDIR=..." [ $? -eq 0 ] ||
    sed 's/^/# /' "$tmp/install.log"
# the configured directories, as make expands them
dirs=$(make -s -C "$builddir" -f - print <<MK 2>/dev/null
include Makefile
print:
	@echo "\$(bindir) \$(sbindir) \$(mandir) \$(sysconfdir) \$(systemdsystemunitdir) \$(bashcompletiondir)"
MK
)
set -- $dirs
bindir=$1 sbindir=$2 mandir=$3 sysconfdir=$4 unitdir=$5 compdir=$6
check "the configured directories are known" [ -n "$compdir" ]
for f in "$bindir/dtrace" "$sbindir/dtraced"; do
	check "installed: $f" [ -x "$dest$f" ]
done
for f in "$mandir/man1/dtrace.1" "$mandir/man8/dtraced.8" \
    "$mandir/man7/d.7" "$unitdir/dtraced.service" "$unitdir/dtraced.socket" \
    "$compdir/dtrace" "$sysconfdir/dtraced/oncpu.d.example"; do
	check "installed: $f" [ -f "$dest$f" ]
done
check "the service starts $sbindir/dtraced" \
    grep -qx "ExecStart=$sbindir/dtraced -d" "$dest$unitdir/dtraced.service"
check "the service has no placeholder left" \
    [ "$(grep -c @ "$dest$unitdir/dtraced.service")" -eq 0 ]
# the example is not retained as installed (dtraced loads NAME.d only)
# and compiles as it would be once renamed
"$DTRACE" -e -s "$dest$sysconfdir/dtraced/oncpu.d.example" >"$tmp/ex" 2>&1
check "the example program compiles" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/ex"

make -s -C "$builddir" uninstall DESTDIR="$dest" >"$tmp/uninstall.log" 2>&1
check "make uninstall" [ $? -eq 0 ] || sed 's/^/# /' "$tmp/uninstall.log"
left=$(find "$dest" -type f | sed "s|^$dest||")
check "uninstall leaves no file" [ -z "$left" ] || echo "$left" | sed 's/^/# /'

# -- the completion, from the source tree, run by bash
comp=$srcdir/contrib/bash-completion/dtrace
# complete WORD...: what the completion offers for the last word
complete_words()
{
	bash -c '. "$1"; shift; COMP_WORDS=("$@");
	    COMP_CWORD=$(($# - 1)); _dtrace; printf "%s\n" "${COMPREPLY[@]}"' \
	    sh "$comp" "$@"
}
check "bash: -x bufp completes to bufpolicy" \
    [ "$(complete_words dtrace -x bufp)" = bufpolicy ]
check "bash: -x bufpolicy=r completes to bufpolicy=ring" \
    [ "$(complete_words dtrace -x bufpolicy=r)" = bufpolicy=ring ]
check "bash: -x evaltime=p offers preinit and postinit" \
    [ "$(complete_words dtrace -x evaltime=p | tr '\n' ' ')" = \
    "evaltime=preinit evaltime=postinit " ]
check "daemon starts" start_daemon
# the completion runs the dtrace on PATH: ours, on the test's daemon
opath=$PATH
PATH=$builddir/client:$PATH
DTRACED_SOCKET=$sock
export DTRACED_SOCKET
check "bash: -n dtrace:::BEG completes from dtrace -l" \
    [ "$(complete_words dtrace -n dtrace:::BEG)" = dtrace:::BEGIN ]
check "bash: -n profile:::tick-1 offers tick-1 tick-10 tick-100 ..." \
    [ "$(complete_words dtrace -n profile:::tick-1 | wc -l)" -eq 4 ]
unset DTRACED_SOCKET
PATH=$opath
stop_daemon
# every -x option the library knows is offered, and nothing else
sed -n 's/^	{ "\([a-z]*\)", dt_opt_.*/\1/p' "$srcdir/libdtrace/dt_options.c" |
    sort >"$tmp/lib"
bash -c '. "$1"; printf "%s\n" $_dtrace_xopts' sh "$comp" | sort >"$tmp/comp"
check "bash: the -x options are the library's" cmp -s "$tmp/lib" "$tmp/comp" ||
    diff "$tmp/lib" "$tmp/comp" | sed 's/^/# /'
done_testing
