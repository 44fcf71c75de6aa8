#pragma D option quiet
#pragma D option dynvarsize=160

/*
 * Room for two elements: the member stores that would make a third are
 * dropped and counted (the clause goes on), until a delete makes room.
 */
struct pair {
	int	a;
	int	b;
};

struct pair p[int];

BEGIN
{
	p[1].a = 1;
	p[2].a = 2;
	p[3].a = 3;
	p[3].b = 4;
	printf("%d %d\n", p[1].a, p[2].a);
	p[1] = 0;
	p[3].b = 5;
	printf("%d %d %d\n", p[2].a, p[3].a, p[3].b);
	exit(0);
}
