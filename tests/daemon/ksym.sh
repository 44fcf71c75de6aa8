#!/bin/sh
# sym(), func() and mod(): kernel addresses named from kallsyms, as
# records, as aggregation keys (by function, by module) and in printa.
# First against a kallsyms of our own (_DTRACE_KALLSYMS), where every
# name is known, then on profile samples taken in the kernel, against
# the running kernel's /proc/kallsyms.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# Two core functions, an alias of the second, a data symbol (not a
# function: it names nothing), and a module's function.
cat >"$tmp/kallsyms" <<'EOF'
ffffffff81000000 T first_fn
ffffffff81000100 T second_fn
ffffffff81000100 t second_alias
ffffffff81000180 D some_data
ffffffffc0001000 t mod_fn	[fakemod]
ffffffffc0001040 t mod_other	[fakemod]
EOF
export _DTRACE_KALLSYMS="$tmp/kallsyms"

dtrace -q -n 'BEGIN {
	sym(0xffffffff81000000); printf("|\n");
	sym(0xffffffff81000010); printf("|\n");
	func(0xffffffff81000190); printf("|\n");
	mod(0xffffffff81000190); printf("|\n");
	sym(0xffffffffc0001044); printf("|\n");
	mod(0xffffffffc0001044); printf("|\n");
	sym(0x1000); printf("|\n");
	mod(0x1000); printf("|\n");
	printf("%a %A\n", 0xffffffff81000110, 0xffffffffc0001000);
	exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "records: exit 0" [ $? -eq 0 ]
same "$tmp/out" "  vmlinux\`first_fn                                  |
  vmlinux\`first_fn                                  |
  vmlinux\`second_fn                                 |
  vmlinux                                           |
  fakemod\`mod_other                                 |
  fakemod                                           |
  0x1000                                            |
  0x1000                                            |
vmlinux\`second_fn+0x10 fakemod\`mod_fn

" "sym(), func(), mod(), %a, %A: mod\`function, the first alias, past data"

# as keys: one per function (sym, func), one per module (mod)
dtrace -q -n 'BEGIN {
	@s[sym(0xffffffff81000104)] = count();
	@s[func(0xffffffff81000170)] = count();
	@s[sym(0xffffffff81000008)] = count();
	@m[mod(0xffffffff81000008)] = count();
	@m[mod(0xffffffff81000170)] = count();
	@m[mod(0xffffffffc0001044)] = count();
	exit(0); }
	END { printa(@s); printa(@m); }' >"$tmp/out" 2>"$tmp/err"
check "keys: exit 0" [ $? -eq 0 ]
same "$tmp/out" "
  vmlinux\`first_fn                                                  1
  vmlinux\`second_fn                                                 2

  fakemod                                                           1
  vmlinux                                                           2

" "@[sym()] by function, @[mod()] by module"

# the compiler's checks: one address, an integer or pointer
dtrace -q -x errtags -n 'BEGIN { sym(); }' >/dev/null 2>"$tmp/err"
check "sym(): D_PROTO_LEN" grep -q 'D_PROTO_LEN.*sym( ) prototype' "$tmp/err"
dtrace -q -x errtags -n 'BEGIN { mod("x"); }' >/dev/null 2>"$tmp/err"
check "mod(string): D_PROTO_ARG" grep -q 'D_PROTO_ARG.*mod( ) argument' \
    "$tmp/err"

# without kallsyms (addresses hidden, or no file): numbers
_DTRACE_KALLSYMS=$tmp/none dtrace -q -n 'BEGIN {
	func(0xffffffff81000010); exit(0); }' >"$tmp/out" 2>"$tmp/err"
same "$tmp/out" "  0xffffffff81000010                                
" "no kallsyms: the address"
unset _DTRACE_KALLSYMS

# Profile samples of spin sys taken in the kernel: arg0 is a kernel PC,
# named by the kernel's own text symbols; with those of every other
# process (the daemon's own, at least), one key per function.
if ! awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' \
    /proc/kallsyms 2>/dev/null; then
	ok "# SKIP profile samples: /proc/kallsyms hides its addresses"
else
	"$TRIGGERS/spin" sys & sp=$!
	waitfor execd $sp
	dtrace -q -p $sp -n '
profile-997 /pid == $target && arg0 != 0/ {
	@s[sym(arg0)] = count(); @m[mod(arg0)] = count();
}
profile-997 /pid != $target && arg0 != 0/ {
	@s[sym(arg0)] = count(); @m[mod(arg0)] = count();
	@others = count();
}
tick-1s { exit(0); }
END { printa("sym %a\n", @s); printa(@m); printa("others %@d\n", @others); }' \
	    >"$tmp/out" 2>"$tmp/err"
	check "kernel samples: exit 0" [ $? -eq 0 ]
	kill $sp; wait $sp 2>/dev/null
	n=$(grep -c '^sym ' "$tmp/out")
	echo "# $n kernel functions sampled"
	check "kernel samples: some were taken" [ "$n" -gt 0 ]
	# text symbols as dtrace names them (dt_ksym.c): T, t and the weak
	# W, w (arch_vma_name is a weak function)
	awk '$2 ~ /^[TtWw]$/ { print ($4 == "" ? "vmlinux" : \
	    substr($4, 2, length($4) - 2)) "`" $3 }' /proc/kallsyms |
	    sort >"$tmp/kall"
	sort -u "$tmp/kall" >"$tmp/ktext"
	# names the kernel itself gives twice (static functions of one
	# name) are two functions, two keys
	uniq -d "$tmp/kall" >"$tmp/ktwice"
	# a BPF program (module bpf: other tests' daemons load and unload
	# theirs meanwhile, and identical ones share a name) may be gone
	# from kallsyms by now: the kernel's own text is checked
	# (once each: a name the kernel gives several static functions, as
	# lruvec_stat_mod_folio.constprop.0 is given four, may be two keys)
	sed -n 's/^sym //p' "$tmp/out" | grep -v '^bpf`' | sort -u \
	    >"$tmp/named"
	comm -23 "$tmp/named" "$tmp/ktext" >"$tmp/unknown"
	check "kernel samples: every sym() is a kernel text symbol" \
	    [ ! -s "$tmp/unknown" ]
	sed 's/^/# not in kallsyms: /' "$tmp/unknown"
	echo "# $(sed -n 's/^others //p' "$tmp/out") samples of other processes"
	check "kernel samples: one key a function, whatever the process" \
	    [ -z "$(uniq -d "$tmp/named" | comm -23 - "$tmp/ktwice")" ]
	check "kernel samples: the module of getppid's path is vmlinux" \
	    grep -q '^  vmlinux  *[0-9][0-9]*$' "$tmp/out"
fi

stop_daemon
done_testing
