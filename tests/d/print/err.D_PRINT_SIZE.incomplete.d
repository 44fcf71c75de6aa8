/* print() of a pointer to a struct only declared: nothing to show */
struct later;

BEGIN
{
	print((struct later *)0);
	exit(0);
}
