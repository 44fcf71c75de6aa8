/*
 * A bare xlate: xlate <T>(x) is the translated struct (members the
 * translator leaves out are 0), xlate <T *>(p) a pointer to it; both
 * can be stored, traced, passed on and taken apart.
 */
#pragma D option quiet

struct in { int a; int b; char name[8]; };
struct out { int sum; long prod; string label; uint8_t low; int unset; };
struct small { short lo; short hi; };

struct out o;

translator struct out < struct in *P > {
	sum = P->a + P->b;
	prod = (long)P->a * P->b;
	label = stringof(P->name);
	low = P->a * 100;
};

translator struct small < int V > {
	lo = V & 0xffff;
	hi = V >> 16;
};

BEGIN
{
	this->p = (struct in *)alloca(sizeof (struct in));
	this->p->a = 6;
	this->p->b = 7;
	this->p->name[0] = 'o';
	this->p->name[1] = 'k';

	o = xlate <struct out>(*this->p);
	printf("%d %d %s %d %d\n", o.sum, o.prod, o.label,
	    o.low, o.unset);

	this->op = xlate <struct out *>(this->p);
	printf("%d %d %s\n", this->op->sum, this->op->prod, this->op->label);
	printf("%d\n", sizeof (xlate <struct out>(*this->p)));

	this->s = xlate <struct small>(0x30004);
	printf("%d %d\n", this->s.hi, this->s.lo);
	trace(xlate <struct small>(0x70001));
	printf("\n%d %d\n", xlate <struct small>(0x50002).hi,
	    xlate <struct small *>(0x50002)->lo);
	exit(0);
}
