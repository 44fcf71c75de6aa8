/*
 * Stores through pointers: bit-fields (read, modify, write their unit;
 * a value too wide is cut to the field), ++ and += on members, and a
 * struct copied whole with "=".
 */
#pragma D option quiet

struct s {
	int		a;
	unsigned int	f:3;
	int		g:5;
	char		name[4];
};

BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	this->q = (struct s *)alloca(sizeof (struct s));
	this->p->f = 5;
	this->p->g = -3;
	this->p->a = 7;
	this->p->f++;
	this->p->g += 1;
	this->p->name[0] = 'A';
	*this->q = *this->p;
	this->q->a++;
	printf("%d %d %d %d %s\n", this->q->f, this->q->g, this->q->a,
	    this->p->a, stringof(this->q->name));
	this->p->f = 9;
	printf("%d %d %x\n", this->p->f, this->p->g,
	    *(unsigned short *)((char *)this->p + 4));
	exit(0);
}
