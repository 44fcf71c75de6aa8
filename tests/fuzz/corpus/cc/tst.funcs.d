#pragma D option quiet
BEGIN
{
	@c = count();
	@s = sum(10); @s = sum(-3);
	@mn = min(5); @mn = min(-7); @mn = min(3);
	@mx = max(5); @mx = max(-7); @mx = max(3);
	@a = avg(1); @a = avg(2); @a = avg(4);
	@sd = stddev(1); @sd = stddev(2); @sd = stddev(3); @sd = stddev(10);
	@q = quantize(0); @q = quantize(1); @q = quantize(2); @q = quantize(3); @q = quantize(1000);
	@l = lquantize(3, 0, 10, 2); @l = lquantize(-1, 0, 10, 2); @l = lquantize(11, 0, 10, 2);@l = lquantize(4, 0, 10, 2);
	@ll = llquantize(5, 10, 0, 3, 10); @ll = llquantize(55, 10, 0, 3, 10); @ll = llquantize(555, 10, 0, 3, 10);
	exit(0);
}
