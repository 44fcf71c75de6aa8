/*
 * structarg: pass a struct and an argv-like array of strings to
 * functions, N times, for D's struct types, pointers and copyin() with
 * the pid provider.  Prints the sum of what the functions returned.
 *
 *	visit(struct rec *, char **names)	rec: see below
 *
 *	structarg N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	int		count;		/* 0 */
	char		name[12];	/* 4 */
	struct rec	*next;		/* 16 */
	unsigned int	flags:3;	/* 24, bits 0-2 */
	unsigned int	level:5;	/* 24, bits 3-7 */
	int		delta:6;	/* 24, bits 8-13 */
	short		port;		/* 28 */
	long		total;		/* 32 */
};					/* 40 bytes */

long	visit(struct rec *, char **);

__attribute__((noipa)) long
visit(struct rec *r, char **names)
{
	return r->count + (long)strlen(names[1]);
}

int
main(int argc, char **argv)
{
	static char a0[] = "alpha", a1[] = "bravo", a2[] = "charlie";
	char *names[] = { a0, a1, a2, NULL };
	struct rec head, tail;
	long sum = 0;
	int i, n = argc > 1 ? atoi(argv[1]) : 1;

	memset(&head, 0, sizeof(head));
	memset(&tail, 0, sizeof(tail));
	strcpy(tail.name, "tail");
	tail.count = -1;
	for (i = 0; i < n; i++) {
		head.count = 10 + i;
		snprintf(head.name, sizeof(head.name), "rec-%d", i % 100);
		head.next = &tail;
		head.flags = 5;
		head.level = 17 + i;
		head.delta = -3 - i;
		head.port = -2;
		head.total = 1234567890123L;
		names[1] = i % 2 ? a2 : a1;
		sum += visit(&head, names);
	}
	printf("sum=%ld\n", sum);
	return 0;
}
