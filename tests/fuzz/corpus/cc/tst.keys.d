#pragma D option quiet

BEGIN
{
	@a["b", 2] = count();
	@a["a", 1] = count();
	@a["a", 1] = count();
	@[probename] = count();
	exit(0);
}
