/* an action has no value: it is void to printf( ) */
BEGIN
{
	printf("%d\n", trace(1));
}
