/* @@args: -x aggzoom -x encoding=ascii */
#pragma D option quiet
/*
 * aggzoom scales the bars to the largest row instead of the sum of
 * them: that row fills 95% of the width (38 of 40 columns), the others
 * in proportion; the same for agghist (whose total is kept in whole
 * numbers, as illumos keeps it) and for aggpack's heights; lquantize()
 * at exit, under aggpack.
 */
BEGIN
{
	@q = quantize(1);
	@q = quantize(2);
	@q = quantize(2);
	@q = quantize(8);
	@q = quantize(8);
	@q = quantize(8);
	@q = quantize(8);
	@q = quantize(-1);
	@l = lquantize(3, 0, 10, 5, 20);
	@l = lquantize(7, 0, 10, 5, 10);
	@c["a"] = sum(100);
	@c["b"] = sum(400);
	@c["c"] = sum(-200);
	printa(@q);
	printa(@l);
	setopt("agghist");
	setopt("aggpack");
	printa(@q);
	printa(@c);
	exit(0);
}
