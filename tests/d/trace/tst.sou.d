/*
 * trace() of a struct and of an array: their bytes, as illumos's
 * dt_print_bytes shows what is not a string; signed and unsigned 1, 2
 * and 4 byte integers, pointers.
 */
struct s { int a; char b; long c; };
struct t { int v[4]; };
BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	this->p->a = 1;
	this->p->b = 'x';
	this->p->c = -2;
	trace(*this->p);
	this->q = (struct t *)alloca(sizeof (struct t));
	this->q->v[0] = 0x41424344;
	this->q->v[1] = 0;
	this->q->v[2] = 7;
	this->q->v[3] = 8;
	trace(this->q->v);
	trace((int8_t)-3);
	trace((uint8_t)3);
	trace((int16_t)-3);
	trace((uint16_t)3);
	trace((int *)4096);
	trace((void *)-1);
	trace((char)65);
	trace((uint32_t)4294967295);
	exit(0);
}
