/* A cast's value is not the element: its member cannot be assigned. */
struct pair {
	int	a;
	int	b;
};

struct pair p[int];

BEGIN
{
	((struct pair)p[1]).a = 1;
	exit(0);
}
