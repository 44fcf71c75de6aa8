/* a backquote with no symbol after it names nothing: illumos's words */
BEGIN
{
	trace(sizeof (`));
	exit(0);
}
