#pragma D option quiet
/* %e %E %f %g %G of float and double with flags, widths, precisions and *. */
struct m { int n; double d; float f; };
BEGIN
{
	this->m = (struct m *)alloca(sizeof (struct m));
	*(uint64_t *)&this->m->d = 0xc0934a456d5cfaad; /* -1234.5678 */
	*(uint32_t *)&this->m->f = 0x3e000000; /* 0.125 */
	printf("[%10.3f] [%-12.2f] [%+f] [% f] [%012.4f]\n", this->m->d, this->m->d, this->m->f, this->m->f, this->m->d);
	printf("[%e] [%E] [%15.3e] [%-15.2E] [%+.0e]\n", this->m->d, this->m->d, this->m->f, this->m->f, this->m->d);
	printf("[%g] [%G] [%#g] [%10.3g] [%-10g]\n", this->m->d, this->m->f, this->m->f, this->m->d, this->m->f);
	printf("[%*.*f] [%.*e]\n", 12, 1, this->m->d, 2, this->m->f);
	exit(0);
}
