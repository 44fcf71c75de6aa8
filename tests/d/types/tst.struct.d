/*
 * struct layout as the x86-64 System V ABI has it (sizeof, offsetof),
 * members read and written through a pointer to scratch memory, nested
 * structs, arrays as members, and -> and . on them.
 */
#pragma D option quiet

struct point {
	short	x;
	short	y;
};

struct rec {
	char		tag;
	struct point	at;		/* 2 */
	long		id;		/* 8 */
	char		name[5];	/* 16 */
	int		vals[3];	/* 24 */
	struct rec	*next;		/* 40 */
};

BEGIN
{
	printf("%d %d %d %d %d %d %d\n", sizeof (struct rec),
	    offsetof(struct rec, at), offsetof(struct rec, id),
	    offsetof(struct rec, name), offsetof(struct rec, vals),
	    offsetof(struct rec, next), sizeof (struct point));
	this->r = (struct rec *)alloca(sizeof (struct rec));
	this->r->tag = 'x';
	this->r->at.x = -3;
	this->r->at.y = 4;
	this->r->id = 0x123456789;
	this->r->name[0] = 'a';
	this->r->name[1] = 'b';
	this->r->vals[0] = 10;
	this->r->vals[2] = -30;
	this->r->next = this->r;
	printf("%c %d %d %x %s %d %d %d\n", this->r->tag, this->r->at.x,
	    this->r->next->at.y, this->r->id, stringof(this->r->name),
	    this->r->vals[0], this->r->vals[1], (*this->r).vals[2]);
	printf("%d %d %d\n", sizeof (this->r->name), sizeof (*this->r),
	    sizeof (this->r->at));
	exit(0);
}
