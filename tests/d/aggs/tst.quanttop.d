/* @@args: -q */
/* the top quantize( ) bucket, 2^62 and up, holds and shows its count */
BEGIN
{
	@top = quantize(0x7000000000000000, 3);
	@top = quantize(0x2000000000000000);
	exit(0);
}
