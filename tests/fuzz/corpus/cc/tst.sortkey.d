#pragma D option quiet
#pragma D option aggsortkey
#pragma D option aggsortkeypos=1

BEGIN
{
	@a["c", 1] = sum(5);
	@a["a", 2] = sum(5);
	@a["b", 3] = sum(1);
	@a["d", 0] = sum(9);
	exit(0);
}
