/*
 * A translator may define a char array member by a string: a member
 * reference is the string, a whole translated struct holds it cut to
 * the array, with its NUL.
 */
#pragma D option quiet

struct in { int n; };
struct out { int a; char s[4]; int b; };

translator struct out < struct in *P > {
	a = 1;
	s = P == NULL ? "abcdef" : "x";
	b = 2;
};

struct out v;

BEGIN
{
	v = xlate <struct out> ((struct in *)NULL);
	printf("%d %s %d %d|", v.a, v.s, v.b, strlen(v.s));
	printf("%s\n", xlate <struct out *> ((struct in *)NULL)->s);
	exit(0);
}
