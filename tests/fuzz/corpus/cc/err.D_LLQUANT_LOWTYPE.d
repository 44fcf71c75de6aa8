BEGIN
{
	x = 2;
	@a = llquantize(1, 10, x, 2, 10);
}
