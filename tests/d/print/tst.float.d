/*
 * print() of a float, a double and an array of floats, as illumos's
 * print() shows them: signed, in exponent form, seven digits after the
 * point.  D has no floating-point arithmetic: the bits are stored
 * through integer pointers.
 */
#pragma D option quiet

struct fp {
	float	f;
	double	d;
	float	fa[3];
};

BEGIN
{
	p = (struct fp *)alloca(sizeof (struct fp));
	*(int *)&p->f = 0x3fc00000;			/* 1.5 */
	*(long *)&p->d = 0xc00921fb54442d18;		/* -pi */
	*(int *)&p->fa[1] = 0x42280000;			/* 42 */
	*(int *)&p->fa[2] = 0x3dcccccd;			/* 0.1 */
	print(p->f);
	print(p->d);
	print(p->fa);
	exit(0);
}
