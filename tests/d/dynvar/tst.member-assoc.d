/*
 * Members of structs held in associative arrays are assigned in place:
 * a member, a nested struct's member, an element of an array member,
 * compound assignments and increments; an element not yet there is
 * made, zero-filled, by its first member store.
 */
#pragma D option quiet

struct inner {
	short	lo;
	long	hi;
};

struct rec {
	int		count;
	char		tag[6];
	struct inner	in;
	int		hist[4];
	string		name;
};

struct rec r[int];
struct rec byname[string];

BEGIN
{
	r[1].count = 3;
	r[1].count += 4;
	r[1].count *= 2;
	r[1].count++;
	++r[1].count;
	r[1].tag[0] = 'o';
	r[1].tag[1] = 'k';
	r[1].in.lo = -2;
	r[1].in.hi = 1234567890123;
	r[1].in.hi -= 123;
	r[1].hist[2] = 5;
	r[1].hist[2] <<= 2;
	r[1].hist[3]--;
	r[1].name = "first";

	r[2].hist[0] = 9;

	byname["x"].count = 11;
	byname["y"].count = 22;
	byname["x"].name = byname["y"].count > 20 ? "big" : "small";
}

BEGIN
{
	printf("r[1]: %d %s %d %d [%d %d %d %d] %s\n", r[1].count,
	    r[1].tag, r[1].in.lo, r[1].in.hi, r[1].hist[0], r[1].hist[1],
	    r[1].hist[2], r[1].hist[3], r[1].name);
	printf("r[2]: %d \"%s\" %d %d [%d %d %d %d] \"%s\"\n", r[2].count,
	    r[2].tag, r[2].in.lo, r[2].in.hi, r[2].hist[0], r[2].hist[1],
	    r[2].hist[2], r[2].hist[3], r[2].name);
	printf("x %d %s, y %d \"%s\"\n", byname["x"].count,
	    byname["x"].name, byname["y"].count, byname["y"].name);
}

/* a later firing sees what the first stored */
tick-1ms
{
	r[1].count += 100;
	printf("tick: %d %d\n", r[1].count, r[1].hist[2]);
	exit(0);
}
