/* The element itself has no address D may take. */
struct pair {
	int	a;
	int	b;
};

struct pair p[int];

BEGIN
{
	p[1].a = 1;
	trace(&p[1]);
	exit(0);
}
