/*
 * recurse: a known call chain, for ustack() and symbols, and the
 * targets of the destructive actions.
 *
 *	recurse N		main -> down(N) -> ... -> down(0) -> leaf(0),
 *				once; prints the result, exits 0
 *	recurse sig N		counts SIGUSR1 while it calls leaf(i) N
 *				times; prints "signals M"
 *	recurse poke		calls poke(buf, sizeof(buf)) on a buffer
 *				holding "original"; prints the buffer
 *	recurse stop		calls leaf(1), then prints "resumed"
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long	leaf(long);
long	down(long);
long	poke(char *, long);

static volatile sig_atomic_t nsig;

/* Through a volatile pointer: no tail call, no loop, a frame per level. */
static long (*volatile down_p)(long) = down;

__attribute__((noipa)) long
leaf(long n)
{
	return n + 100;
}

__attribute__((noipa)) long
down(long n)
{
	long r;

	if (n == 0)
		r = leaf(n);
	else
		r = down_p(n - 1);
	return r + 1;
}

__attribute__((noipa)) long
poke(char *buf, long len)
{
	return (long)strnlen(buf, (size_t)len);
}

static void
onusr1(int sig)
{
	(void)sig;
	nsig++;
}

int
main(int argc, char **argv)
{
	char buf[32];
	long i, n;

	if (argc == 2 && strcmp(argv[1], "poke") == 0) {
		strcpy(buf, "original");
		(void)poke(buf, sizeof(buf));
		printf("%s\n", buf);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "stop") == 0) {
		(void)leaf(1);
		printf("resumed\n");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "sig") == 0) {
		signal(SIGUSR1, onusr1);
		n = atol(argv[2]);
		for (i = 0; i < n; i++)
			(void)leaf(i);
		printf("signals %d\n", (int)nsig);
		return 0;
	}
	n = argc > 1 ? atol(argv[1]) : 3;
	printf("%ld\n", down(n));
	return 0;
}
