#!/bin/sh
# man/d.7 names every option (libdtrace/dt_options.c) and every built-in
# variable, action, aggregating function and subroutine the compiler
# knows (libdtrace/dt_ident.c), each with the macro of its kind: an
# option as Cm, a variable as Va, a function as Fn (TAP).  Adding one to
# the compiler without documenting it (or saying it is unsupported)
# fails here.  arg1 ... arg8 are written "arg0 ... arg9" in the page.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
page=$srcdir/man/d.7
opts=$srcdir/libdtrace/dt_options.c
idents=$srcdir/libdtrace/dt_ident.c

for f in "$page" "$opts" "$idents"; do
	if [ ! -r "$f" ]; then
		echo "1..0 # SKIP $f is not readable"
		exit 0
	fi
done

# "kind name" lines: Cm for options, Va for variables, Fn for functions.
list() {
	sed -n 's/^[[:space:]]*{ "\([a-z_]*\)", dt_opt_.*/Cm \1/p' "$opts"
	sed -n 's/.*BI_K*VAR("\([a-z_0-9]*\)".*/Va \1/p' "$idents" |
	    grep -v '^Va arg[1-8]$'
	sed -n 's/^[[:space:]]*{ "\([a-z_]*\)", DT_IDENT_\(SCALAR\|ARRAY\),.*/Va \1/p' \
	    "$idents"
	grep -o 'BI_\(UN\)*\(ACT\|AGG\)("[a-z_]*"' "$idents" |
	    sed 's/.*("\(.*\)"/Fn \1/'
	sed -n 's/^[[:space:]]*{ "\([a-z_0-9]*\)", DIF_SUBR_.*/Fn \1/p' "$idents"
}

# Is name on a macro line of the page, after the macro kind?
documented() {
	grep -E "^\.(.* )?$1 (.* )?$2([ ,]|\[|$)" "$page" >/dev/null
}

names=$(list | sort -u)
n=$(echo "$names" | wc -l)
if [ "$n" -lt 100 ]; then
	# the sources changed shape: say so rather than pass on nothing
	echo "1..1"
	echo "not ok 1 - found only $n names in the compiler's tables"
	exit 0
fi
echo "1..$n"
i=0
echo "$names" | while read -r kind name; do
	i=$((i + 1))
	if documented "$kind" "$name"; then
		echo "ok $i - $kind $name"
	else
		echo "not ok $i - $kind $name is not in man/d.7"
	fi
done
