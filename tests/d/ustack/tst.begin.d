/*
 * ustack() where there is no user thread (BEGIN runs in the daemon for
 * the consumer): the stack is empty, a newline alone.
 */
BEGIN
{
	ustack();
	exit(0);
}
