/* A thread-local variable read before any assignment. */
BEGIN
{
	trace(self->x);
}
