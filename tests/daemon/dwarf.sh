#!/bin/sh
# The traced program's own types, read from its DWARF (dt_dwarf.c): typed
# args[] at pid entry and return probes, its structs, typedefs, enums and
# unions by name and by cast, sizeof, offsetof, enumerators, bit-fields,
# an anonymous union, a flexible array; the module scoping with a
# backquote; the errors for what has no type; print(); and the same
# values with the debug information split out (.gnu_debuglink,
# .build-id).
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

# dtrace on one CPU (the command inherits it): records of hits on two
# CPUs would print in CPU order, not in the order they came
dtrace1()
{
	taskset -c 0 timeout -k 10 60 "$DTRACE" -x socket="$sock" "$@"
}

cat >"$tmp/typed.d" <<'D'
pid$target:a.out:handle:entry
{
	printf("%d %d %s %d %d %d %d\n", args[0]->hdr.len, args[1],
	    stringof(args[2]), args[0]->hdr.prio, args[0]->hdr.delta,
	    args[0]->hdr.urgent, args[0]->state);
	printf("%s %s %d %d %d\n", stringof(args[0]->name),
	    stringof(args[0]->next->name), args[0]->next->hdr.len,
	    args[0]->vals[2], args[0]->ival);
	printf("%d %d %d %d %d %s\n", sizeof (struct request),
	    sizeof (request_t), offsetof(struct request, next),
	    sizeof (args[0]->hdr), ST_DONE, stringof(args[0]->tag));
	printf("%d %d %d %d\n", ((struct request *)arg0)->hdr.kind,
	    args[0]->big == BIG_HIGH, sizeof (enum big),
	    ((`a.out`struct request *)arg0)->next->state);
	this->r = (struct request *)copyin(arg0, sizeof (struct request));
	printf("%d %s\n", this->r->hdr.len, stringof(this->r->tag));
}
pid$target:a.out:answer:return
{
	printf("ret %d %d %d %d\n", args[1]->code, args[1]->data[3],
	    args[1]->nbytes, sizeof (struct reply));
}
D
expected="100 1 me 6 -4 1 5
head tail 7 30 -42
72 72 40 8 9 hd
3 1 8 9
100 hd
ret 5 1003 8 16
101 2 me 6 -4 1 5
head tail 7 30 -42
72 72 40 8 9 hd
3 1 8 9
101 hd
ret 5 1003 8 16

"
dtrace1 -q -o "$tmp/out" -c "$TRIGGERS/dwtypes 2" -s "$tmp/typed.d" \
    >"$tmp/tout" 2>"$tmp/err"
check "typed: exit 0" [ $? -eq 0 ]
same "$tmp/tout" "len=103 code=5
" "typed: the target ran undisturbed"
same "$tmp/out" "$expected" \
    "typed args[], casts, sizeof, offsetof, enumerators: exact values"
check "typed: no error reported" [ ! -s "$tmp/err" ]

# the module scoping: a.out or the file's name, before the tag or the
# whole name, for types and for an enumerator
dtrace -q -o "$tmp/scope" -c "$TRIGGERS/dwtypes 1" -n '
pid$target:a.out:handle:entry
{
	printf("%d %d %d %d %d\n", `a.out`ST_DONE, sizeof (struct a.out`request),
	    sizeof (`a.out`request_t), ((struct a.out`hdr *)arg0)->len,
	    sizeof (`dwtypes`struct reply));
}' >"$tmp/tout" 2>"$tmp/err"
same "$tmp/scope" "9 72 72 100 16

" "scoped names: exact values"

# errors: a member of an argument with no type, a member that is not
# there, a scoped type a module has not, an argument D cannot locate
dtrace -c "$TRIGGERS/dwtypes 1" -n \
    'pid$target:a.out:handle:entry { trace(args[0]->nosuch); }' \
    >/dev/null 2>"$tmp/err"
check "error: no such member" grep -q \
    "nosuch is not a member of struct request" "$tmp/err"
objcopy --strip-debug "$TRIGGERS/dwtypes" "$tmp/nodebug"
dtrace -c "$tmp/nodebug 1" -n \
    'pid$target:a.out:handle:entry { trace(args[0]->hdr.len); }' \
    >/dev/null 2>"$tmp/err"
check "error: args[] of a function with no debug information" grep -q \
    "operator -> cannot be applied to args\[0\]: it has no C type (pid[0-9]*:a.out:handle:entry has no argument types (no debug information for handle))" \
    "$tmp/err"
dtrace -c "$TRIGGERS/dwtypes 1" -n \
    'pid$target:a.out:answer:entry { trace(args[1]->x); }' \
    >/dev/null 2>"$tmp/err"
check "error: a member of an enum argument" grep -q \
    "operator -> must be applied to a pointer" "$tmp/err"
dtrace -c "$TRIGGERS/dwtypes 1" -n \
    'pid$target:a.out:scale:entry { trace(args[1]); }' \
    >/dev/null 2>"$tmp/err"
check "error: a parameter after a double cannot be located" grep -q \
    "args\[1\] has type double (parameter 0 of scale, passed otherwise than in a general register), which D cannot represent" \
    "$tmp/err"
dtrace -c "$TRIGGERS/dwtypes 1" -n \
    'pid$target:a.out:handle:entry,pid$target:a.out:answer:entry
    { trace(args[0]->code); }' >/dev/null 2>"$tmp/err"
check "error: probes whose args[0] differ" grep -q \
    "args\[0\]: it has no C type (the probes of the clause give it different types)" \
    "$tmp/err"
dtrace -q -o "$tmp/glob" -c "$TRIGGERS/dwtypes 1" -n \
    'pid$target:a.out:hand*:entry { trace(args[0]->hdr.len); }' \
    >"$tmp/tout" 2>"$tmp/err"
same "$tmp/glob" "100
" "a globbed description: typed from the probes it matches"
dtrace -c "$TRIGGERS/dwtypes 1" -n \
    'pid$target:a.out:main:entry { trace(sizeof (`a.out`nosuch_t)); }' \
    >/dev/null 2>"$tmp/err"
check "error: a scoped type the module has not" grep -q \
    "no type or enumerator nosuch_t in module a.out" "$tmp/err"
dtrace -q -o "$tmp/ret" -c "$TRIGGERS/dwtypes 1" -n \
    'pid$target:a.out:handle:return { printf("%d %s\n", args[1]->hdr.len,
    stringof(args[1]->name)); }' >"$tmp/tout" 2>"$tmp/err"
same "$tmp/ret" "7 tail

" "return: args[1] is the returned pointer, typed"

# print(): the target's struct through a typed argument, nested, with
# its pointers (whose values the clause prints first), a member's
# address, and a D struct in scratch memory
dtrace1 -q -o "$tmp/pr" -c "$TRIGGERS/dwtypes 1" -n '
pid$target:a.out:handle:entry
{
	printf("%x %x %x\n", arg0, (uintptr_t)args[0]->name,
	    (uintptr_t)args[0]->next);
	print(args[0]);
	print(&args[0]->next->hdr);
}
pid$target:a.out:answer:entry
{
	print(args[0]);
}' >"$tmp/tout" 2>"$tmp/err"
check "print: exit 0" [ $? -eq 0 ]
set -- $(head -1 "$tmp/pr")
m="                                            "
same "$tmp/pr" "$1 $2 $3
0x$1 = *
$m(struct request) {
$m .hdr = (struct hdr) {
$m  .len = (uint32_t)100,
$m  .kind = (uint16_t)3,
$m  .urgent = (unsigned int)0x1,
$m  .prio = (unsigned int)0x6,
$m  .delta = (int)0x1c,
$m },
$m .name = (char *)0x$2,
$m .state = (enum state)ST_BUSY,
$m .big = (enum big)BIG_HIGH,
$m (union) {
$m  .ival = (int64_t)-42,
$m  .dval = (double)-nan,
$m },
$m .next = (struct request *)0x$3,
$m .vals = (int [3]) [
$m  10,
$m  20,
$m  30,
$m ],
$m .tag = (char [8])\"hd\",
$m}
0x$3 = *
$m(struct hdr) {
$m .len = (uint32_t)7,
$m}
0x$(sed -n 's/^0x\([0-9a-f]*\) = \*$/\1/p' "$tmp/pr" | sed -n 3p) = *
$m(struct reply) {
$m .nbytes = (size_t)8,
$m}

" "print: nested members, zeros left out, exact values"
check "print: no error reported" [ ! -s "$tmp/err" ]

dtrace -q -s /dev/stdin >"$tmp/pd" 2>"$tmp/err" <<'D'
enum color { RED, GREEN = 4 };
struct inner {
	int		a;
	unsigned int	flag:2;
	unsigned int	mode:4;
};
struct outer {
	struct inner	in;
	enum color	c;
	char		name[6];
	short		arr[3];
	long		zero;
	void		*p;
};
BEGIN
{
	o = (struct outer *)alloca(sizeof (struct outer));
	o->in.a = -7;
	o->in.mode = 9;
	o->c = GREEN;
	o->name[0] = 'h';
	o->name[1] = 'i';
	o->arr[0] = 1;
	o->arr[2] = -3;
	o->p = (void *)0x1234;
	print(o);
	exit(0);
}
D
check "print (D's struct): exit 0" [ $? -eq 0 ]
sed -i 's/^0x[0-9a-f]* = \*$/ADDR = */' "$tmp/pd"
same "$tmp/pd" "ADDR = *
$m(struct outer) {
$m .in = (struct inner) {
$m  .a = (int)-7,
$m  .mode = (unsigned int)0x9,
$m },
$m .c = (enum color)GREEN,
$m .name = (char [6])\"hi\",
$m .arr = (short [3]) [
$m  1,
$m  0,
$m  -3,
$m ],
$m .p = (void *)0x1234,
$m}

" "print (D's struct): nested, bit-field, enum, arrays"

# a Debian package's debug information: libc6-dbg's for libc, where
# glibc's fclose is _IO_new_fclose (with -c, the command is held where
# its libraries are mapped)
libc=$(ldd "$TRIGGERS/dwtypes" | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: //p')
if [ -n "$id" ] && [ -r "/usr/lib/debug/.build-id/$(echo "$id" |
    cut -c1-2)/$(echo "$id" | cut -c3-).debug" ]; then
	dtrace -q -o "$tmp/libc" -c "$TRIGGERS/dwtypes 1" -n '
	pid$target:libc.so.6:fclose:entry
	{
		printf("%x %d\n", args[0]->_flags & 0xffff0000,
		    args[0]->_fileno == ((FILE *)arg0)->_fileno);
	}' >"$tmp/tout" 2>"$tmp/err"
	same "$tmp/libc" "fbad0000 1

" "libc6-dbg: struct _IO_FILE through fclose's typed args[0] and FILE"
	# held before the dynamic linker ran: libc is not there yet
	dtrace -x evaltime=exec -Z -c "$TRIGGERS/dwtypes 1" -n \
	    'pid$target:libc.so.6:fclose:entry { trace(args[0]->_fileno); }' \
	    >/dev/null 2>"$tmp/err"
	check "evaltime=exec: a library not mapped yet is said so" grep -q \
	    "(libc.so.6 is not mapped in the process yet)" "$tmp/err"
else
	ok "libc6-dbg: skipped, not installed"
	ok "evaltime=exec: skipped"
fi

# the debug information split out: next to the file (.gnu_debuglink),
# then under /usr/lib/debug/.build-id, where Debian's -dbgsym go
mkdir -p "$tmp/split"
objcopy --only-keep-debug "$TRIGGERS/dwtypes" "$tmp/split/dwtypes.debug"
objcopy --strip-debug --add-gnu-debuglink="$tmp/split/dwtypes.debug" \
    "$TRIGGERS/dwtypes" "$tmp/split/dwtypes"
check "split: no DWARF left in the program" sh -c \
    "! readelf -S '$tmp/split/dwtypes' | grep -q debug_info"
dtrace1 -q -o "$tmp/out2" -c "$tmp/split/dwtypes 2" -s "$tmp/typed.d" \
    >"$tmp/tout" 2>"$tmp/err"
same "$tmp/out2" "$expected" "split (.gnu_debuglink): exact values"
check "split (.gnu_debuglink): no error reported" [ ! -s "$tmp/err" ]
id=$(readelf -n "$tmp/split/dwtypes" | sed -n 's/.*Build ID: //p')
if [ -n "$id" ] && mkdir -p /usr/lib/debug/.build-id 2>/dev/null &&
    [ -w /usr/lib/debug/.build-id ]; then
	dir=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
	mkdir -p "$dir"
	bid="$dir/$(echo "$id" | cut -c3-).debug"
	mv "$tmp/split/dwtypes.debug" "$bid"
	dtrace1 -q -o "$tmp/out3" -c "$tmp/split/dwtypes 2" -s "$tmp/typed.d" \
	    >"$tmp/tout" 2>"$tmp/err"
	rm -f "$bid"
	rmdir "$dir" 2>/dev/null
	same "$tmp/out3" "$expected" "split (.build-id): exact values"
else
	ok "split (.build-id): skipped, /usr/lib/debug not writable"
fi

done_testing
