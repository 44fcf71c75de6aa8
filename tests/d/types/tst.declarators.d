/*
 * Declarators: parenthesised abstract declarators in casts and sizeof,
 * pointers to functions (members, typedefs, arrays of them, casts),
 * arrays of pointers against pointers to arrays: sizes, indexing and
 * pointer arithmetic, and how a traced function pointer prints.
 */
#pragma D option quiet

typedef int (*binop_t)(int, int);
typedef int handler_t(int, char *, ...);

struct ops {
	int	(*fp)(int, char *);
	void	(*done)(void);
	binop_t	add;
	handler_t *h;
	char	*names[4];
	char	(*buf)[8];
	int	(*grid)[3];
};

int *ap[4];
int (*pa)[3];
int (*fa[2])(int);
binop_t table[3];

BEGIN
{
	printf("%d %d %d %d %d\n", sizeof (char (*)[8]), sizeof (int (*)[3]),
	    sizeof (int (*)(int, char *)), sizeof (int (*(*)(void))(long)),
	    sizeof (struct ops));
	printf("%d %d %d %d %d\n", sizeof (ap), sizeof (pa), sizeof (*pa),
	    sizeof (int *[4]), sizeof (int (*[2])[3]));
	printf("%d %d %d\n", sizeof (fa), sizeof (table),
	    sizeof (void (*[5])(int, ...)));
	printf("%d %d %d\n", offsetof(struct ops, names),
	    offsetof(struct ops, buf), offsetof(struct ops, grid));

	/* a pointer to an array steps over whole rows */
	this->g = (int *)alloca(6 * sizeof (int));
	this->g[0] = 1; this->g[1] = 2; this->g[2] = 3;
	this->g[3] = 4; this->g[4] = 5; this->g[5] = 6;
	this->rows = (int (*)[3])this->g;
	printf("%d %d %d %d\n", this->rows[1][0], (*(this->rows + 1))[2],
	    (this->rows + 1) - this->rows,
	    (uintptr_t)(this->rows + 1) - (uintptr_t)this->rows);

	/* an array of pointers holds addresses */
	this->pp = (int **)alloca(2 * sizeof (int *));
	this->pp[0] = &this->g[5];
	this->pp[1] = &this->g[2];
	printf("%d %d %d\n", *this->pp[0], *this->pp[1],
	    (uintptr_t)(this->pp + 1) - (uintptr_t)this->pp);

	/* function pointers are addresses: traced as integers */
	this->f = (int (*)(int, char *))0x401000;
	trace(this->f);
	printf("\n%x %x %d\n", (uintptr_t)this->f,
	    (uintptr_t)(binop_t)0x1234, this->f != NULL);
	table[1] = (binop_t)0x5678;
	printf("%x %x\n", (uintptr_t)table[1], (uintptr_t)table[0]);
	this->o = (struct ops *)alloca(sizeof (struct ops));
	this->o->add = (binop_t)0x20;
	this->o->fp = (int (*)(int, char *))this->o->add;
	printf("%x\n", (uintptr_t)this->o->fp);
	exit(0);
}
