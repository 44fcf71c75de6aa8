BEGIN
{
	@a = llquantize(1, 65535, 0, 5, 65535);
}
