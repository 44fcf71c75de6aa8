/*
 * An extern declaration takes no storage, but a clause that reads one
 * too big for a variable is refused when compiled, as a global is.
 */
extern int e[300][300];

BEGIN
{
	trace(e[1][2]);
	exit(0);
}
