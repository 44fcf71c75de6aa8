/* nor a positional width */
BEGIN
{
	printf("%*2$x\n", 1, 8);
}
