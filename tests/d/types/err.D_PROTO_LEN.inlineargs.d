/* an inline with two parameters given one argument */
inline int span[int lo, int hi] = hi - lo + 1;
BEGIN
{
	trace(span[3]);
	exit(0);
}
