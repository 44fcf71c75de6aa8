/* A union's members share its storage. */
#pragma D option quiet

union u {
	uint32_t	w;
	uint8_t		b[4];
	uint16_t	h[2];
};

BEGIN
{
	this->u = (union u *)alloca(sizeof (union u));
	this->u->w = 0x11223344;
	printf("%d %x %x %x\n", sizeof (union u), this->u->b[0],
	    this->u->b[3], this->u->h[1]);
	exit(0);
}
