BEGIN
{
	@a = llquantize(1, 2, 0, 64, 2);
}
