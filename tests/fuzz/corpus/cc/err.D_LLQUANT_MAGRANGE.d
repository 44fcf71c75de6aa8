BEGIN
{
	@a = llquantize(1, 10, 2, 2, 10);
}
