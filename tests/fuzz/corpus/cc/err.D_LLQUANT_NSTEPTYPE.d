BEGIN
{
	x = 2;
	@a = llquantize(1, 10, 0, 2, x);
}
