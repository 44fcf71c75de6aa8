#pragma D option quiet

BEGIN
{
	@s = sum(5);
	@s = sum(-2);
	@t[1] = sum(10);
	@t[2] = sum(20);
	@t[1] = sum(1);
	exit(0);
}
