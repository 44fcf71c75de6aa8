/* print() takes a pointer, an array or a float: a string is refused */
BEGIN
{
	print(execname);
	exit(0);
}
