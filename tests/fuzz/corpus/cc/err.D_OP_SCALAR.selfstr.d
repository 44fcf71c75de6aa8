/* ++ needs an integer, also on self->. */
BEGIN
{
	self->s = "x";
	self->s++;
}
