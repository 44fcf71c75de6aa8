/* print() takes a pointer: an integer is refused with its prototype */
BEGIN
{
	x = 3;
	print(x);
	exit(0);
}
