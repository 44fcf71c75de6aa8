#pragma D option quiet

/*
 * Constants fold on all 64 bits, as illumos folds them, whatever the int
 * type of their operands: what a 64-bit consumer of the value (an
 * aggregation, a comparison) sees is the whole result.
 */
BEGIN
{
	@s["max"] = sum((1 << 63) - 1);
	@s["2^40+3"] = sum((1 << 40) + 3);
	@s["wrap"] = sum(-1 + 4294967295U);
	@q = quantize(5, (1 << 35) - 1);
	@q = quantize(-7, (1 << 33) + 1);
	@q = quantize(5, 1);
	printf("%d %d\n", (1 << 32) != 0, ((1 << 34) >> 33) == 2);
	exit(0);
}
