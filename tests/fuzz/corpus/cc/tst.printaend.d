#pragma D option quiet

END
{
	printa("%s %@d %@d\n", @n, @s);
	printa(@q);
}

BEGIN
{
	i = 0;
}

tick-1ms
/i < 10/
{
	i++;
	@n[i % 2 ? "odd" : "even"] = count();
	@s[i % 2 ? "odd" : "even"] = sum(i);
	@q = quantize(i);
}

tick-1ms
/i == 10/
{
	exit(0);
}
