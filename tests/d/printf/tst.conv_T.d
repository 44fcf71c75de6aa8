/* @@args: -q */
/*
 * %T: an RFC 822 date in local time (TZ=UTC here), its year ISO 8601's
 * week-based one as illumos prints it: 1 Jan 2021, a Friday, is in 2020.
 */
BEGIN
{
	printf("%T\n", (uint64_t)0);
	printf("[%-32T]\n", (uint64_t)1609459200 * 1000000000);
	@when = max(1700000000000000000);
	printa("%@T and %@Y\n", @when);
	exit(0);
}
