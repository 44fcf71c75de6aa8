/*
 * Bit-fields pack into storage units of their declared type, as GCC
 * lays them out on x86-64; the bytes are the ones GCC produces for
 * x = 1, s = 300, t = 511, i = -5, ll = -123456789012, y = 7.
 */
#pragma D option quiet

struct bf {
	char			x;
	unsigned short		s:9;
	unsigned short		t:9;
	int			i:20;
	long long		ll:40;
	char			y;
};

BEGIN
{
	this->b = (unsigned char *)alloca(16);
	this->b[0] = 0x01; this->b[2] = 0x2c; this->b[3] = 0x01;
	this->b[4] = 0xff; this->b[5] = 0xf7; this->b[6] = 0xff;
	this->b[7] = 0x1f; this->b[8] = 0xec; this->b[9] = 0xe5;
	this->b[10] = 0x66; this->b[11] = 0x41; this->b[12] = 0xe3;
	this->b[13] = 0x07;
	this->p = (struct bf *)this->b;
	printf("%d %d %d %d %d %d %d\n", sizeof (struct bf), this->p->x,
	    this->p->s, this->p->t, this->p->i, this->p->ll, this->p->y);
	exit(0);
}
