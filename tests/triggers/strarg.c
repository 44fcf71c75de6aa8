/*
 * strarg: pass a string, a buffer and IPv4/IPv6 addresses to functions,
 * N times, for copyin()/copyinstr()/inet_ntoa() with the pid provider.
 *
 *	strarg N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t	greet(const char *, size_t);
int	addr4(const uint8_t *);
int	addr6(const uint8_t *);

__attribute__((noipa)) size_t
greet(const char *s, size_t len)
{
	return strlen(s) + len;
}

__attribute__((noipa)) int
addr4(const uint8_t *a)
{
	return a[0];
}

__attribute__((noipa)) int
addr6(const uint8_t *a)
{
	return a[15];
}

int
main(int argc, char **argv)
{
	static const uint8_t v4[4] = { 192, 168, 1, 10 };
	static const uint8_t v6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 1 };
	char buf[32];
	long i, n = argc > 1 ? atol(argv[1]) : 1;
	size_t sum = 0;

	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "hello, world %ld", i);
		sum += greet(buf, 5);
		sum += addr4(v4) + addr6(v6);
	}
	printf("sum=%zu\n", sum);
	return 0;
}
