#pragma D option quiet
/*
 * A dynamic variable holds a struct larger than strsize, as illumos
 * sizes a dynamic variable by its type.
 */
struct rec {
	long first;
	char body[700];
	long last;
};
struct rec r;

BEGIN
{
	r.first = 11;
	r.body[699] = 'q';
	r.last = 22;
	tab[1, "x"] = r;
	self->keep = r;
	printf("%d %d %c %d %d\n", tab[1, "x"].first, tab[1, "x"].last,
	    self->keep.body[699], self->keep.last, sizeof (tab[1, "x"]));
	exit(0);
}
