#pragma D option quiet

BEGIN
{
	trace("hello");
	trace(" world\n");
	exit(0);
}
