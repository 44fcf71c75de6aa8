/*
 * Pointer arithmetic is scaled by the size of what the pointer points
 * to; p - q counts objects; pointers compare as addresses; & of an
 * object in memory; ++ and += on pointers.
 */
#pragma D option quiet

BEGIN
{
	this->a = (int *)alloca(4 * sizeof (int));
	this->a[0] = 1; this->a[1] = 2; this->a[2] = 3; this->a[3] = 4;
	this->p = this->a + 3;
	this->q = &this->a[1];
	printf("%d %d %d %d\n", *this->p, *this->q, this->p - this->q,
	    (long)this->p - (long)this->a);
	printf("%d %d %d\n", this->p > this->q, this->q == this->a + 1,
	    this->a != NULL);
	this->q++;
	this->p -= 3;
	printf("%d %d %d\n", *this->q, *this->p, *(this->a + 2) + this->a[1]);
	*this->q += 10;
	(*this->p)++;
	printf("%d %d\n", this->a[2], this->a[0]);
	this->c = (char *)this->a;
	printf("%d %d\n", this->c[4], *(short *)(this->c + 8));
	exit(0);
}
