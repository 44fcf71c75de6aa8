BEGIN
{
	@a = llquantize(1, 2, 0, 2, 4);
	@a = llquantize(1, 4, 0, 2, 4);
}
