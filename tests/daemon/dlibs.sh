#!/bin/sh
# D libraries: the *.d files of -L and -x libdir directories compiled
# before the first program, in the order their "#pragma D depends_on
# library" lines make; their types and inlines serve the programs, their
# clauses are dropped; a broken library, a missing dependency and a
# cycle fail the compile; -x nolibs skips them.
. "$(dirname "$0")/lib.sh"

L=$tmp/libs
mkdir -p "$L/one" "$L/two" "$L/bad" "$L/miss" "$L/cycle"
# b.d before a.d, although a.d comes first by name
cat >"$L/one/a.d" <<'D'
#pragma D depends_on library b.d
inline int SUM = PART + 5;
typedef struct span { int lo; int hi; } span_t;
D
cat >"$L/one/b.d" <<'D'
inline int PART = 37;
BEGIN { printf("library clause ran\n"); }
D
cat >"$L/two/c.d" <<'D'
inline string WORD = "second";
D
printf 'BEGIN\n{\n\tnosuch();\n}\n' >"$L/bad/x.d"
printf '#pragma D depends_on library gone.d\n' >"$L/miss/m.d"
printf '#pragma D depends_on library q.d\n' >"$L/cycle/p.d"
printf '#pragma D depends_on library p.d\n' >"$L/cycle/q.d"

"$DTRACE" -L "$L/one" -x libdir="$L/two" -qn 'span_t s;
    BEGIN { s.hi = SUM; printf("%d %d %d %s\n", SUM, PART, s.hi, WORD);
    exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "libraries: exit 0" [ $? -eq 0 ]
same "$tmp/out" "42 37 42 second

" "libraries: inlines and types of both directories, in dependency order"

printf 'BEGIN { printf("%%d ", SUM); }\n' >"$tmp/p1.d"
printf 'BEGIN { printf("%%d", PART); exit(0); }\n' >"$tmp/p2.d"
"$DTRACE" -q -L "$L/one" -s "$tmp/p1.d" -s "$tmp/p2.d" \
    >"$tmp/out" 2>"$tmp/err"
check "two scripts on one handle: exit 0" [ $? -eq 0 ]
same "$tmp/out" "42 37
" "two scripts see the libraries' inlines"

"$DTRACE" -L "$L/bad" -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "broken library: exit 1" [ $? -eq 1 ]
same "$tmp/err" "dtrace: invalid probe specifier BEGIN { exit(0); }: \"$L/bad/x.d\", line 3: undefined function name: nosuch
" "broken library: named with its line"
"$DTRACE" -xerrtags -L "$L/bad" -e -n 'BEGIN { exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "broken library under -xerrtags: [D_FUNC_UNDEF]" \
    grep -q '\[D_FUNC_UNDEF\] "' "$tmp/err"

"$DTRACE" -L "$L/miss" -e -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "missing dependency: exit 1" [ $? -eq 1 ]
check "missing dependency: named" \
    grep -q "Missing dependency: gone.d (required by $L/miss/m.d)" "$tmp/err"

"$DTRACE" -L "$L/cycle" -e -n 'BEGIN { exit(0); }' >"$tmp/out" 2>"$tmp/err"
check "cycle: exit 1" [ $? -eq 1 ]
check "cycle: reported" grep -q "Cyclic dependency encountered: " "$tmp/err"

"$DTRACE" -x nolibs -L "$L/bad" -qn 'BEGIN { printf("ok\n"); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "-x nolibs: the broken library is not read" [ $? -eq 0 ]
same "$tmp/out" "ok

" "-x nolibs: the program runs"

"$DTRACE" -L "$L/none-here" -qn 'BEGIN { printf("ok\n"); exit(0); }' \
    >"$tmp/out" 2>"$tmp/err"
check "a missing library directory is skipped" [ $? -eq 0 ]

printf '#pragma D depends_on library b.d\nBEGIN { exit(0); }\n' >"$tmp/main.d"
"$DTRACE" -xerrtags -L "$L/one" -s "$tmp/main.d" >"$tmp/out" 2>"$tmp/err"
check "a program naming a library: [D_PRAGMA_DEPEND]" \
    grep -q "D_PRAGMA_DEPEND.*main program may not explicitly depend" \
    "$tmp/err"
done_testing
