/* D has no positional arguments (%n$) */
BEGIN
{
	printf("%2$s %1$s\n", "a", "b");
}
