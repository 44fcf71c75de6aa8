#pragma D option quiet

BEGIN
{
	@a["x"] = count();
	@a["y"] = count();
	@a["y"] = count();
	@b["y"] = sum(7);
	@b["z"] = sum(3);
	@c[1, "one"] = max(10);
	@c[2, "two"] = max(5);
	@d = count();
}

BEGIN
{
	printa(@a);
	printa("%s is %@d\n", @a);
	printa("%-4s %@5u|%@x\n", @a, @b);
	printa(@a, @b);
	printa("%d %s %@d\n", @c);
	printa("[%@d]\n", @d);
	exit(0);
}

END
{
	@e = count();
	printa("e %@d\n", @e);
}
