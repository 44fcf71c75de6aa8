/* The same for a thread-local array. */
BEGIN
{
	self->a["x"] = 3;
	self->a["x", "y"]++;
}
