BEGIN
{
	x = 2;
	@a = lquantize(1, 0, x);
}
