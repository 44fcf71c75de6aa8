#pragma D option quiet

BEGIN
{
	i = 0;
}

tick-1ms
/i < 10/
{
	@c = count();
	@k["tick"] = count();
	i++;
}

tick-1ms
/i == 10/
{
	exit(0);
}
