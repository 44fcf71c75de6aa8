/* A thread-local variable keeps the type of its first assignment. */
BEGIN
{
	self->x = 1;
	self->x = "one";
}
