BEGIN
{
	@a = quantize(1);
	@a = lquantize(1, 0, 10);
}
