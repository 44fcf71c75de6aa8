BEGIN
{
	x = 2;
	@a = llquantize(1, x, 0, 2, 10);
}
