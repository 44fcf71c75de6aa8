#pragma D option quiet
#pragma D option aggsortrev
#pragma D option aggsortpos=1

BEGIN
{
	@a["x"] = sum(1);
	@a["y"] = sum(2);
	@a["z"] = sum(3);
	@b["x"] = sum(30);
	@b["y"] = sum(10);
	@b["z"] = sum(20);
	printa("%s %@d %@d\n", @a, @b);
	exit(0);
}
