#pragma D option quiet
/*
 * Histograms of negative values: quantize's negative powers of two,
 * lquantize below and above a negative base, llquantize's underflow;
 * negative increments draw the bar to the left of the axis, mixed
 * signs on both sides of it; empty rows inside the data are kept and
 * those around it trimmed to one.
 */
BEGIN
{
	@q = quantize(-5);
	@q = quantize(-1);
	@q = quantize(-1);
	@q = quantize(0);
	@q = quantize(3);
	@q = quantize(3);
	@q = quantize(3);
	@q = quantize(100);
	@l = lquantize(-7, -10, 10, 5);
	@l = lquantize(-20, -10, 10, 5);
	@l = lquantize(12, -10, 10, 5);
	@l = lquantize(-10, -10, 10, 5);
	@ll = llquantize(-1, 10, 0, 2, 10);
	@ll = llquantize(5, 10, 0, 2, 10);
	@ll = llquantize(5000, 10, 0, 2, 10);
	@n = quantize(3, -2);
	@n = quantize(9, -1);
	@m = lquantize(1, 0, 4, 1, 3);
	@m = lquantize(2, 0, 4, 1, -2);
	@m = lquantize(3, 0, 4, 1, 1);
	exit(0);
}
