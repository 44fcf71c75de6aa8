/* a string, but not a constant: the format must be known when compiling */
BEGIN
{
	printf(probefunc);
}
