/* trace() of strings: left-justified in 33 columns after two spaces. */
BEGIN
{
	trace("hello");
	trace("a string that is longer than thirty-three columns");
	trace("tab\there");
	exit(0);
}
