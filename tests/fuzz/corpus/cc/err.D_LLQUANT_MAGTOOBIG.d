BEGIN
{
	@a = llquantize(1, 10, 0, 30, 10);
}
