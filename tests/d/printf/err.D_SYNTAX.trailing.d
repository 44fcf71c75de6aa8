/* a format that ends inside a conversion */
BEGIN
{
	printf("value %-08", 3);
}
