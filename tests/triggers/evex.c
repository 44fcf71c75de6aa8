/*
 * evex: call N times two functions whose first instruction is
 * EVEX-encoded (AVX-512: vpbroadcastb into %ymm17, as glibc's
 * __strchr_evex starts) and one whose first is VEX-encoded, and check
 * every result; print how many were wrong, exit 0 if none.  On a CPU
 * without AVX-512 it says so and exits 3 (the caller skips).
 *
 *	evex N
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>

int	bcast17(int);
int	bcast1(int);

/* the low byte of x, through %ymm17 */
__asm__(
	".text\n"
	".globl bcast17\n"
	".type bcast17, @function\n"
	"bcast17:\n"
	"	vpbroadcastb %edi, %ymm17\n"
	"	vmovd %xmm17, %eax\n"
	"	andl $0xff, %eax\n"
	"	vzeroupper\n"
	"	ret\n"
	".size bcast17, .-bcast17\n");

/* the same through %ymm1, VEX-encoded */
__asm__(
	".text\n"
	".globl bcast1\n"
	".type bcast1, @function\n"
	"bcast1:\n"
	"	vmovd %edi, %xmm1\n"
	"	vpbroadcastb %xmm1, %ymm1\n"
	"	vmovd %xmm1, %eax\n"
	"	andl $0xff, %eax\n"
	"	vzeroupper\n"
	"	ret\n"
	".size bcast1, .-bcast1\n");

int
main(int argc, char **argv)
{
	unsigned int a, b, c, d;
	long n = argc > 1 ? atol(argv[1]) : 1000, i, bad = 0;

	/* AVX-512F (leaf 7, EBX bit 16) and AVX-512BW (bit 30) */
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0 ||
	    !(b & (1U << 16)) || !(b & (1U << 30))) {
		printf("no avx512\n");
		return 3;
	}
	for (i = 0; i < n; i++) {
		if (bcast17((int)i) != (i & 0xff))
			bad++;
		if (bcast1((int)i) != (i & 0xff))
			bad++;
	}
	printf("bad=%ld\n", bad);
	return bad != 0;
}
