/* an inline with parameters is used with its arguments, never bare */
inline int twice[int v] = v * 2;
BEGIN
{
	trace(twice);
	exit(0);
}
