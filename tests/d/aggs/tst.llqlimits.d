/*
 * llquantize()'s limits are illumos's: factor^high, computed in 64 bits,
 * must grow at each step.  So 10^19, 2^63, 3^41 (which wraps upward) and
 * 65535^4 are accepted; a magnitude past INT64_MAX ends there, and
 * INT64_MAX alone lands in the overflow bucket.
 */
#pragma D option quiet
BEGIN
{
	@a = llquantize(1000000000000000000, 10, 0, 19, 10);
	@a = llquantize(5000000000000000000, 10, 0, 19, 10);
	@a = llquantize(9223372036854775806, 10, 0, 19, 10);
	@a = llquantize(9223372036854775807, 10, 0, 19, 10);
	@b = llquantize(4611686018427387904, 2, 0, 63, 2);
	@b = llquantize(9223372036854775807, 2, 0, 63, 2);
	@c = llquantize(4052555153018976267, 3, 0, 41, 3);
	@c = llquantize(8105110306037952534, 3, 0, 41, 3);
	@d = llquantize(65535, 65535, 0, 4, 65535);
	@e = llquantize(7, 1000, 6, 7, 1000);
	@e = llquantize(1000000000000000000, 1000, 6, 7, 1000);
	exit(0);
}
