#pragma D option quiet

BEGIN
{
	@a["c", 1] = sum(5);
	@a["a", 2] = sum(5);
	@a["b", 3] = sum(1);
	@a["d", 0] = sum(9);
	@n[-1] = count();
	@n[1] = count();
	@n[1] = count();
	printa(@a);
	exit(0);
}
