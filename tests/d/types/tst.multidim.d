/*
 * Arrays of arrays, typedefs of arrays, and members of a global struct
 * written in place.
 */
#pragma D option quiet

int m[2][3];
typedef int row_t[3];
struct q {
	short	s[2][2];
	char	c;
} g;

BEGIN
{
	m[1][2] = 7;
	m[0][1] = 3;
	printf("%d %d %d %d %d %d\n", sizeof (m), sizeof (m[1]),
	    m[1][2] + m[0][1], sizeof (row_t), sizeof (g), sizeof (struct q));
	g.s[1][0] = 5;
	g.c = 9;
	printf("%d %d %d %d\n", g.s[1][0], offsetof(struct q, c), g.c,
	    m[0][0]);
	exit(0);
}
