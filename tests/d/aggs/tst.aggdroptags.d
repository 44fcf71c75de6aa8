/* @@args: -x cpu=0 -x aggsize=512 -x droptags */
#pragma D option quiet
/*
 * An aggregation buffer of 512 bytes holds 12 entries of 40 (24 of
 * header, an 8-byte key, a count): the other 5 keys are dropped and
 * reported, 12 + 5 = 17, with their tag under -x droptags.
 */
BEGIN
{
	@[1] = count(); @[2] = count(); @[3] = count(); @[4] = count();
	@[5] = count(); @[6] = count(); @[7] = count(); @[8] = count();
	@[9] = count(); @[10] = count(); @[11] = count(); @[12] = count();
	@[13] = count(); @[14] = count(); @[15] = count(); @[16] = count();
	@[17] = count();
	exit(0);
}
