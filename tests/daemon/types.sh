#!/bin/sh
# D's types on a traced process: a struct read with copyin() through a
# declared struct type (members, a char array as a string, bit-fields,
# a pointer member), the argv idiom copyinstr(*(uintptr_t *)copyin()),
# a struct value in a clause-local variable, trace() of a struct, and
# the fault a dereference of a raw address of the process gives.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

cat >"$tmp/rec.d" <<'D'
struct rec {
	int		count;
	char		name[12];
	struct rec	*next;
	unsigned int	flags:3;
	unsigned int	level:5;
	int		delta:6;
	short		port;
	long		total;
};

pid$target:a.out:visit:entry
{
	this->r = (struct rec *)copyin(arg0, sizeof (struct rec));
	printf("%d %s %d %d %d %d %d next=%d size=%d\n", this->r->count,
	    stringof(this->r->name), this->r->flags, this->r->level,
	    this->r->delta, this->r->port, this->r->total,
	    this->r->next != NULL, sizeof (*this->r));
	printf("%s %s\n", copyinstr(*(uintptr_t *)copyin(arg1, 8)),
	    copyinstr(((uintptr_t *)copyin(arg1, 16))[1]));
	this->s = *this->r;
	printf("%d %s\n", this->s.count + 1, stringof(this->s.name));
	this->t = (struct rec *)copyin((uintptr_t)this->r->next,
	    sizeof (struct rec));
	printf("%s %d\n", stringof(this->t->name), this->t->count);
}
D
# on one CPU (the command inherits dtrace's): two hits on two CPUs
# would print in CPU order, not in the order they came
taskset -c 0 timeout -k 10 60 "$DTRACE" -x socket="$sock" -q \
    -o "$tmp/out" -c "$TRIGGERS/structarg 2" -s "$tmp/rec.d" \
    >"$tmp/tout" 2>"$tmp/err"
check "struct: exit 0" [ $? -eq 0 ]
same "$tmp/tout" "sum=33
" "struct: the target ran undisturbed"
same "$tmp/out" "10 rec-0 5 17 -3 -2 1234567890123 next=1 size=40
alpha bravo
11 rec-0
tail -1
11 rec-1 5 18 -4 -2 1234567890123 next=1 size=40
alpha charlie
12 rec-1
tail -1

" "struct members, bit-fields, argv idiom, struct variable: exact output"
check "struct: no error reported" [ ! -s "$tmp/err" ]

# trace() of a struct records its bytes, printed as tracemem() prints them
dtrace -q -o "$tmp/out2" -c "$TRIGGERS/structarg 1" -n '
struct pair { int a; int b; };
pid$target:a.out:visit:entry { trace(*(struct pair *)copyin(arg0, 8)); }' \
    >"$tmp/tout" 2>"$tmp/err"
check "struct trace: exit 0" [ $? -eq 0 ]
same "$tmp/out2" "
             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 0a 00 00 00 72 65 63 2d                          ....rec-

" "struct trace: the bytes"

# a raw address of the process is not DIF memory: a fault per firing
dtrace -q -o "$tmp/out3" -c "$TRIGGERS/structarg 2" -n '
struct pair { int a; int b; };
pid$target:a.out:visit:entry { trace(((struct pair *)arg0)->b); }
pid$target:a.out:visit:return { @ = count(); }' >"$tmp/tout" 2>"$tmp/err"
check "raw dereference: exit 0" [ $? -eq 0 ]
check "raw dereference: two invalid address errors" [ "$(grep -c \
    '^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: pid[0-9]*:structarg:visit:entry): invalid address (0x[0-9a-f]*) in action #1 at DIF offset [0-9]*$' \
    "$tmp/err")" -eq 2 ]
same "$tmp/out3" "
                2
" "raw dereference: tracing went on"

# built-ins on a traced process: progenyof(), uregs[] with R_* names,
# args[]; at a function's entry the stack is 8 bytes off 16-alignment
dtrace -q -o "$tmp/out4" -c "$TRIGGERS/structarg 2" -n '
pid$target:a.out:visit:entry
{
	printf("%d %d %d %d %d %d %d %d\n", progenyof($pid), progenyof(1),
	    progenyof(pid), progenyof(ppid), progenyof(0x7ffffffe),
	    uregs[R_RDI] == arg0, args[1] == uregs[R_RSI],
	    uregs[R_SP] % 16);
}' >"$tmp/tout" 2>"$tmp/err"
check "builtins: exit 0" [ $? -eq 0 ]
same "$tmp/out4" "1 1 1 1 0 1 1 8
1 1 1 1 0 1 1 8

" "builtins: progenyof, uregs, args"
check "builtins: no error reported" [ ! -s "$tmp/err" ]

# macro variables: the dtrace process's own ids (sh -c execs dtrace, so
# its parent is this shell, and it shares this shell's session and group)
sh -c 'exec "$0" -x socket="$1" -q -n "BEGIN { printf(\"%d %d %d %d %d %d %d\\n\",
    \$ppid, \$uid, \$gid, \$euid, \$egid, \$sid, \$pgid); exit(0); }"' \
    "$DTRACE" "$sock" >"$tmp/out5" 2>"$tmp/err"
check "macros: exit 0" [ $? -eq 0 ]
same "$tmp/out5" "$$ $(id -u) $(id -g) $(id -u) $(id -g) $(ps -o sid= -p $$ |
    tr -d ' ') $(ps -o pgid= -p $$ | tr -d ' ')

" "macros: \$ppid \$uid \$gid \$euid \$egid \$sid \$pgid"

# the C preprocessor: -I, -H, line numbers after #include, and cpp's
# own failure
mkdir -p "$tmp/inc"
printf '#define BASE 40\n' >"$tmp/inc/base.h"
printf '#include "base.h"\nBEGIN { printf("%%d\\n", BASE + ADD); exit(0); }\n' \
    >"$tmp/cpp.d"
dtrace -C -I "$tmp/inc" -D ADD=2 -q -s "$tmp/cpp.d" >"$tmp/out6" 2>"$tmp/err"
check "cpp: exit 0" [ $? -eq 0 ]
same "$tmp/out6" "42

" "cpp: -I and -D"
dtrace -C -H -I "$tmp/inc" -D ADD=2 -q -s "$tmp/cpp.d" >/dev/null 2>"$tmp/err"
check "cpp -H: the included file is listed" grep -q "^\. .*inc/base.h$" "$tmp/err"
printf '#include "base.h"\n\nBEGIN { x = ; }\n' >"$tmp/cpp2.d"
dtrace -C -I "$tmp/inc" -s "$tmp/cpp2.d" >/dev/null 2>"$tmp/err"
check "cpp: a syntax error keeps its line number" grep -q \
    "failed to compile script .*cpp2.d: line 3: syntax error" "$tmp/err"
dtrace -C -s "$tmp/cpp.d" >/dev/null 2>"$tmp/err"
check "cpp: a missing header fails the compile" grep -q \
    "Preprocessor failed to process input program" "$tmp/err"

# interpreter files: the options of the #! line, split into words
printf '#!%s -C -I %s -D ADD=3 -q -s\n#include "base.h"\nBEGIN { printf("%%d %%s\\n", BASE + ADD, $$1); exit(0); }\n' \
    "$DTRACE" "$tmp/inc" >"$tmp/interp.d"
chmod +x "$tmp/interp.d"
DTRACED_SOCKET=$sock "$tmp/interp.d" hello >"$tmp/out7" 2>"$tmp/err"
check "#!: exit 0" [ $? -eq 0 ]
same "$tmp/out7" "43 hello

" "#!: options on the interpreter line"

# #pragma D line sets the line of what follows
printf '#pragma D line 100\nBEGIN { x = ; }\n' >"$tmp/line.d"
dtrace -s "$tmp/line.d" >/dev/null 2>"$tmp/err"
check "#pragma D line" grep -q "line 100: syntax error" "$tmp/err"

done_testing
