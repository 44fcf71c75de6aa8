/* printa()'s %k takes a stack key: an integer key is refused */
BEGIN
{
	@[5] = count();
	printa("%k %@d\n", @);
}
