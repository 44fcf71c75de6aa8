/* translators: xlate <T *>(p)->m and xlate <T>(*p).m */
#pragma D option quiet

struct in { int a; int b; char name[8]; };
struct out { int sum; long prod; string label; uint8_t low; };

translator struct out < struct in *P > {
	sum = P->a + P->b;
	prod = (long)P->a * P->b;
	label = stringof(P->name);
	low = P->a * 100;
};

BEGIN
{
	this->p = (struct in *)alloca(sizeof (struct in));
	this->p->a = 6;
	this->p->b = 7;
	this->p->name[0] = 'o';
	this->p->name[1] = 'k';
	printf("%d %d %s %d\n", xlate <struct out *>(this->p)->sum,
	    xlate <struct out *>(this->p)->prod,
	    xlate <struct out>(*this->p).label,
	    xlate <struct out>(*this->p).low);
	exit(0);
}
