/* A clause-local variable read before any assignment. */
BEGIN
{
	trace(this->x);
}

BEGIN
{
	this->x = 1;
}
