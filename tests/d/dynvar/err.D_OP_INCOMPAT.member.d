/* A member of an element is assigned as its own type allows. */
struct pair {
	int	a;
	string	s;
};

struct pair p[string];

BEGIN
{
	p["k"].s = "ok";
	p["k"].a = p["k"].s;
	exit(0);
}
