/* print() of a void pointer: the object has no type */
BEGIN
{
	print((void *)0);
	exit(0);
}
