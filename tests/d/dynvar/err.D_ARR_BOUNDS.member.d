/* An array member of a thread-local element keeps its bounds. */
struct rec {
	int	v[3];
};

self struct rec r[int];

BEGIN
{
	self->r[0].v[3] = 1;
	exit(0);
}
