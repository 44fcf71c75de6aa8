BEGIN
{
	@a = quantize(1, "x");
}
