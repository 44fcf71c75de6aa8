BEGIN
{
	@a[1] = count();
	printa("%s %@d\n", @a);
}
