/* An inline names a value, not storage: its array member is read-only. */
struct rec {
	int	n;
	int	v[4];
};

self struct rec r;
inline struct rec cur = self->r;

BEGIN
{
	cur.v[2] = 1;
	exit(0);
}
