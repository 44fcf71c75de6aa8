/* an aggregation is not a value printf( ) can print */
BEGIN
{
	@c = count();
	printf("%u %d\n", 1, @c);
}
