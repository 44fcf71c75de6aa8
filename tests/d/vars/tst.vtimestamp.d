/* vtimestamp: nanoseconds on CPU, never going back within a thread */
#pragma D option quiet

BEGIN
{
	this->a = vtimestamp;
	this->b = vtimestamp;
	printf("%d %d\n", this->a > 0, this->b >= this->a);
	exit(0);
}
