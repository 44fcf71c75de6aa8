BEGIN
{
	@a = llquantize(1, 70000, 0, 2, 10);
}
