/*
 * demo: a small program for `./build.sh demo` to trace with the pid
 * provider.  It measures some words many times over and prints a total;
 * tracing it must not change what it prints or its exit status.
 */
#include <stdio.h>
#include <string.h>

int	wordlen(const char *);

/* Kept out of line so that the pid provider has a function to probe. */
__attribute__((noinline)) int
wordlen(const char *word)
{
	return (int)strlen(word);
}

int
main(void)
{
	static const char *const words[] = {
		"dtrace", "traces", "this", "program", "without", "harming", "it",
	};
	long total = 0;
	int round;
	size_t i;

	for (round = 0; round < 100; round++) {
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			total += wordlen(words[i]);
	}
	printf("demo: total length %ld\n", total);
	return 0;
}
