BEGIN
{
	self->sum += 5;
	exit(0);
}
