BEGIN
{
	@a = llquantize(1, 3, 0, 42, 3);
}
