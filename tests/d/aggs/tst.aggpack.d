/* @@args: -x aggpack -x encoding=ascii */
#pragma D option quiet
/*
 * aggpack draws a quantize() or an lquantize() on one line a key, under
 * a header giving the range: a character a bucket ("__xxxxXX" by
 * height, "vvvvVV" for negative counts, blank when empty), the lowest
 * and the highest value, and the key's count.  quantize()'s range is
 * the buckets any key uses, one more each side but none below zero's;
 * lquantize()'s is every bucket, under- and overflow included.
 * llquantize() and count() print as usual.
 */
BEGIN
{
	@q["small"] = quantize(1);
	@q["small"] = quantize(2);
	@q["small"] = quantize(2);
	@q["small"] = quantize(3);
	@q["big"] = quantize(700);
	@q["big"] = quantize(1000);
	@q["big"] = quantize(0);
	@q["one"] = quantize(16, 9);
	@neg[1] = quantize(-40);
	@neg[1] = quantize(-3);
	@neg[2] = quantize(5);
	@neg[2] = quantize(9, -4);
	@l[10] = lquantize(-15, -10, 20, 5);
	@l[10] = lquantize(0, -10, 20, 5);
	@l[10] = lquantize(1, -10, 20, 5);
	@l[20] = lquantize(25, -10, 20, 5);
	@l[20] = lquantize(19, -10, 20, 5, 8);
	@z = quantize(0);
	@ll = llquantize(42, 10, 0, 2, 10);
	@c["k"] = count();
	exit(0);
}
