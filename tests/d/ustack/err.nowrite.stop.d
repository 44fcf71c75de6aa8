/* without -w, tracing does not start */
BEGIN
{
	stop();
	exit(0);
}
