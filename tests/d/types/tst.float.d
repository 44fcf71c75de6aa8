/* float and double: declarable, loadable and traceable, printed with %f. */
#pragma D option quiet

struct m { int n; double d; float f; };

BEGIN
{
	this->m = (struct m *)alloca(sizeof (struct m));
	*(uint64_t *)&this->m->d = 0x400921fb54442d18;
	*(uint32_t *)&this->m->f = 0x3fc00000;
	trace(this->m->d);
	printf(" %d %d\n", sizeof (struct m), offsetof(struct m, f));
	printf("%f %.2f %g %e\n", this->m->d, this->m->f, this->m->d,
	    this->m->f);
	this->d = this->m->d;
	trace(this->d);
	printf(" ");
	trace(this->m->f);
	printf("\n%d %d\n", sizeof (double), sizeof (float));
	exit(0);
}
