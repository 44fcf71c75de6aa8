/* @@args: -x aggpack */
#pragma D option quiet
#pragma D option encoding=utf8
#pragma D option aggzoom
/*
 * Under encoding=utf8 aggpack's heights are the Unicode lower blocks,
 * U+2581 to U+2588 (negative counts stay "vvvvVV"); zoomed, the
 * largest bucket is the full block.
 */
BEGIN
{
	@[1] = quantize(1, 1);
	@[1] = quantize(2, 2);
	@[1] = quantize(4, 4);
	@[1] = quantize(8, 5);
	@[1] = quantize(16, 6);
	@[1] = quantize(32, 7);
	@[1] = quantize(64, 8);
	@[1] = quantize(512, 9);
	@[2] = quantize(128, -14);
	@[2] = quantize(128, -2);
	exit(0);
}
