/* @@args: -q -x aggsize=300 -x bufsize=4097 */
/*
 * Sizes are rounded down to 8 bytes without a word: only a size
 * lowered by more than that is reported (tst.sizeround.err is empty).
 */
BEGIN
{
	@[3] = sum(4);
	exit(0);
}
