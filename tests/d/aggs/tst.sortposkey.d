#pragma D option quiet
#pragma D option aggsortpos=1
#pragma D option aggsortkey
/*
 * Sort options together, in a printa() of two aggregations joined on
 * their keys (see the options above).
 */
BEGIN
{
	@a["x", 2] = sum(1);
	@a["y", 1] = sum(1);
	@a["z", 1] = sum(2);
	@a["w", 3] = sum(2);
	@b["x", 2] = sum(5);
	@b["y", 1] = sum(3);
	@b["z", 1] = sum(3);
	@b["w", 3] = sum(3);
	printa("%s %d %@d %@d\n", @a, @b);
	exit(0);
}
