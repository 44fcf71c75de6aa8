BEGIN
{
	x = 2;
	@a = lquantize(1, x, 10);
}
