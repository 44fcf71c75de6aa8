#!/bin/sh
# Subroutines that read a traced process: copyinstr(), copyin(),
# copyinto(), with bcopy()/alloca() and the inet_* formatters on what
# they read, and the fault a bad address gives.  dtrace's output goes to
# -o, the target's own stdout elsewhere, so neither can interleave.
. "$(dirname "$0")/lib.sh"

check "daemon starts" start_daemon

dtrace -q -o "$tmp/out" -c "$TRIGGERS/strarg 3" -n '
pid$target:a.out:greet:entry
{
	@s[copyinstr(arg0)] = count();
	@p[copyinstr(arg0, 5)] = count();
	@l[strlen(copyinstr(arg0))] = count();
}
pid$target:a.out:greet:entry /self->n++ == 0/ { tracemem(copyin(arg0, 8), 8); }
pid$target:a.out:addr4:entry
{
	@a[inet_ntoa(copyin(arg0, 4)), inet_ntop(2, copyin(arg0, 4))] = count();
	this->p = alloca(4);
	copyinto(arg0, 4, this->p);
	@b[inet_ntoa(this->p)] = count();
	this->q = alloca(4);
	bcopy(this->p, this->q, 4);
	@c[inet_ntoa(this->q)] = count();
}
pid$target:a.out:addr6:entry
{
	@a[inet_ntoa6(copyin(arg0, 16)), inet_ntop(10, copyin(arg0, 16))] =
	    count();
}' >"$tmp/tout" 2>"$tmp/err"
check "copyin: exit 0" [ $? -eq 0 ]
same "$tmp/tout" "sum=636
" "copyin: the target ran undisturbed"
same "$tmp/out" "
             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 68 65 6c 6c 6f 2c 20 77                          hello, w

  hello, world 0                                                    1
  hello, world 1                                                    1
  hello, world 2                                                    1
  hello                                                             3
               14                3
  192.168.1.10                                        192.168.1.10                                                      3
  fe80::1                                             fe80::1                                                           3
  192.168.1.10                                                      3
  192.168.1.10                                                      3
" "copyinstr, copyin, copyinto, bcopy, inet_ntoa/ntoa6/ntop: exact output"
check "copyin: no error reported" [ ! -s "$tmp/err" ]

# a bad address (-o appends: a new file): the standard error line for each firing, tracing goes on
dtrace -q -o "$tmp/out2" -c "$TRIGGERS/strarg 2" -n '
pid$target:a.out:greet:entry { trace(copyinstr(8)); }
pid$target:a.out:addr4:entry { @ = count(); }' >"$tmp/tout" 2>"$tmp/err"
check "bad address: exit 0" [ $? -eq 0 ]
check "bad address: two invalid address (0x8) errors" [ "$(grep -c \
    '^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: pid[0-9]*:strarg:greet:entry): invalid address (0x8) in action #1 at DIF offset [0-9]*$' \
    "$tmp/err")" -eq 2 ]
same "$tmp/out2" "
                2
" "bad address: tracing went on (addr4 fired twice)"

done_testing
