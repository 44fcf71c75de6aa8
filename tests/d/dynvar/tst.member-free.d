/*
 * Deleting one element (storing 0) leaves the others' members as they
 * were, and a member stored after the delete makes a new, zero-filled
 * element; whole elements are copied out of and into the array.
 */
#pragma D option quiet

struct pair {
	int	a;
	int	b;
};

struct pair p[int];
this struct pair copy;

BEGIN
{
	p[1].a = 1;
	p[1].b = 10;
	p[2].a = 2;
	p[2].b = 20;
	p[3].a = 3;
	p[3].b = 30;
	p[2] = 0;
	p[4] = p[3];
	p[4].b++;
	this->copy = p[1];
	this->copy.a = 100;
}

BEGIN
{
	printf("%d %d, %d %d, %d %d\n", p[1].a, p[1].b, p[3].a, p[3].b,
	    p[4].a, p[4].b);
	printf("copy %d %d, p[1] %d\n", this->copy.a, this->copy.b, p[1].a);
	p[2].b = 7;
	printf("p[2] again: %d %d\n", p[2].a, p[2].b);
	p[1] = 0;
	p[3] = 0;
	printf("%d %d, %d %d\n", p[2].a, p[2].b, p[4].a, p[4].b);
	exit(0);
}
