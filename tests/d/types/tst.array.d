/* A global array, and a struct held in clause-local and global variables. */
#pragma D option quiet

int a[4];
struct pt { int x; int y; } g;

BEGIN
{
	a[1] = 7;
	a[3] = a[1] * 2;
	printf("%d %d %d %d %d\n", a[0], a[1], a[3], sizeof (a), sizeof (g));
	this->p = (struct pt *)alloca(sizeof (struct pt));
	this->p->x = 3;
	this->p->y = 4;
	this->s = *this->p;
	this->p->x = 30;
	g = *this->p;
	printf("%d %d %d %d\n", this->s.x, this->s.y, g.x, g.y);
	exit(0);
}
