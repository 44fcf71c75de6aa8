/* args[0] of BEGIN, named by its provider: it has no arguments */
dtrace:::BEGIN
{
	trace(arg0);
	trace(args[0]);
	exit(0);
}
