/* the left side of op= is judged before an action on its right */
BEGIN
{
	n |= printf("x");
	exit(0);
}
