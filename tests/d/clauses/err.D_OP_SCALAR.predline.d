/*
 * An error in a predicate is reported at the line of the "{" after it,
 * as illumos reads the blanks after the closing / with it.
 */
BEGIN
/"a" || "b"/
{
	exit(0);
}
