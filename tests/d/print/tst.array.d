/*
 * print() of an array prints its type and its elements, as illumos's
 * print() does: integers in hex, a char array as the string it holds
 * up to its first NUL (one with another unprintable character a char
 * at a time), nested arrays and arrays of structs in full; from a
 * global, a thread-local, a struct member in memory and an associative
 * array's element.
 */
#pragma D option quiet

struct pt {
	int	x;
	char	c;
};

struct rec {
	char	name[6];
	char	raw[3];
	short	v[3];
};

int g[4];
int m[2][3];
struct pt pts[2];
self long t[3];
struct rec el[int];

BEGIN
{
	g[0] = 1;
	g[1] = 0x20;
	g[3] = -1;
	m[1][2] = 6;
	pts[1].x = 300;
	pts[1].c = 'z';
	self->t[2] = 12;
	el[7].name[0] = 'd';
	el[7].name[1] = 'v';
	el[7].raw[0] = 'a';
	el[7].raw[1] = 7;
	el[7].v[1] = 255;
	p = (struct rec *)alloca(sizeof (struct rec));
	p->v[0] = 2;

	print(g);
	print(m);
	print(pts);
	print(self->t);
	print(el[7].name);
	print(el[7].raw);
	print(el[7].v);
	print(p->v);
	print(p->name);
	exit(0);
}
