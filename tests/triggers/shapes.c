/*
 * shapes: functions of the shapes a pid provider must handle, each
 * called N times; prints what they computed; exits 0.
 *
 *	rec(n)		recursion: rec(5) enters rec 6 times
 *	ripfn(x)	its first instruction is %rip-relative
 *	tailer(x)	ends in a tail call (jmp tailee)
 *	sw(x)		a switch compiled to a jump table
 *	trapfn		starts with int3 (never called): must be refused
 *	many(i..i+7)	eight arguments: the last two on the stack
 *	aliased(x)	one function, four names: aliased (global),
 *			__aliased (global), waliased (weak) and
 *			aliased.localalias (local); probed and named once
 *
 *	shapes N
 */
#include <stdio.h>
#include <stdlib.h>

long	rec(long);
long	ripfn(long);
long	tailer(long);
long	tailee(long);
long	sw(long);
long	many(long, long, long, long, long, long, long, long);
long	aliased(long);
long	sw0(long), sw1(long), sw2(long), sw3(long), sw4(long), sw5(long),
	sw6(long), sw7(long);

__attribute__((noipa)) long
rec(long n)
{
	long r;

	if (n <= 0)
		return 0;
	r = rec(n - 1);
	/* an opaque use keeps the compiler from turning this into a loop */
	__asm__ volatile("" : "+r" (r));
	return n + r;
}

__asm__(
	".text\n"
	".globl ripfn\n"
	".type ripfn, @function\n"
	"ripfn:\n"
	"	mov ripcount(%rip), %rax\n"
	"	add %rdi, %rax\n"
	"	mov %rax, ripcount(%rip)\n"
	"	ret\n"
	".size ripfn, .-ripfn\n"
	".globl tailer\n"
	".type tailer, @function\n"
	"tailer:\n"
	"	lea 1(%rdi), %rdi\n"
	"	jmp tailee\n"
	".size tailer, .-tailer\n"
	".globl trapfn\n"
	".type trapfn, @function\n"
	"trapfn:\n"
	"	int3\n"
	"	ret\n"
	".size trapfn, .-trapfn\n"
	".data\n"
	".p2align 3\n"
	"ripcount:\n"
	"	.quad 0\n"
	".text\n");

__attribute__((noipa)) long
tailee(long x)
{
	return 3 * x;
}

__attribute__((noipa)) long sw0(long x) { return x + 10; }
__attribute__((noipa)) long sw1(long x) { return x + 11; }
__attribute__((noipa)) long sw2(long x) { return x * 12; }
__attribute__((noipa)) long sw3(long x) { return x - 13; }
__attribute__((noipa)) long sw4(long x) { return x ^ 14; }
__attribute__((noipa)) long sw5(long x) { return x + 15; }
__attribute__((noipa)) long sw6(long x) { return x * 16; }
__attribute__((noipa)) long sw7(long x) { return x - 17; }

__attribute__((noipa)) long
sw(long x)
{
	long r;

	switch (x & 7) {
	case 0: r = sw0(x) + 1; break;
	case 1: r = sw1(x) * 3; break;
	case 2: r = sw2(x) - 5; break;
	case 3: r = sw3(x) + 7; break;
	case 4: r = sw4(x) * 9; break;
	case 5: r = sw5(x) - 11; break;
	case 6: r = sw6(x) + 13; break;
	default: r = sw7(x) * 15; break;
	}
	return r;
}

__attribute__((noipa)) long
many(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + b + c + d + e + f + g + h;
}

__attribute__((noipa)) long
aliased(long x)
{
	return x + 3;
}
extern long __aliased(long) __attribute__((alias("aliased")));
extern long waliased(long) __attribute__((weak, alias("aliased")));
__asm__(".set aliased.localalias, aliased\n"
	".type aliased.localalias, @function\n");

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, i, a = 0, b = 0, c = 0, d = 0;
	long m = 0;

	for (i = 0; i < n; i++) {
		a += rec(5);
		b = ripfn(i);
		c += tailer(i);
		d += sw(i);
		m += many(i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7);
		m += __aliased(i);
	}
	printf("rec=%ld rip=%ld tail=%ld sw=%ld many=%ld\n", a, b, c, d, m);
	return 0;
}
