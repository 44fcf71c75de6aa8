/* an empty format prints nothing and is refused */
BEGIN
{
	printf("");
}
