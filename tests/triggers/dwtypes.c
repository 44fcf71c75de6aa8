/*
 * dwtypes: functions that take and return the program's own structs,
 * built with -g, for the types D reads from a target's DWARF (typed
 * args[], casts, sizeof, offsetof, enumerators, print()).  Every value
 * is fixed, so that the tests can expect exact ones.
 *
 *	dwtypes [N]	call handle() N times (default 1)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum state { ST_IDLE, ST_BUSY = 5, ST_DONE = 9 };
enum big { BIG_LOW = 1, BIG_HIGH = 0x100000000LL };	/* 8 bytes */

struct hdr {
	uint32_t	len;
	uint16_t	kind;
	unsigned int	urgent:1;
	unsigned int	prio:3;
	int		delta:5;
};

typedef struct request {
	struct hdr	hdr;
	const char	*name;
	enum state	state;
	enum big	big;
	union {
		int64_t	ival;
		double	dval;
	};
	struct request	*next;
	int		vals[3];
	char		tag[8];
} request_t;

struct reply {
	int		code;
	size_t		nbytes;
	unsigned short	data[];
};

request_t	*handle(request_t *, int, const char *);
struct reply	*answer(struct reply *, enum state);
long		scale(double, long);

__attribute__((noipa)) request_t *
handle(request_t *r, int n, const char *who)
{
	r->hdr.len += (uint32_t)n;
	return r->next != NULL ? r->next : r;
}

__attribute__((noipa)) struct reply *
answer(struct reply *rp, enum state s)
{
	rp->code = (int)s;
	return rp;
}

/* its long comes in %rdi, after a double in %xmm0: args[1] is not arg1 */
__attribute__((noipa)) long
scale(double f, long n)
{
	return (long)(f * (double)n);
}

int
main(int argc, char **argv)
{
	static request_t tail, head;
	struct reply *rp;
	FILE *fp;
	int i, n = argc > 1 ? atoi(argv[1]) : 1;

	tail.hdr.len = 7;
	tail.name = "tail";
	tail.state = ST_DONE;
	strcpy(tail.tag, "t");
	head.hdr.len = 100;
	head.hdr.kind = 3;
	head.hdr.urgent = 1;
	head.hdr.prio = 6;
	head.hdr.delta = -4;
	head.name = "head";
	head.state = ST_BUSY;
	head.big = BIG_HIGH;
	head.ival = -42;
	head.next = &tail;
	head.vals[0] = 10;
	head.vals[1] = 20;
	head.vals[2] = 30;
	strcpy(head.tag, "hd");
	if ((rp = calloc(1, sizeof(*rp) + 4 * sizeof(rp->data[0]))) == NULL)
		return 1;
	rp->nbytes = 8;
	for (i = 0; i < 4; i++)
		rp->data[i] = (unsigned short)(1000 + i);
	for (i = 0; i < n; i++) {
		(void)handle(&head, i + 1, "me");
		(void)answer(rp, ST_BUSY);
		(void)scale(0.5, 4);
	}
	/* a libc struct for libc's own debug information (libc6-dbg) */
	if ((fp = fopen("/dev/null", "r")) != NULL)
		fclose(fp);
	printf("len=%u code=%d\n", head.hdr.len, rp->code);
	free(rp);
	return 0;
}
