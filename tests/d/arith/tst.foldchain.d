#pragma D option quiet
/*
 * A folded constant of int type keeps all 64 bits of its value through
 * further folding by + - * << & | ^, as illumos folds: an aggregation
 * sees them, a 4-byte record the low half.  / % >> fold on the type's
 * value.  (1 << 63) - 1 is INT64_MAX: added to itself in a quantize()
 * bucket it wraps as illumos's 64-bit counts do.
 */
BEGIN
{
	@q = quantize(1, (1 << 63) - 1);
	@q = quantize(1);
	@q = quantize(4, (1 << 62) | 1);
	@s = sum((1 << 40) - 1);
	@u = sum(0xffffffff + 1);
	@x = sum(((1 << 36) ^ 1) * 3);
	printf("%d %d %d\n", (1 << 40) - 1, 0xffffffff + 1, (1 << 40) / 2);
	exit(0);
}
